"""The sandbox watcher and its limits worked by hand (issue 57: the survivors of the mutation
set "watch"), in this process like tests/judge/test_budgets_watch.py, whose helpers it uses.

Real programs under ``watch``: a host that closes its input, stderr kept to its cap + 1 byte
over several reads, the process backend's real ``Cgroup(enabled=False)``, counters unreadable
before the spawn, an OOM counter that moves during the test, a grandchild that escapes the
kill and holds stdout open, a test forked by the real fork server (and that server stalled),
a test process reached only as ``kill_program``'s ``also``.  The boundaries of the limits are
checked on a ``_Watch`` of a real sleeping program with ``now`` given, and the pure parts of
limits.py (counter files, ``limits_of``, ``cpu_backstop``, ``classify``) on plain values.
"""

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time

from test_budgets_watch import BUSY, SLEEP, Runner, SessionCgroup, _mortal, limits

from neocoder.sandbox_recipe.runner import limits as runner_limits
from neocoder.sandbox_recipe.runner.forkserver import ExecTest, ForkedTest, ForkServer
from neocoder.sandbox_recipe.runner.limits import classify
from neocoder.sandbox_recipe.runner.watch import EXIT_GRACE_SECONDS, _Watch, watch
from neocoder.sandbox_recipe.runner.wire import HostInput

# drained(fd): wait until the watcher has read everything written to the pipe ``fd``
DRAINED = ("import fcntl, os, struct, termios, time\n"
           "def drained(fd):\n"
           "    while struct.unpack('i', fcntl.ioctl(fd, termios.FIONREAD, b'0000'))[0]:\n"
           "        time.sleep(0.01)\n")
BURN = ("import os, time\nend = time.process_time() + 0.3\nfd = os.open(os.devnull, os.O_WRONLY)\n"
        "while time.process_time() < end:\n    os.write(fd, b'x')\nprint('done')\n")  # user and system time


class BecomingRunner(Runner):
    """The Judge while the test process is still becoming the program's uid: ``kill_program``
    reaches the test process only as ``also`` (the program has no other process here)."""

    def kill_program(self, also=None):
        self.kills += 1
        if also is not None:
            try:
                os.kill(also, signal.SIGKILL)
            except OSError:
                pass


class CounterOomCgroup(SessionCgroup):
    """The session's CPU and memory, and an ``oom_kill`` counter read from a real file."""

    def __init__(self, sid, path):
        super().__init__(sid)
        self.counter = runner_limits.CounterFile(path)

    def oom_kills(self):
        return self.counter.number("oom_kill")


def _spawn(code):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                            start_new_session=True, preexec_fn=_mortal)
    os.close(out_w)
    os.close(err_w)
    return proc, out_r, err_r


def _reap(proc, fds):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait(timeout=30)
    for fd in fds:
        os.close(fd)


def run(code, lim, runner_class=Runner, cgroup=None, before=None, host=None):
    """Start ``code`` in a session of its own and watch it: ``cgroup`` (default: the
    session's) and ``before`` (default: read now) as given; ``host(write_end)`` runs in a
    thread while the test runs.  Returns the Watched."""
    host_r, host_w = os.pipe()
    start = time.monotonic()
    proc, out_r, err_r = _spawn(code)
    runner = runner_class(proc.pid, HostInput(host_r))
    runner.cgroup = cgroup(proc.pid) if cgroup else runner.cgroup
    if host is not None:
        threading.Thread(target=host, args=(host_w,), daemon=True).start()
    if before is None:
        before = (runner.cgroup.cpu_seconds(), runner_limits.self_cpu(), runner.cgroup.oom_kills())
    try:
        return watch(ExecTest(proc), (out_r, err_r), lim, before, start, runner, "job")
    finally:
        _reap(proc, (out_r, err_r, host_r))
        try:
            os.close(host_w)
        except OSError:
            pass


# ---------------------------------------------------------------- the host, the pipes
def test_a_host_that_closes_its_input_stops_the_test_and_the_watch_still_ends():
    def hang_up(host_w):
        time.sleep(0.3)
        os.close(host_w)
    seen = run(SLEEP, limits(wall=20.0), host=hang_up)
    assert seen.stopped_at == "host" and os.WTERMSIG(seen.wait_status) == signal.SIGKILL
    assert seen.wall_seconds < 10.0


