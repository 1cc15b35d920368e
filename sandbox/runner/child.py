"""A test's process, and the fork server that starts them without a new interpreter.

Runs inside the sandbox (Debian's python3, standard library only); the runner
(``python3 -m runner``) starts it in one of two ways and imports it for ``enter_test``:

- ``child.py --test ENTRY PROGRAM_FD STATUS_FD`` (the exec path): one test's process,
  started by the runner with the test's stdin, pipes for stdout and stderr, the
  program on PROGRAM_FD and a status pipe on STATUS_FD; its identity and limits were
  set by ``enter_test`` between fork and exec.
- ``child.py --fork-server SOCKET_FD`` (the fork server): started once per worker
  with the same interpreter flags and environment as the exec path.  It imports the
  standard modules programs commonly use, compiles each submission once ("load"),
  and for every test forks a child ("spawn") that calls ``enter_test`` and runs the
  compiled program, so a test pays for a fork instead of an interpreter start.  It
  never runs program code itself and never holds a test's input or output: those
  travel as file descriptors (SCM_RIGHTS) straight into the child.

In both ways the program runs the same: a fresh ``__main__`` module, then ``solve()``
once when the entry is "solve"; an uncaught exception writes its class name to the
status pipe and exits 1 (the traceback goes to stderr); a normal end or SystemExit
waits for non-daemon threads, runs atexit handlers and flushes, like an interpreter's
exit.  Kept small: the exec path pays for importing this file on every test.
"""

import os
import sys

SCRATCH = "/tmp"  # the program's working directory, HOME and TMPDIR (wiped between submissions)
# Exactly this environment for every test process and the fork server, so both paths
# configure the interpreter alike (stdio encoding, hash seed: fixed, so verdicts of
# programs that print a set of strings do not depend on the run).
TEST_ENV = {"PATH": "/usr/bin:/bin", "HOME": SCRATCH, "TMPDIR": SCRATCH, "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0"}
# -s -P (no user site, no script folder on sys.path) instead of -I: -I would ignore
# PYTHONHASHSEED; the environment is the one above and nothing else.
PYTHON_FLAGS = ("-s", "-P")
# Modules the fork server imports before forking (programs import them for free).  Kept
# small: a fork and a child's exit cost more the larger the server is (unittest.mock would
# double it; prepare() drops the imports of a removed test harness instead).
PRELOAD = ("collections", "itertools", "math", "functools", "heapq", "bisect", "re", "string",
           "operator", "typing", "fractions", "decimal", "random", "array", "copy", "io",
           "threading", "time", "types", "traceback", "atexit", "fcntl",
           "ctypes", "resource", "json", "socket")  # the last four: what the set-up itself uses
INFRA_EXIT = 125  # a forked test process could not become the test (its setup pipe says why)
CAP_KILL, CAP_SETGID, CAP_SETUID = 5, 6, 7


# ---------------------------------------------------------------- privileges
_LIBC = []


def _libc():
    """(ctypes, libc, capset header type, capset data type), made once per process."""
    if not _LIBC:
        import ctypes

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                        ("inheritable", ctypes.c_uint32)]

        _LIBC.append((ctypes, ctypes.CDLL(None, use_errno=True), Header, Data))
    return _LIBC[0]


def set_capabilities(effective, permitted, inheritable=0):
    """capset(2) on this thread: the three capability sets as bit masks (caps < 32)."""
    ctypes, libc, Header, Data = _libc()
    header, data = Header(0x20080522, 0), (Data * 2)()
    data[0].effective, data[0].permitted, data[0].inheritable = effective, permitted, inheritable
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def capabilities():
    """This process's capability sets from /proc/self/status: {"CapEff": int, ...}."""
    with open("/proc/self/status") as f:
        return {k: int(v, 16) for k, _, v in (line.partition(":\t") for line in f)
                if k in ("CapInh", "CapPrm", "CapEff", "CapAmb")}


def drop_to(uid):
    """Become ``uid`` (and gid ``uid``, no groups) with no capability left; verified.

    A process that switches between two non-root uids keeps its capabilities, so
    they are cleared explicitly and checked: the program must never hold CAP_SETUID.
    Raises OSError if anything is left.
    """
    libc = _libc()[1]
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    set_capabilities(0, 0, 0)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    left = {k: v for k, v in capabilities().items() if v}
    if left or os.getresuid() != (uid,) * 3 or os.getresgid() != (uid,) * 3 or os.getgroups():
        raise OSError(f"privileges left after dropping to uid {uid}: {left}")
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE 1, as after an exec: /proc/self is the program's


