"""In-container runner: judges submissions sent to it, one after another.

Runs *inside* the sandbox (Debian's python3, standard library only); it is baked
into the image by ``neocoder sandbox build`` and imports nothing of neocoder.
``runner.py --serve`` reads one JSON request per line on stdin and answers with
JSON lines on stdout; every message and field is documented with the host side,
in ``neocoder/judge/protocol.py``:

    ready once; then per request {"op": "run", ...}: header, one test per input, done

Expected outputs never enter the container: the host compares them.  The runner
reports what it observed (exit status, signal, exception name, CPU time of the
whole process tree, wall time, peak memory, OOM kills, stdout) and its verdict
before the comparison (ok, tle, mle, ole, re), decided by the pure ``classify``.

Isolation inside a warm container.  The container is kept alive by an init and a
keep-alive process under their own uid; the runner and the programs it starts run
under another uid, and the runner makes itself non-dumpable so a program of the
same uid cannot ptrace it or open its /proc files.  After every test the runner
kills every process of its uid but itself (``kill(-1, SIGKILL)``: daemons that
double-forked away included); after every submission it deletes every file its uid
owns in /tmp and /dev/shm, then verifies that no process and no file of its uid is
left.  If that check fails it says so in "done" and exits, and the host throws the
container away.

Limits per test.  CPU time is the memory/CPU cgroup's usage of the whole container
minus the runner's own, so threads and child processes count; a wall-clock
backstop catches sleeping or blocked programs.  Memory is the container's cgroup
limit; an OOM kill is read from the cgroup's ``oom_kill`` counter.  stdout and stderr
are pipes drained concurrently: stdout past its cap is OLE, stderr past its cap is
discarded.

Program contract (NeoCoder: define ``solve()``, read stdin, print to stdout).  If
the module defines a top-level ``solve`` callable with no arguments, every
top-level statement that would call it (directly, or through another top-level
function that reaches it, e.g. ``main()`` or a ``test_solve()`` harness) is removed
whole -- a ``__main__`` block or a ``with patch(...)`` harness with its asserts --
and the runner calls ``solve()`` exactly once per test.  Otherwise the program runs
as a script.  A program that does not compile is reported in the header.
"""

import ast
import base64
import collections
import ctypes
import json
import os
import resource
import selectors
import signal
import stat
import subprocess
import sys
import time

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
STDERR_TAIL_BYTES = 2048
POLL_SECONDS = 0.005
CGROUP_CPU = ("/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage")
CGROUP_CPU_V2 = "/sys/fs/cgroup/cpu.stat"
CGROUP_OOM = ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")
CGROUP_MEM_USAGE = ("/sys/fs/cgroup/memory/memory.usage_in_bytes", "/sys/fs/cgroup/memory.current")
CGROUP_MEM_LIMIT = ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max")
NEAR_LIMIT_BYTES = 8 << 20  # a failing test this close to the memory limit is MLE
UNLIMITED_BYTES = 1 << 50  # cgroup v1 reports "no memory limit" as a huge number
SCRATCH_ROOTS = ("/tmp", "/dev/shm")


