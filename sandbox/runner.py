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

Out of the program's reach (Docker).  The container's only capabilities are
CAP_KILL, CAP_SETUID and CAP_SETGID.  The runner is started as root and at once
becomes its own uid R keeping just those three (``become_runner``); every test
process runs under a second uid P with no capability at all (``child.drop_to``,
verified).  A program can therefore neither signal nor ptrace the runner, the fork
server or what keeps the container alive: a kill(-1, SIGSTOP) reaches only its
own processes.  The runner finds the program's processes by uid in /proc and kills
them after every test; after every submission a helper under uid P deletes every
file P owns in /tmp and /dev/shm, and the runner verifies that no process and no
file of P is left.  If that check fails it says so in "done" and exits, and the
host throws the container away.  (``--serve`` alone and the process backend run
programs under the runner's own uid, as before: there the runner kills with
kill(-1), and in the process backend it is PID 1 of its namespace, which its
programs cannot signal.)

Fork server.  Starting an interpreter and importing costs about 20 ms per test.
With spawn "fork" (Docker, the default) the runner starts ``child.py
--fork-server`` once per worker: it imports the common standard modules, compiles
each submission once, and forks a fresh child per test that takes on uid P, the
rlimits, its own session and the test's stdin and pipes (passed as descriptors),
then runs the program.  A child never sees an earlier test's state: it is a new
process each time, forked from a parent that never runs program code.  Spawn
"exec" (the old path, and the process backend) starts ``python3 child.py --test``
per test instead.

Limits per test.  CPU time is the memory/CPU cgroup's usage of the whole container
minus the runner's and the fork server's own, so threads and child processes count;
a wall-clock backstop catches sleeping, blocked or stopped programs.  Memory is the
container's cgroup limit; an OOM kill is read from the cgroup's ``oom_kill`` counter.
stdout and stderr are pipes drained concurrently: stdout past its cap is OLE,
stderr past its cap is discarded.

Program contract (NeoCoder: define ``solve()``, read stdin, print to stdout); the
rule that applied is reported as ``entry_rule``, see ``prepare``.  A program that
does not compile is reported in the header.
"""

import ast
import base64
import collections
import ctypes
import fcntl
import importlib.util
import json
import os
import resource
import select
import selectors
import signal
import socket
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "child.py")
STDERR_TAIL_BYTES = 2048
POLL_SECONDS = 0.005
CGROUP_CPU = ("/sys/fs/cgroup/cpuacct/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage")
CGROUP_CPU_V2 = "/sys/fs/cgroup/cpu.stat"
CGROUP_OOM = ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events")
CGROUP_MEM_USAGE = ("/sys/fs/cgroup/memory/memory.usage_in_bytes", "/sys/fs/cgroup/memory.current")
CGROUP_MEM_LIMIT = ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory.max")
NEAR_LIMIT_BYTES = 8 << 20  # a failing test this close to the memory limit is MLE
UNLIMITED_BYTES = 1 << 50  # cgroup v1 reports "no memory limit" as a huge number
SCRATCH_ROOTS = ("/tmp", "/dev/shm", "/dev/mqueue")  # where a program can leave files (POSIX queues too)
SYSV_IPC = ("shm", "sem", "msg")  # /proc/sysvipc/*: objects that outlive their process
CGROUP_PIDS = "/sys/fs/cgroup/pids/pids.current"
# The host refuses larger programs with a clear verdict (neocoder/judge/protocol.py);
# this guard only keeps a direct caller from making the runner parse megabytes.
SOURCE_LIMIT_BYTES = 64 << 10
EXIT_GRACE_SECONDS = 1.0  # after the wall backstop, stop waiting for a pipe or a status


# sandbox/child.py as a module: the test process's set-up runs in both spawn paths
child = importlib.util.module_from_spec(importlib.util.spec_from_file_location("neocoder_sandbox_child", CHILD))
child.__spec__.loader.exec_module(child)


# ---------------------------------------------------------------- program contract
# Names whose use marks a test harness rather than a solution.
HARNESS_NAMES = frozenset({"unittest", "doctest", "pytest", "mock", "redirect_stdout"})
HARNESS_MODULES = frozenset({"unittest", "doctest", "pytest", "mock"})  # imported only for a harness
INPUT_TARGETS = frozenset({"sys.stdin", "input", "builtins.input"})
FIXED_READERS = frozenset({"StringIO", "BytesIO", "iter"})

Prepared = collections.namedtuple("Prepared", "entry rule calls_solve program")
Prepared.__doc__ = """How a program is run.

entry: "solve" (the runner calls solve() once per test) or "script" (run as written);
rule: which rule of ``prepare`` applied; calls_solve: the program itself calls solve()
(the instruction said not to; reported, never counted as wrong); program: the text run.
"""


def _loaded_names(node):
    """Names read anywhere inside ``node``."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _zero_arg_callable(fn):
    args = fn.args
    required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    kw_required = sum(1 for d in args.kw_defaults if d is None)
    return required == 0 and kw_required == 0


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return inner and f"{inner}.{node.attr}"
    return None


