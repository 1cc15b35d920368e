"""What every sandbox backend shares: a pool of warm workers.

A *worker* is one isolated place (a Docker container, or a set of namespaces)
where the sandbox runner (``python3 -m runner --serve``, sandbox/runner/) judges submissions one after another and
verifies a clean reset after each.  A backend only says how to start a worker and
how to tell whether its isolation is still there; the pool hands workers out and
replaces the ones whose reset was not clean or whose runner died.  What is said to
the runner, and what its answers mean, is in ``protocol.py``.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager, nullcontext

from neocoder.judge.cancel import Cancel, Cancelled
from neocoder.judge.protocol import (
    Limits,
    LineChannel,
    RunnerEnd,
    RunnerLost,
    check_language,
    compile_error_result,
    interpret,
    run_message,
    size_problem,
    skip_after_first_failure,
    verdict_of,
)
from neocoder.judge.verdicts import AC, INFRA, RE, SubmissionResult, TestVerdict

CANCEL_WAIT_SECONDS = 0.2  # how often a submission waiting for a slot looks whether its caller has gone


class Worker:
    """One isolated place with a runner serving in it (see module docstring)."""

    key: tuple
    channel: LineChannel
    name: str = "?"  # the container id or process that is this worker

    def isolation_intact(self) -> bool:  # pragma: no cover - interface
        """After a lost runner: True if the worker itself is still up (so the
        program, not the infrastructure, killed or stalled the runner)."""
        raise NotImplementedError

    def runner_end(self) -> RunnerEnd:
        """After a lost runner: its exit status and the tail of its own stderr, where
        the backend keeps them (default: nothing known)."""
        return RunnerEnd()

    def destroy(self) -> None:  # pragma: no cover - interface
        """Stop the worker and free what it holds (its channel, its container or process), for good."""
        raise NotImplementedError

    def kill(self) -> None:
        """Stop what the worker runs at once, from another thread than the one reading its
        channel: that reader then sees the runner's end (RunnerLost), and ``destroy`` frees
        the rest afterwards.  Default: ``destroy``."""
        self.destroy()


class PooledSandbox:
    """A pool of at most ``concurrency`` warm workers (default: CPU cores); implements
    the ``Sandbox`` protocol (sandbox.py) on this machine.

    ``fresh=True`` replaces a worker after every submission instead of resetting
    it.  ``spawn`` is how the runner starts each test: "fork" (from its fork server,
    where the backend has one; the default) or "exec" (a new interpreter, the old path;
    the default with ``fresh``, where a worker judges one submission only).  Workers are
    keyed by the limits fixed at their start (memory, pids, tmpfs): idle workers of
    several keys are kept, up to ``idle_per_slot`` per concurrency slot, so problems with
    different memory limits do not make containers churn; past that the least recently
    used idle worker is replaced.  ``unavailable`` is
    a message saying what to do when the backend cannot run at all; ``run`` then
    returns INFRA verdicts.
    """

    name = "?"
    enforces: tuple = ()  # isolation features beyond the common ones, e.g. "memory cgroup"
    image: str | None = None  # the container image programs run in (None: no image, the process backend)

    idle_per_slot = 4

    def __init__(self, concurrency: int | None = None, fresh: bool = False, spawn: str | None = None):
        spawn = spawn or ("exec" if fresh else "fork")  # a fork server pays off over many tests
        if spawn not in ("fork", "exec"):
            raise ValueError(f"spawn must be 'fork' or 'exec', not {spawn!r}")
        self.fresh, self.spawn = fresh, spawn
        self.concurrency = concurrency or os.cpu_count() or 1
        self.unavailable: str | None = None
        self._idle: list = []  # least recently used first
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._workers: set = set()

    def _new_worker(self, limits: Limits) -> Worker:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def capacity(self) -> int:
        """Submissions judged at once: the pool's concurrency."""
        return self.concurrency

    def sweep(self) -> int:
        """Remove what dead processes of this backend left on this machine (containers of
        a killed run); returns how many.  Nothing by default: only Docker leaves any."""
        return 0

    def close(self) -> None:
        """Stop every worker of this sandbox."""
        with self._lock:
            workers, self._workers = list(self._workers), set()
            self._idle = []
        for w in workers:
            w.destroy()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _take(self, limits: Limits) -> Worker:
        key = limits.worker_key()
        evict = None
        with self._lock:
            for i in range(len(self._idle) - 1, -1, -1):  # most recently used first
                if self._idle[i].key == key:
                    return self._idle.pop(i)
            if len(self._workers) >= self.concurrency * self.idle_per_slot and self._idle:
                evict = self._idle.pop(0)
        if evict is not None:
            self._discard(evict)
        worker = self._new_worker(limits)
        with self._lock:
            self._workers.add(worker)
        return worker

    def _release(self, worker: Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def _discard(self, worker: Worker) -> None:
        with self._lock:
            self._workers.discard(worker)
        worker.destroy()

    def run(self, source: str, tests: list[dict], limits: Limits = Limits(), checker=None,
            keep_output: bool = False, entry: str = "auto", *,
            stop_at_first_failure: bool = False, language: str = "python",
            cancel: Cancel | None = None) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input": str, "output": str}]``) with
        ``checker`` (neocoder.judge.checkers; default exact tokens).

        Returns one TestVerdict per test, in order (``keep_output``: with the whole
        stdout, for the human-solution oracle), with ``entry``, ``entry_rule`` and
        ``calls_solve`` saying how the program was run.  ``entry`` "auto" follows the
        program contract (sandbox/runner/contract.py ``prepare``); "script" runs the program
        as written (human Codeforces solutions).  ``stop_at_first_failure``: judging
        stops at the first test that is not AC and every later test is SKIPPED (the
        submission is wrong whatever they say); default: every test is judged.  A
        source or test input over the size limits (protocol.size_problem) is a
        compile-time RE, never sent.  Never raises for sandbox trouble: an
        unavailable backend and worker failures become INFRA (with the reason in
        ``detail``); a program that kills or stalls the runner gets RE.  ``language``
        "cpp" compiles the source with g++ first (a failed compile, or a source over the
        size limit, is CE on every test) and runs the binary; ValueError for a language
        the sandbox does not judge (verdicts.LANGUAGES).  ``cancel`` (cancel.py): once it is
        set, a submission waiting for a slot never takes one and a running one has its worker
        destroyed at once (the program with it); either raises ``Cancelled``.
        """
        check_language(language)
        start = time.monotonic()

        def finished(result):
            if stop_at_first_failure:
                skip_after_first_failure(result)
            result.seconds = time.monotonic() - start
            return result

        def all_tests(verdict, detail):
            return finished(SubmissionResult(tests=[TestVerdict(verdict, detail=detail) for _ in tests]))

        if self.unavailable:
            return all_tests(INFRA, self.unavailable)
        inputs = [t["input"] for t in tests]
        too_large = size_problem(source, inputs)
        if too_large:
            return finished(compile_error_result(tests, too_large, language))
        message = run_message(source, inputs, limits, entry, self.spawn, stop_at_first_failure, language)
        reply, worker, failure = self._exchange(message, tests, limits, checker, stop_at_first_failure, cancel)
        if failure is not None:
            return all_tests(*failure)
        result = interpret(reply, tests, checker, keep_output, language)
        result.worker = worker
        return finished(result)

    def _exchange(self, message: dict, tests: list[dict], limits: Limits, checker,
                  stop_at_first_failure: bool, cancel: Cancel | None = None) -> tuple:
        """Send the "run" ``message`` to a worker (waiting for a free slot) and read its
        reply; the worker is then kept, or replaced when it was not reset cleanly.

        Returns (reply, worker name, None), or (None, None, (verdict, detail)) when no
        reply came: INFRA if no worker could start, the worker itself died, or the
        runner died of its own uncaught exception (a traceback on its stderr: our fault,
        never the program's); RE if the program killed or stalled the runner in a
        worker still intact.  The detail says how the runner ended where that is known.
        Raises Cancelled once ``cancel`` is set (the worker destroyed, never reused).
        """
        def failed(row):
            return verdict_of(row, tests[row["index"]], checker).verdict != AC

        with self._slot(cancel):
            try:
                worker = self._take(limits)
            except Exception as exc:  # any failure to start a worker is the sandbox's, not the model's
                return None, None, (INFRA, f"{self.name} sandbox could not start a worker: {exc}")
            try:
                deadline = time.monotonic() + limits.reply_seconds(len(tests), message["language"])
                with cancel.watching(worker.kill) if cancel is not None else nullcontext():
                    reply = worker.channel.exchange(message, deadline,
                                                    stop_when=failed if stop_at_first_failure else None)
            except RunnerLost as exc:
                if cancel is not None and cancel.is_set():
                    self._discard(worker)
                    raise Cancelled("the caller has gone: the submission was stopped") from exc
                intact = worker.isolation_intact()
                end = worker.runner_end()
                self._discard(worker)
                how = f"{exc}{end.describe()}"
                if not intact:
                    return None, None, (INFRA, f"{self.name} sandbox worker died ({how})")
                if end.crashed:
                    return None, None, (INFRA, f"the sandbox runner crashed ({how})")
                return None, None, (RE, f"the program killed or stalled the sandbox runner ({how})")
            if cancel is not None and cancel.is_set():  # set as the reply came: the worker may be half destroyed
                self._discard(worker)
                raise Cancelled("the caller has gone: the submission was stopped")
            if self.fresh or not reply.clean:
                self._discard(worker)
            else:
                self._release(worker)
        return reply, worker.name, None

    @contextmanager
    def _slot(self, cancel: Cancel | None):
        """One of the pool's ``concurrency`` slots for the ``with`` block; while waiting for
        one, a set ``cancel`` raises Cancelled (looked at every CANCEL_WAIT_SECONDS)."""
        if cancel is None:
            self._slots.acquire()
        else:
            while not self._slots.acquire(timeout=CANCEL_WAIT_SECONDS):
                if cancel.is_set():
                    raise Cancelled("the caller has gone before the submission was judged")
        try:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the caller has gone before the submission was judged")
            yield
        finally:
            self._slots.release()
