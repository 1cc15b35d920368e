"""The process backend (``--sandbox process``): for machines without Docker.

WEAKER than the Docker backend; use it only where Docker cannot run.  Each worker
is ``python3 -m runner --serve --process`` (the sandbox recipe's runner package) started through util-linux's
``unshare`` in new user, PID, mount, network and IPC namespaces (as root, ``setpriv``
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
of child processes is not bounded as a whole), OOM-kill detection.  Programs run
under the runner's own uid (one uid is all an unprivileged user namespace maps),
so each test starts a new interpreter (the exec path): a fork server would be
theirs to signal.

Wherever neocoder is installed (a checkout under /tmp that the private /tmp would
hide, a home folder uid 65534 cannot enter, a wheel), the runner runs from a copy
of the runner package in a folder outside /tmp and /dev/shm that everyone may
read (``runner_copy``), made once per process and removed at exit.
"""

from __future__ import annotations

import atexit
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from neocoder import resources
from neocoder.judge.engine import process_start
from neocoder.judge.pool import PooledSandbox, Worker
from neocoder.judge.protocol import STDERR_TAIL_BYTES, Limits, LineChannel, RunnerEnd, RunnerLost
from neocoder.judge.sandbox import PROCESS

UNPRIVILEGED = "65534"
NOT_ENFORCED = ("read-only root filesystem", "CPU time of the whole process tree",
                "memory cgroup and OOM-kill detection", "a uid apart from the runner's")
RUNNER_PACKAGE = "runner"  # the recipe's in-container package, run as python3 -m runner
# Where the runner copy goes: the first that exists and is outside the private mounts.
COPY_PARENTS = ("/var/tmp", "/var/cache", "/run")
HIDDEN = ("/tmp", "/dev/shm")  # the runner mounts private tmpfs over these

_copies: dict[Path, Path] = {}
_copies_lock = threading.Lock()


def runner_copy(recipe_dir: Path | None = None) -> Path:
    """A folder holding a copy of the runner package (``runner/``) of ``recipe_dir``
    (default: the installed recipe) that uid 65534 can read and that the runner's
    private /tmp does not hide; made once per process.  The runner starts there as
    ``python3 -m runner``.

    NEOCODER_RUNNER_DIR chooses its parent; otherwise the first of COPY_PARENTS
    that this process can write.  Raises OSError if there is none.
    """
    recipe_dir = Path(recipe_dir) if recipe_dir is not None else resources.sandbox_dir()
    with _copies_lock:
        if recipe_dir in _copies and (_copies[recipe_dir] / RUNNER_PACKAGE / "__main__.py").is_file():
            return _copies[recipe_dir]
        parents = [os.environ["NEOCODER_RUNNER_DIR"]] if os.environ.get("NEOCODER_RUNNER_DIR") else COPY_PARENTS
        for parent in parents:
            real = os.path.realpath(parent)
            if any(real == h or real.startswith(h + "/") for h in HIDDEN):
                continue
            if os.path.isdir(real) and os.access(real, os.W_OK | os.X_OK):
                break
        else:
            raise OSError(f"no folder outside /tmp to copy the runner to (tried {', '.join(parents)}); "
                          "set NEOCODER_RUNNER_DIR")
        sweep_runner_copies(real)
        folder = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-{process_start(os.getpid())}-", dir=real))
        shutil.copytree(recipe_dir / RUNNER_PACKAGE, folder / RUNNER_PACKAGE,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), copy_function=shutil.copyfile)
        for path in (folder / RUNNER_PACKAGE).iterdir():
            os.chmod(path, 0o644)
        os.chmod(folder / RUNNER_PACKAGE, 0o755)
        os.chmod(folder, 0o755)
        atexit.register(shutil.rmtree, folder, True)
        _copies[recipe_dir] = folder
        return folder


COPY_PREFIX = "neocoder-runner-"  # then <pid>-<start time in ticks>- of the process that made the copy
_COPY_NAME = re.compile(re.escape(COPY_PREFIX) + r"(\d+)-(\d+)-")


def sweep_runner_copies(parent: str) -> int:
    """Remove the runner copies in ``parent`` whose process is gone (one killed with SIGKILL
    never ran its atexit clean-up): those whose name's pid no longer runs, or runs a process
    started at another time.  Copies of live processes, and folders not named by a pid (made
    by older neocoders), stay.  Returns how many were removed; never raises."""
    removed = 0
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return 0
    for entry in entries:
        m = _COPY_NAME.match(entry.name)
        if m and process_start(int(m.group(1))) != m.group(2):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += not os.path.exists(entry.path)
    return removed


