"""Budgets that bind (issue 57): a test's and a submission's wall time tied to their CPU
limits, the compile step's too, and one output cap per submission.

The first tests check the numbers with no container (the host's ``protocol`` and the
runner's ``limits`` must agree); the rest run the real sandbox: a sleeper is stopped at
its wall budget with "wall time" in its detail, a child process's CPU time counts, a
compile blocked at no CPU cost ends at once as CE, and 256 tests printing 4 MiB each come
back cut at OUTPUT_CAP_BYTES in all, said so, without the host holding more than that.
"""

import json
import subprocess
import sys
import time

import pytest

from neocoder.judge import protocol, verdicts
from neocoder.judge.docker_sandbox import DockerSandbox
from neocoder.judge.protocol import OUTPUT_CAP_BYTES, Limits
from neocoder.judge.verdicts import AC, CE, OLE, TLE, WA, SubmissionResult
from neocoder.sandbox_recipe.runner import limits as runner_limits
from neocoder.sandbox_recipe.runner import native
from neocoder.sandbox_recipe.runner.watch import Watched

MiB = 1 << 20

@pytest.fixture(scope="module")
def box():
    """One Docker sandbox for the file's tests: a new one right after another's close can
    race with the engine removing the old one's containers (issue 57's first item)."""
    with DockerSandbox(concurrency=1) as sandbox:
        yield sandbox



# ---------------------------------------------------------------- the numbers
def test_host_and_runner_agree_on_the_wall_budgets():
    assert protocol.WALL_FACTOR == runner_limits.WALL_FACTOR
    assert protocol.WALL_EXTRA_SECONDS == runner_limits.WALL_EXTRA_SECONDS
    assert protocol.SUBMISSION_WALL_EXTRA_SECONDS == runner_limits.SUBMISSION_WALL_EXTRA_SECONDS


def test_a_test_gets_twice_its_cpu_limit_plus_a_second_of_wall_time():
    assert Limits.for_cpu(2.0).wall_seconds == 5.0 and Limits().wall_seconds == 5.0
    assert Limits.for_cpu(30.0).test_wall_seconds == 61.0
    # more wall time asked for than the cap: the cap; less: what was asked
    assert Limits(cpu_seconds=1.0, wall_seconds=100.0).test_wall_seconds == 3.0
    assert Limits(cpu_seconds=1.0, wall_seconds=2.0).test_wall_seconds == 2.0
    job = protocol.run_message("print(1)", ["\n"], Limits(cpu_seconds=1.0, wall_seconds=100.0))
    assert job["wall_seconds"] == 3.0
    job["wall_seconds"] = 100.0  # a host that asks for more anyway: the runner takes its cap
    assert runner_limits.limits_of(job).wall_seconds == 3.0
    job["wall_seconds"] = 2.0
    assert runner_limits.limits_of(job).wall_seconds == 2.0


def test_a_submission_gets_twice_its_tests_cpu_limits_plus_five_seconds():
    at_the_caps = Limits.for_cpu(30.0)
    assert at_the_caps.submission_wall_seconds(256) == 2 * 30 * 256 + 5  # 4.27 h, not 21.7 h
    assert at_the_caps.submission_wall_seconds(1) == 61.0  # one test: its own backstop
    small = Limits.for_cpu(0.1)  # 256 x 1.2 s of backstops, but 2 x 25.6 s + 5 s in all
    assert small.submission_wall_seconds(256) == pytest.approx(56.2)
    job = protocol.run_message("print(1)", ["\n"] * 256, small)
    assert job["submission_wall_seconds"] == pytest.approx(56.2)
    assert runner_limits.submission_wall(job) == pytest.approx(56.2)
    job["submission_wall_seconds"] = 10_000.0  # more than the cap: the runner takes its cap
    assert runner_limits.submission_wall(job) == pytest.approx(56.2)
    del job["submission_wall_seconds"]
    assert runner_limits.submission_wall(job) == pytest.approx(56.2)


def test_the_host_waits_for_the_budget_and_a_little_more_never_for_ever():
    limits = Limits.for_cpu(30.0)
    budget = limits.submission_wall_seconds(256)
    assert limits.reply_seconds(256) == budget + 256 * protocol.TEST_OVERHEAD_SECONDS + 30
    assert limits.reply_seconds(256, "cpp") == limits.reply_seconds(256) + protocol.COMPILE_REPLY_SECONDS
    assert limits.reply_seconds(256) < 5 * 3600  # was 256 x (305 + 5) + 30 s: 22 h


