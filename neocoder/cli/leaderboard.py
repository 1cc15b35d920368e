"""``neocoder leaderboard RUN_OR_DIR ... --out DIR``: the static, offline leaderboard
site of suite and benchmark runs (neocoder/report/leaderboard/, docs/leaderboard.md)."""

from __future__ import annotations

from pathlib import Path

import click

from neocoder.cli import main


@main.command("leaderboard")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"),
              show_default=True, help="The site's folder (index.html, a page per model, reports, downloads).")
@click.option("--published/--no-published", default=True, show_default=True,
              help="Show the papers' published rows beside the runs (labelled as published).")
@click.option("--reports/--no-reports", default=True, show_default=True,
              help="Build each run's HTML report (neocoder report) and link it from its model's page.")
def leaderboard_command(runs, out, published, reports):
    """A static leaderboard of RUN_OR_DIR (suite or benchmark run folders, or folders of
    them): models by measures with 95% intervals, ties marked, published rows beside."""
    from neocoder.report.leaderboard import build_leaderboard
    index = build_leaderboard(list(runs), out, published=published, reports=reports)
    click.echo(f"leaderboard: {index}   (open it in a browser; no server, no network)")
