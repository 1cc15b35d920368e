"""``neocoder export``: a run folder as per-sample and per-state tables (parquet or JSONL)."""

from __future__ import annotations

from pathlib import Path

import click

from ..export import FORMATS
from . import main


@main.command("export")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet", show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for samples.<format> and states.<format> (default: RUN/export).")
def export_command(run, fmt, out):
    """Write RUN's per-sample details and per-state metrics as tables `datasets` and pandas
    load (columns: docs/records.md, "Exported tables")."""
    from ..export import export_run
    for path in export_run(run, fmt, out):
        click.echo(str(path))
