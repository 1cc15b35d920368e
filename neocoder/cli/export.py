"""``neocoder export``: a run folder as tables (parquet or JSONL): per sample and per state for a
NeoCoder run, per step and per problem for a framework run."""

from __future__ import annotations

from pathlib import Path

import click

from neocoder.cli import main
from neocoder.export import FORMATS


@main.command("export")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the tables (samples and states, or steps and problems; default: RUN/export).")
def export_command(run, fmt, out):
    """Write RUN's tables, which `datasets` and pandas load: per-sample details and per-state
    metrics of a NeoCoder run, per-step and per-problem rows of a framework run (columns:
    docs/records.md, "Exported tables")."""
    from neocoder.export import export_run
    for path in export_run(run, fmt, out):
        click.echo(str(path))
