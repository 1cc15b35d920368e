"""What every sandbox backend shares: limits, the runner protocol, a pool of warm workers.

A *worker* is one isolated place (a Docker container, or a set of namespaces)
where ``sandbox/runner.py --serve`` judges submissions one after another and
verifies a clean reset after each.  A backend only says how to start a worker and
how to tell whether its isolation is still there; the pool hands workers out,
replaces the ones whose reset was not clean or whose runner died, and turns the
runner's reports into verdicts.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import threading
import time
import uuid
from dataclasses import dataclass

from .checkers import check
from .verdicts import AC, INFRA, MLE, OLE, RE, TLE, WA, SubmissionResult, TestVerdict


class RunnerLost(RuntimeError):
    """The runner died or stopped answering during a submission."""


@dataclass(frozen=True)
class Limits:
    """Per-test limits.

    cpu_seconds: CPU time of the whole process tree (Docker backend; the process
    backend can only limit the main process); wall_seconds: backstop for sleeping
    or blocked programs; memory_mb: the container's memory cgroup, swap equal to it
    (process backend: address space); stdout_bytes / stderr_bytes: caps (stdout past
    its cap is OLE, stderr past its cap is dropped); pids: processes and threads;
    tmpfs_mb: the size of /tmp and of /dev/shm each.
    """

    cpu_seconds: float = 2.0
    wall_seconds: float = 20.0
    memory_mb: int = 256
    stdout_bytes: int = 4 << 20
    stderr_bytes: int = 64 << 10
    pids: int = 64
    tmpfs_mb: int = 64

    @classmethod
    def for_cpu(cls, cpu_seconds: float, memory_mb: int = 256) -> "Limits":
        """Limits for a CPU time (s) and memory (MiB); the wall backstop is 10x + 5 s."""
        return cls(cpu_seconds=cpu_seconds, wall_seconds=10 * cpu_seconds + 5, memory_mb=memory_mb)

    @classmethod
    def for_state(cls, state: dict, cpu_scale: float = 1.0) -> "Limits":
        """Limits from a problem-state record's ``time_limit_s`` and ``memory_limit_mb``."""
        return cls.for_cpu(float(state.get("time_limit_s", 2.0)) * cpu_scale,
                           int(state.get("memory_limit_mb", 256)))

    def worker_key(self) -> tuple:
        """Limits fixed when a worker starts; the others travel with each job."""
        return (self.memory_mb, self.pids, self.tmpfs_mb)

    def job(self, source: str, tests: list[dict], entry: str = "auto") -> dict:
        """The runner's request for ``source`` on ``tests`` (inputs only); ``entry``
        "script" runs the program as written instead of calling its solve()."""
        return {"op": "run", "id": uuid.uuid4().hex[:8], "source": source, "entry": entry,
                "inputs": [t["input"] for t in tests], "cpu_seconds": self.cpu_seconds,
                "wall_seconds": self.wall_seconds, "stdout_bytes": self.stdout_bytes,
                "stderr_bytes": self.stderr_bytes, "stack_bytes": self.memory_mb << 20,
                "memory_bytes": self.memory_mb << 20, "pids": self.pids}


class LineChannel:
    """JSON lines to and from a runner over a byte stream, with deadlines.

    Subclasses provide ``_read(timeout) -> bytes`` (b"" at end of stream) and
    ``_write(bytes)``; ``_payload`` may strip a transport's framing.
    """

    def __init__(self):
        self.pending = bytearray()

    def send(self, obj: dict) -> None:
        try:
            self._write(json.dumps(obj).encode("utf-8") + b"\n")
        except OSError as exc:
            raise RunnerLost(f"cannot write to the runner: {exc}") from exc

    def recv(self, deadline: float) -> dict:
        """The next JSON object the runner printed; raises RunnerLost."""
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line = bytes(self.pending[:newline])
                del self.pending[:newline + 1]
                try:
                    return json.loads(line)
                except ValueError:
                    continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RunnerLost("runner did not answer in time")
            self.pending += self._next_payload(remaining)

    def exchange(self, job: dict, deadline: float) -> tuple[dict | None, dict, dict]:
        """Send one job; collect (header, test rows by index, done)."""
        self.send(job)
        header, rows = None, {}
        while True:
            msg = self.recv(deadline)
            kind = msg.get("kind")
            if kind == "header":
                header = msg
            elif kind == "test":
                rows[msg["index"]] = msg
            elif kind == "done":
                return header, rows, msg

    def _next_payload(self, timeout: float) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def _write(self, data: bytes) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class PipeChannel(LineChannel):
    """A runner's stdin/stdout pipes (the process backend)."""

    def __init__(self, stdin, stdout):
        super().__init__()
        self.stdin, self.stdout = stdin, stdout
        self.selector = selectors.DefaultSelector()
        self.selector.register(stdout, selectors.EVENT_READ)

    def _next_payload(self, timeout: float) -> bytes:
        if not self.selector.select(timeout):
            raise RunnerLost("runner did not answer in time")
        data = os.read(self.stdout.fileno(), 1 << 16)
        if not data:
            raise RunnerLost("runner exited")
        return data

    def _write(self, data: bytes) -> None:
        self.stdin.write(data)
        self.stdin.flush()


