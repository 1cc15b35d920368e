"""The program contract: how a program is entered, judged as written (issue 13, item 3).

``prepare`` in the runner package (sandbox/runner/contract.py) decides, from the program's top level alone, whether
the runner calls ``solve()`` once per test or runs the program as written, and which
rule applied.  The first tests check the rules with no sandbox; the last ones judge
each contract case in the real sandbox, on both backends, with its verdict.
"""

import json
from collections import Counter

import pytest

from neocoder.benchmarks.neocoder.program import extract_code
from neocoder.judge import Limits
from neocoder.sandbox_recipe.runner import contract as runner

SOLVE = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"
PER_CASE = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"  # one test case per call
MULTI = "2\n1 2\n40 2\n"


def rule(source):
    prepared = runner.prepare(source)
    return prepared.entry, prepared.rule, prepared.calls_solve


BOTH_BACKENDS = pytest.mark.parametrize("sandbox", ["docker", "process"], indirect=True, scope="module")


# ---------------------------------------------------------------- the rules, no sandbox
def test_no_call_of_solve_the_runner_calls_it():
    assert rule(SOLVE) == ("solve", "runner_calls_solve", False)
    assert runner.prepare(SOLVE).program == SOLVE  # not rewritten


def test_a_bare_call_a_main_guard_and_a_driver_loop_run_as_written():
    for tail in ("solve()\n", "if __name__ == '__main__':\n    solve()\n",
                 "for _ in range(int(input())):\n    solve()\n",
                 "def main():\n    t = int(input())\n    for _ in range(t):\n        solve()\nmain()\n"):
        prepared = runner.prepare(PER_CASE + tail)
        assert (prepared.entry, prepared.rule, prepared.calls_solve) == ("script", "program_calls_solve", True), tail
        assert prepared.program == PER_CASE + tail


def test_a_call_through_another_name_runs_as_written():
    for tail in ("run = solve\nrun()\n", "import threading\nthreading.Thread(target=solve).start()\n",
                 "class App:\n    def go(self):\n        solve()\nApp().go()\n",
                 "print(*map(lambda _: solve(), [0]))\n"):
        assert rule(PER_CASE + tail) == ("script", "program_calls_solve", True), tail


def test_a_test_harness_is_removed_and_the_runner_calls_solve():
    harnesses = [
        "if __name__ == '__main__':\n    import io, sys\n    sys.stdin = io.StringIO('1 2\\n')\n    solve()\n",
        "from unittest.mock import patch\nwith patch('builtins.input', side_effect=['1 2']):\n    solve()\n",
        "def test_solve():\n    solve()\n    assert True\ntest_solve()\n",
        "import sys\nsys.stdin = iter(['1 2'])\nsolve()\n",
        "import unittest\nclass T(unittest.TestCase):\n    def test(self):\n        solve()\n"
        "if __name__ == '__main__':\n    unittest.main()\n",
    ]
    for tail in harnesses:
        prepared = runner.prepare(SOLVE + tail)
        assert (prepared.entry, prepared.rule) == ("solve", "harness_removed"), tail
        assert "solve()" not in prepared.program.replace("def solve()", ""), prepared.program
        assert "unittest" not in prepared.program and "patch" not in prepared.program


def test_a_harness_spread_over_top_level_statements_is_removed_whole():
    # 1730A's pattern: stdin patched with sample data, then bare calls
    program = SOLVE + "import sys, io\ntest_input = '1 2'\nsys.stdin = io.StringIO(test_input)\nsolve()\n"
    prepared = runner.prepare(program)
    assert (prepared.rule, prepared.calls_solve) == ("harness_removed", True)
    assert "StringIO" not in prepared.program and "test_input = '1 2'" in prepared.program


def test_fast_input_idioms_are_not_harnesses():
    for head in ("import sys\ninput = sys.stdin.readline\n",
                 "import io, os\ninput = io.BytesIO(os.read(0, os.fstat(0).st_size)).readline\n",
                 "import sys\ninput = lambda: sys.stdin.readline().rstrip('\\r\\n')\n"):
        assert rule(head + SOLVE) == ("solve", "runner_calls_solve", False), head
        assert rule(head + SOLVE + "solve()\n") == ("script", "program_calls_solve", True), head