def _fixed(node, constants):
    """True if ``node`` is sample data written into the program: a string, a list or
    tuple display, a name bound to one at top level, or a StringIO/iter over one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, (ast.List, ast.Tuple)):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.Attribute):
        return _fixed(node.value, constants)
    if isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        if name.rsplit(".", 1)[-1] in FIXED_READERS:
            return any(_fixed(a, constants) for a in node.args)
        return isinstance(node.func, ast.Attribute) and _fixed(node.func.value, constants)
    return False


def _assignments(node):
    """(target, value) pairs of every assignment inside ``node``, tuples unpacked."""
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            for target in n.targets:
                if isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple) \
                        and len(target.elts) == len(n.value.elts):
                    yield from zip(target.elts, n.value.elts)
                else:
                    yield target, n.value


def _harness_markers(node, constants):
    """True if ``node`` tests rather than solves: a test framework or mock, a patch()
    call, stdin or input() fed fixed sample data, stdout captured in a StringIO."""
    if _loaded_names(node) & HARNESS_NAMES:
        return True
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in HARNESS_NAMES:
            return True
        if isinstance(n, ast.Call) and (_dotted(n.func) or "").rsplit(".", 1)[-1] in ("patch", "redirect_stdout"):
            return True
    for target, value in _assignments(node):
        name = _dotted(target)
        if name in INPUT_TARGETS and _fixed(value, constants):
            return True
        if name == "sys.stdout" and (_dotted(getattr(value, "func", None)) or "").endswith("StringIO"):
            return True
    return False


def _unused_harness_import(stmt, used):
    """True for a top-level import of a test framework none of whose names ``used`` has
    (what a removed harness leaves behind; importing unittest.mock alone costs 60 ms)."""
    if isinstance(stmt, ast.Import):
        modules = [a.name for a in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        modules = [stmt.module]
    else:
        return False
    bound = {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return all(m.split(".")[0] in HARNESS_MODULES for m in modules) and not bound & used


def _drop_dead_harness(tree, constants):
    """Remove what only the removed harness used: test functions and classes nothing
    refers to any more that test (asserts, mocks, patches), then the test-framework
    imports nothing uses (importing unittest.mock alone costs 60 ms per test)."""
    names = {id(n): _loaded_names(n) for n in tree.body}
    changed = True
    while changed:
        changed = False
        for node in list(tree.body):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name == "solve":
                continue
            used = any(node.name in names[id(n)] for n in tree.body if n is not node)
            if not used and (_harness_markers(node, constants) or any(isinstance(n, ast.Assert) for n in ast.walk(node))):
                tree.body.remove(node)
                changed = True
    used = _loaded_names(tree)
    tree.body = [s for s in tree.body if not _unused_harness_import(s, used)]


def prepare(source, mode="auto"):
    """Decide how ``source`` runs; returns a Prepared.  Raises SyntaxError/ValueError.

    mode "script" runs every program as written (rule "script": a human Codeforces
    solution).  Otherwise, for a program that defines a top-level zero-argument
    ``solve``, with C the top-level functions and classes from which solve() is
    reachable (solve included), a top-level statement *calls solve* if it uses a
    name in C (a call, ``main()``, ``Thread(target=solve)``, an alias):

    - "harness_removed": some top-level statement is a test harness (a test
      framework or mock, patch(), stdin or input() fed fixed sample data, stdout
      captured; or a statement calling solve that asserts, directly or in the
      functions of C it uses): every harness statement and every statement calling
      solve is removed (with the test functions and test-framework imports nothing
      uses any more), and the runner calls solve() once per test;
    - "program_calls_solve": a statement calls solve (a bare call, a driver loop, a
      main() or another name) and none is a harness: the program runs as written;
    - "runner_calls_solve": nothing calls solve: the runner calls it once per test.

    Without a zero-argument ``solve`` the rule is "no_solve": run as written.
    ``calls_solve`` is True when some top-level statement calls solve.
    """
    tree = ast.parse(source, filename="solution.py")
    if mode == "script":
        return Prepared("script", "script", False, source)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    statements = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    solve = defs.get("solve")
    callers = {"solve"}
    changed = True
    while changed:  # a fixpoint over the definitions that use a caller
        changed = False
        for name, node in defs.items():
            if name not in callers and _loaded_names(node) & callers:
                callers.add(name)
                changed = True
    calling = [s for s in statements if _loaded_names(s) & callers]
    if not (isinstance(solve, ast.FunctionDef) and _zero_arg_callable(solve)):
        return Prepared("script", "no_solve", bool(solve and calling), source)

    constants = {t.id for s in statements if isinstance(s, ast.Assign) for t in s.targets
                 if isinstance(t, ast.Name) and _fixed(s.value, set())}

    def used_callers(stmt):
        seen, frontier = set(), _loaded_names(stmt) & callers
        while frontier:
            name = frontier.pop()
            seen.add(name)
            frontier |= (_loaded_names(defs[name]) & callers) - seen
        return seen - {"solve"}

    def harness(stmt):
        if _harness_markers(stmt, constants):
            return True
        if stmt not in calling:
            return False
        used = [defs[name] for name in used_callers(stmt)]
        return any(isinstance(n, ast.Assert) for part in [stmt] + used for n in ast.walk(part)) \
            or any(_harness_markers(fn, constants) for fn in used)

    harnesses = [s for s in statements if harness(s)]
    if harnesses:
        drop = {id(s) for s in harnesses + calling}
        tree.body = [s for s in tree.body if id(s) not in drop]
        _drop_dead_harness(tree, constants)
        return Prepared("solve", "harness_removed", bool(calling), ast.unparse(ast.fix_missing_locations(tree)))
    if calling:
        return Prepared("script", "program_calls_solve", True, source)
    return Prepared("solve", "runner_calls_solve", False, source)


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


def _self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------- privileges
KEPT_CAPABILITIES = (1 << child.CAP_KILL) | (1 << child.CAP_SETGID) | (1 << child.CAP_SETUID)
SETID_CAPABILITIES = (1 << child.CAP_SETGID) | (1 << child.CAP_SETUID)


def become_runner(uid):
    """Docker: from root (with CAP_KILL, CAP_SETUID, CAP_SETGID) to ``uid`` keeping those
    three and nothing else, non-dumpable; raises OSError if that is not what we hold."""
    libc = ctypes.CDLL(None, use_errno=True)
    if os.getuid() != 0:
        raise OSError("the runner must start as root in its container to separate uids")
    libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: keep the permitted set across setresuid
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    libc.prctl(8, 0, 0, 0, 0)
    child.set_capabilities(KEPT_CAPABILITIES, KEPT_CAPABILITIES, 0)
    caps = child.capabilities()
    if caps["CapEff"] != KEPT_CAPABILITIES or caps["CapPrm"] != KEPT_CAPABILITIES or caps["CapInh"]:
        raise OSError(f"the runner holds {caps}, not exactly CAP_KILL, CAP_SETUID and CAP_SETGID")


def _set_non_dumpable():
    """PR_SET_DUMPABLE = 0: no program can ptrace us or read our /proc files."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _enter_process_sandbox(tmpfs_mb):
    """Process backend (no Docker): we are PID 1 of fresh user, PID, mount and
    network and IPC namespaces (``unshare``).  Mount private tmpfs on /tmp and /dev/shm
    and our IPC namespace's queues on /dev/mqueue, then give up every capability, for
    us and for everything we start.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for target in SCRATCH_ROOTS:
        if target == "/dev/mqueue":  # the queues of our own IPC namespace (unshare --ipc)
            if os.path.isdir(target) and libc.mount(b"mqueue", target.encode(), b"mqueue", 0x2 | 0x4 | 0x8, None) != 0:
                raise OSError(ctypes.get_errno(), f"mounting a private mqueue on {target} failed")
        elif libc.mount(b"tmpfs", target.encode(), b"tmpfs", 0x2 | 0x4,  # MS_NOSUID | MS_NODEV
                        f"size={tmpfs_mb}m,mode=1777".encode()) != 0:
            raise OSError(ctypes.get_errno(), f"mounting a private tmpfs on {target} failed")
    for cap in range(64):  # PR_CAPBSET_DROP: no capability survives an exec
        libc.prctl(24, cap, 0, 0, 0)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    child.set_capabilities(0, 0, 0)


# ---------------------------------------------------------------- processes and files
def program_processes(uid, exclude=()):
    """Pids of live processes with ``uid`` among their uids (zombies and ``exclude`` left out).

    Read from /proc/<pid>/status, which every process may read, so a program that
    made itself non-dumpable is found too.
    """
    found, wanted = [], str(uid)
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in exclude:
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                text = f.read()
        except OSError:
            continue
        state = text.find("\nState:\t")
        uids = text.find("\nUid:\t")
        if state < 0 or uids < 0 or text[state + 8] in "ZX":
            continue
        if wanted in text[uids + 6:text.find("\n", uids + 1)].split():
            found.append(int(name))
    return found


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wipe(path, uid):
    """Delete what ``uid`` owns below ``path`` (never following symlinks).

    Returns a list of problems (entries left, or not ours where only ours may be).
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
        if st.st_uid != uid:
            problems.append(f"{full} owned by uid {st.st_uid}")
            continue
        try:
            if stat.S_ISDIR(st.st_mode):
                os.chmod(full, 0o700)
                problems += _wipe(full, uid)
                os.rmdir(full)
            else:
                os.unlink(full)
        except OSError as exc:
            problems.append(f"{full}: {exc}")
    return problems


