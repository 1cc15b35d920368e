"""What a run is asked to do: one config type per task, and one for a model.

Each field declares its default, its check and its help once (``Option``,
neocoder/options.py); the strategies' options are declared by the strategies
(strategies/options.py) and taken from there.  The command line builds its options from
these declarations (cli/declared.py), the HTTP service its request schemas
(serve/derive.py), and the client sends a config field by field as declared, so an
option added here reaches every surface.  ``public()`` gives the dict that goes into a
run's manifest (API keys are never in it); ``check()`` refuses a value outside its
declaration.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .options import Option, check, option, parse_shard, parse_states
from .paper import DECLARED, parse_paper
from .strategies.options import BEST_OF, LOGPROBS, ROLLOUTS, ROUNDS, STRATEGY, TOP_K

# AidanBench's stop rule (its README): an answer with coherence <= 15 (0-100 judge scale) or
# novelty <= 0.15 ends a question.  Defaults of the config; aidanbench/scoring.py uses them.
COHERENCE_STOP = 15.0  # on the README's 0-100 coherence scale
COHERENCE_STOP_10 = 3.0  # on the AidanBench paper's 1-10 scale (stop at <= 3)
NOVELTY_STOP = 0.15

# The sandbox kinds and executors by name: one constant each, the keys of
# judge.make_sandbox's backends and executors.EXECUTORS.
DOCKER, PROCESS = "docker", "process"
LOCAL, RAY = "local", "ray"

SECRET_FIELDS = {"api_key"}  # never written to a manifest, a log or a report
LOCAL_FIELDS = {"progress", "ray_address", "shard"}  # how and where this process works, not what the run is


def _plain(value):
    if isinstance(value, Config):
        return value.public()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Config:
    """Base of the config dataclasses: ``public()`` for the manifest."""

    def public(self) -> dict:
        """The config as plain JSON values, without secrets (API keys) or display options."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)
                if f.name not in SECRET_FIELDS | LOCAL_FIELDS}

    def check(self) -> None:
        """Refuse a value outside its declaration: NeocoderError naming the field."""
        check(self)


@dataclass
class ModelConfig(Config):
    """A model and how to call it (``--model`` and the shared model options).

    ``spec`` is ``PROVIDER/NAME`` (models/__init__.py lists the providers).  ``timeout``
    is seconds per call (None: the provider's default); ``max_retries`` are retries with
    backoff on 429, 5xx and timeouts; ``max_connections`` bounds the calls in flight to the
    model (None: the provider's default; models/limiter.py); ``seed`` is sent to endpoints
    that accept one.  ``release_dir``, when given, is a release whose recorded codes
    ``replay/gpt-4-1106-preview`` answers with (default: the codes shipped with neocoder).
    """

    spec: str = Option(help="PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/<source>.",
                       required=True, flag="--model").field()
    base_url: str | None = option(None, "OpenAI-compatible endpoint (or $OPENAI_BASE_URL).")
    api_key: str | None = option(None, "API key (or $OPENAI_API_KEY); never written to a run.")
    api: str | None = option(None, "Chat or completions API (default: chat; completion for local base models).",
                             choices=("chat", "completion"))
    temperature: float = option(0.0, "Sampling temperature.", ge=0, cap=2)
    top_p: float | None = option(None, "Nucleus sampling: sample from the smallest token set of this much probability "
                                 "(None: the endpoint's default, 1).", gt=0, le=1)
    max_tokens: int = option(1024, "Tokens per reply at most.", ge=1, cap=32768)
    timeout: float | None = option(None, "Seconds per model call.", gt=0, cap=3600)
    max_retries: int = option(3, "Retries with backoff on 429, 5xx and timeouts (each call's own; see "
                              "--max-connections for the run-wide slowdown).", ge=0, cap=10)
    max_connections: int | None = option(
        None, "Model calls in flight at once, apart from --workers (default: 16 for an API, 1 for a local "
        "llama.cpp model); fewer while the endpoint answers 429 or 5xx (docs/models.md).", ge=1, cap=64)
    seed: int | None = option(0, "Sampling seed, sent to endpoints that accept one.", flag="")
    release_dir: Path | None = option(None, "A release whose recorded codes replay/gpt-4-1106-preview answers with "
                                      "(default: the shipped ones).",
                                      local=True, flag="")

    def with_(self, **changes) -> "ModelConfig":
        """A copy with some fields changed (e.g. a judge's temperature and max_tokens)."""
        return ModelConfig(**{**asdict(self), **changes})


