"""The runner's verdict decision, with no container: ``classify`` in sandbox/runner/limits.py.

The runner package is copied whole into the sandbox image; the host imports it
normally, as ``neocoder.sandbox_recipe.runner``.  ``classify`` is pure: every verdict and each edge at a limit is
checked from plain values.  The last tests check that what the runner reports is
what the host side (neocoder/judge/protocol.py) sends and reads.
"""

import ast
import base64
import inspect
import signal
import sys
from pathlib import Path

import pytest

from neocoder.judge import protocol, verdicts
from neocoder.judge.verdicts import AC, INFRA, MLE, OLE, RE, SKIPPED, TLE, WA
from neocoder.sandbox_recipe import runner

RUNNER_FILES = sorted(Path(runner.__file__).parent.glob("*.py"))
MiB = 1 << 20
MEMORY_LIMIT = (256 + 48) * MiB  # the container's cgroup: the test's limit plus the runner's headroom


def classify(**observed):
    """classify() on a test that exited 0 well within every limit, except for ``observed``."""
    values = dict(exit_code=0, signal_number=None, exception=None, stopped_at=None,
                  cpu_seconds=0.05, cpu_limit=1.0, oom_kills=0, peak_memory=60 * MiB,
                  memory_limit=MEMORY_LIMIT)
    values.update(observed)
    return runner.classify(**values)


# ---------------------------------------------------------------- ok
def test_a_clean_exit_within_the_limits_is_ok_for_the_checker():
    assert classify() == ("ok", None)


def test_ok_where_no_cgroup_counter_is_readable():
    # the process backend: no OOM counter, no memory cgroup, no peak
    assert classify(oom_kills=None, memory_limit=None, peak_memory=0) == ("ok", None)


def test_a_clean_exit_near_the_memory_limit_is_still_ok():
    assert classify(peak_memory=MEMORY_LIMIT) == ("ok", None)


# ---------------------------------------------------------------- TLE
def test_stopped_at_the_cpu_limit_is_tle():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="cpu",
                    cpu_seconds=1.003) == ("tle", None)


def test_stopped_by_the_wall_backstop_is_tle_with_little_cpu():
    # a sleeping or blocked program: almost no CPU, killed by the watcher
    status, detail = classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="wall",
                              cpu_seconds=0.02, wall_limit=3.0)
    assert status == "tle" and detail == "stopped at its wall time limit of 3 s after 0.02 s of CPU time"
    # stopped at its CPU limit, the detail stays empty: "wall time" says the wall stopped it
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="cpu", cpu_seconds=1.0) == ("tle", None)


def test_rlimit_cpu_sigxcpu_is_tle():
    # the process backend's RLIMIT_CPU ends the test with SIGXCPU
    assert classify(exit_code=None, signal_number=signal.SIGXCPU, cpu_seconds=0.7) == ("tle", None)


def test_cpu_time_exactly_at_the_limit_is_tle_even_after_a_clean_exit():
    assert classify(cpu_seconds=1.0, cpu_limit=1.0) == ("tle", None)


def test_cpu_time_just_under_the_limit_is_ok():
    assert classify(cpu_seconds=0.9999, cpu_limit=1.0) == ("ok", None)


def test_a_crash_after_the_cpu_limit_is_tle_not_re():
    assert classify(exit_code=1, exception="ValueError", cpu_seconds=1.5) == ("tle", None)


# ---------------------------------------------------------------- MLE
def test_an_oom_kill_is_mle():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, oom_kills=1) == ("mle", None)


def test_an_oom_kill_of_a_child_is_mle_even_if_the_test_exited_0():
    assert classify(oom_kills=2) == ("mle", None)


def test_no_new_oom_kill_is_not_mle():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, oom_kills=0) == ("re", "SIGKILL")


def test_memory_error_is_mle():
    assert classify(exit_code=1, exception="MemoryError") == ("mle", None)


def test_oom_beats_tle():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="cpu", cpu_seconds=1.2,
                    oom_kills=1) == ("mle", None)


def test_a_failure_exactly_at_the_near_limit_margin_is_mle():
    # TLE while the kernel reclaims at the limit: memory is what was exceeded
    peak = MEMORY_LIMIT - runner.NEAR_LIMIT_BYTES
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="cpu", cpu_seconds=1.0,
                    peak_memory=peak) == ("mle", None)


def test_a_failure_one_byte_below_the_near_limit_margin_is_not_mle():
    peak = MEMORY_LIMIT - runner.NEAR_LIMIT_BYTES - 1
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="cpu", cpu_seconds=1.0,
                    peak_memory=peak) == ("tle", None)


def test_a_crash_near_the_memory_limit_is_mle():
    assert classify(exit_code=1, exception="IndexError", peak_memory=MEMORY_LIMIT - MiB) == ("mle", None)


def test_no_memory_limit_means_nothing_is_near_it():
    for unlimited in (None, runner.UNLIMITED_BYTES, 1 << 62):
        assert classify(exit_code=1, exception="IndexError", peak_memory=1 << 62,
                        memory_limit=unlimited) == ("re", "IndexError")


