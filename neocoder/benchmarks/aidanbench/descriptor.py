"""AidanBench's declaration (neocoder/benchmarks/descriptor.py): its tasks, records, headline
measures, suite sizes and the surfaces' extensions.

AidanBench (McLaughlin et al. 2024) counts how many novel, coherent answers an open
question gets before one is incoherent or repetitive: a fluency, so divergent, measure.
Both measures are per-question sums, so two runs on shared questions are compared pairwise.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from neocoder.benchmarks.descriptor import DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import answers_text, model_value

AIDANBENCH = "aidanbench"  # answers until incoherent or repetitive (task.py)
AIDANBENCH_RESCORE = "aidanbench-rescore"  # the same run re-scored at other thresholds, no model call (task.py)
SOURCE = "AidanBench (McLaughlin et al. 2024)"


@lru_cache(maxsize=64)
def _questions(folder: Path, model: str) -> tuple:
    from neocoder.benchmarks.aidanbench.records import QuestionResult
    from neocoder.store import RunFolder
    return tuple(q for q in RunFolder(folder, create=False).read(QuestionResult) if q.model == model and q.finished)


def per_question(field: str):
    """A ``Measure.per_item``: the model's ``QuestionResult.<field>`` per question, as one Ratio."""
    def read(folder: Path, model: str):
        from neocoder.metrics.bootstrap import Ratio
        return [Ratio({q.question: float(getattr(q, field)) for q in _questions(Path(folder), model)})]
    return read


def run_items(folder: Path, model: str) -> list[str]:
    """The questions a run finished for ``model``, sorted."""
    return sorted({q.question for q in _questions(Path(folder), model)})


def default_items(manifest) -> int | None:
    """The 65 questions shipped (a run given its own --questions file: None)."""
    if manifest.config.get("questions"):
        return None
    from neocoder.benchmarks.aidanbench.task import load_questions
    return len(load_questions())


def suite_config(suite, model, out: Path, options: dict):
    """The AidanConfig the suite runs: the suite's first judge scores coherence (its
    temperature and budget from AidanConfig.roles), the suite's embedder novelty."""
    from neocoder.benchmarks.aidanbench.config import AidanConfig
    judge = suite.judges[0] if suite.judges else None
    return AidanConfig(model=model, judge=judge, out=out, embedder=suite.embedder, bootstrap=suite.bootstrap,
                       bootstrap_seed=suite.bootstrap_seed, progress=suite.progress, **options)


BENCHMARK = Benchmark(
    name=AIDANBENCH, title="AidanBench: open questions",
    tasks={AIDANBENCH: "neocoder.benchmarks.aidanbench.task:AidanTask",
           AIDANBENCH_RESCORE: "neocoder.benchmarks.aidanbench.task:RescoreTask"},
    records={"answer": "neocoder.benchmarks.aidanbench.records:Answer",
             "question": "neocoder.benchmarks.aidanbench.records:QuestionResult"},
    unit="question",
    measures=(
        Measure("answers", "answers, summed over questions", DIVERGENT, "count", model_value("answers"), SOURCE,
                per_item=per_question("answers")),
        Measure("novelty_sum", "novelty, summed", DIVERGENT, "sum", model_value("novelty_sum"), SOURCE,
                per_item=per_question("novelty_sum")),
    ),
    presets={QUICK: {"limit": 5, "max_answers": 10}, FULL: {}},
    suite_config=suite_config, answers=answers_text,
    section="neocoder.report.sections.aidanbench:AidanBenchSection",
    commands=("neocoder.cli.aidanbench",),
    inspect=("neocoder.inspect_tasks.loops",),
    items=run_items, default_items=default_items,
    default_ids="neocoder.benchmarks.aidanbench.verify:question_ids",
    recompute="neocoder.benchmarks.aidanbench.verify:recompute",
    verify="neocoder.benchmarks.aidanbench.verify:rescore",
)
