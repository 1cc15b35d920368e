"""``neocoder sandbox build|selftest|run``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from neocoder import api
from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import extensions_help, language_option, sandbox_options
from neocoder.config import CPP, DOCKER, PYTHON, ProgramLimits
from neocoder.errors import NeocoderError


@main.group()
def sandbox():
    """Build the sandbox image; run a program in it."""


@sandbox.command("build")
@click.option("--rebuild-base", is_flag=True, help="Debootstrap the Debian base again.")
def sandbox_build(rebuild_base):
    """Build the sandbox image offline (debootstrap from the machine's apt mirror)."""
    from neocoder.judge import build_image
    click.echo(build_image(rebuild_base=rebuild_base, log=lambda m: click.echo(m, err=True)))


@sandbox.command("selftest")
@language_option("Only that language's cases (default: both; the C++ cases need the Docker backend).")
@sandbox_options
def sandbox_selftest(language, sandbox):
    """Run the sandbox regression corpus (attacks and known-good programs, Python and C++); print a table."""
    from neocoder.judge.selftest import format_outcomes, run_selftest
    os.environ["NEOCODER_SELFTEST_SECRET"] = "must-not-leak"  # the corpus checks it stays outside
    with api.open_sandbox(sandbox, concurrency=1) as box:
        cases, left_out = selftest_cases(language, box.name)
        if left_out:
            click.echo(f"  ({len(left_out)} C++ cases left out: the {box.name} backend has no sandbox image's g++)",
                       err=True)
        outcomes = run_selftest(box, cases, progress=lambda o: click.echo(f"  {o.case.name}: {o.verdict}", err=True))
    click.echo(format_outcomes(outcomes))
    if not all(o.passed for o in outcomes):
        sys.exit(1)


def selftest_cases(language: str | None, backend: str) -> tuple[list, list]:
    """The corpus cases ``sandbox selftest`` runs on ``backend`` for ``language`` (None:
    both), and the C++ cases it leaves out: those need the Docker backend's image (its g++
    and precompiled header), so another backend runs the Python cases only.  Raises
    click.UsageError for ``language`` "cpp" on a backend other than docker."""
    from neocoder.judge.selftest import CASES
    from neocoder.judge.selftest_cpp import CPP_CASES
    wanted = {None: CASES + CPP_CASES, PYTHON: CASES, CPP: CPP_CASES}[language]
    if backend == DOCKER:
        return wanted, []
    if language == CPP:
        raise click.UsageError(f"--language cpp: the C++ cases need the Docker backend's sandbox image (its g++ and "
                               f"precompiled header); the {backend} backend has none: use --sandbox docker")
    return CASES, CPP_CASES if language is None else []


@sandbox.command("run")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--tests", "tests_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help='JSONL, one {"input": ..., "output": ...} per line.')
@language_option(f"C++ is C++17 compiled by g++ in the sandbox (a compile error is CE on every test). Default: "
                 f"by PROGRAM's extension ({extensions_help()}); any other extension needs --language.")
@declared_options(ProgramLimits, into="limits")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@sandbox_options
def sandbox_run(program, tests_path, language, limits, as_json, sandbox):
    """Judge PROGRAM on TESTS in the sandbox, in its language (--language, else by its extension)."""
    try:
        language = api.program_language(program, language, ask="--language")
    except NeocoderError as exc:
        raise click.UsageError(str(exc)) from exc
    result = api.run_program(program, tests_path, ProgramLimits(**limits), sandbox, language=language)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result_text(program, language, result))


def seconds_text(seconds: float | None, missing: str = "not measured") -> str:
    """``0.004s`` (CPU seconds, 3 decimals), or ``missing`` for a time the judge did not
    measure (None: a test never run, e.g. CE, SKIPPED, or the sandbox failed)."""
    return missing if seconds is None else f"{seconds:.3f}s"


def result_text(program: Path, language: str, result) -> str:
    """A judged program as lines to read: a head line (the file, its language, how many
    tests passed, g++'s CPU time), the compile error once where there is one, then one line
    per test: ``test I: VERDICT  cpu 0.004s  detail`` (``cpu not measured`` for a test
    the judge has no CPU time of, e.g. CE; a compile error's detail is not repeated on each test)."""
    tests = result.tests
    passed = sum(t.verdict == "AC" for t in tests)
    head = f"{program} ({language}): {passed} of {len(tests)} tests AC"
    if result.compile_seconds is not None:
        head += f"; compiled in {seconds_text(result.compile_seconds)} CPU"
    lines = [head]
    if result.compile_error:
        lines.append("compile error:")
        lines += ["  " + line for line in result.compile_error.strip().splitlines()]
    for i, t in enumerate(tests):
        detail = "" if result.compile_error and (t.detail or "").startswith("compile error") else t.detail or ""
        lines.append(f"test {i}: {t.verdict}  cpu {seconds_text(t.cpu_seconds)}  {detail}".rstrip())
    return "\n".join(lines)
