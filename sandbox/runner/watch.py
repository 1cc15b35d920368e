"""Watching one test: drain its pipes and poll it every 5 ms until it has ended.

The watcher stops the test (and everything of the program's uid) at the first limit
it crosses: CPU time (the container's cgroup minus the runner's and the fork server's
own), the wall-clock backstop, stdout past its cap, no CPU progress for
``limits.idle_seconds`` (where set: the compile step); or when the host asks to stop the
submission.  stdout and stderr are pipes drained concurrently: stdout past its cap is
OLE, stderr past its cap is discarded; of stdout at most ``keep`` bytes are kept (what
is left of the submission's output cap), the rest counted and dropped.  What it saw goes back as a ``Watched``; the
verdict is decided elsewhere (``limits.classify``).
"""

import collections
import os
import selectors
import time

from .limits import IDLE_CPU_SECONDS, self_cpu

POLL_SECONDS = 0.005
EXIT_GRACE_SECONDS = 1.0  # after the wall backstop, stop waiting for a pipe or a status

Watched = collections.namedtuple(
    "Watched", "wait_status usage stopped_at cpu_seconds wall_seconds peak_memory oom_kills stdout stderr "
    "stdout_cut", defaults=(False,))


def watch(test, pipes, limits, before, start, runner, jid, keep=None):
    """Watch ``test`` (an ExecTest or ForkedTest) until it has ended and its pipes
    ``(stdout read end, stderr read end)`` are closed.

    ``before`` is (cgroup CPU seconds, runner CPU seconds, OOM kills) read before the
    spawn, ``start`` the time.monotonic() of the spawn; ``runner`` the Judge (its host
    input, cgroup and ``kill_program``); ``jid`` the submission's id, for "stop".
    Returns a Watched: wait_status from the test's end (None if the fork server was
    lost) and usage (utime, stime, maxrss KiB); stopped_at "cpu", "wall", "stdout",
    "idle", "host" or None; cpu_seconds (the container's cgroup minus the runner's and the
    fork server's own, else the test process's rusage); wall_seconds; peak_memory
    (bytes of the memory cgroup, 0 where unreadable); oom_kills during the test (None
    where unreadable); stdout up to its cap and ``keep`` bytes (None: no more than the
    cap), stderr up to its cap + 1 byte; stdout_cut: the program wrote more stdout than
    was kept (and did not pass its cap).
    """
    state = _Watch(test, pipes, limits, before, start, runner, keep)
    try:
        while True:
            if state.drain() and runner.host.stop_requested(jid, readable=True):
                state.stop("host")
                if runner.host.eof:
                    state.sel.unregister(runner.host.fd)
            state.poll_end()
            now = time.monotonic()
            state.measure()
            state.enforce(now)
            if state.finished(now):
                break
    finally:
        state.sel.close()
    return state.result()