# ---------------------------------------------------------------- program contract
def _called_names(node):
    """Names of plain-name calls anywhere inside ``node``."""
    return {
        n.func.id
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def _zero_arg_callable(fn):
    args = fn.args
    required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    kw_required = sum(1 for d in args.kw_defaults if d is None)
    return required == 0 and kw_required == 0


def prepare(source, mode="auto"):
    """Return (entry, program_text) for ``source``; raises SyntaxError/ValueError.

    entry is "solve" when the runner must call solve() itself, else "script"; mode
    "script" runs every program as written (a human Codeforces solution whose solve()
    handles one test case and is called from its own loop).
    """
    tree = ast.parse(source, filename="solution.py")
    if mode == "script":
        return "script", source
    functions = {
        n.name: n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    solve = functions.get("solve")
    if solve is None or not isinstance(solve, ast.FunctionDef) or not _zero_arg_callable(solve):
        return "script", source

    # Top-level functions from which solve() is reachable (a fixpoint over calls).
    reaches = {"solve"}
    changed = True
    while changed:
        changed = False
        for name, fn in functions.items():
            if name not in reaches and _called_names(fn) & reaches:
                reaches.add(name)
                changed = True

    # Any top-level statement that would run solve() -- a bare call, a main guard,
    # a `with patch(...)` test harness -- is removed whole, with its asserts.
    tree.body = [
        stmt for stmt in tree.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        or not (_called_names(stmt) & reaches)
    ]
    return "solve", ast.unparse(ast.fix_missing_locations(tree))


# ---------------------------------------------------------------- measurements
def _first_readable(paths):
    for p in paths:
        try:
            with open(p):
                return p
        except OSError:
            continue
    return None


class Cgroup:
    """The container's own cgroup counters, read-only (None where unavailable)."""

    def __init__(self, enabled=True):
        self.enabled = enabled  # False in the process backend: no cgroup of our own
        self.cpu_path = _first_readable(CGROUP_CPU) if enabled else None
        self.cpu_v2 = None if self.cpu_path or not enabled else _first_readable((CGROUP_CPU_V2,))
        self.oom_path = _first_readable(CGROUP_OOM) if enabled else None
        self.usage_path = _first_readable(CGROUP_MEM_USAGE) if enabled else None
        self.memory_limit = _read_int(_first_readable(CGROUP_MEM_LIMIT)) if enabled else None

    def cpu_seconds(self):
        try:
            if self.cpu_path:
                with open(self.cpu_path) as f:
                    return int(f.read()) / 1e9
            if self.cpu_v2:
                with open(self.cpu_v2) as f:
                    for line in f:
                        if line.startswith("usage_usec"):
                            return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def oom_kills(self):
        """OOM kills in the container so far (None where unreadable)."""
        return _counter(self.oom_path, "oom_kill")

    def memory_usage(self):
        """Bytes the container's memory cgroup charges now (None where unreadable)."""
        return _read_int(self.usage_path)


def _read_int(path):
    if not path:
        return None
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def _counter(path, key):
    if not path:
        return None
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return None


def _self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------- reset
def kill_my_uid(reap=True):
    """SIGKILL every process of this uid except the runner; reap our children if asked.

    While a test runs its process is reaped by wait4 (for its rusage), so the
    test loop passes reap=False.
    """
    try:
        os.kill(-1, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if reap:
        _reap()


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _my_processes():
    uid, me, found = os.getuid(), os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            st = os.stat(f"/proc/{name}")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if st.st_uid == uid and state not in ("Z", "X"):
            found.append(int(name))
    return found


def _wipe(path, uid, keep):
    """Delete what ``uid`` owns below ``path`` (never following symlinks).

    Returns a list of problems (entries left that this uid cannot remove).
    """
    problems = []
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        return [f"{path}: {exc}"]
    for entry in entries:
        full = entry.path
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            continue
        if full == keep:
            problems += _wipe(full, uid, None)
            continue
        if st.st_uid != uid:
            problems.append(f"{full} owned by uid {st.st_uid}")
            continue
        try:
            if stat.S_ISDIR(st.st_mode):
                os.chmod(full, 0o700)
                problems += _wipe(full, uid, None)
                os.rmdir(full)
            else:
                os.unlink(full)
        except OSError as exc:
            problems.append(f"{full}: {exc}")
    return problems


def reset(scratch):
    """Kill, wipe and verify; return None when clean, else what is left."""
    kill_my_uid()
    deadline = time.monotonic() + 2.0
    left = _my_processes()
    while left and time.monotonic() < deadline:
        kill_my_uid()
        time.sleep(0.01)
        left = _my_processes()
    if left:
        return f"processes of uid {os.getuid()} survived: {left}"
    problems = []
    for root in SCRATCH_ROOTS:
        if os.path.isdir(root):
            problems += _wipe(root, os.getuid(), scratch)
    if problems:
        return "; ".join(problems[:5])
    if os.listdir(scratch):
        return f"{scratch} not empty"
    return None


# ---------------------------------------------------------------- one test
# A test is spawned, watched until it ends (stopped at the first limit it crosses),
# and classified.  Only classify() decides the verdict, from plain values, so it
# can be tested without a sandbox (tests/test_runner_classify.py).

Limits = collections.namedtuple(
    "Limits", "cpu_seconds wall_seconds stdout_bytes stderr_bytes stack_bytes memory_bytes pids")


def limits_of(job):
    """The per-test limits of a "run" message (seconds, bytes, a process count)."""
    return Limits(float(job["cpu_seconds"]), float(job["wall_seconds"]), int(job["stdout_bytes"]),
                  int(job["stderr_bytes"]), int(job.get("stack_bytes", 256 << 20)),
                  int(job.get("memory_bytes", 256 << 20)), int(job.get("pids", 64)))


def spawn(stdin, argv, scratch, limits, process_mode):
    """Start one test's process on the open file ``stdin``, with pipes for stdout and
    stderr, its rlimits set and its own session; None if no process could be
    started (a fork bomb of the previous test may still hold every pid).

    RLIMIT_CPU is a backstop a little above the CPU limit (the watcher stops the
    test first where the cgroup's CPU time is readable); in the process backend
    (``process_mode``: no cgroup of our own) address space, process count, file
    size and open files are rlimits too.
    """
    backstop = max(1, int(limits.cpu_seconds + 1.999))

    def set_rlimits():  # runs in the child, between fork and exec
        resource.setrlimit(resource.RLIMIT_CPU, (backstop, backstop + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_STACK, (limits.stack_bytes, limits.stack_bytes))
        if process_mode:
            memory = limits.memory_bytes + (64 << 20)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.pids,) * 2)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.stdout_bytes * 2 + (64 << 20),) * 2)
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        try:  # under memory pressure the OOM killer takes the test, not the runner
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass

    for attempt in range(50):
        try:
            return subprocess.Popen(
                argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=scratch,
                preexec_fn=set_rlimits, start_new_session=True, close_fds=True,
                env={"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch,
                     "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8"},
            )
        except (BlockingIOError, OSError):
            kill_my_uid()
            time.sleep(0.02)
    return None


