"""C++ in the sandbox (issue 49): the host's side with no container, then the C++ corpus
and the compile step against the real Docker engine and image."""

import subprocess

import docker
import pytest

from neocoder.judge import DockerSandbox, Limits, protocol
from neocoder.judge.docker_sandbox import LABEL_RUN
from neocoder.judge.selftest import CASES, format_outcomes, run_selftest
from neocoder.judge.selftest_cpp import CPP_CASES, FIND_EXPECTED
from neocoder.judge.verdicts import CE, CPP, PYTHON, RE
from neocoder.sandbox_recipe.runner import native

ADD = "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]


# ---------------------------------------------------------------- no container
def test_a_compile_error_is_ce_for_cpp_and_stays_re_for_python():
    cpp = protocol.compile_error_result(TESTS, "boom", CPP)
    python = protocol.compile_error_result(TESTS, "boom", PYTHON)
    assert cpp.verdicts == [CE, CE] and python.verdicts == [RE, RE]
    assert cpp.tests[0].detail == python.tests[0].detail == "compile error: boom"
    assert protocol.compile_error_result(TESTS, "boom").verdicts == [RE, RE]  # the default is Python's


def test_the_run_message_names_its_language_and_refuses_an_unknown_one():
    assert protocol.run_message(ADD, ["1 2\n"], Limits(), language=CPP)["language"] == "cpp"
    assert protocol.run_message("print(1)", ["\n"], Limits())["language"] == "python"
    with pytest.raises(ValueError, match="unknown language 'rust': the sandbox judges python, cpp"):
        protocol.run_message("fn main() {}", ["\n"], Limits(), language="rust")


def test_a_cpp_reply_waits_for_the_compile_step_too():
    limits = Limits.for_cpu(1.0)
    assert limits.reply_seconds(3, CPP) == limits.reply_seconds(3) + protocol.COMPILE_REPLY_SECONDS
    assert protocol.COMPILE_REPLY_SECONDS >= native.COMPILE_LIMITS.wall_seconds + 5


def test_the_compile_flags_are_written_down_once():
    argv = native.compile_argv(include_pch=False)
    assert argv[0] == native.COMPILER and argv[1:5] == ["-O2", "-std=c++17", "-DONLINE_JUDGE", "-pipe"]
    assert argv[-5:] == ["-x", "c++", "-", "-o", native.BINARY]


def _watched(**seen):
    from neocoder.sandbox_recipe.runner.watch import Watched
    values = dict(wait_status=0, usage=(0.1, 0.0, 1000), stopped_at=None, cpu_seconds=0.3, wall_seconds=0.4,
                  peak_memory=0, oom_kills=0, stdout=b"", stderr=b"")
    values.update(seen)
    return Watched(**values)


def test_why_a_compile_failed_is_decided_from_what_was_seen():
    assert native.compile_failure(_watched()) is None
    assert native.compile_failure(_watched(wait_status=1 << 8, stderr=b"x.cpp:1: error: oops\n")) == \
        "x.cpp:1: error: oops"
    assert native.compile_failure(_watched(oom_kills=1, wait_status=9)) == "the compiler ran out of memory"
    assert "CPU time" in native.compile_failure(_watched(stopped_at="cpu", wait_status=9))
    assert "signal 25" in native.compile_failure(_watched(wait_status=25, stderr=b"File size limit exceeded"))
    long_error = b"e" * 10_000
    assert len(native.compile_failure(_watched(wait_status=1 << 8, stderr=long_error))) == native.DIAGNOSTICS_BYTES


# ---------------------------------------------------------------- the real engine
@pytest.mark.docker
def test_cpp_corpus_gives_every_expected_verdict_and_leaves_no_container(monkeypatch):
    monkeypatch.setenv("NEOCODER_SELFTEST_SECRET", "must-not-leak")
    box = DockerSandbox(concurrency=1)
    try:
        assert box.unavailable is None, box.unavailable
        outcomes = run_selftest(box, CPP_CASES)
    finally:
        box.close()
    assert all(o.passed for o in outcomes), format_outcomes(outcomes)
    assert len(outcomes) == len(CPP_CASES) >= 30
    kinds = {o.case.name: o.verdict for o in outcomes}
    assert {"TLE", "MLE", "RE", "OLE", "CE", "WA", "AC"} <= set(kinds.values())
    leaked = docker.from_env().containers.list(all=True, filters={"label": f"{LABEL_RUN}={box.run_id}"})
    assert leaked == []
    out = subprocess.run(["ps", "-eo", "uid="], capture_output=True, text=True).stdout.split()
    assert not set(map(int, out)) & set(box.uids)


@pytest.mark.docker
def test_cpp_is_judged_per_test_and_a_python_program_beside_it_is_unchanged():
    with DockerSandbox(concurrency=1) as box:
        cpp = box.run(ADD, TESTS + [{"input": "1 1\n", "output": "3\n"}], Limits.for_cpu(1.0), language=CPP)
        broken = box.run("int main( {", TESTS, Limits.for_cpu(1.0), language=CPP)
        python = box.run("a, b = map(int, input().split())\nprint(a + b)\n", TESTS, Limits.for_cpu(1.0))
        python_broken = box.run("def f(:\n", TESTS, Limits.for_cpu(1.0))
    assert cpp.verdicts == ["AC", "AC", "WA"] and cpp.entry_rule == "compiled" and cpp.entry == "script"
    assert broken.verdicts == [CE, CE] and "error" in broken.compile_error
    assert python.verdicts == ["AC", "AC"] and python.entry_rule == "no_solve"
    assert python_broken.verdicts == [RE, RE]


@pytest.mark.docker
def test_the_expected_output_case_fails_when_the_expected_output_is_readable():
    """The corpus case "reading the expected output" expects WA ("not found").  Where a copy
    of the expected output is readable (planted here by the program's own first test,
    standing in for a leak) it finds it, answers with it and gets AC: the case then fails.
    Its own binary, which holds the marker only in pieces, is no such copy."""
    marker = "expected-7f3a\n"
    with DockerSandbox(concurrency=1) as box:
        clean = box.run(FIND_EXPECTED, [{"input": "1\n", "output": marker}], Limits.for_cpu(2.0), language=CPP)
        leaked = box.run(FIND_EXPECTED, [{"input": "plant " + marker, "output": "planted\n"},
                                         {"input": "1\n", "output": marker}], Limits.for_cpu(2.0), language=CPP)
    assert clean.verdicts == ["WA"] and clean.tests[0].stdout_head == "not found\n"
    assert leaked.verdicts == ["AC", "AC"]


def test_the_python_corpus_is_the_same_list():
    """The C++ cases are a list of their own: the Python corpus keeps its cases and order."""
    assert all(c.language == PYTHON for c in CASES) and all(c.language == CPP for c in CPP_CASES)
    assert len(CASES) == 34 and not {c.name for c in CASES} & {c.name for c in CPP_CASES}
