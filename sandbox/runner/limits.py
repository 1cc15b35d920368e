"""Limits per test and the counters that measure them; ``classify``, the verdict.

CPU time is the memory/CPU cgroup's usage of the whole container minus the runner's
and the fork server's own, so threads and child processes count; a wall-clock
backstop catches sleeping, blocked or stopped programs.  Memory is the container's
cgroup limit; an OOM kill is read from the cgroup's ``oom_kill`` counter.  In the
process backend there is no cgroup of our own (``Cgroup(enabled=False)``): rlimits
and the test process's rusage stand in.

Only ``classify`` decides a verdict, from plain values, so it can be tested without
a sandbox (tests/test_runner_classify.py).
"""

import collections
import os
import resource
import signal

CGROUP_CPU = ("/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage")
CGROUP_CPU_V2 = "/sys/fs/cgroup/cpu.stat"
CGROUP_OOM = ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")
CGROUP_MEM_USAGE = ("/sys/fs/cgroup/memory/memory.usage_in_bytes", "/sys/fs/cgroup/memory.current")
CGROUP_MEM_LIMIT = ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max")
CGROUP_PIDS = "/sys/fs/cgroup/pids/pids.current"
NEAR_LIMIT_BYTES = 8 << 20  # a failing test this close to the memory limit is MLE
# Wall-time budgets (protocol.py has the same numbers; a test checks they agree).  A test's
# wall backstop is at most WALL_FACTOR x its CPU limit + WALL_EXTRA_SECONDS, whatever the host
# asks; a submission's tests together at most WALL_FACTOR x their CPU limits together +
# SUBMISSION_WALL_EXTRA_SECONDS: a sleeping program is stopped, not waited for.
WALL_FACTOR = 2.0
WALL_EXTRA_SECONDS = 1.0
SUBMISSION_WALL_EXTRA_SECONDS = 5.0
UNLIMITED_BYTES = 1 << 50  # cgroup v1 reports "no memory limit" as a huge number


# ---------------------------------------------------------------- measurements
def _first_readable(paths):
    for p in paths:
        try:
            with open(p):
                return p
        except OSError:
            continue
    return None


class CounterFile:
    """A kernel counter file kept open and re-read with pread: the watcher reads some
    every 5 ms, and an open per read costs more than the read."""

    def __init__(self, path):
        self.fd = None
        if path:
            try:
                self.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass

    def text(self):
        """The file's content now, or None where it cannot be read."""
        if self.fd is None:
            return None
        try:
            return os.pread(self.fd, 4096, 0).decode("ascii", "replace")
        except OSError:
            return None

    def number(self, key=None):
        """The file as one integer, or the integer after ``key`` on its line; None if absent."""
        text = self.text()
        if text is None:
            return None
        try:
            if key is None:
                return int(text.strip())
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
        except ValueError:
            pass
        return None


class Cgroup:
    """The container's own cgroup counters, read-only (None where unavailable)."""

    def __init__(self, enabled=True):
        self.enabled = enabled  # False in the process backend: no cgroup of our own
        self.cpu_path = _first_readable(CGROUP_CPU) if enabled else None
        self.cpu_v2 = None if self.cpu_path or not enabled else _first_readable((CGROUP_CPU_V2,))
        self.cpu = CounterFile(self.cpu_path or self.cpu_v2)
        self.oom = CounterFile(_first_readable(CGROUP_OOM) if enabled else None)
        self.usage = CounterFile(_first_readable(CGROUP_MEM_USAGE) if enabled else None)
        self.pids = CounterFile(CGROUP_PIDS if enabled else None)
        self.memory_limit = CounterFile(_first_readable(CGROUP_MEM_LIMIT) if enabled else None).number()

    def cpu_seconds(self):
        """CPU time of the whole container so far (s), or None."""
        if self.cpu_path:
            ns = self.cpu.number()
            return None if ns is None else ns / 1e9
        us = self.cpu.number("usage_usec")
        return None if us is None else us / 1e6

    def oom_kills(self):
        """OOM kills in the container so far (None where unreadable)."""
        return self.oom.number("oom_kill")

    def memory_usage(self):
        """Bytes the container's memory cgroup charges now (None where unreadable)."""
        return self.usage.number()

    def processes(self):
        """Processes (and threads) in the container now, or None."""
        return self.pids.number()


