"""C++ programs: the compile step, and the tests of the compiled binary.

A C++ submission ("language": "cpp" in the run message) is compiled once, inside the
worker, by Debian's g++ under the program uid P with no capability, exactly as a test
runs (own session, rlimits, the container's cgroup, no network: the container has
none), but with limits of its own (``COMPILE_LIMITS``): CPU time of the whole compiler
process tree, a wall backstop, the diagnostics kept up to a cap, the binary's size
(RLIMIT_FSIZE).  The compiler reads the source on stdin and writes the binary to
``BINARY`` in the program's scratch ``/tmp``; the runner copies it into a sealed
memfd, and each test executes that memfd (``/proc/self/fd/N``) under the same set-up
as a Python test (``child.enter_test``), so a test cannot change the binary the next
test runs.  A compile that fails, runs out of a limit or leaves no binary is a
compile error, whose text the host reports as CE on every test.

The flags are written down once, here (``CXX_FLAGS``): ``-O2 -std=c++17`` as on
Codeforces, ``-DONLINE_JUDGE`` (Codeforces defines it, and many accepted programs
read ``input.txt`` unless it is set) and ``-pipe``.  ``<bits/stdc++.h>`` is
precompiled with the same flags when the image is built (``build_pch``, run by the
Dockerfile) into ``PCH_DIR``, which comes first on the include path; g++ falls back to
the header itself when the precompiled one does not fit (``-Winvalid-pch`` is off).
``PCH_DIR`` also holds ``bits\\stdc++.h`` (``WINDOWS_HEADER``: a backslash in a Linux
file name), which includes the real one: accepted Codeforces programs written on
Windows include it by that name.
"""

import collections
import os
import subprocess
import sys
import time

from . import child, guard
from .forkserver import ExecTest, memfd
from .limits import Limits, cpu_backstop, self_cpu, wall_cap
from .watch import watch

COMPILER = "/usr/bin/g++"
CXX_FLAGS = ("-O2", "-std=c++17", "-DONLINE_JUDGE", "-pipe")
PCH_DIR = "/opt/neocoder/pch"  # holds bits/stdc++.h.gch, built with CXX_FLAGS by the image
WINDOWS_HEADER = "bits\\stdc++.h"  # a file in PCH_DIR: the name programs written on Windows include
BINARY = os.path.join(child.SCRATCH, ".solution")  # the compiler's output, in P's scratch space
DIAGNOSTICS_BYTES = 2048  # the end of the compiler's messages that a compile error keeps
# Limits of the compile step (seconds, bytes, processes); memory is the container's cgroup.
# The wall backstop is tied to the CPU limit as a test's is (limits.wall_cap: 2 x 15 + 1 s),
# and a compiler tree that uses no CPU time for IDLE_SECONDS is stopped at once: g++ never
# waits for anything, so it is blocked on a pipe or a device a source made it open.
COMPILE_CPU_SECONDS = 15.0
IDLE_SECONDS = 3.0
COMPILE_LIMITS = Limits(cpu_seconds=COMPILE_CPU_SECONDS, wall_seconds=wall_cap(COMPILE_CPU_SECONDS),
                        stdout_bytes=64 << 10, stderr_bytes=64 << 10, stack_bytes=64 << 20, memory_bytes=0, pids=64,
                        idle_seconds=IDLE_SECONDS)
# g++ runs with the compile guard preloaded (guard.py): paths under /dev and /proc, devices,
# FIFOs and sockets are refused, however the source names them.
BINARY_LIMIT_BYTES = 32 << 20  # RLIMIT_FSIZE of the compiler: the largest binary it may write
# How a compiled program is entered, in the fields of contract.Prepared the header reports.
Compiled = collections.namedtuple("Compiled", "entry rule calls_solve")
COMPILED = Compiled(entry="script", rule="compiled", calls_solve=False)


def compile_argv(include_pch=True):
    """The compiler's argv: g++ CXX_FLAGS [-I PCH_DIR] -x c++ - -o BINARY (source on stdin);
    ``include_pch`` puts the precompiled header's folder first on the include path."""
    pch = ["-I", PCH_DIR] if include_pch else []
    return [COMPILER, *CXX_FLAGS, *pch, "-x", "c++", "-", "-o", BINARY]


def build_pch():
    """Precompile <bits/stdc++.h> into PCH_DIR/bits/stdc++.h.gch with CXX_FLAGS (at image
    build, as root).  Raises CalledProcessError if g++ fails, OSError if the header is absent."""
    # the header lives in a multiarch folder (x86_64-linux-gnu/c++/12): ask the preprocessor
    found = subprocess.run([COMPILER, *CXX_FLAGS, "-x", "c++", "-M", "-"], input="#include <bits/stdc++.h>\n",
                           capture_output=True, text=True, check=True).stdout
    path = next(p for p in found.replace("\\\n", " ").split() if p.endswith("/bits/stdc++.h"))
    os.makedirs(os.path.join(PCH_DIR, "bits"), exist_ok=True)
    # Codeforces compiles on Windows, where #include <bits\stdc++.h> finds the header too;
    # here a file of that very name (a backslash is an ordinary character) includes it.
    with open(os.path.join(PCH_DIR, WINDOWS_HEADER), "w") as f:
        f.write("#include <bits/stdc++.h>\n")
    subprocess.run([COMPILER, *CXX_FLAGS, "-x", "c++-header", path, "-o",
                    os.path.join(PCH_DIR, "bits", "stdc++.h.gch")], check=True)