Watched = collections.namedtuple(
    "Watched", "wait_status usage stopped_at cpu_seconds wall_seconds peak_memory oom_kills stdout stderr")


def watch(proc, cgroup, limits, before, start):
    """Drain ``proc``'s pipes and poll it every 5 ms until it has ended and its pipes
    are closed; stop it (and everything of our uid) at the first limit it crosses.

    ``before`` is (cgroup CPU seconds, runner CPU seconds, OOM kills) read before
    the spawn, ``start`` the time.monotonic() of the spawn.  Returns a Watched:
    wait_status and usage from wait4; stopped_at "cpu", "wall", "stdout" or None
    (the limit the test was stopped at); cpu_seconds (the container's cgroup minus
    the runner's own, else the test process's rusage); wall_seconds; peak_memory
    (bytes of the memory cgroup, 0 where unreadable); oom_kills during the test
    (None where unreadable); stdout up to its cap and stderr up to its cap + 1 byte.
    """
    cpu0, self0, oom0 = before
    sel = selectors.DefaultSelector()
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    bufs = {out_fd: bytearray(), err_fd: bytearray()}
    caps = {out_fd: limits.stdout_bytes, err_fd: limits.stderr_bytes}
    for fd in (out_fd, err_fd):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    status = usage = stopped_at = None
    cpu_used = 0.0
    peak_memory = 0
    while True:
        for key, _ in sel.select(POLL_SECONDS):
            fd = key.fd
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not data:
                sel.unregister(fd)
                continue
            buf = bufs[fd]
            if len(buf) <= caps[fd]:
                buf += data[: caps[fd] + 1 - len(buf)]
            if fd == out_fd and len(buf) > limits.stdout_bytes and stopped_at is None:
                stopped_at = "stdout"
                kill_my_uid(reap=False)
        if status is None:
            pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                status, usage = st, ru
                kill_my_uid(reap=False)  # whatever the program left running dies with it
        now = time.monotonic()
        peak_memory = max(peak_memory, cgroup.memory_usage() or 0)
        cpu = cgroup.cpu_seconds()
        if cpu is not None and cpu0 is not None:
            cpu_used = max(0.0, (cpu - cpu0) - (_self_cpu() - self0))
        if status is None and stopped_at is None:
            if cpu_used >= limits.cpu_seconds:
                stopped_at = "cpu"
            elif now - start >= limits.wall_seconds:
                stopped_at = "wall"
            if stopped_at:
                kill_my_uid(reap=False)
        if status is not None and not sel.get_map():
            break
        if status is not None and now - start > limits.wall_seconds + 5:
            break  # a pipe held open by something unkillable: stop reading
    sel.close()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
    wall = time.monotonic() - start
    oom1 = cgroup.oom_kills()
    if cpu_used == 0.0 or (cgroup.cpu_path is None and cgroup.cpu_v2 is None):
        cpu_used = usage.ru_utime + usage.ru_stime  # no cgroup: the main process only
    return Watched(status, usage, stopped_at, cpu_used, wall, peak_memory,
                   oom1 - oom0 if oom0 is not None and oom1 is not None else None,
                   bytes(bufs[out_fd][:limits.stdout_bytes]), bytes(bufs[err_fd]))


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
             oom_kills, peak_memory, memory_limit):
    """The runner's verdict on one test: (status, detail).  Pure: no side effects.

    exit_code: the exit status, None if a signal ended the test; signal_number: the
    signal that ended it, else None; exception: the class name of the program's
    uncaught exception, or None; stopped_at: "cpu", "wall", "stdout" or None, the
    limit at which the watcher stopped the test; cpu_seconds / cpu_limit: CPU time
    used and allowed (s); oom_kills: OOM kills in the container during the test
    (None where unreadable); peak_memory / memory_limit: the memory cgroup's peak
    and limit (bytes; memory_limit None or >= 2**50 where there is none).

    status is "ole", "mle", "tle", "re" or "ok", decided in that order: stdout past
    its cap; an OOM kill, a MemoryError, or a failure of any kind within
    NEAR_LIMIT_BYTES of the memory limit; the CPU or wall limit reached (or
    SIGXCPU); a signal or a non-zero exit; else "ok".  detail names what ended an
    "re" (exception, else signal, else "exit code N"); it is None otherwise.
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
    if stopped_at is not None or signal_number == signal.SIGXCPU or cpu_seconds >= cpu_limit:
        return "tle", None
    if signal_number is not None or exit_code != 0:
        return "re", exception or signal_name(signal_number) or f"exit code {exit_code}"
    return "ok", None


def run_test(job, index, entry, scratch, cgroup):
    """Judge input ``index`` of ``job``: spawn, watch, classify; the "test" message body."""
    stdin_path = os.path.join(scratch, "stdin")
    status_path = os.path.join(scratch, "status")
    with open(stdin_path, "wb") as f:
        f.write(job["inputs"][index].encode("utf-8"))
    if os.path.exists(status_path):
        os.unlink(status_path)
    limits = limits_of(job)
    argv = [sys.executable, "-I", CHILD, os.path.join(scratch, "solution.py"), status_path, entry]
    before = (cgroup.cpu_seconds(), _self_cpu(), cgroup.oom_kills())
    start = time.monotonic()
    with open(stdin_path, "rb") as fin:
        proc = spawn(fin, argv, scratch, limits, process_mode=not cgroup.enabled)
    if proc is None:
        return {"status": "infra", "detail": "could not start the test process"}
    seen = watch(proc, cgroup, limits, before, start)

    status = seen.wait_status
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    exception = None
    if os.path.exists(status_path):
        with open(status_path, errors="replace") as f:
            exception = f.read(200).strip() or None
    verdict, detail = classify(
        exit_code=exit_code, signal_number=sig, exception=exception, stopped_at=seen.stopped_at,
        cpu_seconds=seen.cpu_seconds, cpu_limit=limits.cpu_seconds, oom_kills=seen.oom_kills,
        peak_memory=seen.peak_memory, memory_limit=cgroup.memory_limit)
    return {
        "status": verdict,
        "detail": detail,
        "exit_code": exit_code,
        "signal": signal_name(sig),
        "exception": exception,
        "cpu_seconds": round(seen.cpu_seconds, 4),
        "wall_seconds": round(seen.wall_seconds, 4),
        "max_rss_kb": seen.usage.ru_maxrss,
        "peak_cgroup_kb": seen.peak_memory // 1024 or None,
        "stdout_b64": base64.b64encode(seen.stdout).decode("ascii"),
        "stderr_tail": seen.stderr[-STDERR_TAIL_BYTES:].decode("utf-8", "replace"),
    }


# ---------------------------------------------------------------- serving
def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def run_job(job, scratch, cgroup):
    jid = job.get("id")
    try:
        entry, program = prepare(job["source"], job.get("entry", "auto"))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        emit({"kind": "header", "id": jid, "entry": None, "compile_error": f"{type(exc).__name__}: {exc}"})
        return
    with open(os.path.join(scratch, "solution.py"), "w", encoding="utf-8") as f:
        f.write(program)
    emit({"kind": "header", "id": jid, "entry": entry, "compile_error": None})
    for i in range(len(job["inputs"])):
        result = run_test(job, i, entry, scratch, cgroup)
        result.update(kind="test", id=jid, index=i)
        emit(result)


def _enter_process_sandbox(tmpfs_mb):
    """Process backend (no Docker): we are PID 1 of fresh user, PID, mount and
    network namespaces (``unshare``).  Mount private tmpfs on /tmp and /dev/shm, then
    give up every capability, for us and for everything we start.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for target in SCRATCH_ROOTS:
        if libc.mount(b"tmpfs", target.encode(), b"tmpfs", 0x2 | 0x4,  # MS_NOSUID | MS_NODEV
                      f"size={tmpfs_mb}m,mode=1777".encode()) != 0:
            raise OSError(ctypes.get_errno(), f"mounting a private tmpfs on {target} failed")
    for cap in range(64):  # PR_CAPBSET_DROP: no capability survives an exec
        libc.prctl(24, cap, 0, 0, 0)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:  # empty effective/permitted sets
        raise OSError(ctypes.get_errno(), "dropping capabilities failed")


