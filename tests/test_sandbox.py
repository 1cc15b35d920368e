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


@pytest.fixture(scope="module", params=["docker", "process"])
def sandbox(request):
    from neocoder.judge import make_sandbox
    box = make_sandbox(request.param, concurrency=2)
    if box.unavailable:
        pytest.fail(f"{request.param} sandbox unavailable: {box.unavailable}")
    yield box
    box.close()

TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]
FAST = Limits(cpu_seconds=1, wall_seconds=15, memory_mb=128)

CORRECT = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"


def run(sandbox, source, tests=TESTS, limits=FAST):
    return sandbox.run(source, tests, limits)


def test_correct_program_is_accepted(sandbox):
    result = run(sandbox, CORRECT)
    assert result.verdicts == ["AC", "AC"] and result.accepted and result.entry == "solve"
    assert all(0 < t.cpu_seconds < 1 for t in result.tests)


def test_wrong_answer(sandbox):
    result = run(sandbox, "def solve():\n    a, b = map(int, input().split())\n    print(a - b)\n")
    assert result.verdicts == ["WA", "WA"] and not result.accepted


def test_infinite_loop_is_tle(sandbox):
    result = run(sandbox, "def solve():\n    while True:\n        pass\n", tests=TESTS[:1])
    assert result.verdicts == ["TLE"]
    assert result.tests[0].cpu_seconds >= 0.9


def test_memory_hog_is_mle(sandbox):
    hog = "def solve():\n    x = []\n    while True:\n        x.append(bytearray(10**7))\n"
    result = run(sandbox, hog, tests=TESTS[:1])
    assert result.verdicts == ["MLE"]


def test_crash_is_re_with_exception_name(sandbox):
    result = run(sandbox, "def solve():\n    print([][1])\n", tests=TESTS[:1])
    assert result.verdicts == ["RE"] and result.tests[0].detail == "IndexError"


def test_program_that_does_not_parse_is_a_compile_time_re(sandbox):
    result = run(sandbox, "def solve():\n    print(1\n")
    assert result.verdicts == ["RE", "RE"] and result.entry is None
    assert result.compile_error.startswith("SyntaxError")


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


def test_a_script_without_solve_runs_as_is(sandbox):
    result = run(sandbox, "a, b = map(int, input().split())\nprint(a + b)\n")
    assert result.verdicts == ["AC", "AC"] and result.entry == "script"


def test_output_flood_is_ole(sandbox):
    result = run(sandbox, "def solve():\n    while True:\n        print('x' * 100000)\n", tests=TESTS[:1],
                 limits=Limits(cpu_seconds=2, wall_seconds=6, memory_mb=128, stdout_bytes=1 << 20))
    assert result.verdicts == ["OLE"]


def test_binary_and_crlf_output_never_crash_the_judge(sandbox):
    crlf = "import sys\ndef solve():\n    sys.stdout.buffer.write(b'3\\r\\n')\n"
    binary = "import sys\ndef solve():\n    sys.stdout.buffer.write(b'\\xff\\x00\\xfe 3\\n')\n"
    assert run(sandbox, crlf, tests=TESTS[:1]).verdicts == ["AC"]
    assert run(sandbox, binary, tests=TESTS[:1]).verdicts == ["WA"]


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