def test_stderr_read_in_several_pieces_is_kept_to_its_cap_plus_one_byte():
    # each piece is written once the watcher has read the one before (the pipe is empty)
    pieces = DRAINED + "for size in SIZES:\n    os.write(2, b'e' * size)\n    drained(2)\n"
    exactly_then_more = run(pieces.replace("SIZES", "(1000, 1000)"), limits(stderr=1000))
    assert exactly_then_more.stderr == b"e" * 1001
    half_then_more = run(pieces.replace("SIZES", "(500, 1000, 1000)"), limits(stderr=1000))
    assert half_then_more.stderr == b"e" * 1001
    under = run(pieces.replace("SIZES", "(300, 300)"), limits(stderr=1000))
    assert under.stderr == b"e" * 600


def test_a_grandchild_that_escapes_the_kill_is_read_until_it_closes_stdout():
    # the grandchild has a session of its own (the stand-in's kill does not reach it) and
    # writes after the test has ended: what it writes before the wall + grace is kept
    escapes = ("import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(2.5)\n"
               "    os.write(1, b'late\\n')\n    os._exit(0)\nos.write(1, b'early\\n')\n")
    seen = run(escapes, limits(wall=8.0))
    assert seen.stopped_at is None and os.WEXITSTATUS(seen.wait_status) == 0
    assert seen.stdout == b"early\nlate\n"


# ---------------------------------------------------------------- what is measured
def test_cpu_time_of_a_child_the_test_never_waits_for_is_the_cgroup_s_not_the_rusage_s():
    # the test process sleeps (so its rusage, which counts only children it reaped, stays
    # near 0) while its child burns: the cgroup's CPU time stops it and is what is reported
    burns = "import os, time\nif os.fork() == 0:\n    while True:\n        pass\ntime.sleep(60)\n"
    seen = run(burns, limits(cpu=0.5, wall=20.0))
    assert seen.stopped_at == "cpu" and 0.5 <= seen.cpu_seconds < 2.0 and seen.usage[0] + seen.usage[1] < 0.3


def test_the_process_backend_reports_the_test_s_rusage_and_no_memory_or_oom_count():
    seen = run(BURN, limits(cpu=0.5), cgroup=lambda sid: runner_limits.Cgroup(enabled=False))
    # no cgroup: the CPU limit is RLIMIT_CPU's (not the watcher's), the CPU time the rusage's
    assert seen.stopped_at is None and seen.stdout == b"done\n" and os.WEXITSTATUS(seen.wait_status) == 0
    assert seen.usage[0] > 0 and seen.usage[1] > 0 and seen.cpu_seconds == seen.usage[0] + seen.usage[1]
    assert seen.peak_memory == 0 and seen.oom_kills is None


def test_an_unreadable_cpu_counter_reports_the_rusage():
    seen = run(BURN, limits(cpu=5.0), cgroup=lambda sid: SessionCgroup(sid, cpu=False))
    assert seen.stopped_at is None and seen.usage[0] > 0 and seen.usage[1] > 0
    assert seen.cpu_seconds == seen.usage[0] + seen.usage[1] and seen.peak_memory > 0 and seen.oom_kills == 0


def test_counters_unreadable_before_the_spawn_measure_nothing_of_the_test():
    # the cgroup reads well during the test, but nothing to subtract was read before it
    seen = run(BUSY, limits(cpu=0.2, wall=2.0), before=(None, runner_limits.self_cpu(), None))
    assert seen.stopped_at == "wall" and seen.oom_kills is None
    assert seen.cpu_seconds == seen.usage[0] + seen.usage[1] and seen.cpu_seconds > 0


def test_oom_kills_are_those_counted_during_the_test(tmp_path):
    events = tmp_path / "memory.events"
    events.write_text("oom 2\noom_kill 2\n")
    # counted once the watcher runs (it has read "ready"), so after the count before the test
    bump = (DRAINED + "os.write(1, b'ready')\ndrained(1)\n"
            + f"with open({str(events)!r}, 'r+') as f:\n    f.write('oom 3\\noom_kill 3\\n')\n")
    seen = run(bump, limits(), cgroup=lambda sid: CounterOomCgroup(sid, str(events)))
    assert seen.stopped_at is None and seen.oom_kills == 1
    assert run("pass", limits(), cgroup=lambda sid: CounterOomCgroup(sid, str(events))).oom_kills == 0


