"""Both sandbox backends: the real Docker engine and image, and the process backend.

The same tests run against each; the process backend is weaker (docs/sandbox.md)
but must give the same verdicts on these programs.
"""

import json

import pytest
from click.testing import CliRunner

from neocoder.cli import main
from neocoder.judge import Limits

pytestmark = pytest.mark.docker
BOTH_BACKENDS = pytest.mark.parametrize("sandbox", ["docker", "process"], indirect=True, scope="module")

TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]
FAST = Limits(cpu_seconds=1, wall_seconds=15, memory_mb=128)

CORRECT = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"


def run(sandbox, source, tests=TESTS, limits=FAST):
    return sandbox.run(source, tests, limits)


@BOTH_BACKENDS
def test_correct_program_is_accepted(sandbox):
    result = run(sandbox, CORRECT)
    assert result.verdicts == ["AC", "AC"] and result.accepted and result.entry == "solve"
    assert all(0 < t.cpu_seconds < 1 for t in result.tests)


@BOTH_BACKENDS
def test_wrong_answer(sandbox):
    result = run(sandbox, "def solve():\n    a, b = map(int, input().split())\n    print(a - b)\n")
    assert result.verdicts == ["WA", "WA"] and not result.accepted


@BOTH_BACKENDS
def test_infinite_loop_is_tle(sandbox):
    result = run(sandbox, "def solve():\n    while True:\n        pass\n", tests=TESTS[:1])
    assert result.verdicts == ["TLE"]
    assert result.tests[0].cpu_seconds >= 0.9


@BOTH_BACKENDS
def test_memory_hog_is_mle(sandbox):
    hog = "def solve():\n    x = []\n    while True:\n        x.append(bytearray(10**7))\n"
    result = run(sandbox, hog, tests=TESTS[:1])
    assert result.verdicts == ["MLE"]


@BOTH_BACKENDS
def test_crash_is_re_with_exception_name(sandbox):
    result = run(sandbox, "def solve():\n    print([][1])\n", tests=TESTS[:1])
    assert result.verdicts == ["RE"] and result.tests[0].detail == "IndexError"


@BOTH_BACKENDS
def test_program_that_does_not_parse_is_a_compile_time_re(sandbox):
    result = run(sandbox, "def solve():\n    print(1\n")
    assert result.verdicts == ["RE", "RE"] and result.entry is None
    assert result.compile_error.startswith("SyntaxError")


