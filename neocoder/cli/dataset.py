"""``neocoder build-dataset``: problem states from the release, or constraint chains by Denial Prompting."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import api
from ..config import ChainConfig, DatasetConfig
from ..report import text as report
from . import main
from .options import limit_option, model_options, quiet_option, release_option, sandbox_options


@main.command("build-dataset")
@release_option("--from-release")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("data/codeforces/neocoder"),
              show_default=True, help="Run folder for the dataset (records.jsonl holds the problem states).")
@click.option("--oracle/--no-oracle", default=True, show_default=True,
              help="Validate the examples with the accepted human Python solutions in the sandbox and add "
                   "extended tests (neocoder/oracle.py); --no-oracle only converts the release.")
@click.option("--extended", type=click.IntRange(min=0), default=20, show_default=True,
              help="Mutated candidate inputs per problem (kept only where the humans agree).")
@click.option("--label-humans", type=click.IntRange(min=5), default=10, show_default=True,
              help="Human solutions that label each extended test (all must agree).")
@limit_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the input mutations / chains.")
@model_options(required=False, model_help="Build constraint chains by Denial Prompting with this augmentation "
               "model (PROVIDER/NAME) instead of converting the release.")
@click.option("--problems", "problems_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Raw problems JSONL for --model (default: the release's crawl).")
@click.option("--rounds", type=click.IntRange(min=0), default=5, show_default=True, help="Denial Prompting rounds.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Problems in flight at once (--model).")
@quiet_option
@sandbox_options
def build_dataset(release, out, oracle, extended, label_humans, limit, seed, model, problems_path, rounds,
                  detector, concurrency, quiet, sandbox):
    """Write one problem-state record per (problem, state t), from the release or by Denial Prompting."""
    if model is not None:
        return _build_chains(ChainConfig(model, release, out, problems_path, limit, rounds, seed, detector,
                                         concurrency, sandbox, progress=not quiet))
    result = api.build_dataset(DatasetConfig(release, out, oracle, extended, label_humans, limit, seed, sandbox,
                                             progress=not quiet))
    if result.oracle is not None:
        click.echo(report.oracle_summary(result.oracle, result.seconds))
    click.echo(f"wrote {len(result.states)} problem states of {len({s.problem_id for s in result.states})} "
               f"problems to {result.run}")
    click.echo(report.states_per_t(result.states))
    click.echo("tests taken from: " + ", ".join(f"{k}: {v} states" for k, v in sorted(result.report.tests_from.items())))
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
