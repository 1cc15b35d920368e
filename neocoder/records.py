"""Typed, versioned records: what every command writes and reads.

One record type per thing a run keeps, each a dataclass with one comment per field:

- ``ProblemState``: one (problem, state t) of the benchmark (the dataset's records);
- ``Sample``: one judged solution of one problem state, its two test tiers side by side
  (``examples`` and ``plus``, as EvalPlus keeps base and plus);
- ``Answer`` and ``QuestionResult``: AidanBench's answers and per-question outcomes;
- ``HumanBaseline``: the human solutions of one problem state scored as samples;
- ``Idea``, ``IdeaJudgement`` and ``FluencyGrade``: LiveIdeaBench's ideas, the judges'
  scores of them and the judges' fluency grades (``neocoder ideas``, docs/ideas.md);
- ``Manifest``: what a run needs to be reproduced (``manifest.json``).

``RECORD_TYPES`` lists every record type by its ``type`` tag, here and only here: every
benchmark's records live in this shared module (the bottom layer, importing nothing
above it), so any run folder reads back with no other module imported first.

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
from importlib import metadata
from pathlib import Path

from neocoder.errors import NeocoderError, RecordError

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
    tokens: dict = field(default_factory=dict)  # {"prompt", "completion", "reasoning" (a part of completion)}: int | None
    timings: dict = field(default_factory=dict)  # seconds: {"model_s", "judge_s", "total_s"}
    reasoning: str | None = None  # a reasoning model's thinking, where returned apart from the reply (never judged)
    sent: dict = field(default_factory=dict)  # the parameters sent with the final call (max_tokens or max_completion_tokens, ...)
    strategy: str = "direct"  # the solver that produced it (neocoder/strategies/)
    seed: int | None = None  # the sampling seed sent with this sample's calls
    attempts: list = field(default_factory=list)  # the strategy's intermediate attempts, plans, rollouts (dicts)
    cost: dict = field(default_factory=dict)  # the strategy's spend: {"calls", "prompt_tokens", "completion_tokens", "seconds"}
    logprob: float | None = None  # length-normalised log-probability of the reply (mean per token), where reported

    @property
    def key(self) -> tuple:
        return (self.problem_id, int(self.state), int(self.sample))

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
        data = dict(data)
        for tier in ("examples", "plus"):
            if data.get(tier) is not None:
                data[tier] = TierResult(**data[tier])
        return super().from_dict(data)


@dataclass
class Answer(Record):
    """One AidanBench answer with its scores (McLaughlin et al., AidanBench)."""

    TYPE = "answer"

    model: str  # the generator
    question_index: int  # 0-based position of the question in the run's question list
    question: str
    answer_num: int  # 1-based position of the answer within its question
    answer: str
    coherence: float | None = None  # judge's score on coherence_scale (None: --judge none, or an error)
    novelty: float | None = None  # 1 - max cosine similarity to the earlier answers
    llm_novelty: float | None = None  # 1 - max judge-rated similarity / 100 (--llm-similarity)
    stop: str | None = None  # the stop reason this answer caused ("incoherent", "repetitive", "error")
    error: str | None = None
    judge_replies: list = field(default_factory=list)  # the judge's raw coherence replies, retries included
    tokens: dict = field(default_factory=dict)  # {"generator": {...}, "judge": {...}}
    seconds: dict = field(default_factory=dict)  # {"generate", "embed", "judge"}
    coherence_scale: int = 100  # 100: the 0-100 judge prompt; 10: the paper's 1-10 scale
    reasoning: str | None = None  # --cot: the reply's reasoning before "Answer:" (``answer`` is what follows it)
    logprob: float | None = None  # the reply's length-normalised log-probability (nats per token), where reported
    semantic_class: int | None = None  # --entailment: meaning class among the question's answers (0, 1, ... in
    # order of first appearance); None without --entailment or when the judge's verdict could not be read

    @property
    def key(self) -> tuple:
        return (self.model, self.question_index, self.answer_num)


@dataclass
class QuestionResult(Record):
    """How one question ended for one model: answers kept, novelty summed, stop reason."""

    TYPE = "question"

    model: str
    question_index: int
    question: str
    answers: int  # answers before the stop (AidanBench's count)
    novelty_sum: float  # sum of those answers' novelty (the paper's score)
    stop_reason: str  # "incoherent", "repetitive", "max answers", "error"; a rescore adds "out of answers"
    error: str | None = None
    gated_novelty: float | None = None  # App. D: novelty summed over the question's answers with C > the stop
    mmr: float | None = None  # MMR_AB (Eq. 3) summed over the answers before the stop, at the run's lambda
    semantic_classes: int | None = None  # --entailment: meaning classes among the answers before the stop
    semantic_entropy: float | None = None  # their discrete semantic entropy, nats (neocoder/entropy.py)
    semantic_entropy_rb: float | None = None  # the same from the answers' log-probabilities, where reported

    @property
    def key(self) -> tuple:
        return (self.model, self.question_index)

    @property
    def finished(self) -> bool:
        """A question that ended in an error is retried on resume."""
        return self.stop_reason != "error"


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
        return (self.problem_id, int(self.state))


IDEA_STATUSES = ("ok", "too long", "refused", "error")  # the values of ``Idea.status``


@dataclass
class Idea(Record):
    """One idea of one model for one keyword (LiveIdeaBench's unit of judging)."""

    TYPE = "idea"

    model: str  # the idea model (PROVIDER/NAME; replay/<source>#<model> for a recorded source of several)
    keyword_index: int  # 0-based position of the keyword in the run's keyword list
    keyword: str
    idea_num: int  # 1-based position of the idea among the keyword's ideas
    category: str = ""  # the keyword's discipline (LiveIdeaBench's keywords.csv), "" when unknown
    idea: str = ""  # the idea as judged: the reply with a leading "Idea:" marker and quotes removed
    reply: str | None = None  # the model's raw reply (to the fallback prompt when that was used)
    words: int = 0  # whitespace-separated words of ``idea``
    status: str = "ok"  # "ok" (judged), "too long" (over max_words), "refused" (twice), "error"
    fallback: bool = False  # the first reply was a refusal and the fallback prompt was asked
    refused_reply: str | None = None  # the first reply, when it was a refusal
    recorded_model: str | None = None  # who wrote a replayed idea (``--model replay/...``)
    error: str | None = None  # the model error, when the call failed
    finish_reason: str | None = None  # the endpoint's finish reason ("length": cut at --max-tokens)
    tokens: dict = field(default_factory=dict)  # {"prompt": int | None, "completion": int | None}, both calls
    seconds: float = 0.0  # wall time of the idea model's calls

    @property
    def key(self) -> tuple:
        return (self.model, int(self.keyword_index), int(self.idea_num))

    @property
    def finished(self) -> bool:
        """An idea whose model call failed is asked again on resume."""
        return self.status != "error"


@dataclass
class IdeaJudgement(Record):
    """One judge's scores of one idea: originality, feasibility and clarity, 1-10 each."""

    TYPE = "idea_judgement"

    model: str  # the idea model
    keyword_index: int
    keyword: str
    idea_num: int
    judge: str  # the judge's name in the panel (an alias or its spec)
    judge_spec: str  # the judge's PROVIDER/NAME
    scores: dict | None = None  # {"originality", "feasibility", "clarity"}: floats in [1, 10]; None on an error
    error: str | None = None  # why there are no scores: unparseable replies, or a model error
    replies: list = field(default_factory=list)  # the judge's raw replies, retries included
    tokens: dict = field(default_factory=dict)  # {"prompt": int, "completion": int}, summed over attempts
    analysis: str | None = None  # the critic's analysis before its JSON block (LiveIdeaBench's reply format)

    def to_dict(self) -> dict:
        """As Record.to_dict, without ``analysis`` when there is none (a three-line reply),
        so records of our protocol read as they always did."""
        data = super().to_dict()
        if data.get("analysis") is None:
            data.pop("analysis", None)
        return data

    @property
    def key(self) -> tuple:
        return (self.model, int(self.keyword_index), int(self.idea_num), self.judge)

    @property
    def finished(self) -> bool:
        """A judgement that ended in an error is asked again on resume (from the call cache
        when the replies were unparseable: the same replies, so the same error)."""
        return self.error is None


@dataclass
class FluencyGrade(Record):
    """One judge's grade of how different one model's ideas for one keyword are."""

    TYPE = "idea_fluency"

    model: str  # the idea model
    keyword_index: int
    keyword: str
    judge: str  # the judge's name in the panel
    judge_spec: str
    idea_nums: list = field(default_factory=list)  # the kept ideas shown to the judge, in order
    grade: str | None = None  # "A", "B", "C" or "D"; None on an error
    score: float | None = None  # the grade's points: A 10, B 7, C 4, D 1 (ideas/scoring.py FLUENCY_POINTS)
    error: str | None = None
    replies: list = field(default_factory=list)
    tokens: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        return (self.model, int(self.keyword_index))

    @property
    def finished(self) -> bool:
        return self.error is None


# Every record type a run folder may hold, by its ``type`` tag: the built-in ones, written
# here once, so reading a run folder needs no earlier import; a task of one's own adds its
# type explicitly with ``register_record`` (nothing adds to it on import).
# -- the creativity framework's records (neocoder/benchmarks/framework/, docs/framework.md) ------------


@dataclass
class FrameworkStep(Record):
    """One step of the step-wise loop (creativity-framework Sec. 3.2, App. C)."""

    TYPE = "framework_step"

    domain: str
    problem_id: str
    step: int  # 1-based
    candidates: list  # the n sampled next steps (texts, as the model wrote them)
    stops: list  # per candidate: it said STOP
    logprobs: list  # per candidate: length-normalised log-probability (nats per token), None where not reported
    classes: list  # per candidate: meaning class (0, 1, ... in order of first appearance)
    entropy: float  # the step's semantic entropy, nats (Eq. 3)
    estimator: str  # "rao-blackwell" (class probabilities from log-probabilities, App. C) or "discrete" (counts)
    chosen: int | None  # index of the candidate appended (greedy: the highest mean log-probability); None at STOP
    stopped: bool  # at least half of the candidates said STOP: the solution ended before this step
    entailment: str  # the backend that made the classes ("nli:<model>", "llm:<model>", "embedding:<model>")
    tokens: dict = field(default_factory=dict)  # {"prompt", "completion", "entailment_calls"}

    @property
    def key(self) -> tuple:
        return (self.domain, self.problem_id, self.step)


@dataclass
class FrameworkSolution(Record):
    """One problem's solution with its divergent and convergent scores."""

    TYPE = "framework_solution"

    domain: str
    problem_id: str
    model: str
    steps: list  # the chosen steps, in order
    entropies: list  # the semantic entropy of every step sampled (nats)
    divergent: float | None  # mean of ``entropies`` (the paper's divergent creativity); None with no step
    divergent_min: float | None  # the ablations of App. C.7.2
    divergent_max: float | None
    stop_reason: str  # "stop" (majority said STOP), "cap" (max_steps), "repeat" (identical consecutive steps)
    repeated: bool = False  # two consecutive chosen steps identical (BookMIA's filter, App. F)
    verdicts: dict = field(default_factory=dict)  # judge name -> {criterion: {"verdict", "confidence", ...}}
    judge_cost: dict = field(default_factory=dict)  # judge name -> {"calls", "prompt_tokens", "completion_tokens"}
    discussion: dict = field(default_factory=dict)  # judge name -> its transcript (calls, fragments, rounds)
    program: str | None = None  # code domain: the program written from the plan
    sandbox_correct: bool | None = None  # code domain: all tests passed in the sandbox
    sandbox_verdicts: list = field(default_factory=list)  # code domain: per test verdict
    error: str | None = None  # a model failure: the problem is retried on resume

    @property
    def key(self) -> tuple:
        return (self.domain, self.problem_id)

    @property
    def finished(self) -> bool:
        return self.error is None


@dataclass
class JudgedPair(Record):
    """One (problem, solution) with a known ground truth, judged (``framework validate``)."""

    TYPE = "framework_judged"

    against: str  # "macgyver" (human annotation) or "code" (sandbox verdict)
    pair_id: str
    problem: str
    solution: str
    truth: bool  # correct_* (MacGyver) or all tests passed (code)
    label: str  # the annotation or the sandbox's verdicts
    verdicts: dict = field(default_factory=dict)  # judge name -> {criterion: {...}}
    judge_cost: dict = field(default_factory=dict)
    error: str | None = None

    @property
    def key(self) -> tuple:
        return (self.against, self.pair_id)

    @property
    def finished(self) -> bool:
        return self.error is None


RECORD_TYPES: dict[str, type[Record]] = {c.TYPE: c for c in (ProblemState, Sample, Answer, QuestionResult,
                                                            HumanBaseline, Idea, IdeaJudgement, FluencyGrade,
                                                            FrameworkStep, FrameworkSolution, JudgedPair)}


def register_record(cls: type[Record]) -> type[Record]:
    """Add the record type ``cls`` (a task's own, docs/tasks.md) to ``RECORD_TYPES`` under
    its ``TYPE``, explicitly (call it where the task is registered; nothing registers on
    import); returns it.  Raises NeocoderError when the tag is taken by another type."""
    known = RECORD_TYPES.get(cls.TYPE)
    if known is not None and known is not cls:
        raise NeocoderError(f"record type {cls.TYPE!r} is taken by {known.__name__}")
    RECORD_TYPES[cls.TYPE] = cls
    return cls


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
    cls = RECORD_TYPES.get(kind)
    if cls is None:
        raise RecordError(path, f"line {line}", "type", f"unknown record type {kind!r}; known: {sorted(RECORD_TYPES)}")
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
    ``config`` is the command's configuration as given (API keys are never stored).
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
        """A manifest for a run starting now, with this process's versions and command."""
        versions = {}
        for pkg in ("neocoder", "openai", "docker", "tree-sitter", "tree-sitter-python", "numpy"):
            try:
                versions[pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                versions[pkg] = None
        return cls(kind=kind, config=config, command=list(sys.argv),
                   started=datetime.now(timezone.utc).isoformat(timespec="seconds"), git_commit=_git_commit(),
                   python=sys.version.split()[0], platform=platform.platform(), packages=versions, extra=extra)

    def to_dict(self) -> dict:
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