def test_the_compile_step_wall_is_tied_to_its_cpu_limit():
    compile_limits = native.COMPILE_LIMITS
    assert compile_limits.wall_seconds == runner_limits.wall_cap(compile_limits.cpu_seconds) == 31.0
    assert compile_limits.idle_seconds == 3.0
    assert protocol.COMPILE_REPLY_SECONDS >= compile_limits.wall_seconds


def _watched(**seen):
    values = dict(wait_status=None, usage=(0.0, 0.0, 0), stopped_at=None, cpu_seconds=0.0, wall_seconds=3.0,
                  peak_memory=0, oom_kills=0, stdout=b"", stderr=b"")
    values.update(seen)
    return Watched(**values)


def test_a_compile_failure_names_what_was_refused_or_that_it_was_blocked():
    refused = _watched(wait_status=1 << 8, stderr=b"neocoder-refused: /dev/stdout\n<stdin>:1: fatal error\n")
    assert native.compile_failure(refused).startswith("refused at compile: /dev/stdout (paths under /dev and /proc")
    blocked = _watched(stopped_at="idle", wait_status=9)
    assert "used no CPU time for 3 s" in native.compile_failure(blocked)
    # a refusal the compile got over (__has_include is false) is no failure
    assert native.compile_failure(_watched(wait_status=0, stderr=b"neocoder-refused: /dev/null2\n")) is None


# ---------------------------------------------------------------- output_cut, host side
def _row(stdout, cut, status="ok"):
    import base64
    return {"kind": "test", "index": 0, "status": status, "detail": None, "cpu_seconds": 0.1,
            "wall_seconds": 0.1, "max_rss_kb": 1, "peak_cgroup_kb": None,
            "stdout_b64": base64.b64encode(stdout).decode(), "stderr_tail": "", "output_cut": cut}


def test_a_cut_output_is_never_checked_and_says_so():
    test = {"input": "", "output": "3\n"}
    cut = protocol.verdict_of(_row(b"3\n", True), test, keep_output=True)
    assert cut.verdict == OLE and cut.output_cut and "cap of 16 MiB in all" in cut.detail
    assert cut.stdout == "3\n" and cut.stdout_sha256 is None
    whole = protocol.verdict_of(_row(b"3\n", False), test)
    assert whole.verdict == AC and not whole.output_cut
    assert protocol.verdict_of(_row(b"", True, "tle"), test).verdict == TLE  # a verdict of its own stays
    result = SubmissionResult(tests=[whole, cut])
    assert result.output_cut and not SubmissionResult(tests=[whole]).output_cut
    assert "output_cut" not in whole.to_dict() and cut.to_dict()["output_cut"] is True
    assert verdicts.TestVerdict(AC).output_cut is False


# ---------------------------------------------------------------- on the real engine
@pytest.mark.docker
def test_a_sleeper_is_stopped_at_its_wall_budget_and_told_so(box):
    sleeper = "import time\ntime.sleep(3600)\n"
    start = time.monotonic()
    one = box.run(sleeper, [{"input": "", "output": ""}], Limits.for_cpu(1.0))
    single = time.monotonic() - start
    # 40 tests of 0.1 s: 40 x 1.2 s of backstops, but 2 x 4 s + 5 s = 13 s in all
    start = time.monotonic()
    many = box.run(sleeper, [{"input": "", "output": ""}] * 40, Limits.for_cpu(0.1))
    spent = time.monotonic() - start
    assert one.verdicts == [TLE] and "wall time limit of 3 s" in one.tests[0].detail and single < 3 + 3
    assert many.verdicts == [TLE] * 40 and spent < 13 + 5, spent
    assert "wall time" in many.tests[0].detail
    assert any("not run: the submission's wall time budget of 13 s was spent" in (t.detail or "")
               for t in many.tests)


