"""The driver's bookkeeping for the Ray executor: jobs, actors and batches in flight.

Plain records, shared by the cluster (``ray_cluster``, the actors) and the dispatcher
(``ray_dispatch``, the jobs); both change them only with the RaySandbox's lock held.
"""

from __future__ import annotations

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
    """Jobs sent to one actor in one call, whose results stream back."""

    actor: Actor
    gen: object  # ray ObjectRefGenerator
    jobs: dict  # index in the batch -> Job, until its result arrives


def infra(tests: list[dict], detail: str) -> SubmissionResult:
    """INFRA on every one of ``tests``, with ``detail`` saying why."""
    return SubmissionResult(tests=[TestVerdict(INFRA, detail=detail) for _ in tests])


def short(exc: BaseException) -> str:
    """``exc`` as one line of at most about 200 characters, its type first."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"
