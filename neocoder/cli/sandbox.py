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
from neocoder.cli.options import sandbox_options
from neocoder.config import ProgramLimits


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
@sandbox_options
def sandbox_selftest(sandbox):
    """Run the sandbox regression corpus (attacks and known-good programs, Python and C++); print a table."""
    from neocoder.judge.selftest import CASES, format_outcomes, run_selftest
    from neocoder.judge.selftest_cpp import CPP_CASES
    os.environ["NEOCODER_SELFTEST_SECRET"] = "must-not-leak"  # the corpus checks it stays outside
    with api.open_sandbox(sandbox, concurrency=1) as box:
        # the C++ cases need the image's g++ and precompiled header: the Docker backend's
        cases = CASES + (CPP_CASES if box.name == "docker" else [])
        if len(cases) == len(CASES):
            click.echo(f"  ({len(CPP_CASES)} C++ cases left out: the {box.name} backend has no sandbox image's g++)",
                       err=True)
        outcomes = run_selftest(box, cases, progress=lambda o: click.echo(f"  {o.case.name}: {o.verdict}", err=True))
    click.echo(format_outcomes(outcomes))
    if not all(o.passed for o in outcomes):
        sys.exit(1)


@sandbox.command("run")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--tests", "tests_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help='JSONL, one {"input": ..., "output": ...} per line.')
@declared_options(ProgramLimits, into="limits")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@sandbox_options
def sandbox_run(program, tests_path, limits, as_json, sandbox):
    """Judge PROGRAM on TESTS in the sandbox."""
    result = api.run_program(program, tests_path, ProgramLimits(**limits), sandbox)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    for i, t in enumerate([] if as_json else result.tests):
        click.echo(f"test {i}: {t.verdict}  cpu {t.cpu_seconds}s  {t.detail or ''}")