def enter_test(uid, cpu_backstop, stack_bytes, process_limits=None):
    """Everything between fork and the program, in the test's own process.

    Own session; ``uid`` (None: keep this one; the process backend has no second
    uid); rlimits: CPU backstop (s), no core, the stack (bytes); ``process_limits``
    (the process backend: {"memory", "pids", "fsize"}) adds address space, process
    count, file size and open files; the OOM killer picks this process first (and,
    by ``confine_writes``, the program cannot lower that: it can open for writing only
    files under its scratch folders and /dev/null); /tmp as working directory.
    """
    import resource
    os.setsid()
    if uid is not None:
        drop_to(uid)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_backstop, cpu_backstop + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_STACK, (stack_bytes, stack_bytes))
    if process_limits:
        resource.setrlimit(resource.RLIMIT_AS, (process_limits["memory"],) * 2)
        resource.setrlimit(resource.RLIMIT_NPROC, (process_limits["pids"],) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (process_limits["fsize"],) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    try:  # under memory pressure the OOM killer takes the test, not the runner
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    confine_writes()
    os.chdir(SCRATCH)


# ---------------------------------------------------------------- the write guard (Landlock)
WRITABLE = ("/tmp", "/dev/shm", "/dev/mqueue", "/dev/null")  # all a program may open for writing
_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446  # one number on every arch
_WRITE_FILE = 1 << 1  # LANDLOCK_ACCESS_FS_WRITE_FILE


def write_guard_available():
    """True where the kernel offers Landlock (ABI 1 or later) to this process."""
    return _libc()[1].syscall(_LANDLOCK_CREATE, None, 0, 1) >= 1  # LANDLOCK_CREATE_RULESET_VERSION


def confine_writes():
    """Landlock: from now on this process and everything it starts can open for writing
    only files beneath WRITABLE (pipes and sockets it holds are not paths: unaffected).
    So a program cannot write its own /proc/self/oom_score_adj (lower its OOM score to
    the runner's, and get the runner killed instead of itself) nor any other /proc or
    /dev file.  Sets no_new_privs, which Landlock needs (``drop_to`` has set it already).
    A kernel without Landlock: nothing (``write_guard_available`` says so in the runner's
    "ready"); OSError if the kernel refuses the restriction."""
    ctypes, libc = _libc()[:2]
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    ruleset = libc.syscall(_LANDLOCK_CREATE, ctypes.byref(ctypes.c_uint64(_WRITE_FILE)), 8, 0)
    if ruleset < 0:
        return
    try:
        for path in WRITABLE:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:  # struct landlock_path_beneath_attr: u64 allowed_access, s32 parent_fd (packed)
                rule = ctypes.create_string_buffer(_WRITE_FILE.to_bytes(8, "little") + fd.to_bytes(4, "little"), 12)
                libc.syscall(_LANDLOCK_ADD_RULE, ruleset, 1, rule, 0)  # LANDLOCK_RULE_PATH_BENEATH
            finally:
                os.close(fd)
        if libc.syscall(_LANDLOCK_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


# ---------------------------------------------------------------- the program
def compile_program(text):
    """The program's code object (both paths compile alike)."""
    return compile(text, "solution.py", "exec")


def _fresh_main():
    import builtins
    import types
    module = types.ModuleType("__main__")
    module.__file__ = "solution.py"
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    sys.argv = ["solution.py"]
    return module.__dict__


def _exit_status(exc):
    """The exit status an interpreter gives for SystemExit ``exc``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except BaseException:
        pass
    return 1


def run_program(code, entry, status_fd):
    """Run ``code`` in a fresh __main__ (and solve() when ``entry`` is "solve"); never returns.

    An uncaught exception: its class name on ``status_fd``, the traceback on stderr,
    exit 1 at once.  Otherwise: the interpreter's exit (threads, atexit, flush).
    """
    namespace = _fresh_main()
    try:
        exec(code, namespace)
        if entry == "solve":
            namespace["solve"]()
        status = 0
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException as exc:  # report the class; the traceback goes to stderr
        name = type(exc).__name__
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        try:
            import traceback
            traceback.print_exc()
        except BaseException:
            pass
        try:
            os.write(status_fd, name.encode()[:200])
        except BaseException:
            pass
        os._exit(1)
    _finish(status)


def _finish(status):
    """What an interpreter does when the main module ends, then exit with ``status``."""
    threading = sys.modules.get("threading")
    try:
        if threading is not None:
            threading._shutdown()  # wait for non-daemon threads
    except BaseException:
        pass
    try:
        import atexit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout and status == 0:
                status = 120  # an interpreter's status when stdout cannot be flushed
    os._exit(status)


# ---------------------------------------------------------------- the fork server
def _send(sock, message, fds=()):
    import json
    import socket
    socket.send_fds(sock, [json.dumps(message).encode()], list(fds))


def _fork_test(code, entry, request, fds):
    """In the forked child: become the test on ``fds`` (stdin, stdout, stderr, status,
    setup), then run the program.  A failure before the program runs is written to the
    setup pipe, which is closed before any program code runs (so no program can fake one).
    """
    import fcntl
    setup_fd = fds[4]
    try:
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in fds]  # out of the way of 0-4
        for target, fd in enumerate(high):
            os.dup2(fd, target)
        setup_fd = 4
        os.closerange(5, 1 << 16)
        os.environ.clear()
        os.environ.update(TEST_ENV)
        enter_test(request["uid"], request["cpu_backstop"], request["stack_bytes"])
        os.close(4)
    except BaseException as exc:
        try:
            os.write(setup_fd, f"could not become the test: {type(exc).__name__}: {exc}".encode()[:500])
        finally:
            os._exit(INFRA_EXIT)
    run_program(code, entry, 3)


def fork_server(sock_fd):
    """Serve "load" and "spawn" requests on the socket ``sock_fd`` until it closes.

    load  {"op": "load", "entry"} + [program fd]  -> {"ok": true, "cpu"} or {"error": "SyntaxError: ..."}
    spawn {"op": "spawn", "uid", "cpu_backstop", "stack_bytes"} + [stdin, stdout, stderr, status, setup]
          -> {"pid": int, "cpu": float}, then when it ends
          -> {"status": int, "utime": float, "stime": float, "maxrss": int, "cpu": float}
          (or {"error": "..."} if it could not fork); cpu is this server's own CPU time.
    """
    import gc
    import importlib
    import json
    import resource
    import socket
    for name in PRELOAD:
        importlib.import_module(name)
    _libc()
    gc.collect()
    gc.freeze()
    sock = socket.socket(fileno=sock_fd)
    code = entry = None

    def own_cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    while True:
        data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
        if not data:
            os._exit(0)
        request = json.loads(data)
        if request["op"] == "load":
            try:
                with os.fdopen(fds[0], "rb") as f:
                    text = f.read().decode("utf-8", "surrogateescape")
                code, entry = compile_program(text), request["entry"]
                gc.freeze()  # the cyclic GC of a child then leaves these pages shared
                _send(sock, {"ok": True, "cpu": own_cpu()})
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
                code = None
                _send(sock, {"error": f"{type(exc).__name__}: {exc}"})
            continue
        try:
            pid = os.fork()
        except OSError as exc:
            for fd in fds:
                os.close(fd)
            _send(sock, {"error": f"fork failed: {exc}"})
            continue
        if pid == 0:
            sock.close()
            _fork_test(code, entry, request, fds)
        for fd in fds:
            os.close(fd)
        _send(sock, {"pid": pid, "cpu": own_cpu()})
        _, status, usage = os.wait4(pid, 0)
        _send(sock, {"status": status, "utime": usage.ru_utime, "stime": usage.ru_stime,
                     "maxrss": usage.ru_maxrss, "cpu": own_cpu()})


def main(argv):
    """``--test ENTRY PROGRAM_FD STATUS_FD`` or ``--fork-server SOCKET_FD``."""
    if argv[:1] == ["--fork-server"] and len(argv) == 2:
        fork_server(int(argv[1]))
    elif argv[:1] == ["--test"] and len(argv) == 4:
        entry, program_fd, status_fd = argv[1], int(argv[2]), int(argv[3])
        os.lseek(program_fd, 0, os.SEEK_SET)  # every test shares the runner's descriptor
        with os.fdopen(program_fd, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
        try:
            code = compile_program(text)
        except BaseException as exc:
            try:
                os.write(status_fd, type(exc).__name__.encode())
            finally:
                os._exit(1)
        run_program(code, entry, status_fd)
    else:
        sys.stderr.write("usage: child.py --test ENTRY PROGRAM_FD STATUS_FD | --fork-server SOCKET_FD\n")
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
