"""The Ray actor that judges on one node: a warm local pool (``make_sandbox``) inside it.

Created by RaySandbox with ``ray.remote`` on a node that declares the sandbox resource;
it imports Ray only for its node id, so the class itself can be read without Ray.
A batch arrives as one call (``ray_jobs.pack``: each test list, limit and checker
shipped once per batch) and its results go back in that call's reply; when the
driver lets a batch's reply leave early (a slow program must not hold back the
others), the rest follow in the replies of ``rest`` calls.
"""

from __future__ import annotations

import os
import pickle
import socket
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from neocoder.executors.ray_jobs import dumps
from neocoder.judge.verdicts import SubmissionResult


class SandboxPool:
    """One node's judge: a warm local pool (``make_sandbox``) inside a Ray actor.

    ``kind``, ``fresh``, ``runtime`` are the SandboxConfig's; ``slots`` submissions are
    judged at once (the pool's concurrency).  Created by RaySandbox with ``ray.remote``
    on a node that declares RESOURCE; never raises for sandbox trouble (``info()``
    reports ``unavailable``).  A subclass may judge elsewhere by overriding ``make_box``
    (perf/executor_overhead.py's scale mode judges nothing, to time the driver)."""

    def __init__(self, kind: str, slots: int, fresh: bool, runtime: str | None):
        import ray

        from neocoder.judge.image import runner_sha256
        self.slots = slots
        self.node_id = ray.get_runtime_context().get_node_id()
        self.box = self.make_box(kind, slots, fresh, runtime)
        self.threads = ThreadPoolExecutor(slots, thread_name_prefix="neocoder-judge")
        self.runner = runner_sha256()
        self.judged = 0
        self.running: dict[int, dict] = {}  # token -> {future: index} of a batch's unfinished jobs
        self.tokens = 0
        self._lock = threading.Lock()

    def make_box(self, kind: str, slots: int, fresh: bool, runtime: str | None):
        """The node's sandbox: the local executor's warm pool of ``slots`` workers."""
        from neocoder.judge import make_sandbox
        return make_sandbox(kind, concurrency=slots, fresh=fresh, runtime=runtime)

    def info(self) -> dict:
        """Who and where this actor is: ``{"node_id", "host", "pid", "slots", "sandbox",
        "image", "enforces", "runner_sha256", "unavailable", "judged"}``."""
        return {"node_id": self.node_id, "host": socket.gethostname(), "pid": os.getpid(), "slots": self.slots,
                "sandbox": self.box.name, "image": self.box.image, "enforces": list(self.box.enforces),
                "runner_sha256": self.runner, "unavailable": self.box.unavailable, "judged": self.judged}

    def _judge(self, row: tuple, shared: list) -> SubmissionResult:
        source, tests, limits, checker, keep_output, entry, stop, language = row
        result = self.box.run(source, shared[tests], shared[limits], checker=shared[checker],
                              keep_output=keep_output, entry=entry, stop_at_first_failure=stop, language=language)
        result.worker = f"{self.node_id[:12]}/{result.worker}"
        with self._lock:
            self.judged += 1
        return result

    def judge(self, batch: bytes, hold: float | None) -> bytes:
        """Judge a packed batch (``ray_jobs.pack``) on this node's pool, ``slots`` at a
        time.  Returns, pickled, ``(finished, token)``: ``finished`` is ``[(index in the
        batch, SubmissionResult or None, error text or None)]``; with ``hold`` None, every
        job once all are done (token None); else the jobs done within ``hold`` s of the
        first to finish, and, if some are still running, a ``token`` for ``rest``.  So a
        batch that ends together is one reply (one call: cheaper for the driver than Ray's
        streaming methods, measured), and a slow program holds the others back at most
        ``hold`` s.  With ``hold`` None the call judges one job in its own thread."""
        rows, shared = pickle.loads(batch)
        futures = {self.threads.submit(self._judge, row, shared): i for i, row in enumerate(rows[1:], 1)}
        if hold is None:  # this call waits for all its jobs anyway: it judges the first itself
            futures[_run(self._judge, rows[0], shared)] = 0
        else:
            futures[self.threads.submit(self._judge, rows[0], shared)] = 0
        return self._reply(futures, hold)

    def rest(self, token: int, hold: float | None) -> bytes:
        """The next results of a batch that ``judge`` (or ``rest``) left running under
        ``token``, as ``judge`` gives them."""
        with self._lock:
            futures = self.running.pop(token)
        return self._reply(futures, hold)

    def forget(self, token: int) -> None:
        """Drop what ``judge`` left running under ``token`` (its results are not wanted:
        the driver gave the batch up); the jobs themselves end as they would."""
        with self._lock:
            self.running.pop(token, None)

    def _reply(self, futures: dict, hold: float | None) -> bytes:
        if hold is None:
            done, pending = wait(futures)[0], set()
        else:
            done, pending = wait(futures, return_when=FIRST_COMPLETED)
            if pending:
                more, pending = wait(pending, timeout=hold)
                done |= more
        token = None
        if pending:
            with self._lock:
                token = self.tokens = self.tokens + 1
                self.running[token] = {fut: futures[fut] for fut in pending}
        return dumps(([(futures[fut], *_outcome(fut)) for fut in done], token))

    def close(self) -> int:
        """Remove this pool's containers, then those of dead processes on this host (an
        actor killed with its pool left them); returns how many of the latter."""
        self.box.close()
        self.threads.shutdown(wait=False)
        return self.box.sweep() if not self.box.unavailable else 0


def _run(fn, *args) -> Future:
    """``fn(*args)`` run here and now, as a finished Future (its result or exception)."""
    fut: Future = Future()
    try:
        fut.set_result(fn(*args))
    except Exception as exc:  # noqa: BLE001 - reported per job, as a pool thread's would be
        fut.set_exception(exc)
    return fut


def _outcome(fut) -> tuple:
    try:
        return fut.result(), None
    except Exception as exc:  # noqa: BLE001 - reported per job; the driver retries it elsewhere
        return None, f"{type(exc).__name__}: {exc}"
