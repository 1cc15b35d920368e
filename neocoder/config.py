"""What a run is asked to do: the bottom layer every config is built on.

Each field declares its default, its check and its help once (``Option``,
neocoder/options.py).  This module holds what every benchmark shares: the ``Config`` base
(``public()`` for the manifest, ``check()``, ``resolved()``), a model and how to call it
(``ModelConfig``), where programs run (``SandboxConfig``), and the options every benchmark
declares alike (the bootstrap, the progress bar).  Each benchmark's own config lives in
its package (``neocoder/benchmarks/<name>/config.py``) with its model defaults per role
(``roles``, after inspect_ai's ``Task(config=GenerateConfig(...))``).  The command line
builds its options from these declarations (cli/declared.py), the HTTP service its request
schemas (serve/derive.py), and the client sends a config field by field as declared, so
an option added here reaches every surface.  It imports nothing of neocoder but options.py
and errors.py.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import ClassVar

from neocoder.options import Option, check, in_manifest, option, option_of, recorded
from neocoder.redaction import remember

# The sandbox kinds and executors by name: one constant each, the keys of
# judge.make_sandbox's backends and executors.EXECUTORS.
DOCKER, PROCESS = "docker", "process"
LOCAL, RAY = "local", "ray"

# The languages programs are written in and judged (judge.verdicts re-exports them): Python 3
# run by the sandbox's python3, C++ compiled by its g++ (docs/sandbox.md, "C++ programs").
PYTHON, CPP = "python", "cpp"
LANGUAGES = (PYTHON, CPP)

# How hard a reasoning model thinks (OpenAI's reasoning_effort).
REASONING_EFFORTS = ("low", "medium", "high")
# The model names called as reasoning models when --reasoning is not given: OpenAI's o1, o3 and
# o4-mini families and GPT-5 (its -chat models are not reasoning models), DeepSeek's reasoner.
_REASONING_NAMES = re.compile(r"(o1|o3|o4-mini)(-.*)?|gpt-5(?!.*-chat)(-.*)?|deepseek-reasoner(-.*)?", re.I)


def reasoning_model(spec: str) -> bool:
    """Whether ``spec`` (``PROVIDER/NAME``, or a bare name) names a well-known reasoning
    model: the last ``/`` part of the name is one of OpenAI's o1, o3, o4-mini or GPT-5
    (not ``gpt-5-chat``) models, dated or not, or ``deepseek-reasoner``.  Such models
    refuse ``max_tokens`` and sampling temperatures (docs/models.md).  Pure: the name only."""
    return bool(_REASONING_NAMES.fullmatch(str(spec).rsplit("/", 1)[-1]))


# Declared once, used by every benchmark's config.
PROGRESS = Option(True, "Show a progress bar.", local=True, flag="", manifest=False)
MAX_ERRORS = Option(0, "Items that may end in an error (a model, sandbox or protocol failure; an unreadable judge "
                    "reply is counted, not an error) before the run exits non-zero.  Every such item is kept in the "
                    "run with its error and counted in metrics.json.", ge=0, manifest=False)
BOOTSTRAP = Option(2000, "Bootstrap resamples of the benchmark's items (problems, questions, keywords) for the 95% "
                   "intervals (neocoder/metrics/bootstrap.py).", ge=2, cap=100000)
BOOTSTRAP_SEED = Option(0, "Seed of the bootstrap resampling (the same seed gives the same intervals).", flag="--seed")
LANGUAGE = Option(PYTHON, "The language the programs are asked for and judged in: python, or cpp (C++17 compiled by "
                  "g++ in the sandbox, judged with the problem's own Codeforces time limit; docs/sandbox.md).",
                  choices=LANGUAGES)


@dataclass(frozen=True)
class GenerateDefaults:
    """A benchmark's generation defaults for one model role (after inspect_ai's
    ``Task(config=GenerateConfig(...))``): the sampling ``temperature`` and the token
    budget ``max_tokens`` of each call, unless the caller sets them; a reasoning model
    (``ModelConfig.is_reasoning``) gets ``reasoning_max_tokens`` instead, since its
    reasoning tokens count against the budget (and no temperature is sent to it)."""

    temperature: float
    max_tokens: int
    reasoning_max_tokens: int | None = None  # a reasoning model's budget (its thinking counts); None: max_tokens


# a model called outside any benchmark
CHAT_DEFAULTS = GenerateDefaults(temperature=0.0, max_tokens=1024, reasoning_max_tokens=16384)


def _plain(value):
    if isinstance(value, Config):
        return value.public()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Config:
    """Base of the config dataclasses.

    ``roles`` maps each field that holds a model (a ``ModelConfig``, or a list of them) to
    the benchmark's ``GenerateDefaults`` for that role; ``resolved()`` fills them in."""

    roles: ClassVar[dict[str, GenerateDefaults]] = {}
    progress = True  # a config that declares no progress option shows the bar
    concurrency = 1  # items in flight, for a config that declares no concurrency option
    max_errors = 0  # items that may end in error, for a config that declares no max_errors option

    def __post_init__(self):
        """Note the value of every field declared ``secret=True`` (an API key given
        through the Python API or a server's request as well as the command line) with
        ``redaction.remember``, so that no message of this process shows it."""
        for f in fields(self):
            opt = option_of(f)
            if opt is not None and opt.secret is True:
                remember(getattr(self, f.name))

    def public(self) -> dict:
        """The config as plain JSON values for the manifest: without secrets (the fields
        declared ``secret=True``: API keys), a ``secret="url"`` field's credentials replaced
        (neocoder/redaction.py), and without the fields declared ``manifest=False`` (how
        this process shows or splits its work)."""
        return {f.name: recorded(f, _plain(getattr(self, f.name))) for f in fields(self) if in_manifest(f)}

    def check(self) -> None:
        """Refuse a value outside its declaration: NeocoderError naming the field."""
        check(self)

    def role_defaults(self) -> dict[str, GenerateDefaults]:
        """The defaults in force per model role (``roles``; a config whose defaults depend
        on another of its options says so here)."""
        return self.roles

    def resolved(self):
        """This config with every default it leaves to the benchmark filled in (each
        role's temperature and token budget; subclasses add theirs), so that every
        surface runs, and every manifest records, the same values."""
        changes = {}
        for name, defaults in self.role_defaults().items():
            value = getattr(self, name)
            if isinstance(value, ModelConfig):
                changes[name] = value.filled(defaults)
            elif isinstance(value, list):
                changes[name] = [m.filled(defaults) for m in value]
        return dataclasses.replace(self, **changes) if changes else self