def _set_non_dumpable():
    """PR_SET_DUMPABLE = 0: same-uid programs cannot ptrace us or read our /proc."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def serve(process=False, tmpfs_mb=64):
    if process:
        _enter_process_sandbox(tmpfs_mb)
    _set_non_dumpable()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    cgroup = Cgroup(enabled=not process)
    scratch = f"/tmp/neocoder-{os.getuid()}"
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    problem = reset(scratch)
    emit({"kind": "ready", "uid": os.getuid(), "pid": os.getpid(), "clean": problem is None,
          "problem": problem, "cpu_cgroup": bool(cgroup.cpu_path or cgroup.cpu_v2),
          "oom_counter": cgroup.oom_kills() is not None})
    if problem:
        return 3
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        if job.get("op") == "exit":
            return 0
        run_job(job, scratch, cgroup)
        problem = reset(scratch)
        emit({"kind": "done", "id": job.get("id"), "clean": problem is None, "problem": problem})
        if problem:
            return 3
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.exit(serve())
    elif sys.argv[1:3] == ["--serve", "--process"] and len(sys.argv) == 4:
        sys.exit(serve(process=True, tmpfs_mb=int(sys.argv[3])))
    else:
        sys.stderr.write("usage: runner.py --serve [--process TMPFS_MB]\n")
        sys.exit(2)
