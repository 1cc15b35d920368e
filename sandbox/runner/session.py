"""One runner's session: its state, and the submissions it judges one after another.

``Judge.serve`` resets the worker, says "ready", then judges "run" messages until
"exit" or end of input: per submission the program contract decides how it runs
(``contract.prepare``), each input runs as a test (spawned, watched, classified), and
after the submission everything of the program uid is killed and wiped and the
runner verifies that nothing is left (``reset``).  If that check fails it says so in
"done" and exits, and the host throws the worker away.

``--serve`` alone and the process backend run programs under the runner's own uid:
there the runner kills with kill(-1), and in the process backend it is PID 1 of its
namespace, which its programs cannot signal.
"""

import base64
import os
import signal
import subprocess
import sys
import time

from . import child, native
from .contract import SOURCE_LIMIT_BYTES, prepare
from .forkserver import CHILD, ExecTest, ForkedTest, ForkServer, memfd
from .limits import Cgroup, classify, cpu_backstop, limits_of, self_cpu, signal_name, submission_wall
from .privileges import become_runner, enter_process_sandbox, set_non_dumpable
from .scratch import leftovers, program_processes, reap, wipe_scratch
from .watch import watch
from .wire import HostInput, emit

STDERR_TAIL_BYTES = 2048


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
            reap()
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
    def run_test(self, job, index, prepared, program_fd, spawn, limits, keep):
        """Judge input ``index`` of ``job`` under ``limits`` keeping at most ``keep`` bytes of
        its stdout: spawn, watch, classify; the "test" message body (None when the host
        stopped the submission during the test)."""
        stdin = memfd(job["inputs"][index].encode("utf-8"), "stdin")
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status_r, status_w = os.pipe()
        setup_r, setup_w = os.pipe()
        for fd in (status_r, setup_r):
            os.set_blocking(fd, False)
        before = (self.cgroup.cpu_seconds(), self_cpu(), self.cgroup.oom_kills())
        start = time.monotonic()
        try:
            if spawn == "fork":
                test = self.spawn_fork((stdin, out_w, err_w, status_w, setup_w), limits)
            elif spawn == "binary":  # a compiled C++ program: no status pipe, no interpreter
                test = native.spawn_binary(self, (stdin, out_w, err_w), program_fd, limits)
            else:
                test = self.spawn_exec((stdin, out_w, err_w, status_w), prepared.entry, program_fd, limits)
        finally:
            for fd in (stdin, out_w, err_w, status_w, setup_w):
                os.close(fd)
        try:
            if test is None:
                return {"status": "infra", "detail": "could not start the test process"}
            seen = watch(test, (out_r, err_r), limits, before, start, self, job.get("id"), keep)
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
        return self.test_message(seen, status_text or None, limits)

    def test_message(self, seen, exception, limits):
        """The "test" message body for what the watcher saw (a Watched) and the program's
        uncaught exception (a class name, or None): the verdict and its measurements."""
        status = seen.wait_status
        oom_lost = seen.oom_kills is not None and seen.oom_kills > 0
        if status is None and not oom_lost and seen.stopped_at is None:
            return {"status": "infra", "detail": "the fork server was lost during the test"}
        if status is None:
            status = signal.SIGKILL  # lost with it: killed (by the watcher or the OOM killer)
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        verdict, detail = classify(
            exit_code=exit_code, signal_number=sig, exception=exception, stopped_at=seen.stopped_at,
            cpu_seconds=seen.cpu_seconds, cpu_limit=limits.cpu_seconds, oom_kills=seen.oom_kills,
            peak_memory=seen.peak_memory, memory_limit=self.cgroup.memory_limit, wall_limit=limits.wall_seconds)
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
            "output_cut": seen.stdout_cut,
        }

    # ---- one submission
    def run_tests(self, job, prepared, program_fd, spawn, ready=None):
        """Run every input of ``job`` and emit its "test" message, stopping early when the
        host asks or (stop_at_first_failure) at the first status that is not "ok".
        ``ready()`` (optional) says why no test can start now (then that test is INFRA).

        The submission's budgets bind across its tests: all of them together get
        ``submission_wall`` seconds of wall time (a test gets what is left, if less than its
        own backstop; once none is left the rest are "tle" without running) and send back
        at most ``output_cap_bytes`` of stdout (a test's stdout past what is left is cut)."""
        jid, limits = job.get("id"), limits_of(job)
        budget = submission_wall(job)
        deadline = time.monotonic() + budget
        output_left = int(job.get("output_cap_bytes", limits.stdout_bytes * len(job["inputs"])))
        for i in range(len(job["inputs"])):
            if self.host.stop_requested(jid):
                return
            trouble = ready() if ready else None
            left = deadline - time.monotonic()
            if trouble:
                result = {"status": "infra", "detail": trouble}
            elif left <= 0:
                result = budget_spent(budget)
            else:
                squeezed = left < limits.wall_seconds - 0.05  # the submission's budget binds, not the test's
                test_limits = limits._replace(wall_seconds=left) if squeezed else limits
                result = self.run_test(job, i, prepared, program_fd, spawn, test_limits, output_left)
                if squeezed and result and "wall time" in (result.get("detail") or ""):
                    result["detail"] += f" (what was left of the submission's {budget:g} s)"
            if result is None:
                return
            sent = result.get("stdout_b64", "")
            output_left -= len(sent) // 4 * 3 - sent[-2:].count("=")
            result.update(kind="test", id=jid, index=i)
            emit(result)
            if job.get("stop_at_first_failure") and result["status"] != "ok":
                return

    def run_native(self, job, header):
        """Judge a C++ "run" message: compile (native.compile_source), then run the binary
        on every input; a compile that fails is the header's compile error."""
        binary_fd, error, cpu = native.compile_source(self, job, job["source"].encode("utf-8", "surrogateescape"))
        if binary_fd is None:  # no error: the host stopped it while compiling
            return header(error, compile_seconds=cpu) if error else None
        try:
            header(None, native.COMPILED, "binary", compile_seconds=cpu)
            self.run_tests(job, native.COMPILED, binary_fd, "binary")
        finally:
            os.close(binary_fd)

    def run_job(self, job):
        """Judge one "run" message: the header, then a test message per input run."""
        jid = job.get("id")

        def header(compile_error, prepared=None, spawn=None, **extra):
            emit({"kind": "header", "id": jid, "entry": prepared and prepared.entry,
                  "entry_rule": prepared and prepared.rule, "calls_solve": bool(prepared and prepared.calls_solve),
                  "spawn": spawn, "compile_error": compile_error, **extra})

        source = job["source"]
        if len(source.encode("utf-8", "surrogatepass")) > SOURCE_LIMIT_BYTES:
            return header(f"source over {SOURCE_LIMIT_BYTES} bytes")
        if job.get("language", "python") == "cpp":
            return self.run_native(job, header)
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
        program_fd = memfd(program, "solution.py") if spawn == "exec" else None

        def server_ready():
            if spawn == "fork" and any(self.ready_server(stack_bytes, program, prepared.entry)):
                return "the fork server could not be restarted"
            return None

        try:
            self.run_tests(job, prepared, program_fd, spawn, server_ready)
        finally:
            if program_fd is not None:
                os.close(program_fd)

    def serve(self):
        """Reset, say "ready", then judge run messages until "exit" or end of input."""
        problem = self.reset()
        emit({"kind": "ready", "uid": os.getuid(), "program_uid": self.uid, "pid": os.getpid(),
              "clean": problem is None, "problem": problem, "spawn": list(self.spawn_modes),
              "cpu_cgroup": bool(self.cgroup.cpu_path or self.cgroup.cpu_v2),
              "oom_counter": self.cgroup.oom_kills() is not None, "write_guard": child.write_guard_available()})
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


