"""The sandbox watcher in this process (sandbox/runner/watch.py, limits.py), for the
mutation set "watch" (scripts/mutation.sh): mutmut sees only code that runs in the test's
own process, and the runner in a container is not that.

Each test runs a real program (a fresh ``python3 -c``, in a session of its own) under
``watch`` with a stand-in for the container's cgroup: CPU time of the program's whole
session plus this process's own (the container's counts the runner too, which the watcher
subtracts), memory as the session's resident set.  What is checked is what the sandbox
promises: CPU time of the whole process tree stops a test, the wall backstop stops a
sleeper, stdout past its cap is OLE, the submission's output cap cuts what is kept and
says so, stderr is kept to its cap, a blocked compile (``idle_seconds``) is stopped, a
"stop" from the host ends the test at once.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time

from neocoder.sandbox_recipe.runner import limits as runner_limits
from neocoder.sandbox_recipe.runner.forkserver import ExecTest
from neocoder.sandbox_recipe.runner.limits import Limits, classify
from neocoder.sandbox_recipe.runner.watch import watch
from neocoder.sandbox_recipe.runner.wire import HostInput

TICK = os.sysconf("SC_CLK_TCK")
BUSY = "while True:\n    pass\n"
SLEEP = "import time\ntime.sleep(60)\n"


def limits(cpu=5.0, wall=10.0, stdout=1 << 20, stderr=1 << 10, idle=None):
    """Runner limits for one watched program (seconds, bytes)."""
    return Limits(cpu, wall, stdout, stderr, 64 << 20, 256 << 20, 64, idle)


class SessionCgroup:
    """The container's cgroup, as far as the watcher reads it, for one program's session."""

    cpu_path, cpu_v2 = "session", None

    def __init__(self, sid, cpu=True):
        self.sid, self.cpu = sid, cpu

    def _stats(self):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == self.sid:  # the session id
                yield fields

    def cpu_seconds(self):
        if not self.cpu:
            return None
        own = resource.getrusage(resource.RUSAGE_SELF)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        live = sum(int(f[11]) + int(f[12]) for f in self._stats()) / TICK
        return live + own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime

    def memory_usage(self):
        return sum(int(f[21]) for f in self._stats()) * os.sysconf("SC_PAGE_SIZE")

    def oom_kills(self):
        return 0


class Runner:
    """What ``watch`` uses of the runner's Judge: its host input, cgroup and kill_program."""

    def __init__(self, pid, host, cpu=True):
        self.pid, self.host, self.cgroup, self.kills = pid, host, SessionCgroup(pid, cpu), 0

    def kill_program(self, also=None):
        self.kills += 1
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass


def _mortal():
    """A watched program dies by itself after 20 s of CPU time or its parent's end: a mutant
    that never returns from ``watch`` (mutmut then kills the test) leaves no busy orphan."""
    resource.setrlimit(resource.RLIMIT_CPU, (20, 20))
    import ctypes
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def run(code, lim, keep=None, cpu=True, stop_after=None):
    """Start ``code`` in a session of its own and watch it; returns the Watched."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    host_r, host_w = os.pipe()
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                            start_new_session=True, preexec_fn=_mortal)
    os.close(out_w)
    os.close(err_w)
    runner = Runner(proc.pid, HostInput(host_r), cpu)
    if stop_after is not None:
        def stop():
            time.sleep(stop_after)
            os.write(host_w, json.dumps({"op": "stop", "id": "job"}).encode() + b"\n")
        threading.Thread(target=stop, daemon=True).start()
    before = (runner.cgroup.cpu_seconds(), runner_limits.self_cpu(), runner.cgroup.oom_kills())
    try:
        return watch(ExecTest(proc), (out_r, err_r), lim, before, start, runner, "job", keep)
    finally:
        runner.kill_program()
        # reaped here whatever ``watch`` did: under mutmut these tests first run in its main
        # process, whose os.wait() takes any child left behind for one of its workers
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for fd in (out_r, err_r, host_r, host_w):
            os.close(fd)


def test_a_busy_program_is_stopped_at_its_cpu_limit():
    seen = run(BUSY, limits(cpu=0.5, wall=20.0))
    assert seen.stopped_at == "cpu" and 0.5 <= seen.cpu_seconds < 2.0
    assert os.WIFSIGNALED(seen.wait_status) and os.WTERMSIG(seen.wait_status) == signal.SIGKILL
    assert seen.wall_seconds < 20.0 and seen.peak_memory > 0


def test_cpu_time_of_a_child_process_counts():
    burns = ("import os, time\npid = os.fork()\nif pid == 0:\n" + "    while True:\n        pass\n"
             + "os.waitpid(pid, 0)\n")
    seen = run(burns, limits(cpu=0.5, wall=20.0))
    # the main process only waits: counted alone, it would run into the wall (20 s) instead
    assert seen.stopped_at == "cpu" and 0.5 <= seen.cpu_seconds < 2.0 and seen.wall_seconds < 10.0


def test_a_sleeper_is_stopped_at_the_wall_and_classified_as_wall_time():
    seen = run(SLEEP, limits(cpu=5.0, wall=1.0))
    assert seen.stopped_at == "wall" and 1.0 <= seen.wall_seconds < 5.0 and seen.cpu_seconds < 0.5
    status, detail = classify(exit_code=None, signal_number=signal.SIGKILL, exception=None, stopped_at="wall",
                              cpu_seconds=seen.cpu_seconds, cpu_limit=5.0, oom_kills=0, peak_memory=0,
                              memory_limit=None, wall_limit=1.0)
    assert status == "tle" and "wall time limit of 1 s" in detail


def test_a_program_that_ends_well_is_not_stopped_and_its_status_is_kept():
    seen = run("import sys\nprint('hi')\nsys.stderr.write('e' * 5000)\nsys.exit(3)\n", limits(stderr=1000))
    assert seen.stopped_at is None and os.WEXITSTATUS(seen.wait_status) == 3
    assert seen.stdout == b"hi\n" and not seen.stdout_cut
    assert seen.stderr == b"e" * 1001  # kept to its cap + 1 byte
    assert seen.usage[2] > 0 and 0 < seen.cpu_seconds < 2.0


def test_stdout_past_its_cap_stops_the_program():
    seen = run("import sys\nwhile True:\n    sys.stdout.write('x' * 4096)\n", limits(stdout=100_000))
    assert seen.stopped_at == "stdout" and len(seen.stdout) == 100_000 and not seen.stdout_cut


def test_exactly_the_cap_is_not_past_it():
    seen = run("import sys\nsys.stdout.write('x' * 100_000)\n", limits(stdout=100_000))
    assert seen.stopped_at is None and len(seen.stdout) == 100_000


def test_the_output_left_of_the_submission_cuts_what_is_kept_and_says_so():
    five = "import sys\nsys.stdout.write('y' * 5000)\n"
    cut = run(five, limits(stdout=100_000), keep=3000)
    assert cut.stopped_at is None and cut.stdout == b"y" * 3000 and cut.stdout_cut
    none_left = run(five, limits(stdout=100_000), keep=0)
    assert none_left.stdout == b"" and none_left.stdout_cut
    enough = run(five, limits(stdout=100_000), keep=5000)
    assert enough.stdout == b"y" * 5000 and not enough.stdout_cut
    # past the test's own cap it is OLE, whatever is left of the submission's
    flood = run("import sys\nsys.stdout.write('z' * 200_000)\n", limits(stdout=100_000), keep=10)
    assert flood.stopped_at == "stdout" and flood.stdout == b"z" * 10 and not flood.stdout_cut


def test_a_tree_that_uses_no_cpu_is_stopped_when_idle_seconds_is_set():
    idle = run(SLEEP, limits(wall=20.0, idle=0.5))
    assert idle.stopped_at == "idle" and 0.5 <= idle.wall_seconds < 5.0
    busy = run(BUSY, limits(cpu=1.0, wall=20.0, idle=0.5))
    assert busy.stopped_at == "cpu"
    # without the cgroup's CPU time there is no measure of progress: the wall decides
    blind = run(SLEEP, limits(wall=1.0, idle=0.3), cpu=False)
    assert blind.stopped_at == "wall"


def test_a_stop_from_the_host_ends_the_test_at_once():
    seen = run(SLEEP, limits(wall=20.0), stop_after=0.3)
    assert seen.stopped_at == "host" and seen.wall_seconds < 5.0


def test_the_wall_cap_and_the_submission_budget():
    assert runner_limits.wall_cap(2.0) == 5.0 and runner_limits.wall_cap(0.0) == 1.0
    job = {"inputs": ["", ""], "cpu_seconds": 2.0, "wall_seconds": 100.0, "stdout_bytes": 10, "stderr_bytes": 10}
    assert runner_limits.limits_of(job).wall_seconds == 5.0 and runner_limits.submission_wall(job) == 13.0
    assert runner_limits.submission_wall(dict(job, submission_wall_seconds=7.0)) == 7.0
    assert runner_limits.cpu_backstop(runner_limits.limits_of(job)) == 3


def test_the_counters_read_the_kernel_s_files_and_say_none_where_there_are_none(tmp_path, monkeypatch):
    """CounterFile and Cgroup, on files laid out as cgroup v1 and v2 write them."""
    usage, stat, events, current, limit = (tmp_path / n for n in ("usage", "cpu.stat", "events", "current", "max"))
    usage.write_text("2500000000\n")
    stat.write_text("usage_usec 1500000\nuser_usec 1000000\n")
    events.write_text("low 0\noom 1\noom_kill 2\n")
    current.write_text("1048576\n")
    limit.write_text("268435456\n")
    monkeypatch.setattr(runner_limits, "CGROUP_CPU", (str(tmp_path / "absent"), str(usage)))
    monkeypatch.setattr(runner_limits, "CGROUP_OOM", (str(events),))
    monkeypatch.setattr(runner_limits, "CGROUP_MEM_USAGE", (str(current),))
    monkeypatch.setattr(runner_limits, "CGROUP_MEM_LIMIT", (str(limit),))
    v1 = runner_limits.Cgroup()
    assert v1.cpu_seconds() == 2.5 and v1.oom_kills() == 2 and v1.memory_usage() == 1 << 20
    assert v1.memory_limit == 256 << 20
    monkeypatch.setattr(runner_limits, "CGROUP_CPU", (str(tmp_path / "absent"),))
    monkeypatch.setattr(runner_limits, "CGROUP_CPU_V2", str(stat))
    v2 = runner_limits.Cgroup()
    assert v2.cpu_path is None and v2.cpu_seconds() == 1.5
    off = runner_limits.Cgroup(enabled=False)
    assert (off.cpu_seconds(), off.oom_kills(), off.memory_usage(), off.processes(), off.memory_limit) == (None,) * 5
    assert runner_limits.CounterFile(str(tmp_path / "absent")).number() is None
    assert runner_limits.CounterFile(str(events)).number("missing") is None
    current.write_text("not a number\n")
    assert runner_limits.CounterFile(str(current)).number() is None
