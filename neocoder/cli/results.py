"""Reading runs: ``neocoder compare``, ``neocoder report``, ``neocoder upgrade-run``."""

from __future__ import annotations

from pathlib import Path

import click

from neocoder.cli import main
from neocoder.cli.options import bootstrap_options


@main.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json", "table5"]), default="table",
              show_default=True)
@click.option("--published", "published", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              multiple=True, help="Published reference figures (JSON, see neocoder/report/compare.py), shown as "
              "published and not re-measured.")
@click.option("--no-published", "no_paper", is_flag=True,
              help="Leave out the paper's figures (Table 4 beside a GPT-4 run, Table 5 beside a strategy run), "
              "which are shown by default.")
@click.option("--allow-dataset-mismatch", is_flag=True,
              help="Compare runs scored on different dataset versions (manifest dataset_version) instead of refusing.")
@click.option("--allow-language-mismatch", is_flag=True,
              help="Compare runs whose programs are in different languages (--language) instead of refusing.")
@bootstrap_options("shared problem")
def compare_command(runs, fmt, published, no_paper, allow_dataset_mismatch, allow_language_mismatch, bootstrap,
                    bootstrap_seed):
    """NeoCoder runs side by side per state and metric, with paired differences against the first.

    Beside a GPT-4 run the paper's Table 4 is shown, beside a strategy run the paper's
    Table 5 row of that strategy (Lu et al., NAACL 2025), marked published; --no-published
    leaves them out."""
    from neocoder.report import published as paper
    from neocoder.report.compare import compare, load_published, load_run, render
    measured = [load_run(r) for r in runs]
    shipped = [] if no_paper else paper.beside(measured)
    scores = measured + shipped + [load_published(p) for p in published]
    result = compare(scores, bootstrap, bootstrap_seed, allow_dataset_mismatch=allow_dataset_mismatch,
                     allow_language_mismatch=allow_language_mismatch)
    if fmt == "csv":
        for note in result["notes"]:
            click.echo(note, err=True)
    click.echo(render(result, fmt))


@main.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("report"), show_default=True,
              help="Folder for the static HTML report (index.html).")
def report_command(runs, out):
    """A static, offline HTML report of one or more run folders (NeoCoder, human baselines, AidanBench)."""
    from neocoder.report.html import build_report
    click.echo(f"report: {build_report(list(runs), out)}")


@main.command("upgrade-run")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def upgrade_run(folder):
    """Convert a run folder written before record format 2 (samples.jsonl or answers.jsonl)."""
    from neocoder.upgrade import upgrade_run_folder
    click.echo(upgrade_run_folder(folder))