def ipc_objects(uid):
    """System V IPC objects (kind, id) that ``uid`` owns or created: they outlive processes."""
    found = []
    for kind in SYSV_IPC:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                header, *rows = [line.split() for line in f]
        except (OSError, ValueError):
            continue
        column = {name: i for i, name in enumerate(header)}
        ident = column.get("shmid", column.get("semid", column.get("msqid")))
        for row in rows:
            if str(uid) in (row[column["uid"]], row[column["cuid"]]):
                found.append((kind, int(row[ident])))
    return found


def _remove_ipc(objects):
    """IPC_RMID each (kind, id); returns the problems."""
    libc, problems = ctypes.CDLL(None, use_errno=True), []
    for kind, ident in objects:
        if kind == "sem":
            rc = libc.semctl(ident, 0, 0)
        else:
            rc = (libc.shmctl if kind == "shm" else libc.msgctl)(ident, 0, None)
        if rc != 0:
            problems.append(f"System V {kind} {ident}: errno {ctypes.get_errno()}")
    return problems


def leftovers(uid):
    """What ``uid`` has left that a later program could see: entries at the top of the
    scratch folders (or entries there of anyone else) and System V IPC objects."""
    found = []
    for root in SCRATCH_ROOTS:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        found += [e.path for e in entries]
    return found + [f"System V {kind} {ident}" for kind, ident in ipc_objects(uid)]