def test_a_test_process_reached_only_as_also_is_stopped_at_its_cpu_limit():
    seen = run(BUSY, limits(cpu=0.5, wall=20.0), runner_class=BecomingRunner)
    assert seen.stopped_at == "cpu" and seen.wait_status is not None
    assert os.WTERMSIG(seen.wait_status) == signal.SIGKILL


# ---------------------------------------------------------------- a test forked by the fork server
def _forked(server, code):
    """Spawn ``code`` as a test of the real fork server; (ForkedTest, stdout, stderr read ends)."""
    assert server.load(code.encode(), "script") == (None, None)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    status_r, status_w = os.pipe()
    setup_r, setup_w = os.pipe()
    stdin = os.open(os.devnull, os.O_RDONLY)
    cpu_before = server.cpu
    request = {"op": "spawn", "uid": None, "cpu_backstop": 20, "stack_bytes": 64 << 20}
    reply = server.request(request, [stdin, out_w, err_w, status_w, setup_w], timeout=30)
    for fd in (stdin, out_w, err_w, status_w, setup_w, status_r, setup_r):
        os.close(fd)
    return ForkedTest(server, reply["pid"], cpu_before), out_r, err_r


def _watch_forked(code, lim, stall=False):
    server = ForkServer(None, 64 << 20)
    host_r, host_w = os.pipe()
    fds = (host_r, host_w)
    try:
        test, out_r, err_r = _forked(server, code)
        fds += (out_r, err_r)
        runner = Runner(test.pid, HostInput(host_r))
        if stall:  # the server can no longer report the test's end
            os.kill(server.proc.pid, signal.SIGSTOP)
        before = (runner.cgroup.cpu_seconds(), runner_limits.self_cpu(), 0)
        return watch(test, (out_r, err_r), lim, before, time.monotonic(), runner, "job")
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
        server.close()
        for fd in fds:
            os.close(fd)


def test_a_test_forked_by_the_fork_server_is_watched_to_its_end():
    seen = _watch_forked("print('forked')\n", limits())
    assert seen.stopped_at is None and seen.wait_status == 0 and seen.stdout == b"forked\n"


def test_a_stalled_fork_server_leaves_the_test_lost_after_the_wall_and_its_grace():
    seen = _watch_forked(SLEEP, limits(wall=1.0), stall=True)
    assert seen.stopped_at == "wall" and seen.wait_status is None and seen.usage == (0.0, 0.0, 0)
    assert seen.wall_seconds >= 1.0 + EXIT_GRACE_SECONDS


# ---------------------------------------------------------------- the limits' boundaries
def _sleeping_watch(lim, start=1024.0):
    """A _Watch of a real sleeping program, its start put at ``start`` (a float exact enough
    that ``start + limit - start == limit``)."""
    proc, out_r, err_r = _spawn(SLEEP)
    host_r, host_w = os.pipe()
    runner = Runner(proc.pid, HostInput(host_r))
    state = _Watch(ExecTest(proc), (out_r, err_r), lim, (0.0, 0.0, 0), start, runner)
    return state, lambda: (state.sel.close(), _reap(proc, (out_r, err_r, host_r, host_w)))


def test_each_limit_stops_the_test_at_exactly_its_value():
    at_cpu, done = _sleeping_watch(limits(cpu=0.5))
    try:
        at_cpu.cpu_used = 0.5
        at_cpu.enforce(at_cpu.start)
        assert at_cpu.stopped_at == "cpu"
    finally:
        done()
    under, done = _sleeping_watch(limits(cpu=0.5, wall=10.0))
    try:
        under.cpu_used = 0.4999
        under.enforce(under.start + 9.999)
        assert under.stopped_at is None
        under.enforce(under.start + 10.0)
        assert under.stopped_at == "wall" and under.ended is None
        under.enforce(under.start + 10.0 + EXIT_GRACE_SECONDS)
        assert under.ended == "lost"
    finally:
        done()


