"""NeoCoder's configs: an eval (``EvalConfig``), the validated dataset's build
(``DatasetConfig``) and Denial Prompting chains (``ChainConfig``), each option declared
once (neocoder/options.py), with the model defaults of each role (``roles``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import ClassVar

from neocoder.benchmarks.neocoder.paper import DECLARED, parse_paper
from neocoder.benchmarks.neocoder.strategies.options import BEST_OF, LOGPROBS, ROLLOUTS, ROUNDS, STRATEGY, TOP_K
from neocoder.config import (
    BOOTSTRAP,
    BOOTSTRAP_SEED,
    LANGUAGE,
    MAX_ERRORS,
    PROGRESS,
    Config,
    GenerateDefaults,
    ModelConfig,
    SandboxConfig,
)
from neocoder.options import Option, option, parse_problems, parse_shard, parse_states

VALIDATED, RELEASE = "validated", "release"  # the datasets named rather than given as a path


def dataset_arg(text: str | None) -> Path | str | None:
    """``--dataset`` (or a request's ``dataset``) as EvalConfig holds it: None or
    "validated" -> None (the validated dataset shipped with neocoder), "release" stays a
    name, anything else is a path."""
    if text in (None, VALIDATED):
        return None
    return RELEASE if text == RELEASE else Path(text)


def dataset_name(dataset: Path | str | None) -> str:
    """The name a server knows a dataset by ("validated" or "release"); the inverse of
    ``dataset_arg`` for those two.  Raises ValueError for a path (a server judges only
    its own datasets)."""
    if dataset is None:
        return VALIDATED
    if str(dataset) == RELEASE:
        return RELEASE
    raise ValueError(f"{dataset}: a server judges its own dataset or the release's, not a path")


@dataclass
class EvalConfig(Config):
    """``neocoder eval``: a model on NeoCoder problem states.

    ``dataset`` is a problem-states JSONL file or run folder from ``build-dataset``,
    "release" (the release at ``release_dir``, converted), or None: the validated dataset
    shipped with neocoder (no release needed).  ``states`` are the t to
    evaluate; ``problems`` (None: all) the problem ids; ``limit`` keeps the first N problems
    of those; ``samples`` per state; the CPU-time
    limit per test is the problem's time limit times ``cpu_scale`` (for ``language`` "cpp"
    the problem's own Codeforces limit, docs/sandbox.md).  ``out`` is the run
    folder (an existing one is resumed).  ``model.spec == "human"`` gives the human
    baselines (Eq. 5, 6) instead.
    """

    # greedy, 1024 tokens a program; a reasoning model's budget covers its thinking too
    roles: ClassVar[dict[str, GenerateDefaults]] = {
        "model": GenerateDefaults(temperature=0.0, max_tokens=1024, reasoning_max_tokens=16384)}

    model: ModelConfig = Option(help="The model evaluated (or 'human').", required=True).field()
    out: Path
    release_dir: Path
    dataset: Path | str | None = option(
        None, "Problem states: a build-dataset run folder or JSONL file, or 'release' for the release's statement "
        "examples with plain checkers (default: the validated dataset shipped with neocoder; see "
        "docs/dataset.md).", parse=dataset_arg)
    states: list[int] = Option(help="States t to evaluate.", ge=0, cap=20, parse=parse_states, text="0-5",
                               factory=lambda: list(range(6))).field()
    limit: int | None = option(None, "Only the first N problems.", ge=1)
    problems: list[str] | None = option(None, "Only these problems: ID[,ID...] or @FILE (a file of ids, one per "
                                        "line); an unknown id is refused.", parse=parse_problems)
    samples: int = option(1, "Samples per problem state, each with its own seed (pass --temperature): pass@k, "
                          "best-of-k NeoGauge and semantic entropy need n >= 2; every test is then judged.",
                          ge=1, cap=100)
    cpu_scale: float = option(1.0, "Multiply each problem's time limit by this for the CPU-time limit per test.",
                              gt=0, cap=10)
    language: str = LANGUAGE.field()
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = BOOTSTRAP_SEED.field()
    judge_all_tests: bool = option(False, "Judge every test of every sample (default: a sample stops at its first "
                                   "failing test and runs the extended tests only when every example passed; no "
                                   "rate changes).")
    strategy: str = STRATEGY.field()
    rounds: int = ROUNDS.field()
    rollouts: int = ROLLOUTS.field()
    top_k: int = TOP_K.field()
    best_of: int = BEST_OF.field()
    logprobs: bool = LOGPROBS.field()
    paper: list[str] = Option(help="Judge as the release's own harness did (docs/paper.md): 'all' (with --dataset "
                              "release: the paper mode) or some of " + ", ".join(DECLARED) + "; default none.",
                              choices=DECLARED, parse=parse_paper, text="none", factory=list).field()
    # not a service option (local): it runs ~25 human programs per problem outside the quotas
    execution_classes: bool = option(False, "Also class the correct programs, and the humans' Python solutions, by "
                                     "execution: complexity fitted to operation counts on grown inputs (slow the "
                                     "first time, then cached; needs the release's human solutions; docs/metrics.md).",
                                     local=True)
    shard: str | None = option(None, "K/N: judge only the K-th of N parts of the problems, so that N driver "
                               "processes share one run folder (docs/scale-out.md); metrics.json is then written by "
                               "the same command without --shard once every part is done.", parse=parse_shard,
                               local=True, manifest=False)  # how this machine splits its work, not what the run is
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()

    def strategy_options(self):
        """The strategy's options (strategies.StrategyOptions) as this config sets them:
        each declared once in strategies/options.py and held here as a field of its own."""
        from neocoder.benchmarks.neocoder.strategies import StrategyOptions
        return StrategyOptions(**{f.name: getattr(self, f.name) for f in fields(StrategyOptions)})

    def all_tests(self) -> bool:
        """Whether every test of every sample is judged: asked for, or needed by semantic
        entropy's behaviour classes, which take every test's outcome (n >= 2 samples;
        docs/metrics.md)."""
        return self.judge_all_tests or self.samples >= 2


@dataclass
class DatasetConfig(Config):
    """``neocoder build-dataset`` from the release: convert, then (``oracle``) validate the
    examples with the accepted human solutions and add ``extended`` mutated tests labelled
    by ``label_humans`` agreeing humans (neocoder/oracle.py)."""

    release_dir: Path
    out: Path
    oracle: bool = option(True, "Validate the examples with the accepted human Python solutions in the sandbox and "
                          "add extended tests (neocoder/oracle.py); --no-oracle only converts the release.")
    extended: int = option(20, "Mutated candidate inputs per problem (kept only where the humans agree).", ge=0)
    label_humans: int = option(10, "Human solutions that label each extended test (all must agree).", ge=5)
    limit: int | None = option(None, "Only the first N problems.", ge=1)
    seed: int = option(0, "Seed of the input mutations / chains.")
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    progress: bool = PROGRESS.field()



@dataclass
class ChainConfig(Config):
    """``neocoder build-dataset --model``: Denial Prompting chains (neocoder/denial.py) for
    raw problems (``problems``; None: the release's crawl) with ``rounds`` rounds."""

    roles: ClassVar[dict[str, GenerateDefaults]] = {"model": GenerateDefaults(temperature=0.0, max_tokens=1024)}

    model: ModelConfig = Option(help="The augmentation model.", required=True).field()
    release_dir: Path
    out: Path
    problems: Path | None = option(None, "Raw problems JSONL for --model (default: the release's crawl).", file=True)
    limit: int | None = option(None, "Only the first N problems.", ge=1)
    rounds: int = option(5, "Denial Prompting rounds.", ge=0)
    seed: int = option(0, "Seed of the input mutations / chains.")
    detector: str = option("treesitter", "Technique detector: tree-sitter rules, or the augmentation model (llm).",
                           choices=("treesitter", "llm"))
    concurrency: int = option(2, "Problems judged at once (--model); --max-connections more wait on the model.",
                              ge=1)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()
    language: str = LANGUAGE.field()  # the chains' programs: asked for, judged and detected in it