def wipe_scratch(uid):
    """Delete every file and System V IPC object of the program uid, in a helper process
    under that uid (``uid`` None: ours); returns the problems found (a list of str)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the helper: nothing of the program's uid is alive while it runs
        try:
            os.close(read_end)
            if uid is not None:
                child.drop_to(uid)
            problems = []
            for root in SCRATCH_ROOTS:
                if os.path.isdir(root):
                    problems += _wipe(root, os.getuid())
            problems += _remove_ipc(ipc_objects(os.getuid()))
            os.write(write_end, json.dumps(problems[:5]).encode())
        except BaseException as exc:
            os.write(write_end, json.dumps([f"wiping failed: {exc}"]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + 10
    with selectors.DefaultSelector() as sel:
        sel.register(read_end, selectors.EVENT_READ)
        while time.monotonic() < deadline and sel.select(max(0.0, deadline - time.monotonic())):
            data = os.read(read_end, 1 << 16)
            if not data:
                break
            chunks.append(data)
    os.close(read_end)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return ["the wipe helper did not report"]


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


def cpu_backstop(limits):
    """RLIMIT_CPU of a test (s): a little above its limit; the watcher stops it first
    where the cgroup's CPU time is readable."""
    return max(1, int(limits.cpu_seconds + 1.999))


def _memfd(data, name):
    """An anonymous file holding ``data``, sealed against any change, at offset 0."""
    fd = os.memfd_create(name, os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
                    | fcntl.F_SEAL_SEAL)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


class ExecTest:
    """A test started as ``python3 child.py --test`` (the exec path)."""

    def __init__(self, proc):
        self.proc, self.pid = proc, proc.pid

    def poll(self):
        """(wait status, (utime, stime, maxrss KiB)) once it has ended, else None."""
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        if not pid:
            return None
        self.proc.returncode = 0  # reaped here; keep Popen from waiting again
        return status, (usage.ru_utime, usage.ru_stime, usage.ru_maxrss)

    def server_cpu(self):
        return 0.0

    def fileno(self):
        return None


class ForkServer:
    """The runner's end of ``child.py --fork-server`` (one per worker and stack size)."""

    def __init__(self, uid, stack_bytes):
        self.uid, self.stack_bytes = uid, stack_bytes
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out_r, out_w = os.pipe()

        def preexec():  # in the server's process, before exec: its stack and its two capabilities
            resource.setrlimit(resource.RLIMIT_STACK, (stack_bytes, stack_bytes))
            if uid is not None:
                child.set_capabilities(SETID_CAPABILITIES, SETID_CAPABILITIES, SETID_CAPABILITIES)
                libc = ctypes.CDLL(None, use_errno=True)
                for cap in (child.CAP_SETUID, child.CAP_SETGID):
                    if libc.prctl(47, 2, cap, 0, 0) != 0:  # PR_CAP_AMBIENT_RAISE
                        raise OSError(ctypes.get_errno(), "raising an ambient capability failed")

        try:
            # stdin a seekable file and stdout/stderr pipes: the interpreter sets up its
            # standard streams as the exec path's test processes have them
            self.proc = subprocess.Popen(
                [sys.executable, *child.PYTHON_FLAGS, CHILD, "--fork-server", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, pass_fds=[theirs.fileno()],
                env=dict(child.TEST_ENV), cwd="/", preexec_fn=preexec)
        finally:
            theirs.close()
            os.close(out_w)
        os.close(out_r)
        self.sock = ours
        self.cpu = 0.0  # the server's own CPU time at its last report
        self.loaded = None  # (program, entry) it has compiled

    def alive(self):
        return self.proc.poll() is None

    def request(self, message, fds=(), timeout=30.0):
        """Send a request; return the first reply (None if the server died or stalled)."""
        try:
            socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))
        except OSError:
            return None
        return self.reply(timeout)

    def reply(self, timeout):
        """The next reply, waiting up to ``timeout`` seconds (0: only if one is there)."""
        self.sock.settimeout(timeout if timeout > 0 else 0.0)
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, socket.timeout, InterruptedError):
            return None
        except OSError:
            data = b""
        if not data:
            return {"lost": True}
        message = json.loads(data)
        if "cpu" in message:
            self.cpu = message["cpu"]
        return message

    def load(self, program, entry):
        """Compile ``program`` (bytes) in the server.  Returns (compile error, trouble):
        (None, None) when it is ready to fork tests of it."""
        fd = _memfd(program, "solution.py")
        try:
            reply = self.request({"op": "load", "entry": entry}, [fd])
        finally:
            os.close(fd)
        if reply is None or reply.get("lost"):
            return None, "the fork server did not answer"
        if reply.get("error"):
            return reply["error"], None
        self.loaded = (program, entry)
        return None, None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class ForkedTest:
    """A test forked by the fork server: its status arrives on the server's socket."""

    def __init__(self, server, pid, cpu_before):
        self.server, self.pid, self.cpu_before = server, pid, cpu_before

    def poll(self):
        message = self.server.reply(0)
        if message is None:
            return None
        if message.get("lost") or "status" not in message:
            return "lost"
        return message["status"], (message["utime"], message["stime"], message["maxrss"])

    def server_cpu(self):
        """The fork server's CPU time spent on this test so far (the fork itself)."""
        return max(0.0, self.server.cpu - self.cpu_before)

    def fileno(self):
        return self.server.sock.fileno()


