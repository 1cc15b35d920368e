"""The creativity framework's typed, versioned records (the run folder's ``records.jsonl``
lines), declared in its descriptor (descriptor.py) so any run folder reads back with no
import first:

- ``FrameworkStep``: one step of one solution: its candidates, their meaning classes,
  log-probabilities and STOP votes, the step's semantic entropy and the chosen candidate;
- ``FrameworkSolution``: one problem's finished solution: divergent creativity (mean,
  min, max of the step entropies), the verdicts per criterion of each judge with every
  call's tokens, and (code domain) the sandbox's verdict;
- ``JudgedPair``: one annotated solution judged by ``neocoder framework validate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neocoder.records import Record


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
    classes: list  # per candidate: meaning class (0, 1, ... in order of first appearance); None: unreadable
    entropy: float | None  # the step's semantic entropy, nats (Eq. 3), over its readable candidates; None: none
    estimator: str  # "rao-blackwell" (class probabilities from log-probabilities, App. C) or "discrete" (counts)
    chosen: int | None  # index of the candidate appended (greedy: the highest mean log-probability); None at STOP
    stopped: bool  # a strict majority of the candidates said STOP: the solution ended before this step
    entailment: str  # the backend that made the classes ("nli:<model>", "llm:<model>", "embedding:<model>")
    tokens: dict = field(default_factory=dict)  # {"prompt", "completion", "entailment_calls"}
    unreadable: list = field(default_factory=list)  # per candidate: why it is unreadable (replies.py), None: read
    entailment_replies: dict = field(default_factory=dict)  # the LLM backend's replies: replies.unreadable_summary

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): domain, problem_id, step."""
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
    stop_reason: str  # "stop" (majority said STOP), "cap" (max_steps), "unreadable" (no readable candidate), "error"
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
        """The record's identity within a run (its resume key): domain, problem_id."""
        return (self.domain, self.problem_id)

    @property
    def finished(self) -> bool:
        """Whether a resumed run keeps it: False when it ended in an error (redone on resume)."""
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
    discussion: dict = field(default_factory=dict)  # judge name -> its transcript (every reply with its readings)

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): against, pair_id."""
        return (self.against, self.pair_id)

    @property
    def finished(self) -> bool:
        """Whether a resumed run keeps it: False when it ended in an error (redone on resume)."""
        return self.error is None


FRAMEWORK_RECORDS = (FrameworkStep, FrameworkSolution, JudgedPair)