def compile_source(judge, job, source):
    """Compile ``source`` (bytes) for run ``job``; returns (binary fd, None, CPU seconds) with
    the binary in a sealed, read-only memfd, (None, compile error text, CPU seconds), or
    (None, None, None) when the host stopped the submission during the compile (or the
    compiler could not start: then the text says so).  The compile runs under uid P with
    COMPILE_LIMITS and is watched like a test (CPU of the whole compiler tree, wall, output
    caps); CPU seconds is that tree's CPU time."""
    stdin = memfd(source, "solution.cpp")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    uid = judge.program_uid

    def setup():  # in the compiler's process, between fork and exec
        import resource
        child.enter_test(uid, cpu_backstop(COMPILE_LIMITS), COMPILE_LIMITS.stack_bytes)
        resource.setrlimit(resource.RLIMIT_FSIZE, (BINARY_LIMIT_BYTES, BINARY_LIMIT_BYTES))

    before = (judge.cgroup.cpu_seconds(), self_cpu(), judge.cgroup.oom_kills())
    start = time.monotonic()
    try:
        proc = subprocess.Popen(compile_argv(os.path.isdir(PCH_DIR)), stdin=stdin, stdout=out_w, stderr=err_w,
                                preexec_fn=setup, close_fds=True, env=guard.environment(child.TEST_ENV),
                                cwd=child.SCRATCH)
    except (OSError, subprocess.SubprocessError) as exc:
        for fd in (stdin, out_w, err_w, out_r, err_r):
            os.close(fd)
        return None, f"the compiler could not start: {exc}", None
    for fd in (stdin, out_w, err_w):
        os.close(fd)
    try:
        seen = watch(ExecTest(proc), (out_r, err_r), COMPILE_LIMITS, before, start, judge, job.get("id"))
    finally:
        os.close(out_r)
        os.close(err_r)
    judge.kill_program()
    if seen.stopped_at == "host":
        return None, None, None
    cpu = round(seen.cpu_seconds, 4)
    error = compile_failure(seen)
    if error:
        return None, error, cpu
    return (*load_binary(), cpu)


def compile_failure(seen):
    """Why the watched compile (a Watched) failed, as a compile error's text; None if it ran
    well.  Pure: reads only ``seen``."""
    text = (seen.stderr + seen.stdout).decode("utf-8", "replace")
    diagnostics = text.strip()[-DIAGNOSTICS_BYTES:]
    status = seen.wait_status
    refused = guard.refused(text)
    if refused and (seen.stopped_at is not None or status is None or status != 0):
        return (f"refused at compile: {', '.join(refused[:3])[:300]} (paths under /dev and /proc, devices, FIFOs "
                "and sockets cannot be read while compiling)")
    if seen.oom_kills:
        return "the compiler ran out of memory"
    if seen.stopped_at == "idle":
        return (f"the compiler used no CPU time for {COMPILE_LIMITS.idle_seconds:g} s: it was blocked "
                "(reading a pipe or a device?) and was stopped")
    if seen.stopped_at in ("cpu", "wall") or seen.cpu_seconds >= COMPILE_LIMITS.cpu_seconds:
        return (f"compilation exceeded its limit of {COMPILE_LIMITS.cpu_seconds:g} s CPU time "
                f"({COMPILE_LIMITS.wall_seconds:g} s wall)")
    if seen.stopped_at == "stdout":
        return "the compiler's output passed its cap"
    if status is None:
        return "the compiler was lost"
    if os.WIFSIGNALED(status):
        return f"the compiler was killed by signal {os.WTERMSIG(status)}" + (f": {diagnostics}" if diagnostics else "")
    if os.WEXITSTATUS(status) != 0:
        return diagnostics or f"the compiler exited with status {os.WEXITSTATUS(status)}"
    return None


def load_binary():
    """The compiled binary as a sealed, read-only memfd: (fd, None), or (None, why not).
    Opened without following a symlink; over BINARY_LIMIT_BYTES is a compile error."""
    try:
        fd = os.open(BINARY, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        return None, f"the compiler left no binary: {exc}"
    try:
        size = os.fstat(fd).st_size
        if size > BINARY_LIMIT_BYTES:
            return None, f"the binary is {size} bytes, limit {BINARY_LIMIT_BYTES}"
        data = bytearray()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    sealed = memfd(bytes(data), "solution")
    try:  # executed through a read-only descriptor: nothing holds the binary open for writing
        readonly = os.open(f"/proc/self/fd/{sealed}", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(sealed)
    return readonly, None


def spawn_binary(judge, fds, binary_fd, limits):
    """Start one test of the compiled binary on fds (stdin, stdout, stderr): the same set-up
    as a Python test (``child.enter_test``: own session, uid P, rlimits, /tmp), then exec of
    the sealed binary.  Returns an ExecTest, or None when no process could be started."""
    stdin, out_w, err_w = fds
    process_limits = None
    if judge.process:
        process_limits = {"memory": limits.memory_bytes + (64 << 20), "pids": limits.pids,
                          "fsize": limits.stdout_bytes * 2 + (64 << 20)}
    uid = judge.program_uid

    def setup():
        child.enter_test(uid, cpu_backstop(limits), limits.stack_bytes, process_limits)

    for _ in range(50):
        try:
            return ExecTest(subprocess.Popen(["./solution"], executable=f"/proc/self/fd/{binary_fd}",
                                             stdin=stdin, stdout=out_w, stderr=err_w, pass_fds=(binary_fd,),
                                             preexec_fn=setup, close_fds=True, env=dict(child.TEST_ENV)))
        except (OSError, subprocess.SubprocessError):
            judge.kill_program()  # a fork bomb of the previous test may still hold every pid
            time.sleep(0.02)
    return None


if __name__ == "__main__":
    if sys.argv[1:] == ["--build-pch"]:
        build_pch()
        guard.build()
    else:
        sys.stderr.write("usage: python3 -m runner.native --build-pch (also builds the compile guard)\n")
        sys.exit(2)