def test_idle_is_exactly_idle_seconds_without_idle_cpu_seconds_of_progress():
    idle = runner_limits.IDLE_CPU_SECONDS
    busy, done = _sleeping_watch(limits(idle=0.5))
    try:
        busy.cpu_used = idle  # exactly the progress that counts
        assert not busy.idle(busy.start + 0.5) and busy.progress == (busy.start + 0.5, idle)
    finally:
        done()
    still, done = _sleeping_watch(limits(idle=0.5))
    try:
        still.cpu_used = idle / 2
        assert not still.idle(still.start + 0.25) and still.idle(still.start + 0.5)
    finally:
        done()


def test_a_pipe_held_open_is_read_until_grace_seconds_after_the_wall():
    held, done = _sleeping_watch(limits(wall=10.0))
    try:
        held.ended, held.end_time = (0, (0.0, 0.0, 0)), held.start + 1.0  # ended; its pipes still open
        assert not held.finished(held.start + 10.0 + EXIT_GRACE_SECONDS)
        assert held.finished(held.start + 10.0 + EXIT_GRACE_SECONDS + 0.001)
    finally:
        done()


# ---------------------------------------------------------------- limits.py by hand
def test_counter_files_are_closed_on_exec_and_read_as_ascii_or_not_at_all(tmp_path):
    path = tmp_path / "counter"
    path.write_text("12\n")
    counter = runner_limits.CounterFile(str(path))
    assert counter.number() == 12 and fcntl.fcntl(counter.fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    path.write_bytes(b"\xff12\n")  # not ASCII: not a number, and no crash
    assert counter.text() == "\ufffd12\n" and counter.number() is None


def test_a_disabled_cgroup_reads_no_counter_even_where_one_is_readable(tmp_path, monkeypatch):
    usage, pids = tmp_path / "usage", tmp_path / "pids"
    usage.write_text("2500000000\n")
    pids.write_text("7\n")
    monkeypatch.setattr(runner_limits, "CGROUP_CPU", (str(usage),))
    monkeypatch.setattr(runner_limits, "CGROUP_PIDS", str(pids))
    on = runner_limits.Cgroup()
    assert on.cpu_seconds() == 2.5 and on.processes() == 7
    off = runner_limits.Cgroup(enabled=False)
    assert off.cpu_path is None and off.cpu_seconds() is None and off.processes() is None
    usage.write_text("not a number\n")
    assert runner_limits.Cgroup().cpu_seconds() is None


def test_the_limits_a_run_message_may_leave_out_have_their_defaults():
    job = {"cpu_seconds": 1.0, "wall_seconds": 2.0, "stdout_bytes": 10, "stderr_bytes": 20}
    assert runner_limits.limits_of(job) == runner_limits.Limits(1.0, 2.0, 10, 20, 256 << 20, 256 << 20, 64)
    given = dict(job, stack_bytes=1 << 20, memory_bytes=2 << 20, pids=3)
    assert runner_limits.limits_of(given)[4:7] == (1 << 20, 2 << 20, 3)


def test_the_cpu_backstop_is_at_least_one_second():
    assert [runner_limits.cpu_backstop(limits(cpu=c)) for c in (0.0, 0.001, 1.0, 1.5)] == [1, 2, 2, 3]


def test_a_stopped_test_that_exited_0_near_the_memory_limit_is_mle():
    near = dict(exception=None, oom_kills=0, peak_memory=300 << 20, memory_limit=304 << 20)
    assert classify(exit_code=0, signal_number=None, stopped_at="cpu", cpu_seconds=1.0, cpu_limit=1.0,
                    **near) == ("mle", None)
    assert classify(exit_code=0, signal_number=None, stopped_at=None, cpu_seconds=0.1, cpu_limit=1.0,
                    **near) == ("ok", None)


def test_a_wall_stop_without_a_known_wall_limit_says_so_without_a_number():
    status, detail = classify(exit_code=None, signal_number=signal.SIGKILL, exception=None, stopped_at="wall",
                              cpu_seconds=0.02, cpu_limit=1.0, oom_kills=0, peak_memory=0, memory_limit=None)
    assert (status, detail) == ("tle", "stopped at its wall time limit after 0.02 s of CPU time")