# ---------------------------------------------------------------- OLE
def test_stopped_past_the_stdout_cap_is_ole():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="stdout") == ("ole", None)


def test_ole_beats_oom_and_memory_and_cpu():
    assert classify(exit_code=None, signal_number=signal.SIGKILL, stopped_at="stdout", oom_kills=1,
                    peak_memory=MEMORY_LIMIT, cpu_seconds=3.0) == ("ole", None)


# ---------------------------------------------------------------- RE
def test_an_uncaught_exception_is_re_named_by_its_class():
    assert classify(exit_code=1, exception="IndexError") == ("re", "IndexError")


def test_a_signal_is_re_named_by_the_signal():
    assert classify(exit_code=None, signal_number=signal.SIGSEGV) == ("re", "SIGSEGV")


def test_the_exception_name_wins_over_the_signal():
    assert classify(exit_code=None, signal_number=signal.SIGABRT, exception="RecursionError") == \
        ("re", "RecursionError")


def test_a_non_zero_exit_without_exception_is_re_with_the_code():
    assert classify(exit_code=3) == ("re", "exit code 3")


def test_signal_names():
    assert runner.signal_name(signal.SIGKILL) == "SIGKILL"
    assert runner.signal_name(None) is None
    assert runner.signal_name(40) == "signal 40"  # real-time signals have no name: the runner must not crash


def test_classify_takes_plain_values_by_keyword_only():
    params = inspect.signature(runner.classify).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    with pytest.raises(TypeError):
        runner.classify(0, None, None, None, 0.1, 1.0, 0, 0, None)


