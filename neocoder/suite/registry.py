"""The suite's benchmarks: one ``Benchmark`` entry each, so adding a benchmark to
``neocoder suite`` (and to the creativity profile and the leaderboard) is one entry here.

An entry says which task runs it (neocoder.benchmarks), how the suite's config becomes that
task's config at each size (``PRESETS``: ``quick`` finishes in minutes on a hosted model,
``full`` is the papers' size), whether a model can answer it (a ``replay/`` model has
recordings for some benchmarks only; the suite's ``stand_in`` answers the others), and
its headline measures: which numbers of the run's ``metrics.json`` go into the profile,
each with its 95% interval and whether it measures convergent or divergent thinking.

Convergent and divergent follow Guilford's split as the benchmarks' papers use it:
NeoCoder (Lu et al., NAACL 2025, Eq. 5 and 6) names its two scores so; LiveIdeaBench
(Ruan et al. 2024) counts originality, fluency and flexibility as divergent and
feasibility and clarity as convergent; AidanBench (McLaughlin et al. 2024) counts how
many novel, coherent answers an open question gets, a fluency (divergent) measure.
NeoGauge (NeoCoder Eq. 4) is that benchmark's own composite of its two parts and is
shown as such, beside them; the suite makes no composite of its own.

The framework benchmark (branch i37, ``neocoder/benchmarks/framework/``) joins with
one more entry in ``BENCHMARKS`` (and its sizes in ``PRESETS``) once it is on main; the
suite's ``--benchmarks`` choices, the profile and the leaderboard's columns follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.config import ModelConfig

if TYPE_CHECKING:
    from neocoder.suite.config import SuiteConfig

QUICK, FULL = "quick", "full"

CONVERGENT, DIVERGENT, COMPOSITE = "convergent", "divergent", "composite"
LAST_STATE = 5  # NeoCoder's deepest Denial Prompting state (Table 4 reports t = 0..5)

# The sizes: per benchmark, the task options each preset sets (None: the task's default, all items).
PRESETS = {
    QUICK: {"eval": {"limit": 5}, "aidanbench": {"limit": 5, "max_answers": 10},
            "ideas": {"limit": 10, "ideas_per_keyword": 2}},
    FULL: {"eval": {}, "aidanbench": {}, "ideas": {}},
}


@dataclass(frozen=True)
class Measure:
    """One headline measure: ``key`` in the profile, ``label`` shown, its ``kind``
    (convergent, divergent or the benchmark's own composite), its scale, and where in the
    run's metrics.json its value and interval are (``pick(metrics, model) -> (value,
    interval dict | None)``)."""

    key: str
    label: str
    kind: str
    scale: str
    pick: Callable[[dict, str], tuple]
    source: str


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the suite (see the module)."""

    name: str  # the sub-folder and the task's name (neocoder.benchmarks)
    title: str
    task: str
    unit: str  # what its bootstrap resamples: the unit shared items are paired on
    measures: tuple[Measure, ...]
    make_config: Callable[[SuiteConfig, ModelConfig, Path], object]
    answers: Callable[[str], bool] = lambda spec: True  # can a model of this spec answer it?
    needs_judges: bool = False


def _recorded_only_for_eval(spec: str) -> bool:
    """A ``replay/gpt-4-1106-preview`` model holds NeoCoder's recorded codes only."""
    from neocoder.models.replay import RECORDED_MODELS
    return not (spec.startswith("replay/") and spec[len("replay/"):] in RECORDED_MODELS)


def _state(key: str, t: int):
    def pick(metrics: dict, _model: str) -> tuple:
        state = metrics.get("states", {}).get(str(t), {})
        return state.get(key), state.get("intervals", {}).get(key)
    return pick


def model_summary(metrics: dict, model: str) -> dict:
    """The summary of ``model`` in a run's ``metrics["models"]`` (the only one when the
    run has one model, whatever its name there); {} when it is missing."""
    models = metrics.get("models", {})
    if model in models:
        return models[model]
    return next(iter(models.values())) if len(models) == 1 else {}


def _model_total(key: str, interval_key: str | None = None, where: str | None = None):
    def pick(metrics: dict, model: str) -> tuple:
        summary = model_summary(metrics, model)
        value = (summary.get(where) or {}).get(key) if where else summary.get(key)
        return value, summary.get("intervals", {}).get(interval_key or key)
    return pick


def _eval_config(s: SuiteConfig, model: ModelConfig, out: Path) -> EvalConfig:
    return EvalConfig(model=model, out=out, release_dir=s.release_dir, sandbox=s.sandbox, bootstrap=s.bootstrap,
                      bootstrap_seed=s.bootstrap_seed, progress=s.progress, **PRESETS[s.preset]["eval"])


def _aidan_config(s: SuiteConfig, model: ModelConfig, out: Path) -> AidanConfig:
    judge = s.judges[0] if s.judges else None  # AidanConfig.roles gives its temperature and budget
    return AidanConfig(model=model, judge=judge, out=out, embedder=s.embedder, bootstrap=s.bootstrap,
                       bootstrap_seed=s.bootstrap_seed, progress=s.progress, **PRESETS[s.preset]["aidanbench"])


