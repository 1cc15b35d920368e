"""The driver's bookkeeping for the Ray executor: jobs, actors and batches in flight.

Plain records, shared by the cluster (``ray_cluster``, the actors) and the dispatcher
(``ray_dispatch``, the jobs); both change them only with the RaySandbox's lock held.
"""

from __future__ import annotations

import pickle
import threading
from dataclasses import dataclass, field

from neocoder.judge.verdicts import INFRA, SubmissionResult, TestVerdict


def _held() -> threading.Lock:
    lock = threading.Lock()
    lock.acquire()
    return lock


@dataclass(eq=False)
class Job:
    """One caller's submission: what the actor gets (``payload``) and where its result goes.

    The caller blocks in ``wait()`` on a lock that ``deliver`` releases: the cheapest
    hand-over between two threads in CPython (a ``concurrent.futures.Future`` makes a
    condition, a lock and a waiter list per job, about 10 us more per job at thousands
    of jobs a second)."""

    payload: dict
    stop_at_first_failure: bool
    attempts: int = 0
    avoid: set = field(default_factory=set)  # actors that lost it
    last_error: str = ""
    queued: float = 0.0  # time.monotonic() when it was (last) queued on the driver
    result: SubmissionResult | None = None
    _claim: threading.Lock = field(default_factory=threading.Lock)  # taken by the one delivery
    _done: threading.Lock = field(default_factory=_held)  # released when ``result`` is set

    def deliver(self, result: SubmissionResult) -> bool:
        """Hand ``result`` to the caller, once (any thread); False if it had one already."""
        if not self._claim.acquire(blocking=False):
            return False
        self.result = result
        self._done.release()
        return True

    def wait(self) -> SubmissionResult:
        """Block until the job's result is delivered; the result (any number of times)."""
        self._done.acquire()
        self._done.release()  # open for good: a later wait returns at once
        return self.result


@dataclass(eq=False)
class Actor:
    """One SandboxPool actor as the driver sees it."""

    key: str
    node_id: str
    handle: object
    slots: int
    state: str = "starting"  # starting -> up; up -> down (probing) -> up | dead; starting -> unusable | dead
    info: dict = field(default_factory=dict)
    inflight: int = 0
    probe: object = None  # an info() ObjectRef while starting or down
    probe_after: float = 0.0
    reason: str = ""


@dataclass(eq=False)
class Batch:
    """Jobs sent to one actor in one call; its reply gives those that finished (all of
    them, or those done by then if the call may return early) and, while some are still
    running, a token for the actor's ``rest`` call, which answers the same way."""

    actor: Actor
    jobs: dict  # index in the batch -> Job, until its result arrives
    hold: float | None  # how long the actor may gather results once one is ready (None: wait for all)
    token: int | None = None  # the actor's token for the jobs still running, once a reply has left early


def dumps(obj) -> bytes:
    """``obj`` pickled (protocol 5), by cloudpickle where plain pickle cannot: one
    ``bytes`` per actor call and reply, which Ray ships as is (inline, or through its
    object store when large), cheaper than Ray serializing the nested objects itself."""
    try:
        return pickle.dumps(obj, protocol=5)
    except (pickle.PicklingError, AttributeError, TypeError):
        from ray import cloudpickle
        return cloudpickle.dumps(obj, protocol=5)


def pack(jobs: list[Job]) -> bytes:
    """One batch's argument for ``SandboxPool.judge``: ``dumps((rows, shared))``, a row
    ``(source, tests, limits, checker, keep_output, entry, stop_at_first_failure, language)`` per
    job whose ``tests``, ``limits`` and ``checker`` are indices into ``shared``, where
    each distinct object (by identity: the samples of one problem share its tests) is
    serialized once per batch however many jobs use it."""
    shared: list = []
    index: dict[int, int] = {}

    def ref(obj) -> int:
        at = index.get(id(obj))
        if at is None:
            at = index[id(obj)] = len(shared)
            shared.append(obj)
        return at

    rows = []
    for job in jobs:
        p = job.payload
        rows.append((p["source"], ref(p["tests"]), ref(p["limits"]), ref(p["checker"]), p["keep_output"],
                     p["entry"], p["stop_at_first_failure"], p["language"]))
    return dumps((rows, shared))


def infra(tests: list[dict], detail: str) -> SubmissionResult:
    """INFRA on every one of ``tests``, with ``detail`` saying why."""
    return SubmissionResult(tests=[TestVerdict(INFRA, detail=detail) for _ in tests])


def short(exc: BaseException) -> str:
    """``exc`` as one line of at most about 200 characters, its type first."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"