@dataclass
class ModelConfig(Config):
    """A model and how to call it (``--model`` and the shared model options).

    ``spec`` is ``PROVIDER/NAME`` (models/__init__.py lists the providers).  ``temperature``
    and ``max_tokens`` left None take the defaults the benchmark declares for the model's
    role (``Config.roles``), filled in before a run starts, so the manifest records the
    values sent whichever surface started it.  ``timeout``
    is seconds per call (None: the provider's default); ``max_retries`` are retries with
    backoff on 429, 5xx and timeouts; ``max_connections`` bounds the calls in flight to the
    model (None: the provider's default; models/limiter.py); ``seed`` is sent to endpoints
    that accept one.  ``release_dir``, when given, is a release whose recorded codes
    ``replay/gpt-4-1106-preview`` answers with (default: the codes shipped with neocoder).
    """

    spec: str = Option(help="PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/<source>.",
                       required=True, flag="--model").field()
    base_url: str | None = option(None, "OpenAI-compatible endpoint (or $OPENAI_BASE_URL); a user:password@ in it is "
                                  "never written to a run.", secret="url")
    api_key: str | None = option(None, "API key (or $OPENAI_API_KEY); never written to a run.", secret=True)
    api: str | None = option(None, "Chat or completions API (default: chat; completion for local base models).",
                             choices=("chat", "completion"))
    temperature: float | None = option(None, "Sampling temperature (default: the benchmark's own for this model's "
                                       "role).", ge=0, cap=2)
    top_p: float | None = option(None, "Nucleus sampling: sample from the smallest token set of this much probability "
                                 "(None: the endpoint's default, 1).", gt=0, le=1)
    max_tokens: int | None = option(None, "Tokens per reply at most (default: the benchmark's own for this model's "
                                    "role).", ge=1, cap=32768)
    timeout: float | None = option(None, "Seconds per model call.", gt=0, cap=3600)
    max_retries: int = option(3, "Retries with backoff on 429, 5xx and timeouts (each call's own; see "
                              "--max-connections for the run-wide slowdown).", ge=0, cap=10)
    max_connections: int | None = option(
        None, "Model calls in flight at once, apart from --workers (default: 16 for an API, 1 for a local "
        "llama.cpp model); fewer while the endpoint answers 429 or 5xx (docs/models.md).", ge=1, cap=64)
    seed: int | None = option(0, "Sampling seed, sent to endpoints that accept one.", flag="")
    reasoning: bool | None = option(
        None, "A reasoning model (o1, o3, o4-mini, gpt-5, deepseek-reasoner, ...): sends max_completion_tokens "
        "(--max-tokens, which then covers the reasoning tokens too) and --reasoning-effort, never a temperature "
        "(default: recognised from the model's name; docs/models.md).")
    reasoning_effort: str | None = option(None, "How hard a reasoning model thinks (default: the endpoint's).",
                                          choices=REASONING_EFFORTS)
    release_dir: Path | None = option(None, "A release whose recorded codes replay/gpt-4-1106-preview answers with "
                                      "(default: the shipped ones).",
                                      local=True, flag="")

    def is_reasoning(self) -> bool:
        """Whether the model is called as a reasoning model: ``reasoning`` where given, else
        ``reasoning_model(spec)``."""
        return reasoning_model(self.spec) if self.reasoning is None else bool(self.reasoning)

    def public(self) -> dict:
        """As ``Config.public``, with ``reasoning`` as decided (True or False): the manifest
        says how the model was called."""
        return {**super().public(), "reasoning": self.is_reasoning()}

    def with_(self, **changes) -> "ModelConfig":
        """A copy with some fields changed (e.g. a judge's spec)."""
        return ModelConfig(**{**asdict(self), **changes})

    def filled(self, defaults: "GenerateDefaults") -> "ModelConfig":
        """This model with the generation settings it leaves open (None) taken from
        ``defaults`` (a benchmark's for this model's role); the set ones stay."""
        budget = defaults.max_tokens
        if defaults.reasoning_max_tokens is not None and self.is_reasoning():
            budget = defaults.reasoning_max_tokens
        wanted = {"temperature": defaults.temperature, "max_tokens": budget}
        open_ = {k: v for k, v in wanted.items() if getattr(self, k) is None}
        return self.with_(**open_) if open_ else self


@dataclass
class ProgramLimits(Config):
    """The per-test limits of one program judged on its own: ``neocoder sandbox run``, ``POST
    /v1/run`` and ``Client.run`` (a benchmark's limits come from its problems instead).  A
    server keeps each under its ``cap``; ``judge.Limits.for_cpu`` adds the wall backstop."""

    cpu_seconds: float = option(2.0, "CPU seconds per test.", gt=0, cap=30)
    memory_mb: int = option(256, "Memory per test, MiB.", ge=32, cap=2048)


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
                                     "$RAY_ADDRESS, else a local Ray started for this run).", local=True,
                                     manifest=False)  # where this process judges, not what the run is