Watched = collections.namedtuple(
    "Watched", "wait_status usage stopped_at cpu_seconds wall_seconds peak_memory oom_kills stdout stderr")


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


# ---------------------------------------------------------------- the host's messages
class HostInput:
    """JSON lines from the host on fd 0, read without blocking between and during tests,
    so a "stop" for the running submission is seen at once."""

    def __init__(self, fd=0):
        self.fd, self.buf, self.messages, self.eof = fd, bytearray(), collections.deque(), False

    def pump(self):
        """Read what the host has sent (call when fd 0 is readable)."""
        data = os.read(self.fd, 1 << 20)
        if not data:
            self.eof = True
            return
        self.buf += data
        while True:
            newline = self.buf.find(b"\n")
            if newline < 0:
                return
            line = bytes(self.buf[:newline]).strip()
            del self.buf[:newline + 1]
            if line:
                try:
                    self.messages.append(json.loads(line))
                except ValueError:
                    continue

    def next_message(self):
        """The next message, waiting for it; None at end of input."""
        with selectors.DefaultSelector() as sel:
            sel.register(self.fd, selectors.EVENT_READ)
            while not self.messages and not self.eof:
                sel.select()
                self.pump()
        return self.messages.popleft() if self.messages else None

    def stop_requested(self, jid, readable=False):
        """True if the host asked to stop submission ``jid`` (reads first if ``readable``
        or if input is waiting)."""
        if readable or (not self.eof and _readable(self.fd)):
            self.pump()
        stops = [m for m in self.messages if m.get("op") == "stop"]
        for m in stops:
            self.messages.remove(m)
        return self.eof or any(m.get("id") == jid for m in stops)


def _readable(fd):
    return bool(select.select([fd], [], [], 0)[0])


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


