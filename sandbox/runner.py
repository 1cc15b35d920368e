"""In-container runner: executes one submission against all of its test inputs.

This file runs *inside* the sandbox container (Debian's python3, standard library
only) and is baked into the image by ``neocoder sandbox build``.  The host never
passes expected outputs in: it mounts ``/job/job.json`` read-only with

    {"source": str,            # the program text
     "inputs": [str, ...],     # one stdin text per test
     "cpu_seconds": float,     # CPU-time limit per test
     "wall_seconds": float,    # wall-clock backstop per test
     "output_bytes": int}      # cap on stdout (and separately on stderr)

and reads the runner's stdout: one JSON line ``{"kind": "header", ...}`` that says
how the program is entered, then one ``{"kind": "test", ...}`` line per input.
The host turns those raw outcomes into verdicts (AC/WA/...); this side reports only
what it observed: exit status, signal, exception name, CPU and wall time, peak
memory, whether the memory cgroup OOM-killed the test, and the captured stdout.

Program contract (NeoCoder's protocol: define ``solve()``, read stdin, print to
stdout).  If the module defines a top-level ``solve`` that can be called with no
arguments, every top-level statement that would call ``solve`` (directly, or
through another top-level function that calls it, e.g. ``main()`` or a
``test_solve()`` harness) is removed whole -- an ``if __name__ == "__main__":``
block or a ``with patch(...)`` harness together with its asserts -- and the
runner calls ``solve()`` exactly once per test.  Otherwise the program runs as a plain script.  A program that does
not compile is reported once, in the header, as a compile error.

A child process per test gives every test a fresh interpreter; stdin, stdout and
stderr are files on the container's tmpfs, so nothing can deadlock on a full pipe,
and RLIMIT_FSIZE turns output past the cap into SIGXFSZ (reported as OLE).
"""

import ast
import base64
import builtins
import json
import os
import resource
import signal
import subprocess
import sys
import time
import traceback

WORK = "/tmp/neocoder"
PROGRAM = WORK + "/solution.py"
STATUS = WORK + "/status"
OOM_FILE = "/sys/fs/cgroup/memory/memory.oom_control"
STDERR_TAIL_BYTES = 2048


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


def prepare(source):
    """Return (entry, program_text) for ``source``; raises SyntaxError.

    entry is "solve" when the runner must call solve() itself, else "script".
    """
    tree = ast.parse(source, filename="solution.py")
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


# ---------------------------------------------------------------- child side
def child(entry):
    """Runs in the per-test process: execute the program, then call solve()."""
    with open(PROGRAM, encoding="utf-8") as f:
        code = compile(f.read(), "solution.py", "exec")
    namespace = {"__name__": "__main__", "__builtins__": builtins, "__file__": "solution.py"}
    sys.argv = ["solution.py"]
    try:
        exec(code, namespace)
        if entry == "solve":
            namespace["solve"]()
    except SystemExit:
        raise
    except BaseException as exc:  # report the exception class; the traceback goes to stderr
        name = type(exc).__name__
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        try:
            traceback.print_exc()
        except BaseException:
            pass
        try:
            with open(STATUS, "w") as f:
                f.write(name)
        except BaseException:
            pass
        os._exit(1)


# ---------------------------------------------------------------- runner side
def _oom_kills():
    try:
        with open(OOM_FILE) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except (OSError, ValueError):
        pass
    return None


def _read_cap(path, cap):
    with open(path, "rb") as f:
        return f.read(cap)


def run_test(index, entry, stdin_text, cpu_seconds, wall_seconds, output_bytes):
    in_path, out_path, err_path = (WORK + "/stdin", WORK + "/stdout", WORK + "/stderr")
    with open(in_path, "wb") as f:
        f.write(stdin_text.encode("utf-8"))
    for p in (STATUS,):
        if os.path.exists(p):
            os.unlink(p)
    cpu_soft = max(1, int(cpu_seconds + 0.999))

    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_soft, cpu_soft + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (output_bytes + 1, output_bytes + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:  # under memory pressure the OOM killer takes the test, not the runner
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass

    oom_before = _oom_kills()
    start = time.monotonic()
    with open(in_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
        proc = subprocess.Popen(
            [sys.executable, "-I", __file__, "--child", entry],
            stdin=fin, stdout=fout, stderr=ferr, cwd=WORK,
            preexec_fn=limits, start_new_session=True, close_fds=True,
            env={"PATH": "/usr/bin:/bin", "HOME": WORK, "PYTHONHASHSEED": "0",
                 "PYTHONIOENCODING": "utf-8"},
        )
    timed_out = False
    deadline = start + wall_seconds
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.002)
    wall = time.monotonic() - start
    proc.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # leftovers of the test's own process group
    except (ProcessLookupError, PermissionError):
        pass
    oom_after = _oom_kills()

    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    cpu = usage.ru_utime + usage.ru_stime
    stdout_size = os.path.getsize(out_path)
    stderr = _read_cap(err_path, 1 << 20)
    exception = None
    if os.path.exists(STATUS):
        with open(STATUS, errors="replace") as f:
            exception = f.read(200).strip() or None

    if timed_out or sig == signal.SIGXCPU or cpu >= cpu_seconds:
        status_name = "tle"
    elif oom_before is not None and oom_after is not None and oom_after > oom_before:
        status_name = "mle"
    elif exception == "MemoryError":
        status_name = "mle"
    elif sig == signal.SIGXFSZ or stdout_size > output_bytes:
        status_name = "ole"
    elif sig is not None or exit_code != 0:
        status_name = "re"
    else:
        status_name = "ok"
    return {
        "kind": "test",
        "index": index,
        "status": status_name,
        "exit_code": exit_code,
        "signal": signal.Signals(sig).name if sig else None,
        "exception": exception,
        "cpu_seconds": round(cpu, 4),
        "wall_seconds": round(wall, 4),
        "max_rss_kb": usage.ru_maxrss,
        "stdout_b64": base64.b64encode(_read_cap(out_path, output_bytes)).decode("ascii"),
        "stderr_tail": stderr[-STDERR_TAIL_BYTES:].decode("utf-8", "replace"),
    }


def emit(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main(job_path):
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    os.makedirs(WORK, exist_ok=True)
    try:
        entry, program = prepare(job["source"])
    except (SyntaxError, ValueError) as exc:
        emit({"kind": "header", "entry": None,
              "compile_error": f"{type(exc).__name__}: {exc}"})
        return
    with open(PROGRAM, "w", encoding="utf-8") as f:
        f.write(program)
    emit({"kind": "header", "entry": entry, "compile_error": None,
          "oom_counter": _oom_kills() is not None})
    for i, stdin_text in enumerate(job["inputs"]):
        emit(run_test(i, entry, stdin_text, float(job["cpu_seconds"]),
                      float(job["wall_seconds"]), int(job["output_bytes"])))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.stderr.write("usage: runner.py JOB.json | runner.py --child ENTRY\n")
        sys.exit(2)