@dataclass
class SandboxConfig(Config):
    """Where programs run (``--sandbox``, ``--fresh``, ``--runtime``, ``--workers``) and who
    schedules the judge jobs (``--executor``: ``local``, this machine's warm pool, or ``ray``,
    sandbox-pool actors on the Ray cluster at ``ray_address``; docs/scale-out.md)."""

    kind: str = option(DOCKER, "docker (strong isolation) or process (weaker: no Docker needed; see "
                       "docs/sandbox.md).", choices=(DOCKER, PROCESS), flag="--sandbox", local=True)
    fresh: bool = option(False, "A new container per submission instead of the warm pool.", local=True)
    runtime: str | None = option(None, "Docker runtime, e.g. runsc where gVisor is installed.", local=True)
    workers: int = Option(help="Submissions judged at once.", ge=1, local=True,
                          factory=lambda: os.cpu_count() or 1).field()
    executor: str = option(LOCAL, "Who judges: this machine's warm pool, or sandbox actors on a Ray cluster "
                           "(pip install 'neocoder[ray]'; docs/scale-out.md).", choices=(LOCAL, RAY), local=True)
    ray_address: str | None = option(None, "The Ray cluster for --executor ray (e.g. auto or HOST:PORT; default: "
                                     "$RAY_ADDRESS, else a local Ray started for this run).", local=True)


def dataset_arg(text: str | None) -> Path | str | None:
    """``--dataset``: 'release' stays a name, anything else is a path."""
    return text if text in (None, "release") else Path(text)


@dataclass
class EvalConfig(Config):
    """``neocoder eval``: a model on NeoCoder problem states.

    ``dataset`` is a problem-states JSONL file or run folder from ``build-dataset``,
    "release" (the release at ``release_dir``, converted), or None: the validated dataset
    shipped with neocoder (no release needed).  ``states`` are the t to
    evaluate; ``limit`` keeps the first N problems; ``samples`` per state; the CPU-time
    limit per test is the problem's time limit times ``cpu_scale``.  ``out`` is the run
    folder (an existing one is resumed).  ``model.spec == "human"`` gives the human
    baselines (Eq. 5, 6) instead.
    """

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
    samples: int = option(1, "Samples per problem state, each with its own seed (pass --temperature): pass@k, "
                          "best-of-k NeoGauge and semantic entropy need n >= 2; every test is then judged.",
                          ge=1, cap=100)
    cpu_scale: float = option(1.0, "Multiply each problem's time limit by this for the CPU-time limit per test.",
                              gt=0, cap=10)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    bootstrap: int = option(2000, "Bootstrap resamples of problems for the 95% intervals (neocoder/bootstrap.py).",
                            ge=2, cap=100000)
    bootstrap_seed: int = option(0, "Seed of the bootstrap resampling (the same seed gives the same intervals).",
                                 flag="--seed")
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
    execution_classes: bool = option(False, "Also class the correct programs, and the humans' Python solutions, by "
                                     "execution: complexity fitted to operation counts on grown inputs (slow the "
                                     "first time, then cached; needs the release's human solutions; docs/metrics.md).",
                                     local=True)  # not a service option: it runs ~25 human programs per problem outside the quotas
    shard: str | None = option(None, "K/N: judge only the K-th of N parts of the problems, so that N driver "
                               "processes share one run folder (docs/scale-out.md); metrics.json is then written by "
                               "the same command without --shard once every part is done.", parse=parse_shard,
                               local=True)  # how this machine splits its work, not what the run is
    progress: bool = option(True, "Show a progress bar.", local=True, flag="")



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
    progress: bool = option(True, "Show a progress bar.", local=True, flag="")



@dataclass
class ChainConfig(Config):
    """``neocoder build-dataset --model``: Denial Prompting chains (neocoder/denial.py) for
    raw problems (``problems``; None: the release's crawl) with ``rounds`` rounds."""

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
    progress: bool = option(True, "Show a progress bar.", local=True, flag="")



