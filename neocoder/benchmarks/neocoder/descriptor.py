"""NeoCoder's declaration (neocoder/benchmarks/descriptor.py): its tasks, records, headline
measures, suite sizes and the surfaces' extensions.

The measures follow Lu et al., NAACL 2025: pass@1 at state 0 (Eq. 1), convergent and
divergent creativity at the deepest state of Table 4 (Eq. 5, 6; the per-sample terms are
Eq. 2, 3), and the cumulative NeoGauge over the states (Eq. 4), the paper's own composite.
Each has its per-problem values, so two runs on shared problems are compared pairwise.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from neocoder.benchmarks.descriptor import COMPOSITE, CONVERGENT, DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import state_value
from neocoder.records import HUMAN

EVAL = "eval"  # a model on Denial Prompting problem states (evaluation.py)
DATASET = "dataset"  # the validated dataset from the release (building.py)
CHAINS = "chains"  # Denial Prompting chains built with a model (chains.py)
LAST_STATE = 5  # the deepest Denial Prompting state Table 4 reports (t = 0..5)
SOURCE = "NeoCoder (Lu et al., NAACL 2025)"


@lru_cache(maxsize=64)
def _ratios(folder: Path) -> dict:
    from neocoder.metrics.rates import sample_ratios
    from neocoder.records import Sample
    from neocoder.store import RunFolder
    return sample_ratios(RunFolder(folder, create=False).read(Sample))


def per_problem(*terms: tuple[int, str]):
    """A ``Measure.per_item``: the per-problem Ratios of the rates ``(state t, rate)`` of a
    run's samples (metrics/rates.py ``sample_ratios``), one per term; None for a run with
    no samples (the human baselines)."""
    def read(folder: Path, _model: str):
        from neocoder.metrics.bootstrap import Ratio
        ratios = _ratios(Path(folder))
        if not ratios:
            return None
        return [ratios.get(t, {}).get(rate) or Ratio({}) for t, rate in terms]
    return read


def run_items(folder: Path, _model: str) -> list[str]:
    """The problems a run measured (its samples', or its human baselines'), sorted."""
    from neocoder.records import HumanBaseline, Sample
    from neocoder.store import RunFolder
    records = RunFolder(Path(folder), create=False).read()
    return sorted({r.problem_id for r in records if isinstance(r, (Sample, HumanBaseline))})


def default_items(manifest) -> int | None:
    """The problems of the dataset a run was drawn from: the shipped dataset's count for
    a run on it or on the release it was built from; None for a dataset of the user's."""
    from neocoder.dataset import shipped
    dataset = str(manifest.extra.get("dataset", ""))
    if manifest.extra.get("dataset_version") == shipped.version() or dataset.startswith("release"):
        return int(shipped.manifest()["counts"]["problems"])
    return None


BENCHMARK = Benchmark(
    name=EVAL, title="NeoCoder: code under Denial Prompting",
    tasks={EVAL: "neocoder.benchmarks.neocoder.evaluation:EvalTask",
           HUMAN: "neocoder.benchmarks.neocoder.evaluation:HumanTask",
           DATASET: "neocoder.benchmarks.neocoder.building:DatasetTask",
           CHAINS: "neocoder.benchmarks.neocoder.chains:ChainTask"},
    records={"problem_state": "neocoder.records:ProblemState", "sample": "neocoder.records:Sample",
             "human_baseline": "neocoder.records:HumanBaseline"},
    result_kinds=(EVAL, HUMAN), unit="problem",
    measures=(
        Measure("pass@1_t0", "pass@1, t=0", CONVERGENT, "fraction", state_value("pass@1", 0), SOURCE + " Eq. 1",
                per_item=per_problem((0, "pass@1"))),
        Measure("convergent_t5", "convergent, t=5", CONVERGENT, "fraction", state_value("convergent", LAST_STATE),
                SOURCE + " Eq. 5", per_item=per_problem((LAST_STATE, "convergent"))),
        Measure("divergent_t5", "divergent, t=5", DIVERGENT, "fraction", state_value("divergent", LAST_STATE),
                SOURCE + " Eq. 6", per_item=per_problem((LAST_STATE, "divergent"))),
        Measure("neogauge_cum_t5", "NeoGauge cumulative, t<=5", COMPOSITE, "fraction",
                state_value("cumulative_neogauge", LAST_STATE), SOURCE + " Eq. 4 (its own composite)",
                per_item=per_problem(*[(t, "neogauge") for t in range(LAST_STATE + 1)])),
    ),
    presets={QUICK: {"limit": 5}, FULL: {}},
    section="neocoder.report.sections.neocoder:NeoCoderSection",
    commands=("neocoder.cli.evaluate", "neocoder.cli.dataset", "neocoder.cli.diversity"),
    inspect=("neocoder.inspect_tasks.tasks",),
    tables="neocoder.benchmarks.neocoder.tables:tables",
    published="neocoder.report.sections.neocoder:published_rows",
    routes=("neocoder.serve.routes.evals:router",),
    items=run_items, default_items=default_items,
    default_ids="neocoder.benchmarks.neocoder.verify:dataset_ids",
    recompute="neocoder.benchmarks.neocoder.verify:recompute",
    verify="neocoder.benchmarks.neocoder.verify:rejudge",
)