# ---------------------------------------------------------------- the judge
class Judge:
    """One runner's state: who programs run as, how tests start, the fork server.

    ``program_uid`` is uid P (None: programs run under our own uid); ``process`` is
    True in the process backend (no cgroup of our own, rlimits instead).
    """

    def __init__(self, program_uid=None, process=False):
        self.program_uid, self.process = program_uid, process
        self.cgroup = Cgroup(enabled=not process)
        self.host = HostInput()
        self.server = None
        # the fork server needs a uid of its own that programs cannot signal
        self.spawn_modes = ("fork", "exec") if program_uid is not None else ("exec",)

    @property
    def uid(self):
        """The uid programs run under."""
        return os.getuid() if self.program_uid is None else self.program_uid

    def kill_program(self, also=None, sure=False):
        """SIGKILL every process of the program's uid (every process but the runner, where
        programs share our uid) and the pid ``also`` (a test still becoming uid P).

        With a uid of their own the program's processes are found in /proc, unless the
        pids cgroup counts only the container's own processes (``sure``: look anyway).
        """
        if also is not None:
            try:
                os.kill(also, signal.SIGKILL)
            except OSError:
                pass
        if self.program_uid is None:
            try:
                os.kill(-1, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            return
        if not sure and self.cgroup.processes() == self.own_processes():
            return
        for pid in program_processes(self.program_uid, {os.getpid()}):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def own_processes(self):
        """How many processes the container holds with no program running: its init, the
        keep-alive, the runner and the fork server (when there is one)."""
        return 3 + (1 if self.server and self.server.alive() else 0)

    def program_left(self):
        """Pids of the program's processes still alive (none, at once, when the pids cgroup
        counts only the container's own processes)."""
        if self.program_uid is not None and self.cgroup.processes() == self.own_processes():
            return []
        return program_processes(self.uid, {os.getpid()})

    def reset(self):
        """Kill, wipe and verify; return None when clean, else what is left."""
        deadline = time.monotonic() + 2.0
        while True:
            self.kill_program()
            _reap()
            left = self.program_left()
            if not left or time.monotonic() > deadline:
                break
            self.kill_program(sure=True)
            time.sleep(0.01)
        if left:
            return f"processes of uid {self.uid} survived: {left}"
        if leftovers(self.uid):
            problems = wipe_scratch(self.program_uid)
            left = leftovers(self.uid)
            if problems or left:
                return "; ".join(problems + left[:5])
            left = self.program_left()
            if left:
                return f"processes of uid {self.uid} appeared during the wipe: {left}"
        return None

    # ---- starting a test
    def spawn_exec(self, fds, entry, program_fd, limits):
        """Start ``child.py --test`` on fds (stdin, stdout, stderr, status); None if impossible."""
        stdin, out_w, err_w, status_w = fds
        process_limits = None
        if self.process:
            process_limits = {"memory": limits.memory_bytes + (64 << 20), "pids": limits.pids,
                              "fsize": limits.stdout_bytes * 2 + (64 << 20)}
        uid = self.program_uid

        def setup():  # runs in the child, between fork and exec
            child.enter_test(uid, cpu_backstop(limits), limits.stack_bytes, process_limits)

        argv = [sys.executable, *child.PYTHON_FLAGS, CHILD, "--test", entry, str(program_fd), str(status_w)]
        for _ in range(50):
            try:
                return ExecTest(subprocess.Popen(argv, stdin=stdin, stdout=out_w, stderr=err_w,
                                                 pass_fds=(program_fd, status_w), preexec_fn=setup,
                                                 close_fds=True, env=dict(child.TEST_ENV)))
            except (BlockingIOError, OSError, subprocess.SubprocessError):
                self.kill_program()  # a fork bomb of the previous test may still hold every pid
                time.sleep(0.02)
        return None

    def spawn_fork(self, fds, limits):
        """Ask the fork server for the test on fds (stdin, stdout, stderr, status, setup)."""
        request = {"op": "spawn", "uid": self.program_uid, "cpu_backstop": cpu_backstop(limits),
                   "stack_bytes": limits.stack_bytes}
        for _ in range(50):
            cpu_before = self.server.cpu
            reply = self.server.request(request, fds, timeout=10)
            if reply and "pid" in reply:
                return ForkedTest(self.server, reply["pid"], cpu_before)
            if reply is None or reply.get("lost"):
                return None
            self.kill_program()  # fork failed: every pid is taken
            time.sleep(0.02)
        return None

    def ready_server(self, stack_bytes, program, entry):
        """A fork server for ``stack_bytes`` with ``program`` loaded (started or restarted as
        needed).  Returns (compile error, trouble), (None, None) when it is ready."""
        if self.server and (self.server.stack_bytes != stack_bytes or not self.server.alive()):
            self.drop_server()
        if self.server and self.server.loaded == (program, entry):
            return None, None
        if self.server is None:
            try:
                self.server = ForkServer(self.program_uid, stack_bytes)
            except (OSError, subprocess.SubprocessError) as exc:
                return None, f"the fork server did not start: {exc}"
        compile_error, trouble = self.server.load(program, entry)
        if trouble:
            self.drop_server()
        return compile_error, trouble

    def drop_server(self):
        """Stop the fork server (a new one starts when needed)."""
        if self.server:
            self.server.close()
            self.server = None

    # ---- one test
    def watch(self, test, out_r, err_r, limits, before, start, jid):
        """Drain the test's pipes and poll it every 5 ms until it has ended and its pipes
        are closed; stop it (and everything of the program's uid) at the first limit it
        crosses, or when the host asks to stop the submission.

        ``before`` is (cgroup CPU seconds, runner CPU seconds, OOM kills) read before
        the spawn, ``start`` the time.monotonic() of the spawn.  Returns a Watched:
        wait_status from the test's end (None if the fork server was lost) and usage
        (utime, stime, maxrss KiB); stopped_at "cpu", "wall", "stdout", "host" or None;
        cpu_seconds (the container's cgroup minus the runner's and the fork server's
        own, else the test process's rusage); wall_seconds; peak_memory (bytes of the
        memory cgroup, 0 where unreadable); oom_kills during the test (None where
        unreadable); stdout up to its cap and stderr up to its cap + 1 byte.
        """
        cpu0, self0, oom0 = before
        sel = selectors.DefaultSelector()
        bufs = {out_r: bytearray(), err_r: bytearray()}
        caps = {out_r: limits.stdout_bytes, err_r: limits.stderr_bytes}
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ, "pipe")
        if test.fileno() is not None:
            sel.register(test.fileno(), selectors.EVENT_READ, "server")
        if not self.host.eof:
            sel.register(self.host.fd, selectors.EVENT_READ, "host")
        ended = None  # (status, usage) or "lost"
        stopped_at = None
        cpu_used = 0.0
        peak_memory = 0
        end_time = None

        def stop(reason):
            nonlocal stopped_at
            if stopped_at is None:
                stopped_at = reason
                self.kill_program(also=test.pid)

        while True:
            host_readable = False
            for key, _ in sel.select(POLL_SECONDS):
                if key.data == "host":
                    host_readable = True
                    continue
                if key.data == "server":
                    continue
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
                if fd == out_r and len(buf) > limits.stdout_bytes:
                    stop("stdout")
            if host_readable and self.host.stop_requested(jid, readable=True):
                stop("host")
                if self.host.eof:
                    sel.unregister(self.host.fd)
            if ended is None:
                ended = test.poll()
                if ended is not None:
                    end_time = time.monotonic()
                    self.kill_program()  # whatever the program left running dies with it
                    if test.fileno() is not None:
                        sel.unregister(test.fileno())
            now = time.monotonic()
            peak_memory = max(peak_memory, self.cgroup.memory_usage() or 0)
            cpu = self.cgroup.cpu_seconds()
            if cpu is not None and cpu0 is not None:
                cpu_used = max(0.0, (cpu - cpu0) - (_self_cpu() - self0) - test.server_cpu())
            if ended is None:
                if cpu_used >= limits.cpu_seconds:
                    stop("cpu")
                elif now - start >= limits.wall_seconds:
                    stop("wall")
                elif stopped_at is not None:
                    self.kill_program(also=test.pid)  # until it has ended: a fork may have raced
                if now - start >= limits.wall_seconds + EXIT_GRACE_SECONDS:
                    ended, end_time = "lost", now  # no status came: the fork server is gone
            pipes_open = any(key.data == "pipe" for key in sel.get_map().values())
            if ended is not None and not pipes_open:
                break
            if ended is not None and now - max(end_time, start + limits.wall_seconds) > EXIT_GRACE_SECONDS:
                break  # a pipe held open by something unkillable: stop reading
        sel.close()
        wall = time.monotonic() - start
        oom1 = self.cgroup.oom_kills()
        status, usage = (None, (0.0, 0.0, 0)) if ended == "lost" else ended
        if cpu_used == 0.0 or (self.cgroup.cpu_path is None and self.cgroup.cpu_v2 is None):
            cpu_used = usage[0] + usage[1]  # no cgroup: the main process only
        return Watched(status, usage, stopped_at, cpu_used, wall, peak_memory,
                       oom1 - oom0 if oom0 is not None and oom1 is not None else None,
                       bytes(bufs[out_r][:limits.stdout_bytes]), bytes(bufs[err_r]))

    def run_test(self, job, index, prepared, program_fd, spawn):
        """Judge input ``index`` of ``job``: spawn, watch, classify; the "test" message body
        (None when the host stopped the submission during the test)."""
        limits = limits_of(job)
        stdin = _memfd(job["inputs"][index].encode("utf-8"), "stdin")
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status_r, status_w = os.pipe()
        setup_r, setup_w = os.pipe()
        for fd in (status_r, setup_r):
            os.set_blocking(fd, False)
        before = (self.cgroup.cpu_seconds(), _self_cpu(), self.cgroup.oom_kills())
        start = time.monotonic()
        try:
            if spawn == "fork":
                test = self.spawn_fork((stdin, out_w, err_w, status_w, setup_w), limits)
            else:
                test = self.spawn_exec((stdin, out_w, err_w, status_w), prepared.entry, program_fd, limits)
        finally:
            for fd in (stdin, out_w, err_w, status_w, setup_w):
                os.close(fd)
        try:
            if test is None:
                return {"status": "infra", "detail": "could not start the test process"}
            seen = self.watch(test, out_r, err_r, limits, before, start, job.get("id"))
            status_text = _read_some(status_r)
            setup_problem = _read_some(setup_r)
        finally:
            for fd in (out_r, err_r, status_r, setup_r):
                os.close(fd)
        if spawn == "fork" and seen.wait_status is None:
            self.drop_server()  # its socket may still deliver this test's status: start afresh
        if seen.stopped_at == "host":
            return None
        if setup_problem:
            return {"status": "infra", "detail": setup_problem.lstrip("!")}
        status = seen.wait_status
        oom_lost = seen.oom_kills is not None and seen.oom_kills > 0
        if status is None and not oom_lost and seen.stopped_at is None:
            return {"status": "infra", "detail": "the fork server was lost during the test"}
        if status is None:
            status = signal.SIGKILL  # lost with it: killed (by the watcher or the OOM killer)
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        exception = status_text or None
        verdict, detail = classify(
            exit_code=exit_code, signal_number=sig, exception=exception, stopped_at=seen.stopped_at,
            cpu_seconds=seen.cpu_seconds, cpu_limit=limits.cpu_seconds, oom_kills=seen.oom_kills,
            peak_memory=seen.peak_memory, memory_limit=self.cgroup.memory_limit)
        return {
            "status": verdict,
            "detail": detail,
            "exit_code": exit_code,
            "signal": signal_name(sig),
            "exception": exception,
            "cpu_seconds": round(seen.cpu_seconds, 4),
            "wall_seconds": round(seen.wall_seconds, 4),
            "max_rss_kb": seen.usage[2],
            "peak_cgroup_kb": seen.peak_memory // 1024 or None,
            "stdout_b64": base64.b64encode(seen.stdout).decode("ascii"),
            "stderr_tail": seen.stderr[-STDERR_TAIL_BYTES:].decode("utf-8", "replace"),
        }

    # ---- one submission
    def run_job(self, job):
        """Judge one "run" message: the header, then a test message per input run."""
        jid = job.get("id")

        def header(compile_error, prepared=None, spawn=None):
            emit({"kind": "header", "id": jid, "entry": prepared and prepared.entry,
                  "entry_rule": prepared and prepared.rule, "calls_solve": bool(prepared and prepared.calls_solve),
                  "spawn": spawn, "compile_error": compile_error})

        source = job["source"]
        if len(source.encode("utf-8", "surrogatepass")) > SOURCE_LIMIT_BYTES:
            return header(f"source over {SOURCE_LIMIT_BYTES} bytes")
        spawn = job.get("spawn", "fork")
        if spawn not in self.spawn_modes:
            spawn = "exec"
        stack_bytes = limits_of(job).stack_bytes
        try:
            prepared = prepare(source, job.get("entry", "auto"))
            program = prepared.program.encode("utf-8", "surrogateescape")
            if spawn == "fork":  # the fork server compiles it (once) and says if it cannot
                compile_error, trouble = self.ready_server(stack_bytes, program, prepared.entry)
                if compile_error:
                    return header(compile_error)
                if trouble:
                    spawn = "exec"  # the server is in trouble: the exec path judges
            if spawn == "exec":  # compiled here so that an error is reported in the header
                child.compile_program(prepared.program)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
            return header(f"{type(exc).__name__}: {exc}")
        header(None, prepared, spawn)
        program_fd = _memfd(program, "solution.py") if spawn == "exec" else None
        try:
            for i in range(len(job["inputs"])):
                if self.host.stop_requested(jid):
                    return
                if spawn == "fork" and any(self.ready_server(stack_bytes, program, prepared.entry)):
                    result = {"status": "infra", "detail": "the fork server could not be restarted"}
                else:
                    result = self.run_test(job, i, prepared, program_fd, spawn)
                if result is None:
                    return
                result.update(kind="test", id=jid, index=i)
                emit(result)
                if job.get("stop_at_first_failure") and result["status"] != "ok":
                    return
        finally:
            if program_fd is not None:
                os.close(program_fd)

    def serve(self):
        """Reset, say "ready", then judge run messages until "exit" or end of input."""
        problem = self.reset()
        emit({"kind": "ready", "uid": os.getuid(), "program_uid": self.uid, "pid": os.getpid(),
              "clean": problem is None, "problem": problem, "spawn": list(self.spawn_modes),
              "cpu_cgroup": bool(self.cgroup.cpu_path or self.cgroup.cpu_v2),
              "oom_counter": self.cgroup.oom_kills() is not None})
        if problem:
            return 3
        while True:
            job = self.host.next_message()
            if job is None or job.get("op") == "exit":
                return 0
            if job.get("op") != "run":
                continue  # a late "stop" for a submission already done
            self.run_job(job)
            problem = self.reset()
            emit({"kind": "done", "id": job.get("id"), "clean": problem is None, "problem": problem})
            if problem:
                return 3