@BOTH_BACKENDS
def test_solve_runs_exactly_once_even_when_the_program_calls_it(sandbox):
    program = (
        "import sys\n"
        "def solve():\n    a, b = map(int, sys.stdin.read().split())\n    print(a + b)\n"
        "def main():\n    solve()\n"
        "def test_solve():\n    solve()\n    assert False, 'the harness must not run'\n"
        "solve()\n"
        "test_solve()\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    result = run(sandbox, program)
    assert result.verdicts == ["AC", "AC"]
    assert result.tests[0].stdout_head == "3\n"


@BOTH_BACKENDS
def test_a_script_without_solve_runs_as_is(sandbox):
    result = run(sandbox, "a, b = map(int, input().split())\nprint(a + b)\n")
    assert result.verdicts == ["AC", "AC"] and result.entry == "script"


@BOTH_BACKENDS
def test_output_flood_is_ole(sandbox):
    result = run(sandbox, "def solve():\n    while True:\n        print('x' * 100000)\n", tests=TESTS[:1],
                 limits=Limits(cpu_seconds=2, wall_seconds=6, memory_mb=128, stdout_bytes=1 << 20))
    assert result.verdicts == ["OLE"]


@BOTH_BACKENDS
def test_binary_and_crlf_output_never_crash_the_judge(sandbox):
    crlf = "import sys\ndef solve():\n    sys.stdout.buffer.write(b'3\\r\\n')\n"
    binary = "import sys\ndef solve():\n    sys.stdout.buffer.write(b'\\xff\\x00\\xfe 3\\n')\n"
    assert run(sandbox, crlf, tests=TESTS[:1]).verdicts == ["AC"]
    assert run(sandbox, binary, tests=TESTS[:1]).verdicts == ["WA"]


@BOTH_BACKENDS
def test_no_network_read_only_root_and_no_host_environment(sandbox, monkeypatch):
    probe = (
        "import os, socket\n"
        "def solve():\n"
        "    input()\n"
        "    try:\n        socket.create_connection(('192.0.2.1', 53), timeout=2); net = 'net'\n"
        "    except OSError:\n        net = 'nonet'\n"
        "    try:\n        open('/etc/x', 'w'); ro = 'rw'\n"
        "    except OSError:\n        ro = 'ro'\n"
        "    caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]\n"
        "    print(net, ro, int(caps, 16) == 0, 'SECRET_TOKEN' in os.environ)\n"
    )
    monkeypatch.setenv("SECRET_TOKEN", "x")
    result = run(sandbox, probe, tests=[{"input": "0\n", "output": "nonet ro True False\n"}])
    assert result.verdicts == ["AC"], result.tests[0].stdout_head


@BOTH_BACKENDS
def test_full_standard_library_imports(sandbox):
    program = ("import fractions, decimal, json, heapq, bisect, collections, itertools, math, re\n"
               "from unittest.mock import patch\n" + CORRECT)
    assert run(sandbox, program).verdicts == ["AC", "AC"]


@pytest.mark.parametrize("backend", ["docker", "process"])
def test_cli_sandbox_run_prints_json(tmp_path, backend):
    prog = tmp_path / "p.py"
    prog.write_text(CORRECT)
    tests = tmp_path / "t.jsonl"
    tests.write_text("\n".join(json.dumps(t) for t in TESTS) + "\n")
    out = CliRunner().invoke(main, ["sandbox", "run", str(prog), "--tests", str(tests), "--json", "--sandbox", backend])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [t["verdict"] for t in data["tests"]] == ["AC", "AC"]


def test_cli_sandbox_run_names_a_bad_tests_line(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text(CORRECT)
    tests = tmp_path / "t.jsonl"
    tests.write_text('{"input": "1 2\\n", "output": "3\\n"}\n{"input": 5}\n')
    out = CliRunner().invoke(main, ["sandbox", "run", str(prog), "--tests", str(tests)])
    assert out.exit_code != 0 and "line 2" in out.output


# ---------------------------------------------------------------- fail fast (issue 14, item 5)
@BOTH_BACKENDS
def test_stop_at_first_failure_skips_every_later_test(sandbox):
    tests = [TESTS[0], {"input": "1 1\n", "output": "3\n"}, TESTS[1], TESTS[0]]
    result = sandbox.run(CORRECT, tests, FAST, stop_at_first_failure=True)
    assert result.verdicts == ["AC", "WA", "SKIPPED", "SKIPPED"]
    assert result.skipped == 2 and not result.accepted and not result.infra_failure
    judged_all = sandbox.run(CORRECT, tests, FAST)  # the default judges every test
    assert judged_all.verdicts == ["AC", "WA", "AC", "AC"] and judged_all.skipped == 0


@BOTH_BACKENDS
def test_stop_at_first_failure_does_not_wait_for_later_tests(sandbox):
    """A WA stops the run at once (the host says "stop"); a TLE stops it in the runner."""
    import time
    slow_after_first = ("import time\ndef solve():\n    n = int(input())\n    if n == 1:\n        print(0)\n"
                        "    else:\n        time.sleep(60)\n")
    tests = [{"input": "1\n", "output": "1\n"}] + [{"input": "2\n", "output": "2\n"}] * 3
    start = time.monotonic()
    result = sandbox.run(slow_after_first, tests, Limits(cpu_seconds=1, wall_seconds=20, memory_mb=128),
                         stop_at_first_failure=True)
    assert result.verdicts == ["WA", "SKIPPED", "SKIPPED", "SKIPPED"]
    assert time.monotonic() - start < 10
    result = sandbox.run("def solve():\n    while True:\n        pass\n", TESTS * 3,
                         Limits(cpu_seconds=0.5, wall_seconds=5, memory_mb=128), stop_at_first_failure=True)
    assert result.verdicts == ["TLE"] + ["SKIPPED"] * 5


@BOTH_BACKENDS
def test_a_compile_error_with_stop_at_first_failure_is_re_then_skipped(sandbox):
    result = sandbox.run("def solve(:\n", TESTS, FAST, stop_at_first_failure=True)
    assert result.verdicts == ["RE", "SKIPPED"] and result.compile_error


# ---------------------------------------------------------------- size limits (issue 14, item 3)
@BOTH_BACKENDS
def test_an_oversized_program_is_a_compile_time_re_with_its_size(sandbox):
    import time
    start = time.monotonic()
    result = sandbox.run("x = 1\n" * (3 << 20), TESTS, FAST)
    assert time.monotonic() - start < 5
    assert result.verdicts == ["RE", "RE"] and result.entry is None
    assert result.compile_error == "source is 18.0 MB, limit 64 KB"
    assert result.tests[0].detail == "compile error: source is 18.0 MB, limit 64 KB"


@BOTH_BACKENDS
def test_an_oversized_input_is_a_compile_time_re_with_its_size(sandbox):
    from neocoder.judge.protocol import INPUT_LIMIT_BYTES
    assert INPUT_LIMIT_BYTES == 4 << 20
    result = sandbox.run(CORRECT, [TESTS[0], {"input": "1 " * (3 << 20), "output": "3"}], FAST)
    assert result.verdicts == ["RE", "RE"]
    assert result.compile_error == "test 2 input is 6.0 MB, limit 4.0 MB"


def test_a_program_just_under_the_limit_runs():
    from neocoder.judge.protocol import SOURCE_LIMIT_BYTES, size_problem
    program = CORRECT + "#" * (SOURCE_LIMIT_BYTES - len(CORRECT))
    assert size_problem(program, ["1 2\n"]) is None
    assert size_problem(program + "#", ["1 2\n"]) == "source is 65537 bytes, limit 64 KB"


# ---------------------------------------------------------------- out of the program's reach
def test_the_program_runs_under_a_uid_that_cannot_signal_the_judge():
    from neocoder.judge import DockerSandbox
    probe = ("import os\ndef solve():\n    parent = os.getppid()\n"
             "    uid = [l.split()[1] for l in open(f'/proc/{parent}/status') if l.startswith('Uid:')][0]\n"
             "    try:\n        os.kill(parent, 0)\n        reach = 'reached'\n"
             "    except PermissionError:\n        reach = 'denied'\n"
             "    caps = [int(l.split()[1], 16) for l in open('/proc/self/status')\n"
             "            if l.split(':')[0] in ('CapInh', 'CapPrm', 'CapEff', 'CapAmb')]\n"
             "    print(os.getuid() != int(uid), reach, caps)\n")
    for spawn in ("fork", "exec"):
        with DockerSandbox(concurrency=1, spawn=spawn) as box:
            result = box.run(probe, [{"input": "", "output": "True denied [0, 0, 0, 0]"}], FAST)
            assert result.verdicts == ["AC"], (spawn, result.tests[0].stdout_head)


def test_fork_and_exec_paths_give_the_same_results():
    """The fork server's children behave as a fresh interpreter per test would."""
    from neocoder.judge import DockerSandbox
    programs = [
        CORRECT,
        "def solve():\n    print(int(input().split()[0]) // 0)\n",
        "import sys\ndef solve():\n    sys.exit('bad')\n",
        "import os\ndef solve():\n    print(3, end='')\n    os._exit(0)\n",  # unflushed output is lost in both
        "import threading\ndef late():\n    print(3)\ndef solve():\n    threading.Timer(0.2, late).start()\n",
        "import atexit\ndef solve():\n    atexit.register(print, 3)\n",
        "def solve():\n"
        "    print(' '.join(sorted({'b', 'a'})), list({'x', 'y', 'z', 'w'}) == list({'x', 'y', 'z', 'w'}))\n",
        "import sys\ndef solve():\n    print(__name__, __file__, sys.argv, repr(sys.stdin.read()))\n",
        "import pickle\nclass P:\n    pass\ndef solve():\n    print(type(pickle.loads(pickle.dumps(P()))).__name__)\n",
        "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n"
        "def solve():\n    print(f(50000))\n",
        "import sys\ndef solve():\n"
        "    print(sys.stdin.encoding, sys.stdin.errors, sys.stdout.errors, sys.flags.hash_randomization,"
        " hash('neocoder'))\n",
        "import multiprocessing as mp\ndef sq(x):\n    return x * x\ndef solve():\n    with mp.Pool(2) as p:\n"
        "        print(sum(p.map(sq, range(10))))\n",
    ]
    tests = [{"input": "1 2\r\n", "output": "3\n"}, {"input": "\xe9 2\n", "output": "3\n"}]
    seen = {}
    for spawn in ("fork", "exec"):
        with DockerSandbox(concurrency=1, spawn=spawn) as box:
            seen[spawn] = [[(t.verdict, t.detail, t.stdout_head) for t in box.run(p, tests, FAST).tests]
                           for p in programs]
    for program, fork, exec_ in zip(programs, seen["fork"], seen["exec"]):
        assert fork == exec_, program


# ---------------------------------------------------------------- any install location (issue 14, item 4)
def test_process_backend_runs_from_a_private_folder_under_tmp(tmp_path):
    """A checkout under /tmp is hidden by the runner's private /tmp, and a home folder of
    mode 700 is closed to uid 65534: the runner runs from a copy either way."""
    import shutil

    from neocoder.judge import ProcessSandbox
    from neocoder.resources import sandbox_dir
    home = tmp_path / "home"
    recipe = home / "checkout" / "sandbox"
    shutil.copytree(sandbox_dir(), recipe, ignore=shutil.ignore_patterns("__pycache__"))
    home.chmod(0o700)
    with ProcessSandbox(concurrency=1, recipe_dir=recipe) as box:
        assert box.unavailable is None, box.unavailable
        assert not str(box.runner).startswith(("/tmp", str(home)))
        result = box.run(CORRECT, TESTS, FAST)
    assert result.verdicts == ["AC", "AC"], [t.detail for t in result.tests]


# sleeps until what the test does to its worker ends the run (well inside the 25 s wall limit)
SLEEPER = "import time\ndef solve():\n    time.sleep(20)\n    print(1)\n"


def _while_a_program_sleeps(box, do_to_worker):
    """Judge SLEEPER on ``box`` while, 1.5 s in, ``do_to_worker(worker)`` runs on the worker
    it uses (the Docker container, or the process worker: this test's own, nobody
    else's); then check that a new worker takes over.  Returns the SubmissionResult.

    No timing luck is needed: the sleeper outlasts a slow action by far, and an action
    that lands before the program starts loses the runner all the same (same verdict)."""
    import threading
    import time
    limits = Limits.for_cpu(2.0)
    assert box.run(CORRECT, TESTS, limits).accepted  # starts the worker the sleeper reuses
    (worker,) = box._workers

    def soon():
        time.sleep(1.5)
        do_to_worker(worker)
    threading.Thread(target=soon, daemon=True).start()
    result = box.run(SLEEPER, [{"input": "", "output": "1"}], limits)
    assert box.run(CORRECT, TESTS, limits).accepted  # a new worker takes over
    return result


def test_a_container_killed_from_outside_is_infra_not_a_verdict_against_the_program():
    """`docker kill` of the worker while a program runs: the runner's socket closes before
    the engine marks the container exited; the verdict must still be INFRA (the
    infrastructure failed), not RE."""
    from neocoder.judge import DockerSandbox
    with DockerSandbox(concurrency=1) as box:
        result = _while_a_program_sleeps(box, lambda worker: worker.container.kill())
    assert result.verdicts == ["INFRA"], [(t.verdict, t.detail) for t in result.tests]


# Run inside the worker as root: signal the runner (its command line has "runner --serve").
_SIGNAL_RUNNER = ("import os, signal, sys\n"
                  "for p in filter(str.isdigit, os.listdir('/proc')):\n"
                  "    if b'runner\\x00--serve' in open(f'/proc/{p}/cmdline', 'rb').read():\n"
                  "        os.kill(int(p), int(sys.argv[1]))\n")


@pytest.mark.parametrize("signal_name, verdict, said", [
    ("SIGINT", "INFRA", ["the sandbox runner crashed", "KeyboardInterrupt", "exit code"]),
    ("SIGKILL", "RE", ["killed or stalled the sandbox runner", "exit code 137"]),
])
def test_how_a_lost_runner_ended_decides_infra_or_re_and_is_in_the_detail(signal_name, verdict, said):
    """The runner dies while a program sleeps, its container intact.  With a Python
    traceback on the runner's own stderr (SIGINT: KeyboardInterrupt) the sandbox failed
    (INFRA: no verdict against the program); killed outright it is the RE the program is
    charged with.  Either way the detail says how the runner ended."""
    import signal

    from neocoder.judge import DockerSandbox
    number = str(int(getattr(signal, signal_name)))
    with DockerSandbox(concurrency=1) as box:
        result = _while_a_program_sleeps(
            box, lambda worker: worker.container.exec_run(["python3", "-c", _SIGNAL_RUNNER, number], user="0:0"))
    detail = result.tests[0].detail or ""
    assert result.verdicts == [verdict], detail
    assert all(s in detail for s in said), detail


def test_a_process_worker_whose_runner_died_says_how_in_its_infra_detail():
    """The process backend's runner is its namespace's PID 1: when it dies the worker is
    gone (INFRA), and the detail carries the exit status and the runner's last stderr line."""
    import os
    import signal

    from neocoder.judge import ProcessSandbox

    def parent(pid):
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])

    def interrupt_runner(worker):  # the runner under this worker only
        for p in map(int, filter(str.isdigit, os.listdir("/proc"))):
            try:
                ancestor = p
                while ancestor > 1 and ancestor != worker.proc.pid:
                    ancestor = parent(ancestor)
                if ancestor == worker.proc.pid and b"runner\x00--serve" in open(f"/proc/{p}/cmdline", "rb").read():
                    os.kill(p, signal.SIGINT)
            except OSError:
                pass
    # A runner inherits SIGINT ignored from a shell's background job (nohup ... &), and
    # Python then raises no KeyboardInterrupt: with a handler here, exec resets it to default.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ProcessSandbox(concurrency=1) as box:
            result = _while_a_program_sleeps(box, interrupt_runner)
    finally:
        signal.signal(signal.SIGINT, previous)
    detail = result.tests[0].detail or ""
    assert result.verdicts == ["INFRA"] and "worker died" in detail, detail
    assert "exit code" in detail and "KeyboardInterrupt" in detail, detail