# ---------------------------------------------------------------- the script and the wire
@pytest.mark.parametrize("path", RUNNER_FILES, ids=lambda p: p.name)
def test_runner_imports_only_the_standard_library_and_itself(path):
    """Absolute imports are standard modules; the rest are relative, within the package
    (in the image it is the top-level ``runner``, on the host a subpackage)."""
    tree = ast.parse(path.read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    assert all(node.level == 1 for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level)
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_the_image_recipe_covers_every_runner_module():
    """Every module of the package is in the image's hash: editing any of them makes the
    image stale (``check_image``) and ``neocoder sandbox build`` rebuilds it."""
    from neocoder.judge.image import recipe_files
    listed = set(recipe_files())
    assert {f"runner/{p.name}" for p in RUNNER_FILES} <= listed
    assert {"Dockerfile", ".dockerignore"} <= listed and not any("__pycache__" in n for n in listed)


def test_the_fork_server_preloads_only_the_standard_library():
    assert {m.split(".")[0] for m in runner.child.PRELOAD} <= set(sys.stdlib_module_names)


def test_the_runner_guards_the_size_limit_the_host_applies():
    assert runner.SOURCE_LIMIT_BYTES == protocol.SOURCE_LIMIT_BYTES


def test_the_runner_reads_the_limits_the_host_sends():
    limits = protocol.Limits(cpu_seconds=1.5, wall_seconds=20.0, memory_mb=128, stdout_bytes=1000,
                             stderr_bytes=200, pids=32)
    message = protocol.run_message("print(1)", ["1\n", "2\n"], limits, entry="script")
    assert message["op"] == "run" and message["inputs"] == ["1\n", "2\n"] and message["entry"] == "script"
    assert message["spawn"] == "fork" and message["stop_at_first_failure"] is False
    assert runner.cpu_backstop(runner.limits_of(message)) == 3
    # the 20 s asked for is more than a test's wall may be: 2 x 1.5 + 1 s
    assert runner.limits_of(message) == runner.Limits(
        cpu_seconds=1.5, wall_seconds=4.0, stdout_bytes=1000, stderr_bytes=200,
        stack_bytes=128 * MiB, memory_bytes=128 * MiB, pids=32)


def _row(index, status, detail, stdout=b""):
    return {"kind": "test", "id": "x", "index": index, "status": status, "detail": detail,
            "cpu_seconds": 0.1, "wall_seconds": 0.2, "max_rss_kb": 9000, "peak_cgroup_kb": None,
            "stdout_b64": base64.b64encode(stdout).decode("ascii"), "stderr_tail": ""}


def test_the_host_turns_each_classification_into_its_verdict():
    outcomes = [classify(), classify(), classify(stopped_at="cpu", cpu_seconds=1.0),
                classify(exception="MemoryError", exit_code=1), classify(stopped_at="stdout"),
                classify(exit_code=None, signal_number=signal.SIGSEGV)]
    rows = {i: _row(i, status, detail, stdout=b"3\n" if i == 0 else b"4\n")
            for i, (status, detail) in enumerate(outcomes)}
    rows[len(outcomes)] = {"kind": "test", "index": len(outcomes), "status": "infra", "detail": "no pids"}
    tests = [{"input": "1 2\n", "output": "3\n"}] * (len(outcomes) + 2)  # the last one has no row
    reply = protocol.Reply(header={"kind": "header", "entry": "solve", "compile_error": None}, rows=rows,
                           done={"kind": "done", "clean": False, "problem": "/tmp/x left"})
    result = protocol.interpret(reply, tests)
    assert result.verdicts == [AC, WA, TLE, MLE, OLE, RE, INFRA, INFRA]
    assert [t.detail for t in result.tests] == [None, None, None, None, None, "SIGSEGV", "no pids",
                                                "no result from runner"]
    assert result.entry == "solve" and result.reset_problem == "/tmp/x left" and not reply.clean
    assert result.tests[0].stdout_head == "3\n" and result.tests[0].max_rss_kb == 9000


def test_the_header_says_which_entry_rule_applied():
    reply = protocol.Reply(header={"kind": "header", "entry": "script", "entry_rule": "program_calls_solve",
                                   "calls_solve": True, "spawn": "fork", "compile_error": None},
                           rows={0: _row(0, "ok", None, b"3\n")}, done={"kind": "done", "clean": True})
    result = protocol.interpret(reply, [{"input": "1 2\n", "output": "3\n"}])
    assert (result.entry, result.entry_rule, result.calls_solve) == ("script", "program_calls_solve", True)
    assert result.to_dict()["entry_rule"] == "program_calls_solve" and result.to_dict()["skipped"] == 0


def test_after_the_first_failure_every_test_is_skipped_whatever_the_runner_sent():
    result = verdicts.SubmissionResult(tests=[verdicts.TestVerdict(v) for v in (AC, WA, AC, INFRA)])
    protocol.skip_after_first_failure(result)
    assert result.verdicts == [AC, WA, SKIPPED, SKIPPED] and result.skipped == 2 and not result.accepted
    assert result.tests[2].detail == "not run: test 2 failed first"
    accepted = verdicts.SubmissionResult(tests=[verdicts.TestVerdict(AC), verdicts.TestVerdict(AC)])
    protocol.skip_after_first_failure(accepted)
    assert accepted.accepted and accepted.skipped == 0


class _ScriptedChannel(protocol.LineChannel):
    """A runner that answers from a script and records what the host wrote."""

    def __init__(self, lines):
        super().__init__()
        self.lines, self.written = list(lines), []

    def _next_payload(self, timeout):
        if not self.lines:
            raise protocol.RunnerLost("runner exited")
        return self.lines.pop(0)

    def _write(self, data):
        self.written.append(data)


def test_the_host_sends_stop_at_the_first_test_it_finds_wrong():
    import json
    rows = [_row(i, "ok", None, b"3\n" if i != 1 else b"4\n") for i in range(3)]
    lines = [json.dumps(m).encode() + b"\n" for m in
             [{"kind": "header", "entry": "solve", "compile_error": None}, *rows, {"kind": "done", "clean": True}]]
    channel = _ScriptedChannel(lines)
    tests = [{"input": "1 2\n", "output": "3\n"}] * 3
    message = {"op": "run", "id": "abc"}
    reply = channel.exchange(message, 1e18,
                             stop_when=lambda row: protocol.verdict_of(row, tests[row["index"]]).verdict != AC)
    sent = [json.loads(w) for w in channel.written]
    assert sent == [message, {"op": "stop", "id": "abc"}]  # once, after the WA of test 2
    assert len(reply.rows) == 3


def test_sizes_over_the_limits_are_named():
    assert protocol.size_problem("x" * (18 << 20), []) == "source is 18.0 MB, limit 64 KB"
    assert protocol.size_problem("x", ["", "y" * (5 << 20)]) == "test 2 input is 5.0 MB, limit 4.0 MB"
    assert protocol.size_problem("x" * (64 << 10), ["y" * (4 << 20)]) is None


def test_a_compile_error_is_re_on_every_test():
    reply = protocol.Reply(header={"kind": "header", "entry": None, "compile_error": "SyntaxError: x"},
                           done={"kind": "done", "clean": True, "problem": None})
    result = protocol.interpret(reply, [{"input": "", "output": ""}] * 2)
    assert result.verdicts == [RE, RE] and result.entry is None and result.reset_problem is None
    assert result.tests[0].detail == "compile error: SyntaxError: x"


def test_editing_adding_or_renaming_a_runner_module_changes_the_image_hash(tmp_path):
    import shutil

    from neocoder.judge.image import runner_sha256
    from neocoder.resources import sandbox_dir
    recipe = tmp_path / "sandbox"
    shutil.copytree(sandbox_dir(), recipe, ignore=shutil.ignore_patterns("__pycache__"))
    original = runner_sha256(recipe)
    assert original == runner_sha256()  # the copy holds the same bytes
    watch = recipe / "runner" / "watch.py"
    watch.write_text(watch.read_text() + "\n# edited\n")
    edited = runner_sha256(recipe)
    (recipe / "runner" / "extra.py").write_text("X = 1\n")
    added = runner_sha256(recipe)
    (recipe / "runner" / "extra.py").rename(recipe / "runner" / "other.py")
    assert len({original, edited, added, runner_sha256(recipe)}) == 4