class Worker:
    """One isolated place with a runner serving in it (see module docstring)."""

    key: tuple
    channel: LineChannel

    def isolation_intact(self) -> bool:  # pragma: no cover - interface
        """After a lost runner: True if the worker itself is still up (so the
        program, not the infrastructure, killed or stalled the runner)."""
        raise NotImplementedError

    def destroy(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class PooledSandbox:
    """A pool of at most ``concurrency`` warm workers (default: CPU cores).

    ``fresh=True`` replaces a worker after every submission instead of resetting
    it.  Workers are keyed by the limits fixed at their start (memory, pids, tmpfs):
    idle workers of several keys are kept, up to ``idle_per_slot`` per concurrency
    slot, so problems with different memory limits do not make containers churn;
    past that the least recently used idle worker is replaced.  ``unavailable`` is
    a message saying what to do when the backend cannot run at all; ``run`` then
    returns INFRA verdicts.
    """

    name = "?"
    enforces: tuple = ()  # isolation features beyond the common ones, e.g. "memory cgroup"

    idle_per_slot = 4

    def __init__(self, concurrency: int | None = None, fresh: bool = False):
        self.fresh = fresh
        self.concurrency = concurrency or os.cpu_count() or 1
        self.unavailable: str | None = None
        self._idle: list = []  # least recently used first
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._workers: set = set()

    def _new_worker(self, limits: Limits) -> Worker:  # pragma: no cover - interface
        raise NotImplementedError

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
            keep_output: bool = False, entry: str = "auto") -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input": str, "output": str}]``) with
        ``checker`` (neocoder.judge.checkers; default exact tokens).

        Returns one TestVerdict per test, in order (``keep_output``: with the whole
        stdout, for the human-solution oracle).  ``entry`` "auto" follows the program
        contract (a zero-argument solve() is called once per test); "script" runs the
        program as written (human Codeforces solutions).  Never raises for sandbox
        trouble: an unavailable backend and worker failures become INFRA (with the
        reason in ``detail``); a program that kills or stalls the runner gets RE.
        """
        start = time.monotonic()

        def all_tests(verdict, detail):
            return SubmissionResult(tests=[TestVerdict(verdict, detail=detail) for _ in tests],
                                    seconds=time.monotonic() - start)

        if self.unavailable:
            return all_tests(INFRA, self.unavailable)
        job = limits.job(source, tests, entry)
        budget = len(tests) * (limits.wall_seconds + 5) + 30
        with self._slots:
            try:
                worker = self._take(limits)
            except Exception as exc:  # any failure to start a worker is the sandbox's, not the model's
                return all_tests(INFRA, f"{self.name} sandbox could not start a worker: {exc}")
            try:
                header, rows, done = worker.channel.exchange(job, time.monotonic() + budget)
            except RunnerLost as exc:
                intact = worker.isolation_intact()
                self._discard(worker)
                if intact:
                    return all_tests(RE, f"the program killed or stalled the sandbox runner ({exc})")
                return all_tests(INFRA, f"{self.name} sandbox worker died ({exc})")
            if self.fresh or not done.get("clean"):
                self._discard(worker)
            else:
                self._release(worker)
        result = interpret(header, rows, tests, checker, keep_output)
        result.reset_problem = None if done.get("clean") else done.get("problem")
        result.seconds = time.monotonic() - start
        return result


def interpret(header: dict | None, rows: dict, tests: list[dict], checker=None,
              keep_output: bool = False) -> SubmissionResult:
    """Turn the runner's reports into verdicts by checking stdout against each test."""
    if header is None:
        return SubmissionResult(tests=[TestVerdict(INFRA, detail="runner sent no header") for _ in tests])
    if header.get("compile_error"):
        return SubmissionResult(
            entry=None, compile_error=header["compile_error"],
            tests=[TestVerdict(RE, detail="compile error: " + header["compile_error"]) for _ in tests])
    verdicts = []
    for i, test in enumerate(tests):
        row = rows.get(i)
        if row is None or row.get("status") == "infra":
            verdicts.append(TestVerdict(INFRA, detail=(row or {}).get("detail", "no result from runner")))
            continue
        stdout = base64.b64decode(row["stdout_b64"])
        kind, detail = row["status"], None
        if kind == "ok":
            verdict = AC if check(checker, stdout, test) else WA
        elif kind in ("tle", "mle", "ole"):
            verdict = {"tle": TLE, "mle": MLE, "ole": OLE}[kind]
        else:
            verdict = RE
            detail = row.get("exception") or row.get("signal") or f"exit code {row.get('exit_code')}"
        verdicts.append(TestVerdict(
            verdict, cpu_seconds=row["cpu_seconds"], wall_seconds=row["wall_seconds"],
            max_rss_kb=row["max_rss_kb"], peak_cgroup_kb=row.get("peak_cgroup_kb"), detail=detail,
            stdout_head=stdout[:200].decode("utf-8", "replace"),
            stdout=stdout.decode("utf-8", "replace") if keep_output else None))
    return SubmissionResult(tests=verdicts, entry=header.get("entry"))
