"""What every strategy shares: the context a solver works in, and what it returns.

A *solver* takes one problem state (through ``Context``) and returns a ``Solution``: the
final reply, which the pipeline then judges like any other (every test tier, techniques,
metrics), plus every intermediate attempt, which the sample record keeps.  Solvers see
the example tests only (``Context.try_examples``); the extended tests are held out for
the score and never reach a solver or a prompt.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from neocoder.benchmarks.neocoder.program import holds_program, program_from_reply, prompt_text, read_program
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.benchmarks.neocoder.strategies.options import BEST_OF, LOGPROBS, ROLLOUTS, ROUNDS, TOP_K
from neocoder.config import PYTHON
from neocoder.judge import Limits, Sandbox
from neocoder.metrics.rates import divergent_ratio
from neocoder.models import Model, Prompt, ReplayKey, Reply
from neocoder.models.base import strip_thinking
from neocoder.records import ProblemState
from neocoder.replies import NO_PROGRAM
from neocoder.techniques import detect, judge_constraints


@dataclass
class StrategyOptions:
    """The strategies' knobs, as each strategy declared them (strategies/options.py; the
    ``neocoder eval`` options and the EvalConfig fields of the same names)."""

    rounds: int = ROUNDS.field()
    rollouts: int = ROLLOUTS.field()
    top_k: int = TOP_K.field()
    best_of: int = BEST_OF.field()
    logprobs: bool = LOGPROBS.field()


@dataclass
class Trial:
    """A program tried on the example tests: its verdicts, techniques and constraints.

    ``reward`` is the share of example tests AC, 0 when a constraint is violated (the
    MCTS reward of Zhang et al. 2023 with NeoCoder's constraints added); ``convergent``
    is Eq. 2 on the examples; ``divergent`` Eq. 3 against the human techniques (None
    without them).
    """

    code: str
    verdicts: list
    techniques: set
    violated: list
    tests: list  # TestVerdict per example test
    compile_error: str | None = None
    divergent: float | None = None
    result: Any = field(default=None, repr=False, compare=False)  # the sandbox's SubmissionResult on the examples
    no_program: str | None = None  # why the reply held no program (program.read_program): nothing was judged
    # a reply in a run of another language that holds a Python program instead (Context.attempt)
    wrote_python: bool = False

    @property
    def passed(self) -> int:
        """The number of example tests the program passed (verdict AC)."""
        return sum(v == "AC" for v in self.verdicts)

    @property
    def correct(self) -> bool:
        """Whether every example test passed (False with no example test)."""
        return bool(self.verdicts) and self.passed == len(self.verdicts)

    @property
    def reward(self) -> float:
        """The share of example tests AC, in [0, 1]; 0 when a constraint is violated (see the class)."""
        if self.violated or not self.verdicts:
            return 0.0
        return self.passed / len(self.verdicts)

    @property
    def convergent(self) -> float:
        """Eq. 2 on the examples: 1.0 when the program is correct and violates no constraint, else 0.0."""
        return float(self.correct and not self.violated)

    def summary(self) -> dict:
        """The trial as it is kept in a sample's ``attempts`` (``no_program`` only where set)."""
        out = {"code_sha256": hashlib.sha256(self.code.encode()).hexdigest(), "verdicts": self.verdicts,
               "violated": list(self.violated), "techniques": sorted(self.techniques), "reward": self.reward,
               "divergent": self.divergent, "compile_error": self.compile_error}
        if self.no_program:
            out["no_program"] = self.no_program
        if self.wrote_python:
            out["wrote_python"] = True
        return out


@dataclass
class Solution:
    """A solver's answer: the final ``reply`` (judged by the pipeline), the attempts
    (plans, earlier programs with their feedback, candidates, rollouts), each a dict, and
    the ``prompt`` the final reply answered (read for echoes; None: the solve prompt)."""

    reply: Reply
    attempts: list = field(default_factory=list)
    prompt: Prompt | None = None


class Context:
    """One sample of one problem state, as a solver sees it.

    ``call`` sends a prompt to the model and counts the cost (calls, tokens, seconds);
    ``try_examples`` judges a program on the state's example tests only and detects its
    techniques (memoised per program).  ``seed`` is this sample's sampling seed.
    ``attempts`` is where a solver keeps its attempts as it goes (the Solution carries
    them), so a model error midway keeps those made before it in the sample's record;
    ``failed_call`` is the number (1-based) of the call that raised, None while none did.
    """

    def __init__(self, state: ProblemState, sample: int, model: Model, sandbox: Sandbox,
                 human: set[str] | None, limits: Limits, seed: int | None, options: StrategyOptions,
                 language: str = "python"):
        self.state, self.sample, self.model, self.sandbox = state, sample, model, sandbox
        self.language = language  # the programs' language (config.LANGUAGES): prompt, sandbox, detector
        self.human, self.limits, self.seed, self.options = human, limits, seed, options
        self.cost = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                     "reasoning_tokens": 0, "model_s": 0.0, "judge_s": 0.0}
        self._trials: dict[str, Trial] = {}
        self._lock = threading.Lock()
        self.attempts: list[dict] = []
        self.failed_call: int | None = None

    def solve_prompt(self, **overrides) -> Prompt:
        """The problem-solving prompt of this state and sample (prompts/solve_*.txt), with
        this sample's seed and any sampling ``overrides`` (Prompt fields)."""
        key = ReplayKey(self.state.problem_id, self.state.state, self.sample, self.state.source_index)
        base = solve_prompt(self.state.statement, key, self.language)
        return prompt_with(base, **{"seed": self.seed, **overrides})

    def call(self, prompt: Prompt) -> Reply:
        """``model.generate(prompt)``, its calls, tokens and seconds added to ``cost``.
        Raises what the model raises (ModelError, EndpointError), ``failed_call`` set first."""
        try:
            reply = self.model.generate(prompt)
        except Exception:
            with self._lock:
                self.failed_call = self.cost["calls"] + 1
            raise
        with self._lock:
            self.cost["calls"] += 1
            self.cost["cached_calls"] += bool(reply.extra.get("cached"))
            self.cost["prompt_tokens"] += reply.prompt_tokens or 0
            self.cost["completion_tokens"] += reply.completion_tokens or 0
            self.cost["reasoning_tokens"] += reply.reasoning_tokens or 0  # a part of the completion tokens
            self.cost["model_s"] = round(self.cost["model_s"] + reply.seconds, 4)
        return reply

    def try_examples(self, code: str) -> Trial:
        """Judge ``code`` on the example tests (all of them: the feedback shows every
        failure) and detect its techniques; the same program is judged once."""
        key = hashlib.sha256(code.encode()).hexdigest()
        if key in self._trials:
            return self._trials[key]
        started = time.monotonic()
        result = self.sandbox.run(code, self.state.tests, self.limits, checker=self.state.checker,
                                  language=self.language)
        techniques = detect(code, self.language)
        violated, _ = judge_constraints(self.state.constraints, techniques)
        trial = Trial(code=code, verdicts=result.verdicts, techniques=techniques, violated=violated,
                      tests=result.tests, compile_error=result.compile_error,
                      divergent=None if self.human is None else divergent_ratio(techniques, self.human),
                      result=result)
        with self._lock:
            self.cost["judge_s"] = round(self.cost["judge_s"] + time.monotonic() - started, 4)
            self._trials[key] = trial
        return trial

    def attempt(self, reply: Reply, prompt: Prompt | None = None) -> Trial:
        """Read ``reply`` (``program.read_program``, against the text of ``prompt`` for
        echoes) and judge its program on the examples (``try_examples``); a reply holding no
        program is never judged: its Trial has no verdict and its ``no_program`` reason, so
        it is not correct, rewards 0 and converges to nothing (an empty program never counts).
        In a run of another language than Python, a reply with no program of it (reason
        "no program") that holds a Python program instead is marked ``wrote_python``
        (self-correct's feedback says so)."""
        reading = read_program(reply, prompt_text(prompt), self.language)
        if not reading.readable:
            python = self.language != PYTHON and reading.reason == NO_PROGRAM and holds_program(
                strip_thinking(reply.text or ""), PYTHON)
            return Trial(code="", verdicts=[], techniques=set(), violated=[], tests=[], no_program=reading.reason,
                         wrote_python=python)
        return self.try_examples(reading.value)

    def tried(self, code: str) -> Trial | None:
        """The Trial of ``code`` when a strategy already judged it on the examples (so
        the final program is not judged and detected twice), else None."""
        with self._lock:
            return self._trials.get(hashlib.sha256(code.encode()).hexdigest())

    @property
    def logprobs(self) -> int | None:
        """The ``Prompt.logprobs`` of a final reply: 1 when the run asks for log-probabilities."""
        return 1 if self.options.logprobs else None

    def program(self, reply: Reply) -> str:
        """The program a reply stands for (program.py), in this sample's language."""
        return program_from_reply(reply, self.language)


def prompt_with(prompt: Prompt, **overrides) -> Prompt:
    """``prompt`` with some fields replaced (Prompt is frozen)."""
    return replace(prompt, **overrides)


def completion_head(prompt: Prompt) -> str:
    """The completion prompt before its code prefix (the header and the quoted problem),
    where a strategy inserts its own text (a plan, an earlier attempt) before the code."""
    return prompt.completion[:len(prompt.completion) - len(prompt.code_prefix)]


def reply_summary(reply: Reply) -> dict:
    """What an attempt record keeps of a reply: its text and token counts."""
    return {"reply": reply.text, "code_prefix": reply.code_prefix, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens}