def _interpreter() -> str:
    """A python3 the unprivileged uid can execute (the runner needs only the stdlib)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.isfile(candidate) and os.stat(candidate).st_mode & 0o001:
            return candidate
    return sys.executable


def _command(limits: Limits) -> list[str]:
    """The worker's command line: (setpriv to 65534 as root,) unshare, then the runner.

    -E -s, not -I: the runner package is found in the working directory (the copy's
    folder, ``runner_copy``), which -I would leave off sys.path.
    """
    cmd = []
    if os.geteuid() == 0:
        cmd += ["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups"]
    cmd += ["unshare", "--user", "--map-root-user", "--net", "--ipc", "--pid", "--fork", "--mount-proc", "--mount",
            "--kill-child", _interpreter(), "-E", "-s", "-m", RUNNER_PACKAGE,
            "--serve", "--process", str(limits.tmpfs_mb)]
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
    def __init__(self, limits: Limits, runner: Path):
        self.key = limits.worker_key()
        self.proc = subprocess.Popen(_command(limits), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=runner.parent,
                                     env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        self.name = f"pid {self.proc.pid}"
        self.channel = _PipeChannel(self.proc.stdin, self.proc.stdout)
        try:
            self.channel.wait_ready(time.monotonic() + 30)
        except RunnerLost as exc:
            err = self.proc.stderr.read(2000).decode("utf-8", "replace") if self.proc.poll() is not None else ""
            self.destroy()
            raise RunnerLost(f"process sandbox did not start: {exc} {err}") from exc

    SETTLE_SECONDS = 1.0  # how long a lost runner's worker gets to end

    def isolation_intact(self) -> bool:
        """True if the worker still runs a moment after its runner was lost.  The runner
        is its namespace's PID 1, so the worker ends with it, a moment after the
        runner's pipe closes: it gets SETTLE_SECONDS to do so."""
        try:
            self.proc.wait(timeout=self.SETTLE_SECONDS)
        except subprocess.TimeoutExpired:
            return True
        return False

    def runner_end(self) -> RunnerEnd:
        """The worker's exit status and the tail of the runner's stderr, once it has
        ended (nothing while it still runs: its stderr stays open)."""
        code = self.proc.poll()
        if code is None:
            return RunnerEnd()
        tail = b""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stderr, selectors.EVENT_READ)
            if sel.select(0.5):
                tail = os.read(self.proc.stderr.fileno(), 1 << 16)[-STDERR_TAIL_BYTES:]
        return RunnerEnd(code, tail.decode("utf-8", "replace"))

    def kill(self) -> None:
        """Kill the worker's process (and with it its namespace): its pipes then close, so a
        thread reading them sees the runner's end; they are closed by ``destroy``, never here
        (closing a pipe another thread waits on leaves that thread waiting)."""
        if self.proc.poll() is None:
            self.proc.kill()

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
    """Judges submissions with namespaces and rlimits, no Docker (see module docstring).

    ``recipe_dir`` is the folder with the runner package (default: the installed
    sandbox recipe); it runs from a copy (``runner_copy``); ``runner`` is that copy.  Every test starts a new
    interpreter (spawn "exec").
    """

    name = PROCESS
    not_enforced = NOT_ENFORCED

    def __init__(self, concurrency: int | None = None, fresh: bool = False, recipe_dir: Path | None = None):
        super().__init__(concurrency, fresh, spawn="exec")
        recipe_dir = Path(recipe_dir) if recipe_dir is not None else resources.sandbox_dir()
        self.runner: Path | None = None
        missing = [t for t in ("unshare",) + (("setpriv",) if os.geteuid() == 0 else ()) if not shutil.which(t)]
        absent = [name for name in resources.SANDBOX_REQUIRED
                  if name.startswith(RUNNER_PACKAGE + "/") and not (recipe_dir / name).is_file()]
        if missing:
            self.unavailable = f"the process sandbox needs util-linux ({', '.join(missing)} not found)"
        elif absent:
            self.unavailable = (f"{', '.join(absent)} not found in {recipe_dir}: the sandbox recipe is incomplete; "
                                "reinstall neocoder")
        else:
            try:
                self.runner = runner_copy(recipe_dir) / RUNNER_PACKAGE
            except OSError as exc:
                self.unavailable = f"the process sandbox cannot place its runner: {exc}"

    def _new_worker(self, limits: Limits) -> Worker:
        return _ProcessWorker(limits, self.runner)
