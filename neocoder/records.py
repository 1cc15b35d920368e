"""Typed, versioned records: what every command writes and reads.

One record type per thing a run keeps, each a dataclass with one comment per field.  The
shared ones, the records of the data flow's stages, live here:

- ``ProblemState``: one (problem, state t) of the benchmark (the dataset's records);
- ``Sample``: one judged solution of one problem state, its two test tiers side by side
  (``examples`` and ``plus``, as EvalPlus keeps base and plus);
- ``HumanBaseline``: the human solutions of one problem state scored as samples;
- ``Manifest``: what a run needs to be reproduced (``manifest.json``).

A benchmark's own records live in its package and are declared in its descriptor
(``Benchmark.records``, neocoder/benchmarks/descriptor.py).  ``record_type(tag)`` finds the
class of a ``type`` tag: the shared ones and those given to ``register_record``, else the
one a registered benchmark declares (its module imported then), so any run folder reads
back with no benchmark imported first.

Every JSONL line carries ``type`` and ``format_version``; ``from_line`` refuses a line of
another version with an error naming the file and line.  ``FORMAT_VERSION`` changes
whenever a record's layout does; ``docs/records.md`` documents every field.

Format history:
- 1 (no ``format_version`` field): ``samples.jsonl`` with flat ``correct`` /
  ``correct_extended`` / ``extended_verdicts``; AidanBench's ``answers.jsonl``.
- 2: one ``records.jsonl`` per run folder; samples keep their tiers as ``TierResult``s.
"""

from __future__ import annotations

import platform
import subprocess
import sys
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from importlib import import_module, metadata
from pathlib import Path

from neocoder.errors import NeocoderError, RecordError
from neocoder.redaction import redact_argv

FORMAT_VERSION = 2
HUMAN = "human"  # the model name of NeoCoder's human baselines (``--model human``; the ``human`` task)


def _known_fields(cls, data: dict) -> tuple[dict, dict]:
    names = {f.name for f in fields(cls)}
    return ({k: v for k, v in data.items() if k in names},
            {k: v for k, v in data.items() if k not in names and k not in ("type", "format_version")})


@dataclass
class Record:
    """Base of the JSONL records: ``to_dict`` / ``from_dict`` and the ``type`` tag."""

    TYPE = "record"

    def to_dict(self) -> dict:
        """The record as one JSON object, tagged with ``type`` and ``format_version``."""
        return {"type": self.TYPE, "format_version": FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict):
        """Build the record from ``to_dict``'s output (unknown keys are an error).

        Raises TypeError / KeyError on a wrong shape; ``from_line`` turns those into a
        RecordError naming file and line.
        """
        known, unknown = _known_fields(cls, data)
        if unknown:
            raise KeyError(f"unknown field(s) {sorted(unknown)}")
        return cls(**known)

    @property
    def key(self) -> tuple:
        """The record's identity within a run (the resume key)."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """True if a resumed run keeps this record instead of redoing it."""
        return True

    def recorded_reply(self) -> tuple[tuple, str, str] | None:
        """What ``--model replay/<run folder>`` answers from this record (models/replay.py):
        ``((item, step, sample), reply text, code prefix)``, or None for a record that
        holds no model reply."""
        return None


@dataclass
class ProblemState(Record):
    """One problem at state t of its constraint chain (NeoCoder, Lu et al. 2025, Sec. 3)."""

    TYPE = "problem_state"

    problem_id: str  # Codeforces id, e.g. "1901A"
    state: int  # t: the number of techniques the solution must not use
    constraints: list  # the t forbidden technique names (taxonomy names), newest first
    statement: str  # the statement the model sees, constraints block included
    tests: list  # example tests: [{"input": str, "output": str, ...}] (checker fields may be added)
    checker: object = "tokens"  # output comparison: "tokens" or a checker dict (judge/checkers.py)
    extended_tests: list = field(default_factory=list)  # the second tier (oracle-labelled), may be empty
    tests_source: str = "statement"  # where the examples came from ("statement", "annotated", ...)
    source_index: int | None = None  # index in the release's per-problem lists this state came from
    time_limit_s: float = 2.0  # Codeforces time limit, seconds of CPU time per test
    memory_limit_mb: int = 256  # Codeforces memory limit, MiB
    extra: dict = field(default_factory=dict)  # provenance: oracle fields, ``augmentation`` of Denial Prompting

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): problem_id, state."""
        return (self.problem_id, int(self.state))

    def to_dict(self) -> dict:
        """Flat JSON object: ``extra``'s keys are written beside the typed fields."""
        out = super().to_dict()
        out.update(out.pop("extra"))
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ProblemState":
        """Typed fields from their keys; every other key goes to ``extra``."""
        known, unknown = _known_fields(cls, data)
        known.pop("extra", None)
        state = cls(**known, extra=unknown)
        for name, kind in (("problem_id", str), ("state", int), ("constraints", list), ("statement", str),
                           ("tests", list)):
            if not isinstance(getattr(state, name), kind):
                raise TypeError(f"{name}: missing or not {kind.__name__}")
        for j, test in enumerate(state.tests):
            if not (isinstance(test, dict) and isinstance(test.get("input"), str)
                    and isinstance(test.get("output"), str)):
                raise TypeError(f"tests[{j}]: expected {{'input': str, 'output': str}}")
        return state


