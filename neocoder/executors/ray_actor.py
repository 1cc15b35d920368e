"""The Ray actor that judges on one node: a warm local pool (``make_sandbox``) inside it.

Created by RaySandbox with ``ray.remote`` on a node that declares the sandbox resource;
it imports Ray only for its node id, so the class itself can be read without Ray.
A batch arrives as one call (``ray_jobs.pack``: each test list, limit and checker
shipped once per batch) and its results go back per call (``judge_all``) or in
chunks as they finish (``judge``, a streaming generator).
"""

from __future__ import annotations

import os
import pickle
import socket
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from ..judge.verdicts import SubmissionResult
from .ray_jobs import dumps

LINGER = 0.005  # seconds a streamed chunk waits for more results of its batch once one is ready


class SandboxPool:
    """One node's judge: a warm local pool (``make_sandbox``) inside a Ray actor.

    ``kind``, ``fresh``, ``runtime`` are the SandboxConfig's; ``slots`` submissions are
    judged at once (the pool's concurrency).  Created by RaySandbox with ``ray.remote``
    on a node that declares RESOURCE; never raises for sandbox trouble (``info()``
    reports ``unavailable``).  A subclass may judge elsewhere by overriding ``make_box``
    (benchmarks/executor_overhead.py's scale mode judges nothing, to time the driver)."""

    def __init__(self, kind: str, slots: int, fresh: bool, runtime: str | None):
        import ray

        from ..judge.image import runner_sha256
        self.slots = slots
        self.node_id = ray.get_runtime_context().get_node_id()
        self.box = self.make_box(kind, slots, fresh, runtime)
        self.threads = ThreadPoolExecutor(slots, thread_name_prefix="neocoder-judge")
        self.runner = runner_sha256()
        self.judged = 0
        self._lock = threading.Lock()

    def make_box(self, kind: str, slots: int, fresh: bool, runtime: str | None):
        """The node's sandbox: the local executor's warm pool of ``slots`` workers."""
        from ..judge import make_sandbox
        return make_sandbox(kind, concurrency=slots, fresh=fresh, runtime=runtime)

    def info(self) -> dict:
        """Who and where this actor is: ``{"node_id", "host", "pid", "slots", "sandbox",
        "image", "enforces", "runner_sha256", "unavailable", "judged"}``."""
        return {"node_id": self.node_id, "host": socket.gethostname(), "pid": os.getpid(), "slots": self.slots,
                "sandbox": self.box.name, "image": self.box.image, "enforces": list(self.box.enforces),
                "runner_sha256": self.runner, "unavailable": self.box.unavailable, "judged": self.judged}

    def _judge(self, row: tuple, shared: list) -> SubmissionResult:
        source, tests, limits, checker, keep_output, entry, stop = row
        result = self.box.run(source, shared[tests], shared[limits], checker=shared[checker],
                              keep_output=keep_output, entry=entry, stop_at_first_failure=stop)
        result.worker = f"{self.node_id[:12]}/{result.worker}"
        with self._lock:
            self.judged += 1
        return result

    def _start(self, batch: bytes) -> dict:
        rows, shared = pickle.loads(batch)
        return {self.threads.submit(self._judge, row, shared): i for i, row in enumerate(rows)}

    def judge_all(self, batch: bytes) -> bytes:
        """Judge a packed batch (``ray_jobs.pack``) on this node's pool, ``slots`` at a
        time; returns, pickled, ``[(index in the batch, SubmissionResult or None, error
        text or None)]`` for every job once all are done (one reply: the cheapest call,
        for small batches, where no slow program holds back many others)."""
        futures = self._start(batch)
        wait(futures)
        return dumps([(i, *_outcome(fut)) for fut, i in futures.items()])

    def judge(self, batch: bytes):
        """Judge a packed batch like ``judge_all``, streaming (call with
        ``num_returns="streaming"``): yields pickled lists of ``(index, result, error)`` as
        jobs finish, each gathering what finishes within LINGER s of its first, so a slow
        program holds back none of the others and a batch that ends at once is one reply."""
        futures = self._start(batch)
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            if pending:
                more, pending = wait(pending, timeout=LINGER)
                done |= more
            yield dumps([(futures[fut], *_outcome(fut)) for fut in done])

    def close(self) -> int:
        """Remove this pool's containers, then those of dead processes on this host (an
        actor killed with its pool left them); returns how many of the latter."""
        self.box.close()
        self.threads.shutdown(wait=False)
        return self.box.sweep() if not self.box.unavailable else 0


def _outcome(fut) -> tuple:
    try:
        return fut.result(), None
    except Exception as exc:  # noqa: BLE001 - reported per job; the driver retries it elsewhere
        return None, f"{type(exc).__name__}: {exc}"