@dataclass
class AidanConfig(Config):
    """``neocoder aidanbench``: ``model`` answers each question until the ``judge`` (None:
    novelty only) finds an answer incoherent (score <= ``coherence_stop``) or the embedder
    finds it repetitive (novelty <= ``novelty_stop``), or ``max_answers`` is reached."""

    model: ModelConfig = Option(help="The generator.", required=True).field()
    judge: ModelConfig | None = Option(help="The coherence judge (None: novelty only).", required=True).field()
    out: Path
    embedder: str = option("local/all-MiniLM-L6-v2", "local/all-MiniLM-L6-v2 (offline) or openai/<embedding model>.")
    questions: Path | None = option(None, "One question per line (default: the 65 AidanBench questions).",
                                    file=True)
    limit: int | None = option(None, "Only the first N questions.", ge=1)
    max_answers: int = option(100, "Answers per question at most.", ge=1, cap=1000)
    coherence_stop: float | None = option(
        None, f"Stop at coherence <= this, on the scale (default: {COHERENCE_STOP:g} on 0-100, "
        f"{COHERENCE_STOP_10:g} on 1-10).")
    novelty_stop: float = option(NOVELTY_STOP, "Stop at novelty <= this.")
    llm_similarity: bool = option(False, "Also stop when the judge rates an answer as similar to an earlier one "
                                  "(1 - max similarity/100 <= --novelty-stop).")
    judge_retries: int = option(2, "Asks again after an unparseable judge reply, then records an error.", ge=0,
                                cap=10)
    concurrency: int = option(1, "Questions in flight at once.", ge=1, cap=32)
    bootstrap: int = option(2000, "Bootstrap resamples of questions for the 95% intervals.", ge=2, cap=100000)
    bootstrap_seed: int = option(0, "Seed of the bootstrap resampling (the same seed gives the same intervals).",
                                 flag="--seed")
    coherence_scale: int = option(100, "The judge's coherence scale: 0-100 (the README's) or 1-10 (the paper's).",
                                  choices=(100, 10))
    cot: bool = option(False, "Chain-of-thought answer prompt: the generator reasons first, and its answer is what "
                       "follows 'Answer:'.")
    mmr_lambda: float = option(0.5, "MMR_AB's weight on coherence against redundancy (paper Eq. 3).", ge=0.0, le=1.0)
    entailment: str | None = option(None, "Semantic entropy of each question's answers, with meaning classes from "
                                    "bidirectional entailment asked of the judge, or from embedding similarity "
                                    "(an approximation).", choices=("judge", "embedding"))
    entailment_threshold: float = option(0.85, "--entailment embedding: cosine similarity at or above which an "
                                         "answer joins a class.", ge=-1.0, le=1.0)
    progress: bool = option(True, "Show a progress bar.", local=True, flag="")

    def stop_at_coherence(self) -> float:
        """The coherence stop in force: ``coherence_stop``, else the scale's default."""
        if self.coherence_stop is not None:
            return self.coherence_stop
        return COHERENCE_STOP_10 if self.coherence_scale == 10 else COHERENCE_STOP


@dataclass
class RescoreConfig(Config):
    """``neocoder aidanbench rescore``: the AidanBench run folder ``run`` re-scored with the
    thresholds given (None: the run's own), with no model call, into ``out`` (None:
    beside the run, ``<run>-rescore-c<X>-n<Y>``).  Coherence thresholds are on the run's
    coherence scale."""

    run: Path = Option(help="The AidanBench run folder to re-score (never changed).", required=True).field()
    out: Path | None = None
    coherence_stop: float | None = option(None, "Stop at coherence <= this, on the run's scale (default: the run's).")
    novelty_stop: float | None = option(None, "Stop at novelty <= this (default: the run's).")
    max_answers: int | None = option(None, "Answers per question at most (default: the run's).", ge=1)
    mmr_lambda: float | None = option(None, "MMR_AB's lambda (default: the run's).", ge=0.0, le=1.0)
    bootstrap: int | None = option(None, "Bootstrap resamples of questions (default: the run's).", ge=2, cap=100000)
    bootstrap_seed: int | None = option(None, "Seed of the bootstrap resampling (default: the run's).", flag="--seed")
    progress: bool = option(False, "Show a progress bar.", local=True, flag="")


@dataclass
class IdeasConfig(Config):
    """``neocoder ideas`` (LiveIdeaBench): ``model`` writes ``ideas_per_keyword`` research
    ideas for each keyword; ``judges_per_idea`` judges drawn with ``seed`` from ``judges``
    (never the idea model itself) score originality, feasibility and clarity 1-10; one judge
    grades fluency per keyword.  Ideas over ``max_words`` words are left out and counted.
    ``judge_names`` name the panel's seats (one per judge; None: their specs), so one model
    can sit in several seats; a seat never judges ideas of its own spec (docs/ideas.md)."""

    model: ModelConfig = Option(help="The idea model.", required=True).field()
    judges: list[ModelConfig] = Option(help="The judge panel.", required=True).field()
    out: Path
    keywords: Path | None = option(None, "A .csv with a keyword column (and category), or one keyword per line "
                                   "(default: LiveIdeaBench's 1180 keywords from $LIVEIDEABENCH_DIR or "
                                   "../shared/liveideabench).", file=True)
    limit: int | None = option(None, "Only the first N keywords.", ge=1)
    ideas_per_keyword: int = option(3, "Ideas per keyword; fluency grades a keyword with at least 2 kept ideas.",
                                    ge=1, cap=20)
    judges_per_idea: int = option(3, "Judges drawn from the panel for each idea.", ge=1, cap=20)
    max_words: int = option(200, "Ideas over this many words are left out and counted.", ge=1)
    judge_retries: int = option(2, "Asks again after an unparseable judge reply, then records an error.", ge=0,
                                cap=10)
    seed: int = option(0, "Seed of the judge draws.")
    concurrency: int = option(1, "Keywords in flight at once.", ge=1, cap=32)
    bootstrap: int = option(2000, "Bootstrap resamples of keywords for the 95% intervals.", ge=2, cap=100000)
    bootstrap_seed: int = option(0, "Seed of the bootstrap resampling (the same seed gives the same intervals).")
    judge_names: list[str] | None = option(None, "The seats' names, one per judge (None: the judges' specs).",
                                           flag="")
    progress: bool = option(True, "Show a progress bar.", local=True, flag="")