@pytest.mark.docker
def test_cpu_time_of_a_child_process_counts(box):
    """A child burns 3 s of CPU while the main process only waits: TLE at a 1 s limit (a
    count of the main process alone would say AC)."""
    child_burns = ("import os, time\npid = os.fork()\nif pid == 0:\n    t = time.process_time()\n"
                   "    while time.process_time() - t < 3:\n        pass\n    os._exit(0)\nos.waitpid(pid, 0)\n"
                   "print('ok')\n")
    c_child_burns = ("#include <bits/stdc++.h>\n#include <unistd.h>\n#include <sys/wait.h>\nint main() {\n"
                     " if (fork() == 0) {\n"
                     "  clock_t t = clock(); while (clock() - t < 3 * CLOCKS_PER_SEC) {} _exit(0); }\n"
                     " wait(nullptr); puts(\"ok\"); }\n")
    limits = Limits(cpu_seconds=1.0, wall_seconds=10.0)  # wall 3 s: CPU, not the wall, must stop it
    test = [{"input": "", "output": "ok\n"}]
    python = box.run(child_burns, test, limits, entry="script")
    cpp = box.run(c_child_burns, test, limits, language="cpp")
    fine = box.run(child_burns.replace("< 3", "< 0.2"), test, limits, entry="script")
    for result in (python, cpp):
        # stopped at its CPU limit; on a machine so loaded that the wall (3 s) came first, the
        # child's CPU time is still counted (the main process alone used a few ms)
        test = result.tests[0]
        assert result.verdicts == [TLE] and (test.detail is None or test.cpu_seconds > 0.1), test
    assert fine.verdicts == [AC] and fine.tests[0].cpu_seconds >= 0.2


@pytest.mark.docker
def test_a_compile_blocked_at_no_cpu_ends_at_once_as_ce_naming_the_path(box):
    test = [{"input": "", "output": ""}]
    start = time.monotonic()
    stdout = box.run('#include "/dev/stdout"\nint main() {}\n', test, Limits.for_cpu(1.0), language="cpp")
    spent = time.monotonic() - start
    hidden = box.run('#define F(x) #x\n#define G(x) F(x)\n#include G(../../dev/stderr)\nint main() {}\n', test,
                     Limits.for_cpu(1.0), language="cpp")
    probed = box.run('#if __has_include("/dev/stdout")\n#error seen\n#endif\n#include <cstdio>\n'
                     'int main() { puts("ok"); }\n', [{"input": "", "output": "ok\n"}], Limits.for_cpu(1.0),
                     language="cpp")
    assert stdout.verdicts == [CE] and "refused at compile: /dev/stdout" in stdout.compile_error and spent < 5
    assert hidden.verdicts == [CE] and "refused at compile: ../../dev/stderr" in hidden.compile_error
    assert probed.verdicts == [AC]  # the guard refuses as if absent: __has_include is false


_MEASURE = r'''
import json, resource, sys, time
from neocoder.judge.docker_sandbox import DockerSandbox
from neocoder.judge.protocol import Limits
program = "import sys\nsys.stdout.buffer.write(b'x' * (4 << 20))\n"
n = int(sys.argv[1])
with DockerSandbox(concurrency=1) as box:
    box.run("print(1)", [{"input": "", "output": "1\n"}], Limits.for_cpu(1.0))  # a warm worker
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    result = box.run(program, [{"input": "", "output": ""}] * n, Limits.for_cpu(2.0), keep_output=True)
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"growth_kb": after - before, "seconds": seconds, "verdicts": result.verdicts,
                  "kept": sum(len(t.stdout or "") for t in result.tests), "cut": result.output_cut,
                  "cut_tests": sum(t.output_cut for t in result.tests), "detail": result.tests[-1].detail}))
'''


@pytest.mark.docker
def test_256_tests_of_4_mib_each_come_back_cut_at_the_cap_and_the_host_holds_no_more():
    """The host process's peak memory grows by at most about 100 MB judging 256 tests that
    each print 4 MiB (1 GiB in all): 16 MiB come back, the rest is cut and said so."""
    measured = subprocess.run([sys.executable, "-c", _MEASURE, "256"], capture_output=True, text=True,
                              timeout=900, check=True)
    seen = json.loads(measured.stdout.strip().splitlines()[-1])
    assert seen["kept"] == OUTPUT_CAP_BYTES and seen["cut"] is True
    assert seen["verdicts"][:4] == [WA] * 4 and set(seen["verdicts"][4:]) == {OLE}  # "x" * 4 MiB is not ""
    assert seen["cut_tests"] == 252 and "cap of 16 MiB in all" in seen["detail"]
    assert seen["growth_kb"] < 100 * 1024, seen
