"""The process backend (``--sandbox process``): for machines without Docker.

WEAKER than the Docker backend; use it only where Docker cannot run.  Each worker
is ``sandbox/runner.py --serve --process`` started through util-linux's
``unshare`` in new user, PID, mount and network namespaces (as root, ``setpriv``
first drops to uid/gid 65534).  Inside, the runner is PID 1 -- a program cannot
signal it -- mounts private tmpfs on /tmp and /dev/shm, drops every capability,
and starts each test with rlimits.  What it enforces: no network (an empty
network namespace), no signals or ptrace to anything outside its PID namespace,
a private /tmp and /dev/shm wiped and verified after each submission, CPU time
of the main test process (RLIMIT_CPU), address space (RLIMIT_AS, so MLE comes from
MemoryError), process count (RLIMIT_NPROC), file size, open files, core = 0.

What it does NOT enforce (the Docker backend does): a read-only root filesystem
(the program can read every world-readable host file and write where uid 65534
may), CPU time summed over the whole process tree, a memory cgroup (peak memory
of child processes is not bounded as a whole), OOM-kill detection.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import time

from .image import RUNNER_PATH
from .pool import PooledSandbox, Worker
from .protocol import Limits, LineChannel, RunnerLost

UNPRIVILEGED = "65534"
NOT_ENFORCED = ("read-only root filesystem", "CPU time of the whole process tree",
                "memory cgroup and OOM-kill detection")


def _interpreter() -> str:
    """A python3 the unprivileged uid can execute (the runner needs only the stdlib)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.isfile(candidate) and os.stat(candidate).st_mode & 0o001:
            return candidate
    return sys.executable


def _command(limits: Limits) -> list[str]:
    cmd = []
    if os.geteuid() == 0:
        cmd += ["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups"]
    cmd += ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--mount-proc", "--mount",
            "--kill-child", _interpreter(), "-I", str(RUNNER_PATH), "--serve", "--process", str(limits.tmpfs_mb)]
    return cmd


class _PipeChannel(LineChannel):
    """The runner's stdin and stdout pipes."""

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


class _ProcessWorker(Worker):
    def __init__(self, limits: Limits):
        self.key = limits.worker_key()
        self.proc = subprocess.Popen(_command(limits), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd="/", env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        self.channel = _PipeChannel(self.proc.stdin, self.proc.stdout)
        try:
            self.channel.wait_ready(time.monotonic() + 30)
        except RunnerLost as exc:
            err = self.proc.stderr.read(2000).decode("utf-8", "replace") if self.proc.poll() is not None else ""
            self.destroy()
            raise RunnerLost(f"process sandbox did not start: {exc} {err}") from exc

    def isolation_intact(self) -> bool:
        return self.proc.poll() is None

    def destroy(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # unshare --kill-child takes the namespace's PID 1 with it
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


class ProcessSandbox(PooledSandbox):
    """Judges submissions with namespaces and rlimits, no Docker (see module docstring)."""

    name = "process"
    not_enforced = NOT_ENFORCED

    def __init__(self, concurrency: int | None = None, fresh: bool = False):
        super().__init__(concurrency, fresh)
        missing = [t for t in ("unshare",) + (("setpriv",) if os.geteuid() == 0 else ()) if not shutil.which(t)]
        if missing:
            self.unavailable = f"the process sandbox needs util-linux ({', '.join(missing)} not found)"
        elif not RUNNER_PATH.is_file():
            self.unavailable = f"{RUNNER_PATH} not found: the sandbox recipe is incomplete; reinstall neocoder"

    def _new_worker(self, limits: Limits) -> Worker:
        return _ProcessWorker(limits)
