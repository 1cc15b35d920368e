"""The creativity-evaluation framework's declaration (neocoder/benchmarks/descriptor.py): its
tasks, records, headline measures, suite sizes and the surfaces' extensions.

Divergent creativity is the mean semantic entropy of a step's candidates (the paper's
Eq. 3, averaged over the steps); convergent creativity the share of solutions the
retrieval-based multi-agent judge found feasible, and effective (MacGyver's criteria).
"""

from __future__ import annotations

from neocoder.benchmarks.descriptor import CONVERGENT, DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import answers_text, interval_value

FRAMEWORK = "framework"  # the step-wise loop and the judges (task.py)
FRAMEWORK_VALIDATE = "framework-validate"  # the judges against ground truth (validate.py)
SOURCE = "creativity-evaluation framework (docs/framework.md)"

def run_items(folder, model: str) -> list[str]:
    """The problems (``domain/problem id``) a run solved with ``model``, sorted."""
    from pathlib import Path

    from neocoder.benchmarks.framework.records import FrameworkSolution
    from neocoder.store import RunFolder
    return sorted({f"{s.domain}/{s.problem_id}" for s in RunFolder(Path(folder), create=False).read(FrameworkSolution)
                   if s.model == model})


def default_items(manifest) -> int | None:
    """The problems of a shipped domain (MacGyver, code); None for a user's data file."""
    domain = manifest.config.get("domain", "macgyver")
    if domain not in ("macgyver", "code"):
        return None
    from neocoder.benchmarks.framework.domains import load_problems
    return len(load_problems(domain))


def default_ids(manifest) -> set[str] | None:
    """The ``domain/problem id``s of a shipped domain (MacGyver, code); None for a user's
    data file."""
    domain = manifest.config.get("domain", "macgyver")
    if domain not in ("macgyver", "code"):
        return None
    from neocoder.benchmarks.framework.domains import load_problems
    return {f"{p.domain}/{p.problem_id}" for p in load_problems(domain)}


BENCHMARK = Benchmark(
    name=FRAMEWORK, title="Step-wise framework: MacGyver problems",
    tasks={FRAMEWORK: "neocoder.benchmarks.framework.task:FrameworkTask",
           FRAMEWORK_VALIDATE: "neocoder.benchmarks.framework.validate:ValidateTask"},
    records={"framework_step": "neocoder.benchmarks.framework.records:FrameworkStep",
             "framework_solution": "neocoder.benchmarks.framework.records:FrameworkSolution",
             "framework_judged": "neocoder.benchmarks.framework.records:JudgedPair"},
    unit="problem",
    measures=(
        Measure("entropy", "semantic entropy per step", DIVERGENT, "nats", interval_value("divergent", "mean"),
                SOURCE),
        Measure("feasible", "judged feasible", CONVERGENT, "fraction",
                interval_value("judges", "retrieval", "yes", "feasibility"), SOURCE),
        Measure("effective", "judged effective", CONVERGENT, "fraction",
                interval_value("judges", "retrieval", "yes", "effectiveness"), SOURCE),
        Measure("overall", "judged overall (mean of the criteria)", CONVERGENT, "fraction",
                interval_value("judges", "retrieval", "overall"), SOURCE + ", Tables 3-5 \"Overall\""),
    ),
    presets={QUICK: {"limit": 5, "candidates": 4, "max_steps": 4}, FULL: {}},
    answers=answers_text, needs_judges=True,
    section="neocoder.report.sections.framework:FrameworkSection",
    commands=("neocoder.cli.framework",),
    inspect=("neocoder.inspect_tasks.framework_task",),
    tables="neocoder.benchmarks.framework.tables:tables",
    items=run_items, default_items=default_items, default_ids=default_ids,
    recompute="neocoder.benchmarks.framework.verify:recompute",
    verify="neocoder.benchmarks.framework.verify:rescore",
    published="neocoder.report.sections.framework_published:published_rows",
)
