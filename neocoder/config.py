"""What a run is asked to do: one config type per command, and one for a model.

The CLI builds these from its options and hands them to the Python API
(``neocoder/api.py``); a notebook or another harness builds them directly.  ``public()``
gives the dict that goes into a run's manifest (API keys are never in it).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

# AidanBench's stop rule (its README): an answer with coherence <= 15 (0-100 judge scale) or
# novelty <= 0.15 ends a question.  Defaults of the config; aidanbench/scoring.py uses them.
COHERENCE_STOP = 15.0  # on the README's 0-100 coherence scale
COHERENCE_STOP_10 = 3.0  # on the AidanBench paper's 1-10 scale (stop at <= 3)
NOVELTY_STOP = 0.15

SECRET_FIELDS = {"api_key"}  # never written to a manifest, a log or a report
LOCAL_FIELDS = {"progress", "ray_address"}  # how and where this process works, not what the run is


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


@dataclass
class ModelConfig(Config):
    """A model and how to call it (``--model`` and the shared model options).

    ``spec`` is ``PROVIDER/NAME`` (models/__init__.py lists the providers).  ``timeout``
    is seconds per call (None: the provider's default); ``max_retries`` are the openai
    SDK's retries with backoff on 429, 5xx and timeouts; ``seed`` is sent to endpoints
    that accept one.  ``release_dir`` is where ``replay/gpt-4-1106-preview`` finds the
    recorded codes.
    """

    spec: str
    base_url: str | None = None
    api_key: str | None = None
    api: str | None = None  # "chat" or "completion"; None: the provider's default
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float | None = None
    max_retries: int = 3
    seed: int | None = 0
    release_dir: Path | None = None


    def with_(self, **changes) -> "ModelConfig":
        """A copy with some fields changed (e.g. a judge's temperature and max_tokens)."""
        return ModelConfig(**{**asdict(self), **changes})


@dataclass
class SandboxConfig(Config):
    """Where programs run (``--sandbox``, ``--fresh``, ``--runtime``, ``--workers``) and who
    schedules the judge jobs (``--executor``: ``local``, this machine's warm pool, or ``ray``,
    sandbox-pool actors on the Ray cluster at ``ray_address``; docs/scale-out.md)."""

    kind: str = "docker"  # "docker" (strong isolation) or "process" (weaker; docs/sandbox.md)
    fresh: bool = False  # a new container per submission instead of the warm pool
    runtime: str | None = None  # Docker runtime, e.g. runsc
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)  # submissions in flight at once
    executor: str = "local"  # "local" or "ray"
    ray_address: str | None = None  # a running cluster ("auto", "HOST:PORT"); None: ray.init's default


@dataclass
class EvalConfig(Config):
    """``neocoder eval``: a model on NeoCoder problem states.

    ``dataset`` is a problem-states JSONL file or run folder from ``build-dataset``
    (None: converted from the release at ``release_dir``).  ``states`` are the t to
    evaluate; ``limit`` keeps the first N problems; ``samples`` per state; the CPU-time
    limit per test is the problem's time limit times ``cpu_scale``.  ``out`` is the run
    folder (an existing one is resumed).  ``model.spec == "human"`` gives the human
    baselines (Eq. 5, 6) instead.
    """

    model: ModelConfig
    out: Path
    release_dir: Path
    dataset: Path | None = None
    states: list = field(default_factory=lambda: list(range(6)))
    limit: int | None = None
    samples: int = 1
    cpu_scale: float = 1.0
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    bootstrap: int = 2000  # bootstrap resamples of problems for the intervals (neocoder/bootstrap.py)
    bootstrap_seed: int = 0
    judge_all_tests: bool = False  # False: a sample stops at its first failing test (no rate changes)
    strategy: str = "direct"  # how a sample is solved (neocoder/strategies/): direct, self-correct, self-plan, mcts, sample
    rounds: int = 3  # self-correct: attempts after the first, each with the example tests' feedback
    rollouts: int = 16  # mcts: rollouts per state
    top_k: int = 3  # mcts: children per expansion (the top-k next tokens by log-probability)
    best_of: int = 5  # sample: programs drawn per state, the best convergent x divergent kept (Sec. 5.3)
    logprobs: bool = False  # ask for the final reply's token log-probabilities (semantic entropy, Rao-Blackwellised)
    progress: bool = True



@dataclass
class DatasetConfig(Config):
    """``neocoder build-dataset`` from the release: convert, then (``oracle``) validate the
    examples with the accepted human solutions and add ``extended`` mutated tests labelled
    by ``label_humans`` agreeing humans (neocoder/oracle.py)."""

    release_dir: Path
    out: Path
    oracle: bool = True
    extended: int = 20
    label_humans: int = 10
    limit: int | None = None
    seed: int = 0
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    progress: bool = True



@dataclass
class ChainConfig(Config):
    """``neocoder build-dataset --model``: Denial Prompting chains (neocoder/denial.py) for
    raw problems (``problems``; None: the release's crawl) with ``rounds`` rounds."""

    model: ModelConfig
    release_dir: Path
    out: Path
    problems: Path | None = None
    limit: int | None = None
    rounds: int = 5
    seed: int = 0
    detector: str = "treesitter"  # or "llm": the augmentation model labels techniques
    concurrency: int = 2
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    progress: bool = True



@dataclass
class AidanConfig(Config):
    """``neocoder aidanbench``: ``model`` answers each question until the ``judge`` (None:
    novelty only) finds an answer incoherent (score <= ``coherence_stop``) or the embedder
    finds it repetitive (novelty <= ``novelty_stop``), or ``max_answers`` is reached."""

    model: ModelConfig
    judge: ModelConfig | None
    out: Path
    embedder: str = "local/all-MiniLM-L6-v2"
    questions: Path | None = None  # one question per line (None: the 65 AidanBench questions)
    limit: int | None = None
    max_answers: int = 100
    coherence_stop: float | None = None  # None: the scale's default (COHERENCE_STOP or COHERENCE_STOP_10)
    novelty_stop: float = NOVELTY_STOP
    llm_similarity: bool = False
    judge_retries: int = 2
    concurrency: int = 1
    bootstrap: int = 2000  # bootstrap resamples of questions for the totals' intervals
    bootstrap_seed: int = 0
    coherence_scale: int = 100  # 100: the README's 0-100 judge prompt; 10: the paper's 1-10 scale
    cot: bool = False  # the chain-of-thought answer prompt variant
    mmr_lambda: float = 0.5  # MMR_AB's trade-off between coherence and novelty (paper Eq. 3)
    entailment: str | None = None  # semantic-entropy classes: "judge" (bidirectional entailment) or "embedding"
    entailment_threshold: float = 0.85  # --entailment embedding: cosine similarity at or above which two answers are one class
    progress: bool = True

    def stop_at_coherence(self) -> float:
        """The coherence stop in force: ``coherence_stop``, else the scale's default."""
        if self.coherence_stop is not None:
            return self.coherence_stop
        return COHERENCE_STOP_10 if self.coherence_scale == 10 else COHERENCE_STOP


@dataclass
class IdeasConfig(Config):
    """``neocoder ideas`` (LiveIdeaBench): ``model`` writes ``ideas_per_keyword`` research
    ideas for each keyword; ``judges_per_idea`` judges drawn with ``seed`` from ``judges``
    (never the idea model itself) score originality, feasibility and clarity 1-10; one judge
    grades fluency per keyword.  Ideas over ``max_words`` words are left out and counted.
    ``judge_names`` name the panel's seats (one per judge; None: their specs), so one model
    can sit in several seats; a seat never judges ideas of its own spec (docs/ideas.md)."""

    model: ModelConfig
    judges: list  # list[ModelConfig], the panel
    out: Path
    keywords: Path | None = None  # a .csv with a keyword column, or one keyword per line (None: LiveIdeaBench's 1180)
    limit: int | None = None
    ideas_per_keyword: int = 3  # fluency compares a keyword's ideas, so it needs at least 2
    judges_per_idea: int = 3
    max_words: int = 200
    judge_retries: int = 2
    seed: int = 0
    concurrency: int = 1
    bootstrap: int = 2000  # bootstrap resamples of keywords for the intervals
    bootstrap_seed: int = 0
    judge_names: list | None = None  # the seats' names, one per judge (None: the judges' specs)
    progress: bool = True