def self_cpu():
    """CPU time (user + system, s) this process has used so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

# ---------------------------------------------------------------- limits and the verdict

# idle_seconds (None: no such rule): stop when the watched tree used under IDLE_CPU_SECONDS
# of CPU time in that many seconds (the compile step: g++ never waits for anything).
Limits = collections.namedtuple(
    "Limits", "cpu_seconds wall_seconds stdout_bytes stderr_bytes stack_bytes memory_bytes pids idle_seconds",
    defaults=(None,))
IDLE_CPU_SECONDS = 0.01


def wall_cap(cpu_seconds):
    """The longest wall backstop a test with ``cpu_seconds`` of CPU time gets (s)."""
    return WALL_FACTOR * cpu_seconds + WALL_EXTRA_SECONDS


def submission_wall(job):
    """The wall time (s) all tests of a "run" message may take together: the host's
    ``submission_wall_seconds`` when given, never more than WALL_FACTOR x the tests' CPU
    limits together + SUBMISSION_WALL_EXTRA_SECONDS."""
    n = len(job["inputs"])
    cap = WALL_FACTOR * n * float(job["cpu_seconds"]) + SUBMISSION_WALL_EXTRA_SECONDS
    asked = job.get("submission_wall_seconds")
    return cap if asked is None else min(float(asked), cap)


def limits_of(job):
    """The per-test limits of a "run" message (seconds, bytes, a process count); the wall
    backstop is the host's, but never over ``wall_cap`` of the CPU limit."""
    cpu = float(job["cpu_seconds"])
    return Limits(cpu, min(float(job["wall_seconds"]), wall_cap(cpu)), int(job["stdout_bytes"]),
                  int(job["stderr_bytes"]), int(job.get("stack_bytes", 256 << 20)),
                  int(job.get("memory_bytes", 256 << 20)), int(job.get("pids", 64)))


def cpu_backstop(limits):
    """RLIMIT_CPU of a test (s): a little above its limit; the watcher stops it first
    where the cgroup's CPU time is readable."""
    return max(1, int(limits.cpu_seconds + 1.999))

def signal_name(number):
    """The name of signal ``number`` ("SIGKILL" for 9; "signal 40" for a real-time signal
    Python has no name for); None for None."""
    if not number:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def classify(*, exit_code, signal_number, exception, stopped_at, cpu_seconds, cpu_limit,
             oom_kills, peak_memory, memory_limit, wall_limit=None):
    """The runner's verdict on one test: (status, detail).  Pure: no side effects.

    exit_code: the exit status, None if a signal ended the test; signal_number: the
    signal that ended it, else None; exception: the class name of the program's
    uncaught exception, or None; stopped_at: "cpu", "wall", "stdout" or None, the
    limit at which the watcher stopped the test; cpu_seconds / cpu_limit: CPU time
    used and allowed (s); oom_kills: OOM kills in the container during the test
    (None where unreadable); peak_memory / memory_limit: the memory cgroup's peak
    and limit (bytes; memory_limit None or >= 2**50 where there is none); wall_limit:
    the wall backstop the test had (s), for the detail.

    status is "ole", "mle", "tle", "re" or "ok", decided in that order: stdout past
    its cap; an OOM kill, a MemoryError, or a failure of any kind within
    NEAR_LIMIT_BYTES of the memory limit; the CPU or wall limit reached (or
    SIGXCPU); a signal or a non-zero exit; else "ok".  detail names what ended an
    "re" (exception, else signal, else "exit code N") and says "wall time" for a "tle"
    at the wall backstop; it is None otherwise.
    """
    failed = stopped_at is not None or signal_number is not None or exit_code != 0
    near_limit = (memory_limit is not None and memory_limit < UNLIMITED_BYTES
                  and peak_memory >= memory_limit - NEAR_LIMIT_BYTES)
    if stopped_at == "stdout":
        return "ole", None
    if oom_kills is not None and oom_kills > 0:
        return "mle", None
    if exception == "MemoryError":
        return "mle", None
    if failed and near_limit:
        # it ran into the memory limit and then failed (often TLE while the kernel
        # reclaims at the limit, before the OOM killer acts): memory is what it exceeded
        return "mle", None
    if stopped_at == "wall":
        limit = f" of {wall_limit:.3g} s" if wall_limit is not None else ""
        return "tle", f"stopped at its wall time limit{limit} after {cpu_seconds:.2f} s of CPU time"
    if stopped_at is not None or signal_number == signal.SIGXCPU or cpu_seconds >= cpu_limit:
        return "tle", None
    if signal_number is not None or exit_code != 0:
        return "re", exception or signal_name(signal_number) or f"exit code {exit_code}"
    return "ok", None