def budget_spent(budget):
    """The "test" message body of a test not run: the submission's wall budget is spent."""
    return {"status": "tle", "detail": f"not run: the submission's wall time budget of {budget:g} s was spent",
            "exit_code": None, "signal": None, "exception": None, "cpu_seconds": 0.0, "wall_seconds": 0.0,
            "max_rss_kb": 0, "peak_cgroup_kb": None, "stdout_b64": "", "stderr_tail": "", "output_cut": False}


def _read_some(fd):
    try:
        return os.read(fd, 600).decode("utf-8", "replace").strip()
    except (BlockingIOError, OSError):
        return ""


def serve(program_uid=None, runner_uid=None, process=False, tmpfs_mb=64):
    """Set up this runner's identity, then serve (see Judge.serve); returns the exit status."""
    if process:
        enter_process_sandbox(tmpfs_mb)
    if runner_uid is not None:
        try:
            become_runner(runner_uid)
        except OSError as exc:
            emit({"kind": "ready", "clean": False, "problem": f"cannot separate uids: {exc}"})
            return 3
    set_non_dumpable()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        return Judge(program_uid, process).serve()
    finally:
        reap()


def main(argv):
    """``--serve`` [``--uids RUNNER:PROGRAM`` | ``--process TMPFS_MB``]."""
    if argv == ["--serve"]:
        return serve()
    if len(argv) == 3 and argv[:2] == ["--serve", "--uids"]:
        runner_uid, _, program_uid = argv[2].partition(":")
        return serve(program_uid=int(program_uid), runner_uid=int(runner_uid))
    if len(argv) == 3 and argv[:2] == ["--serve", "--process"]:
        return serve(process=True, tmpfs_mb=int(argv[2]))
    sys.stderr.write("usage: python3 -m runner --serve [--uids RUNNER:PROGRAM | --process TMPFS_MB]\n")
    return 2

