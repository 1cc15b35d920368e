"""``neocoder build-dataset``: problem states from the release, or constraint chains by Denial Prompting."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from neocoder import api
from neocoder.benchmarks.neocoder.config import ChainConfig, DatasetConfig
from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import model_options, quiet_option, release_option, sandbox_options
from neocoder.report import text as report


@main.command("build-dataset")
@release_option("--from-release")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/dataset"),
              show_default=True, help="Run folder for the dataset (records.jsonl holds the problem states).")
@declared_options(DatasetConfig, "building")
@model_options(ChainConfig, required=False,
               model_help="Build constraint chains by Denial Prompting with this augmentation model (PROVIDER/NAME) "
               "instead of converting the release.")
@declared_options(ChainConfig, "chains", exclude=("limit", "seed"))  # shared with the release's build
@quiet_option
@sandbox_options
def build_dataset(release, out, building, model, chains, quiet, sandbox):
    """Write one problem-state record per (problem, state t), from the release or by Denial Prompting."""
    if model is not None:
        return _build_chains(ChainConfig(model, release, out, limit=building["limit"], seed=building["seed"],
                                         sandbox=sandbox, progress=not quiet, **chains))
    result = api.build_dataset(DatasetConfig(release, out, sandbox=sandbox, progress=not quiet, **building))
    if result.oracle is not None:
        click.echo(report.oracle_summary(result.oracle, result.seconds))
    click.echo(f"wrote {len(result.states)} problem states of {len({s.problem_id for s in result.states})} "
               f"problems to {result.run}")
    click.echo(report.states_per_t(result.states))
    click.echo("tests taken from: "
               + ", ".join(f"{k}: {v} states" for k, v in sorted(result.report.tests_from.items())))
    for skip in result.report.skips:
        click.echo(f"skipped {skip}", err=True)


def _build_chains(config: ChainConfig) -> None:
    """build-dataset --model: Denial Prompting chains (neocoder/denial.py)."""
    result = api.build_chains(config)
    calls = result.calls
    click.echo(f"wrote {len(result.states)} problem states of {len({s.problem_id for s in result.states})} "
               f"problems to {result.run} in {result.seconds:.0f}s")
    click.echo(report.states_per_t(result.states))
    click.echo(f"augmentation solutions accepted: {sum(s.extra['augmentation']['accepted'] for s in result.states)} "
               f"of {len(result.states)} states")
    click.echo(f"model calls: {calls['calls_made']} made, {calls['cache_hits']} cache hits; tokens: "
               f"{calls['prompt_tokens']} prompt, {calls['completion_tokens']} completion")
    for pid, why in result.failed.items():
        click.echo(f"failed {pid}: {why} (rerun to resume from the call cache)", err=True)
    if result.failed:
        sys.exit(1)
