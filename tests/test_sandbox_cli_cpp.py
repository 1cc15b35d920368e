"""``neocoder sandbox run`` judges C++ (issue 58): the language is ``--language`` or the
program file's extension, never Python by default; every C++ case the library is checked
on (tests/judge/test_cpp.py: the C++ corpus, the a+b program, a compile error, the
expected-output finder) gives the library's verdict through the real CLI on the real
Docker sandbox.  Each case is one CLI call, named by one of the C++ extensions in turn or
by ``--language cpp`` on a file whose extension says otherwise (.txt, and .py: the option
wins).  Also ``detect`` and ``sandbox selftest`` read the same option."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import docker
import pytest
from checkout import CHECKOUT
from click.testing import CliRunner

from neocoder.cli import main
from neocoder.judge.engine import LABEL_PID
from neocoder.judge.selftest_cpp import CPP_CASES, FIND_EXPECTED
from neocoder.judge.verdicts import CE, RE

ADD = "#include <bits/stdc++.h>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
ADD_TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"},
             {"input": "1 1\n", "output": "3\n"}]
# how each case names its language, in turn: (file extension, extra arguments)
NAMINGS = [(".cpp", []), (".cc", []), (".cxx", []), (".c++", []), (".CPP", []),
           (".txt", ["--language", "cpp"]), (".py", ["--language", "cpp"])]


def write(folder, name: str, source: str, tests: list[dict]):
    program, tests_file = folder / name, folder / (name + ".tests.jsonl")
    program.write_text(source)
    tests_file.write_text("".join(json.dumps(t) + "\n" for t in tests))
    return program, tests_file


def sandbox_run(program, tests_file, *more: str, as_json: bool = True):
    """``neocoder sandbox run`` in this process (click's runner): (exit code, output)."""
    args = ["sandbox", "run", str(program), "--tests", str(tests_file), *more] + (["--json"] if as_json else [])
    out = CliRunner().invoke(main, args)
    return out.exit_code, out.output


def containers_of_this_process() -> set[str]:
    return {c.id for c in docker.from_env().containers.list(all=True, filters={"label": f"{LABEL_PID}={os.getpid()}"})}


# ---------------------------------------------------------------- the real engine
@pytest.mark.docker
def test_every_cpp_corpus_case_gets_the_librarys_verdict_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("NEOCODER_SELFTEST_SECRET", "must-not-leak")
    before = containers_of_this_process()
    wrong = []
    for i, case in enumerate(CPP_CASES):
        ext, more = NAMINGS[i % len(NAMINGS)]
        program, tests_file = write(tmp_path, f"case{i}{ext}", case.source,
                                    [{"input": case.input, "output": case.output}])
        code, output = sandbox_run(program, tests_file, *more, "--cpu-seconds", f"{case.limits.cpu_seconds:g}",
                                   "--memory-mb", str(case.limits.memory_mb))
        if code != 0:
            wrong.append(f"{case.name} ({ext} {more}): exit {code}: {output[-500:]}")
            continue
        test = json.loads(output)["tests"][0]
        if test["verdict"] not in case.expect or (case.detail and case.detail not in (test["detail"] or "")):
            wrong.append(f"{case.name} ({ext} {more}): {test['verdict']} {test['detail']!r}, "
                         f"the library gives {'/'.join(sorted(case.expect))} {case.detail or ''}")
    assert not wrong, "\n".join(wrong)
    assert containers_of_this_process() <= before  # every CLI call closed its sandbox


@pytest.mark.docker
def test_a_cpp_program_is_judged_per_test_and_a_compile_error_is_ce_with_readable_times(tmp_path):
    program, tests_file = write(tmp_path, "add.cpp", ADD, ADD_TESTS)
    code, output = sandbox_run(program, tests_file, as_json=False)
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0].startswith(f"{program} (cpp): 2 of 3 tests AC; compiled in ") and lines[0].endswith("s CPU")
    assert [line.split()[2] for line in lines[1:]] == ["AC", "AC", "WA"]
    assert all(line.split()[3] == "cpu" and line.split()[4].endswith("s") for line in lines[1:])

    broken, broken_tests = write(tmp_path, "broken.cc", "int main( {", ADD_TESTS[:2])
    code, output = sandbox_run(broken, broken_tests, as_json=False)
    assert code == 0, output
    assert "None" not in output and "compile error:" in output and "error" in output.split("compile error:")[1]
    tests = [line for line in output.splitlines() if line.startswith("test ")]
    assert tests == [f"test {i}: {CE}  cpu not measured" for i in range(2)]  # the compile error is shown once

    code, output = sandbox_run(broken, broken_tests)
    assert code == 0 and [t["verdict"] for t in json.loads(output)["tests"]] == [CE, CE]

    finder, finder_tests = write(tmp_path, "finder.cxx", FIND_EXPECTED, [{"input": "1\n", "output": "expected-7f3a\n"}])
    code, output = sandbox_run(finder, finder_tests)
    test = json.loads(output)["tests"][0]
    assert code == 0 and test["verdict"] == "WA" and test["stdout_head"] == "not found\n"


