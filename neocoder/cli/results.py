"""Reading runs: ``neocoder compare``, ``neocoder report``, ``neocoder upgrade-run``."""

from __future__ import annotations

from pathlib import Path

import click

from . import main
from .options import bootstrap_options


@main.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json", "table5"]), default="table",
              show_default=True)
@click.option("--published", "published", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              multiple=True, help="Published reference figures (JSON, see neocoder/report/compare.py), shown as "
              "published and not re-measured.")
@bootstrap_options("shared problem")
def compare_command(runs, fmt, published, bootstrap, bootstrap_seed):
    """NeoCoder runs side by side per state and metric, with paired differences against the first."""
    from ..report.compare import compare, load_published, load_run, render
    scores = [load_run(r) for r in runs] + [load_published(p) for p in published]
    click.echo(render(compare(scores, bootstrap, bootstrap_seed), fmt))


@main.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("report"), show_default=True,
              help="Folder for the static HTML report (index.html).")
def report_command(runs, out):
    """A static, offline HTML report of one or more run folders (NeoCoder, human baselines, AidanBench)."""
    from ..report.html import build_report
    click.echo(f"report: {build_report(list(runs), out)}")


@main.command("upgrade-run")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def upgrade_run(folder):
    """Convert a run folder written before record format 2 (samples.jsonl or answers.jsonl)."""
    from ..upgrade import upgrade_run_folder
    click.echo(upgrade_run_folder(folder))