@dataclass
class TierResult:
    """One tier of tests (examples or plus) of one sample, as judged in the sandbox."""

    tests: list  # per test: {"verdict", "cpu_seconds", "wall_seconds", "detail", ...} (judge/verdicts.py)
    correct: bool  # every test of the tier is AC
    infra: bool = False  # the sandbox failed on some test (INFRA): the tier says nothing about the model
    skipped: int = 0  # tests not judged: after the first failure, or the whole tier after a failed example

    @property
    def verdicts(self) -> list[str]:
        """The verdict names, one per test."""
        return [t["verdict"] for t in self.tests]


@dataclass
class Sample(Record):
    """One solution of one problem state: the reply, both test tiers, techniques, scores."""

    TYPE = "sample"

    problem_id: str  # the problem state's problem
    state: int  # the problem state's t
    sample: int  # index of this sample among the state's samples (0-based)
    model: str  # PROVIDER/NAME of the model that wrote it
    constraints: list  # the state's forbidden techniques
    prompt_sha256: str  # SHA-256 of the prompt (both shapes, models/base.py Prompt.sha256)
    reply: str | None = None  # the model's raw reply (None on a model error)
    code_prefix: str = ""  # what the program starts with when the reply continues a completion prompt
    code: str | None = None  # the program judged (program.py)
    code_sha256: str | None = None
    entry: str | None = None  # how the program was run: "solve" (called per test) or "script"
    entry_rule: str | None = None  # which rule of the program contract decided it (judge/verdicts.py ENTRY_RULES)
    calls_solve: bool = False  # the program calls solve() itself (the prompt said not to): reported, not a failure
    compile_error: str | None = None  # the compiler's message when the program does not compile
    examples: TierResult | None = None  # the statement's (human-validated) example tests
    plus: TierResult | None = None  # the extended tests, where the dataset has them
    techniques: list = field(default_factory=list)  # T(s): techniques detected in the code, sorted
    violated_constraints: list = field(default_factory=list)  # constraints whose technique was detected
    unchecked_constraints: list = field(default_factory=list)  # constraints the detector cannot decide
    follows: bool = False  # no constraint violated
    human_techniques: list | None = None  # H(p): union of the problem's human technique sets (None: unknown)
    new_techniques: list | None = None  # T(s) minus H(p)
    divergent: float | None = None  # Eq. 3, in [0, 1]; None without H(p)
    error: str | None = None  # the model error, when the call failed
    # {"prompt", "completion", "reasoning" (a part of completion)}: int | None
    tokens: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)  # seconds: {"model_s", "judge_s", "total_s"}
    reasoning: str | None = None  # a reasoning model's thinking, where returned apart from the reply (never judged)
    # the parameters sent with the final call (max_tokens or max_completion_tokens, ...)
    sent: dict = field(default_factory=dict)
    strategy: str = "direct"  # the solver that produced it (neocoder/strategies/)
    seed: int | None = None  # the sampling seed sent with this sample's calls
    attempts: list = field(default_factory=list)  # the strategy's intermediate attempts, plans, rollouts (dicts)
    # the strategy's spend: {"calls", "prompt_tokens", "completion_tokens", "seconds"}
    cost: dict = field(default_factory=dict)
    logprob: float | None = None  # length-normalised log-probability of the reply (mean per token), where reported
    # why the final reply holds no program (replies.ANSWER_REASONS: "empty", "cut off", ...; program.py
    # read_program): never judged, wrong, never counted as following; None when it holds one
    no_program: str | None = None
    finish_reason: str | None = None  # the endpoint's for the final reply ("length": it stopped at --max-tokens)

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): problem_id, state, sample."""
        return (self.problem_id, int(self.state), int(self.sample))

    def recorded_reply(self) -> tuple[tuple, str, str] | None:
        """The reply, keyed (problem id, state t, sample index); None without a reply."""
        if self.reply is None:
            return None
        return (self.problem_id, self.state, self.sample), self.reply, self.code_prefix

    @property
    def correct(self) -> bool:
        """Every example test AC (the paper's correct(s))."""
        return bool(self.examples and self.examples.correct)

    @property
    def convergent(self) -> bool:
        """Correct and following every constraint of its state: convergent creativity
        (NeoCoder Eq. 2)."""
        return self.correct and self.follows

    @property
    def neogauge(self) -> float | None:
        """convergent x divergent, the per-sample term NeoGauge@t averages (NeoCoder Eq. 4);
        None without a divergent value (no human technique set)."""
        return None if self.divergent is None else float(self.convergent) * self.divergent

    @property
    def correct_plus(self) -> bool | None:
        """Correct on the examples and on the extended tests; None without extended tests."""
        return None if self.plus is None else self.correct and self.plus.correct

    @property
    def excluded(self) -> bool:
        """Left out of every rate: the model call failed or the sandbox did (INFRA)."""
        return bool(self.error) or any(t is not None and t.infra for t in (self.examples, self.plus)) \
            or self.examples is None

    @property
    def finished(self) -> bool:
        """A sample with a model error or an INFRA verdict is retried on resume."""
        return not self.excluded

    @classmethod
    def from_dict(cls, data: dict) -> "Sample":
        """As Record.from_dict, with the two tiers read back as ``TierResult``s."""
        data = dict(data)
        for tier in ("examples", "plus"):
            if data.get(tier) is not None:
                data[tier] = TierResult(**data[tier])
        return super().from_dict(data)


@dataclass
class HumanBaseline(Record):
    """The human baseline of one problem state (NeoCoder Appendix A, Eq. 5 and 6): its
    accepted human solutions scored as if they were samples."""

    TYPE = "human_baseline"

    problem_id: str
    state: int
    solutions: int  # accepted human solutions of the problem with a technique set
    follows: float  # Eq. 5: share of the solutions that use none of the state's constraints
    divergent: float  # Eq. 6: mean over solutions of the share of techniques no other solution uses
    neogauge: float  # mean over solutions of follows(s) * that share

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): problem_id, state."""
        return (self.problem_id, int(self.state))


# The shared record types by their ``type`` tag (and those given to ``register_record``);
# a benchmark's own are found through the benchmark registry (``record_type``).
RECORD_TYPES: dict[str, type[Record]] = {c.TYPE: c for c in (ProblemState, Sample, HumanBaseline)}


def register_record(cls: type[Record]) -> type[Record]:
    """Add the record type ``cls`` (a task's own, docs/tasks.md) to ``RECORD_TYPES`` under
    its ``TYPE``, explicitly (call it where the task is registered; nothing registers on
    import); returns it.  Raises NeocoderError when the tag is taken by another type."""
    known = RECORD_TYPES.get(cls.TYPE)
    if known is not None and known is not cls:
        raise NeocoderError(f"record type {cls.TYPE!r} is taken by {known.__name__}")
    RECORD_TYPES[cls.TYPE] = cls
    return cls


def record_type(tag: str | None) -> type[Record] | None:
    """The record class of the ``type`` tag ``tag``: a shared or registered one, else the one
    a registered benchmark declares (neocoder.benchmarks ``record_class``, looked up by name
    on first use: the registry is where benchmarks are discovered, as entry points are);
    None when nothing declares it."""
    if tag in RECORD_TYPES:
        return RECORD_TYPES[tag]
    if not isinstance(tag, str):
        return None
    return import_module("neocoder.benchmarks").record_class(tag)


def known_tags() -> set[str]:
    """Every ``type`` tag a run folder may hold: the shared, the registered and each
    registered benchmark's."""
    declared = {tag for b in import_module("neocoder.benchmarks").benchmarks() for tag in b.records}
    return set(RECORD_TYPES) | declared


def from_line(data: object, path, line: int) -> Record:
    """The typed record of one parsed JSONL line.

    A ``problem_state`` line may omit ``type`` and ``format_version`` (its layout is the
    same in versions 1 and 2, and hand-made datasets have neither).  Raises RecordError
    naming ``path``, ``line`` and the field for an unknown type or version or a wrong shape.
    """
    if not isinstance(data, dict):
        raise RecordError(path, f"line {line}", "-", "expected a JSON object")
    kind = data.get("type", "problem_state" if "format_version" not in data else None)
    version = data.get("format_version", 1 if kind == "problem_state" else None)
    if version != FORMAT_VERSION and not (kind == "problem_state" and version == 1):
        raise RecordError(path, f"line {line}", "format_version",
                          f"{version!r} is not {FORMAT_VERSION}: written by another neocoder version "
                          "(convert a run folder with `neocoder upgrade-run DIR`)")
    cls = record_type(kind)
    if cls is None:
        raise RecordError(path, f"line {line}", "type", f"unknown record type {kind!r}; known: {sorted(known_tags())}")
    try:
        return cls.from_dict(data)
    except (TypeError, KeyError, ValueError) as exc:
        raise RecordError(path, f"line {line}", cls.TYPE, str(exc)) from exc


def _git_commit() -> str | None:
    """The checkout's commit when neocoder runs from one (None for an installed wheel)."""
    try:
        here = Path(__file__).resolve().parent
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


@dataclass
class Manifest:
    """``manifest.json``: what a run needs to be reproduced.

    ``kind`` names the command ("eval", "human", "aidanbench", "dataset", "chains");
    ``config`` is the command's configuration as given (API keys are never stored:
    ``Config.public``); ``command`` the command line with every secret option's value
    as ``<redacted>`` (``redaction.redact_argv``).
    """

    kind: str
    config: dict
    command: list = field(default_factory=list)  # argv when started from the CLI
    format_version: int = FORMAT_VERSION
    started: str = ""  # UTC, ISO 8601
    git_commit: str | None = None
    python: str = ""
    platform: str = ""
    packages: dict = field(default_factory=dict)  # versions of neocoder and its main dependencies
    extra: dict = field(default_factory=dict)  # facts found while running (sandbox image, problem counts)

    @classmethod
    def capture(cls, kind: str, config: dict, **extra) -> "Manifest":
        """A manifest for a run starting now, with this process's versions and command
        (its secrets redacted: ``redaction.redact_argv``)."""
        versions = {}
        for pkg in ("neocoder", "openai", "docker", "tree-sitter", "tree-sitter-python", "numpy"):
            try:
                versions[pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                versions[pkg] = None
        return cls(kind=kind, config=config, command=redact_argv(sys.argv),
                   started=datetime.now(timezone.utc).isoformat(timespec="seconds"), git_commit=_git_commit(),
                   python=sys.version.split()[0], platform=platform.platform(), packages=versions, extra=extra)

    def to_dict(self) -> dict:
        """The manifest as one JSON object."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict, path="manifest.json") -> "Manifest":
        """Raises RecordError for another format version or a wrong shape."""
        if data.get("format_version") != FORMAT_VERSION:
            raise RecordError(path, "-", "format_version",
                              f"{data.get('format_version')!r} is not {FORMAT_VERSION}: written by another "
                              "neocoder version (convert the run folder with `neocoder upgrade-run DIR`)")
        try:
            return cls(**data)
        except TypeError as exc:
            raise RecordError(path, "-", "-", str(exc)) from exc