@pytest.mark.docker
def test_an_explicit_language_wins_over_the_extension_both_ways(tmp_path):
    as_py, tests_file = write(tmp_path, "add.py", ADD, ADD_TESTS)
    code, output = sandbox_run(as_py, tests_file, "--language", "cpp")
    assert code == 0 and [t["verdict"] for t in json.loads(output)["tests"]] == ["AC", "AC", "WA"]
    code, output = sandbox_run(as_py, tests_file)  # by its extension: Python, which C++ is not
    assert code == 0 and [t["verdict"] for t in json.loads(output)["tests"]] == [RE, RE, RE]

    python = "a, b = map(int, input().split())\nprint(a + b)\n"
    as_cpp, tests_file = write(tmp_path, "sum.cpp", python, ADD_TESTS)
    code, output = sandbox_run(as_cpp, tests_file, "--language", "python", as_json=False)
    assert code == 0 and output.startswith(f"{as_cpp} (python): 2 of 3 tests AC\n"), output
    code, output = sandbox_run(as_cpp, tests_file)
    assert code == 0 and [t["verdict"] for t in json.loads(output)["tests"]] == [CE, CE, CE]


@pytest.mark.docker
def test_the_installed_command_judges_cpp_by_its_extension(tmp_path):
    """The same through ``python -m neocoder.cli`` in its own process (the entry point as a user runs it)."""
    program, tests_file = write(tmp_path, "add.c++", ADD, ADD_TESTS)
    done = subprocess.run([sys.executable, "-m", "neocoder.cli", "sandbox", "run", str(program), "--tests",
                           str(tests_file)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(CHECKOUT)))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"{program} (cpp): 2 of 3 tests AC") and "None" not in done.stdout


# ---------------------------------------------------------------- no container
@pytest.mark.parametrize("name", ["prog.txt", "prog", "prog.c", "prog.rb"])
def test_an_extension_that_names_no_language_is_a_usage_error_naming_the_file(tmp_path, name):
    program, tests_file = write(tmp_path, name, ADD, ADD_TESTS)
    code, output = sandbox_run(program, tests_file)
    assert code == 2 and str(program) in output and "--language" in output and "Traceback" not in output
    assert "cannot tell the program's language from its extension" in output


def test_an_unknown_language_is_refused_by_the_option(tmp_path):
    program, tests_file = write(tmp_path, "add.cpp", ADD, ADD_TESTS)
    code, output = sandbox_run(program, tests_file, "--language", "rust")
    assert code == 2 and "'rust' is not one of 'python', 'cpp'" in output


def test_the_language_of_a_file_is_its_extension_and_an_explicit_one_wins(tmp_path):
    from neocoder import api
    from neocoder.errors import NeocoderError
    assert [api.language_of(tmp_path / f"a{e}") for e in (".py", ".cpp", ".cc", ".cxx", ".c++", ".CC")] == \
        ["python", "cpp", "cpp", "cpp", "cpp", "cpp"]
    assert [api.language_of(tmp_path / f"a{e}") for e in (".c", ".h", ".txt", "", ".pyc")] == [None] * 5
    assert api.program_language(tmp_path / "a.py", "cpp") == "cpp"
    assert api.program_language(tmp_path / "a.txt", "python") == "python"
    with pytest.raises(NeocoderError, match=r"a\.txt: cannot tell .* give the language \(python or cpp\)"):
        api.program_language(tmp_path / "a.txt")
    with pytest.raises(NeocoderError, match="unknown language 'java'"):
        api.program_language(tmp_path / "a.py", "java")


def test_detect_reads_the_language_from_the_extension_unless_given(tmp_path):
    loop = "#include <cstdio>\nint main(){ for(;;){} }\n"
    found = {}
    for name, more in [("a.cc", []), ("a.txt", []), ("a.py", ["--language", "cpp"]), ("b.py", []),
                       ("b.cpp", ["--language", "python"])]:
        source = loop if name.startswith("a") else "for i in range(3):\n    print(i)\n"
        (tmp_path / name).write_text(source)
        out = CliRunner().invoke(main, ["detect", str(tmp_path / name), "--json", *more])
        assert out.exit_code == 0, out.output
        found[name] = json.loads(out.output)["language"]
    # a.txt: no extension's language, so guessed from its text (as --language auto)
    assert found == {"a.cc": "cpp", "a.txt": "cpp", "a.py": "cpp", "b.py": "python", "b.cpp": "python"}


def test_selftest_refuses_cpp_cases_on_a_backend_without_the_image():
    out = CliRunner().invoke(main, ["sandbox", "selftest", "--language", "cpp", "--sandbox", "process"])
    assert out.exit_code == 2 and "--language cpp" in out.output and "--sandbox docker" in out.output
    out = CliRunner().invoke(main, ["sandbox", "selftest", "--language", "java"])
    assert out.exit_code == 2 and "'java' is not one of" in out.output


def test_selftest_runs_the_cases_of_the_language_asked_for():
    from neocoder.cli.sandbox import selftest_cases
    from neocoder.judge.selftest import CASES
    assert selftest_cases(None, "docker") == (CASES + CPP_CASES, [])
    assert selftest_cases("python", "docker") == (CASES, [])
    assert selftest_cases("cpp", "docker") == (CPP_CASES, [])
    assert selftest_cases(None, "process") == (CASES, CPP_CASES)  # said so on stderr
    assert selftest_cases("python", "process") == (CASES, [])
    with pytest.raises(click.UsageError, match="use --sandbox docker"):
        selftest_cases("cpp", "process")
