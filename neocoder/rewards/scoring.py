"""Scoring one reply (or program) for one problem state: the one function behind the
server's ``/v1/score`` (serve/judging.py) and the in-process ``Scorer`` (batch.py).

``score_state`` takes the reply through ``pipeline.judge_reply`` (program extraction, the
example and extended tests in the sandbox, techniques, constraints, divergent against
H(p)) and returns the ``Sample`` record with its scores as the run metrics define them for
one sample.  ``ProblemBank`` holds the problem states by (problem_id, t) and the humans'
technique sets H(p), read per problem on first use.
"""

from __future__ import annotations

import threading

from neocoder.benchmarks.neocoder.pipeline import judge_reply
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.config import PYTHON
from neocoder.errors import NeocoderError
from neocoder.judge import Sandbox
from neocoder.metrics.rates import state_metrics
from neocoder.models import ReplayKey, Reply
from neocoder.records import ProblemState, Sample


class NotFound(NeocoderError):
    """Something the request names that is not there (HTTP 404): a problem, a problem
    state, a job, an archive; ``field`` names the request field."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"{field_name}: {message}")


class ProblemBank:
    """Problem states by (problem_id, t) and H(p) per problem, thread-safe.

    ``states`` in dataset order; ``name`` is the dataset's name in messages."""

    def __init__(self, states: list[ProblemState], name: str):
        self.name = name
        self._states: dict[tuple, ProblemState] = {s.key: s for s in states}
        self.index: dict[str, dict] = {}  # problem id -> its states and limits, in dataset order
        for s in states:
            entry = self.index.setdefault(s.problem_id, {"problem_id": s.problem_id, "states": [],
                                                         "time_limit_s": s.time_limit_s,
                                                         "memory_limit_mb": s.memory_limit_mb})
            entry["states"].append(int(s.state))
        self._human: dict[str, set | None] = {}
        self._lock = threading.Lock()

    def problems(self) -> list[dict]:
        """Every problem: id, state numbers t (sorted), time and memory limits."""
        return [dict(entry, states=sorted(set(entry["states"]))) for entry in self.index.values()]

    def state(self, problem_id: str, t: int) -> ProblemState:
        """The problem state.  Raises NotFound (field ``problem_id`` or ``state``, naming the
        states the problem has)."""
        if problem_id not in self.index:
            raise NotFound("problem_id", f"no problem {problem_id!r} in the {self.name} dataset")
        state = self._states.get((problem_id, int(t)))
        if state is None:
            have = sorted(s for p, s in self._states if p == problem_id)
            raise NotFound("state", f"problem {problem_id} has no state {t} in the {self.name} dataset "
                                    f"(states: {have or 'none: the oracle left no test'})")
        return state

    def human(self, problem_id: str) -> set | None:
        """H(p): the union of the shipped technique sets of the problem's accepted human
        solutions; None when it has none in a language the detector reads."""
        with self._lock:
            if problem_id not in self._human:
                from neocoder.techniques.human import human_technique_sets
                sets = human_technique_sets({problem_id})
                self._human[problem_id] = (sets.get(problem_id) or {}).get("techniques")
            return self._human[problem_id]


def score_record(record: Sample) -> dict:
    """The scores of a judged sample: ``{"correct", "correct_plus", "follows",
    "convergent", "divergent", "neogauge", "excluded", "infra"}`` (metrics.py on this one
    sample: convergent is Eq. 2, divergent Eq. 3, neogauge Eq. 4)."""
    rates = state_metrics([record])
    return {"correct": record.correct, "correct_plus": record.correct_plus, "follows": record.follows,
            "convergent": rates.get("convergent"), "divergent": record.divergent,
            "neogauge": rates.get("neogauge"), "excluded": record.excluded,
            "infra": any(t is not None and t.infra for t in (record.examples, record.plus))}


def score_state(state: ProblemState, text: str, box: Sandbox, human: set | None, model: str = "api",
                cpu_scale: float = 1.0, judge_all_tests: bool = True,
                language: str = PYTHON, cancel=None) -> tuple[Sample, dict]:
    """The sample record of reply (or program) ``text`` for ``state`` judged in ``box``
    against H(p) ``human``, and its scores (``score_record``).  The record is sample 0 of
    the state with the prompt hash ``neocoder eval`` would record.  Sandbox failures are
    recorded (``infra``), not raised.  ``language`` ("python" or "cpp"): the program's, for
    extraction, the sandbox (a C++ program is compiled; CE on a compile failure) and the detector.
    ``cancel`` (``neocoder.judge.Cancel``): set, it stops the judging (``Cancelled`` raised)."""
    key = ReplayKey(state.problem_id, state.state, 0, state.source_index)
    prompt = solve_prompt(state.statement, key, language)
    record = Sample(problem_id=state.problem_id, state=state.state, sample=0, model=model,
                    constraints=list(state.constraints), prompt_sha256=prompt.sha256())
    judge_reply(record, state, Reply(text=text), box, human, cpu_scale, judge_all_tests, language=language,
                cancel=cancel)
    return record, score_record(record)
