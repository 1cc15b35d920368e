"""The driver's bookkeeping for the Ray executor: jobs, actors and batches in flight.

Plain records, shared by the cluster (``ray_cluster``, the actors) and the dispatcher
(``ray_dispatch``, the jobs); both change them only with the RaySandbox's lock held.
"""

from __future__ import annotations

import pickle
from concurrent.futures import Future
from dataclasses import dataclass, field

from ..judge.verdicts import INFRA, SubmissionResult, TestVerdict


@dataclass(eq=False)
class Job:
    """One caller's submission: what the actor gets (``payload``) and where its result goes."""

    payload: dict
    future: Future
    stop_at_first_failure: bool
    attempts: int = 0
    avoid: set = field(default_factory=set)  # actors that lost it
    last_error: str = ""
    queued: float = 0.0  # time.monotonic() when it was (last) queued on the driver


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
    stream: object = None  # handle.judge with streaming returns, made once


@dataclass(eq=False)
class Batch:
    """Jobs sent to one actor in one call, whose results stream back."""

    actor: Actor
    ref: object  # ray ObjectRefGenerator (streamed), or the ObjectRef of the whole reply
    jobs: dict  # index in the batch -> Job, until its result arrives
    streamed: bool = True


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
    ``(source, tests, limits, checker, keep_output, entry, stop_at_first_failure)`` per
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
                     p["entry"], p["stop_at_first_failure"]))
    return dumps((rows, shared))


def infra(tests: list[dict], detail: str) -> SubmissionResult:
    """INFRA on every one of ``tests``, with ``detail`` saying why."""
    return SubmissionResult(tests=[TestVerdict(INFRA, detail=detail) for _ in tests])


def short(exc: BaseException) -> str:
    """``exc`` as one line of at most about 200 characters, its type first."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"