def _ideas_config(s: SuiteConfig, model: ModelConfig, out: Path) -> IdeasConfig:
    size = dict(PRESETS[s.preset]["ideas"])
    eligible = [j for j in s.judges if j.spec != model.spec]
    return IdeasConfig(model=model, judges=list(s.judges), out=out,
                       judges_per_idea=max(1, min(3, len(eligible))), bootstrap=s.bootstrap,
                       bootstrap_seed=s.bootstrap_seed, progress=s.progress,
                       judge_names=[f"judge{i + 1}" for i in range(len(s.judges))], **size)


NEOCODER_SOURCE = "NeoCoder (Lu et al., NAACL 2025)"
AIDAN_SOURCE = "AidanBench (McLaughlin et al. 2024)"
IDEAS_SOURCE = "LiveIdeaBench (Ruan et al. 2024)"

BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("eval", "NeoCoder: code under Denial Prompting", "eval", "problem", (
        Measure("pass@1_t0", "pass@1, t=0", CONVERGENT, "fraction", _state("pass@1", 0), NEOCODER_SOURCE + " Eq. 1"),
        Measure("convergent_t5", "convergent, t=5", CONVERGENT, "fraction", _state("convergent", LAST_STATE),
                NEOCODER_SOURCE + " Eq. 5"),
        Measure("divergent_t5", "divergent, t=5", DIVERGENT, "fraction", _state("divergent", LAST_STATE),
                NEOCODER_SOURCE + " Eq. 6"),
        Measure("neogauge_cum_t5", "NeoGauge cumulative, t<=5", COMPOSITE, "fraction",
                _state("cumulative_neogauge", LAST_STATE), NEOCODER_SOURCE + " Eq. 4 (its own composite)"),
    ), _eval_config),
    Benchmark("aidanbench", "AidanBench: open questions", "aidanbench", "question", (
        Measure("answers", "answers, summed over questions", DIVERGENT, "count", _model_total("answers"), AIDAN_SOURCE),
        Measure("novelty_sum", "novelty, summed", DIVERGENT, "sum", _model_total("novelty_sum"), AIDAN_SOURCE),
    ), _aidan_config, _recorded_only_for_eval),
    Benchmark("ideas", "LiveIdeaBench: ideas from keywords", "ideas", "keyword", (
        Measure("originality", "originality", DIVERGENT, "1-10", _model_total("originality"), IDEAS_SOURCE),
        Measure("fluency", "fluency", DIVERGENT, "1-10", _model_total("fluency"), IDEAS_SOURCE),
        Measure("flexibility", "flexibility", DIVERGENT, "1-10",
                _model_total("flexibility", "leaderboard.flexibility", where="leaderboard"), IDEAS_SOURCE),
        Measure("feasibility", "feasibility", CONVERGENT, "1-10", _model_total("feasibility"), IDEAS_SOURCE),
        Measure("clarity", "clarity", CONVERGENT, "1-10", _model_total("clarity"), IDEAS_SOURCE),
    ), _ideas_config, _recorded_only_for_eval, needs_judges=True),
)


def _framework() -> tuple[Benchmark, ...]:
    """The step-wise framework benchmark (issue 37, ``neocoder/benchmarks/framework/``) where
    this neocoder has it: MacGyver problems solved step by step (the divergent measure is
    the mean semantic entropy of a step's candidates) and judged per criterion by the
    retrieval-based multi-agent judge (the convergent measures: the share of solutions
    judged feasible, and effective).  Needs a judge (the suite's first)."""
    try:
        from neocoder.benchmarks.framework.config import FrameworkConfig
    except ImportError:
        return ()

    def make(s: "SuiteConfig", model: ModelConfig, out: Path):
        return FrameworkConfig(model=model, judge=s.judges[0], out=out, sandbox=s.sandbox,
                               bootstrap=s.bootstrap, bootstrap_seed=s.bootstrap_seed, progress=s.progress,
                               **PRESETS[s.preset].get("framework", {}))

    def mean(*path: str):
        def pick(metrics: dict, _model: str) -> tuple:
            node = metrics
            for key in path:
                node = (node or {}).get(key) or {}
            return node.get("value"), ({"low": node["low"], "high": node["high"]} if "low" in node else None)
        return pick

    source = "creativity-evaluation framework (issue 37; docs/framework.md)"
    return (Benchmark("framework", "Step-wise framework: MacGyver problems", "framework", "problem", (
        Measure("entropy", "semantic entropy per step", DIVERGENT, "nats", mean("divergent", "mean"), source),
        Measure("feasible", "judged feasible", CONVERGENT, "fraction",
                mean("judges", "retrieval", "yes", "feasibility"), source),
        Measure("effective", "judged effective", CONVERGENT, "fraction",
                mean("judges", "retrieval", "yes", "effectiveness"), source),
    ), make, _recorded_only_for_eval, needs_judges=True),)


PRESETS[QUICK]["framework"] = {"limit": 5, "candidates": 4, "max_steps": 4}
PRESETS[FULL]["framework"] = {}
BENCHMARKS = BENCHMARKS + _framework()  # present once the framework benchmark is merged
NAMES = tuple(b.name for b in BENCHMARKS)  # the suite's --benchmarks choices, in order


def benchmark(name: str) -> Benchmark:
    """The entry ``name``; KeyError for another name."""
    return {b.name: b for b in BENCHMARKS}[name]


def measure_of(bench: str, key: str) -> Measure:
    """The measure ``key`` of benchmark ``bench``; KeyError for another."""
    return {m.key: m for m in benchmark(bench).measures}[key]
