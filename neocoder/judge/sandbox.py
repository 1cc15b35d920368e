"""The ``Sandbox`` protocol: what callers of a sandbox may use, whoever schedules the jobs.

Two implementations: the local warm pool (``PooledSandbox``, with its Docker and process
backends) and the Ray executor (``neocoder.executors.ray.RaySandbox``), which spreads
the same jobs over sandbox-pool actors on a cluster.  The pipeline, the oracle, the
strategies and the service type against this protocol, never against one of them, and
never discover a member with ``hasattr``: everything a caller uses is declared here.
``neocoder.executors.open_sandbox`` chooses the implementation.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

# The local sandbox kinds (SandboxConfig.kind, --sandbox; ``Sandbox.name``), one constant each.
from neocoder.config import DOCKER, PROCESS  # noqa: F401  (the kinds by name, declared in config.py)
from neocoder.judge.cancel import Cancel
from neocoder.judge.protocol import Limits
from neocoder.judge.verdicts import SubmissionResult


@runtime_checkable
class Sandbox(Protocol):
    """A place that judges submissions (see module docstring).

    Attributes:
        name: the backend, "docker", "process" or "ray" (shown by health checks).
        image: the container image programs run in; None where there is none (the
            process backend, or a Ray sandbox with no usable node).
        enforces: isolation features beyond the common ones, e.g. "memory cgroup".
        unavailable: None when it can judge; else a message saying what to do (``run``
            then gives INFRA on every test).
        fresh: a worker judges one submission only (replaced, not reset).
    """

    name: str
    image: str | None
    enforces: tuple
    unavailable: str | None
    fresh: bool

    @property
    def capacity(self) -> int:
        """Submissions judged at once (the local pool's concurrency, or the sum of the
        usable Ray actors' slots)."""

    def run(self, source: str, tests: list[dict], limits: Limits = Limits(), checker=None,
            keep_output: bool = False, entry: str = "auto", *,
            stop_at_first_failure: bool = False, language: str = "python",
            cancel: Cancel | None = None) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input": str, "output": str}]``) with
        ``checker`` (neocoder.judge.checkers; default exact tokens): one TestVerdict per
        test, in order.  ``keep_output`` keeps each test's whole stdout; ``entry`` "auto"
        follows the program contract, "script" runs the program as written;
        ``stop_at_first_failure`` marks every test after the first non-AC one SKIPPED;
        ``language`` "python" or "cpp" (compiled by g++ first; a compile error is CE on
        every test; ValueError for another language).  ``cancel`` (judge/cancel.py): once it
        is set, the submission is stopped and ``Cancelled`` raised (its caller has gone).
        Never raises for sandbox trouble: that is INFRA with the reason in ``detail``."""

    def close(self) -> None:
        """Stop every worker; ``run`` must not be called afterwards."""

    def __enter__(self) -> Sandbox:
        """The sandbox itself (closed on exit)."""

    def __exit__(self, *exc) -> None:
        """``close()``."""