def test_asserts_inside_the_solution_are_not_a_harness():
    program = "def check(x):\n    assert x > 0\n    return x\n" + SOLVE.replace("a + b", "check(a + b)") + "solve()\n"
    assert rule(program) == ("script", "program_calls_solve", True)


def test_no_zero_argument_solve_is_a_script():
    assert rule("print(1)\n") == ("script", "no_solve", False)
    assert rule("def solve(n):\n    print(n)\nsolve(int(input()))\n") == ("script", "no_solve", True)
    assert runner.prepare(SOLVE, mode="script")[:3] == ("script", "script", False)


def test_gpt4_recorded_programs_by_rule(release_dir):
    """How many of GPT-4's 1194 recorded programs each rule touches (docs/sandbox.md)."""
    release = json.loads((release_dir / "NeoCoder.json").read_text())
    rules = Counter()
    for problem in release:
        for code in problem["codes"]:
            try:
                rules[runner.prepare(extract_code(code)).rule] += 1
            except SyntaxError:
                rules["does not parse"] += 1
    assert sum(rules.values()) == 1194
    assert rules == Counter({"runner_calls_solve": 891, "does not parse": 195, "harness_removed": 72,
                             "program_calls_solve": 32, "no_solve": 4}), rules


# ---------------------------------------------------------------- judged in the sandbox


LIMITS = Limits(cpu_seconds=1, wall_seconds=10, memory_mb=128)
ONE = [{"input": "1 2\n", "output": "3\n"}]


@pytest.mark.docker
@BOTH_BACKENDS
def test_a_driver_loop_is_judged_as_written(sandbox):
    result = sandbox.run(PER_CASE + "for _ in range(int(input())):\n    solve()\n",
                         [{"input": MULTI, "output": "3\n42\n"}], LIMITS)
    assert result.verdicts == ["AC"]
    assert (result.entry, result.entry_rule, result.calls_solve) == ("script", "program_calls_solve", True)


@pytest.mark.docker
@BOTH_BACKENDS
def test_a_call_through_another_name_is_judged_as_written(sandbox):
    program = PER_CASE + "def main():\n    for _ in range(int(input())):\n        go()\ngo = solve\nmain()\n"
    result = sandbox.run(program, [{"input": MULTI, "output": "3\n42\n"}], LIMITS)
    assert result.verdicts == ["AC"] and result.entry_rule == "program_calls_solve" and result.calls_solve


@pytest.mark.docker
@BOTH_BACKENDS
def test_exit_inside_solve_is_a_normal_end(sandbox):
    for stop in ("exit()", "sys.exit(0)", "quit()", "raise SystemExit"):
        program = "import sys\n" + SOLVE + f"    {stop}\n    print('never')\n"
        result = sandbox.run(program, ONE, LIMITS)
        assert result.verdicts == ["AC"], (stop, result.tests[0].detail)
        assert result.entry_rule == "runner_calls_solve" and not result.calls_solve


@pytest.mark.docker
@BOTH_BACKENDS
def test_a_main_harness_with_asserts_is_removed(sandbox):
    program = SOLVE + (
        "if __name__ == '__main__':\n"
        "    import io, sys\n"
        "    sys.stdin = io.StringIO('5 5\\n')\n"
        "    solve()\n"
        "    assert False, 'the harness must not run'\n")
    result = sandbox.run(program, ONE + [{"input": "40 2\n", "output": "42\n"}], LIMITS)
    assert result.verdicts == ["AC", "AC"]
    assert (result.entry, result.entry_rule, result.calls_solve) == ("solve", "harness_removed", True)


@pytest.mark.docker
@BOTH_BACKENDS
def test_a_nonzero_exit_code_is_re(sandbox):
    result = sandbox.run("import sys\n" + SOLVE + "    sys.exit(3)\n", ONE, LIMITS)
    assert result.verdicts == ["RE"] and result.tests[0].detail == "exit code 3"
    result = sandbox.run("import sys\nsys.exit('bad input')\n", ONE, LIMITS)
    assert result.verdicts == ["RE"] and result.tests[0].detail == "exit code 1"