class _Watch:
    """The state of one watched test (see ``watch``)."""

    def __init__(self, test, pipes, limits, before, start, runner, keep=None):
        self.test, self.limits, self.start, self.runner = test, limits, start, runner
        self.out_r, self.err_r = pipes
        self.cpu0, self.self0, self.oom0 = before
        self.sel = selectors.DefaultSelector()
        self.bufs = {self.out_r: bytearray(), self.err_r: bytearray()}
        self.keep = limits.stdout_bytes if keep is None else max(0, min(keep, limits.stdout_bytes))
        self.out_total = 0  # bytes the program wrote to stdout, kept or not
        self.progress = (start, 0.0)  # (when, CPU seconds) the tree last made CPU progress
        for fd in pipes:
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ, "pipe")
        if test.fileno() is not None:
            self.sel.register(test.fileno(), selectors.EVENT_READ, "server")
        if not runner.host.eof:
            self.sel.register(runner.host.fd, selectors.EVENT_READ, "host")
        self.ended = None  # (status, usage) or "lost"
        self.stopped_at = None
        self.cpu_used = 0.0
        self.peak_memory = 0
        self.end_time = None

    def stop(self, reason):
        """Kill the test for ``reason`` (the first reason given is the one reported)."""
        if self.stopped_at is None:
            self.stopped_at = reason
            self.runner.kill_program(also=self.test.pid)

    def drain(self):
        """Wait up to POLL_SECONDS and read what the pipes hold; True if the host wrote."""
        host_readable = False
        for key, _ in self.sel.select(POLL_SECONDS):
            if key.data == "host":
                host_readable = True
            elif key.data == "pipe":
                self._read_pipe(key.fd)
        return host_readable

    def _read_pipe(self, fd):
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            self.sel.unregister(fd)
            return
        buf = self.bufs[fd]
        if fd == self.err_r:
            cap = self.limits.stderr_bytes
            if len(buf) <= cap:
                buf += data[: cap + 1 - len(buf)]
            return
        self.out_total += len(data)
        if len(buf) < self.keep:
            buf += data[: self.keep - len(buf)]
        if self.out_total > self.limits.stdout_bytes:
            self.stop("stdout")

    def poll_end(self):
        """Notice the test's end; whatever the program left running dies with it."""
        if self.ended is not None:
            return
        self.ended = self.test.poll()
        if self.ended is not None:
            self.end_time = time.monotonic()
            self.runner.kill_program()
            if self.test.fileno() is not None:
                self.sel.unregister(self.test.fileno())

    def measure(self):
        """Update the peak memory and the CPU time used so far."""
        cgroup = self.runner.cgroup
        self.peak_memory = max(self.peak_memory, cgroup.memory_usage() or 0)
        cpu = cgroup.cpu_seconds()
        if cpu is not None and self.cpu0 is not None:
            self.cpu_used = max(0.0, (cpu - self.cpu0) - (self_cpu() - self.self0) - self.test.server_cpu())

    def idle(self, now):
        """True once the tree used under IDLE_CPU_SECONDS of CPU time in the last
        ``limits.idle_seconds`` (never where that limit is None, nor without the cgroup's
        CPU time to measure progress by)."""
        if self.limits.idle_seconds is None or self.cpu0 is None:
            return False
        since, cpu = self.progress
        if self.cpu_used - cpu >= IDLE_CPU_SECONDS:
            self.progress = (now, self.cpu_used)
            return False
        return now - since >= self.limits.idle_seconds

    def enforce(self, now):
        """Stop a running test at its CPU, wall or idle limit; give up on a lost one."""
        if self.ended is not None:
            return
        if self.cpu_used >= self.limits.cpu_seconds:
            self.stop("cpu")
        elif now - self.start >= self.limits.wall_seconds:
            self.stop("wall")
        elif self.idle(now):
            self.stop("idle")
        elif self.stopped_at is not None:
            self.runner.kill_program(also=self.test.pid)  # until it has ended: a fork may have raced
        if now - self.start >= self.limits.wall_seconds + EXIT_GRACE_SECONDS:
            self.ended, self.end_time = "lost", now  # no status came: the fork server is gone

    def finished(self, now):
        """True once the test has ended and its pipes are closed (or held open too long)."""
        if self.ended is None:
            return False
        if not any(key.data == "pipe" for key in self.sel.get_map().values()):
            return True
        # a pipe held open by something unkillable: stop reading
        return now - max(self.end_time, self.start + self.limits.wall_seconds) > EXIT_GRACE_SECONDS

    def result(self):
        """What was seen, as a Watched."""
        wall = time.monotonic() - self.start
        cgroup = self.runner.cgroup
        oom1 = cgroup.oom_kills()
        status, usage = (None, (0.0, 0.0, 0)) if self.ended == "lost" else self.ended
        cpu_used = self.cpu_used
        if cpu_used == 0.0 or (cgroup.cpu_path is None and cgroup.cpu_v2 is None):
            cpu_used = usage[0] + usage[1]  # no cgroup: the main process only
        oom_kills = oom1 - self.oom0 if self.oom0 is not None and oom1 is not None else None
        kept = bytes(self.bufs[self.out_r])
        cut = self.out_total > len(kept) and self.stopped_at != "stdout"
        return Watched(status, usage, self.stopped_at, cpu_used, wall, self.peak_memory, oom_kills,
                       kept, bytes(self.bufs[self.err_r]), cut)