def _read_some(fd):
    try:
        return os.read(fd, 600).decode("utf-8", "replace").strip()
    except (BlockingIOError, OSError):
        return ""


def serve(program_uid=None, runner_uid=None, process=False, tmpfs_mb=64):
    """Set up this runner's identity, then serve (see Judge.serve); returns the exit status."""
    if process:
        _enter_process_sandbox(tmpfs_mb)
    if runner_uid is not None:
        try:
            become_runner(runner_uid)
        except OSError as exc:
            emit({"kind": "ready", "clean": False, "problem": f"cannot separate uids: {exc}"})
            return 3
    _set_non_dumpable()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        return Judge(program_uid, process).serve()
    finally:
        _reap()


def main(argv):
    """``--serve`` [``--uids RUNNER:PROGRAM`` | ``--process TMPFS_MB``]."""
    if argv == ["--serve"]:
        return serve()
    if len(argv) == 3 and argv[:2] == ["--serve", "--uids"]:
        runner_uid, _, program_uid = argv[2].partition(":")
        return serve(program_uid=int(program_uid), runner_uid=int(runner_uid))
    if len(argv) == 3 and argv[:2] == ["--serve", "--process"]:
        return serve(process=True, tmpfs_mb=int(argv[2]))
    sys.stderr.write("usage: runner.py --serve [--uids RUNNER:PROGRAM | --process TMPFS_MB]\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
