"""``neocoder board add RUN --board DIR`` and ``neocoder board build DIR --out SITE``: a
leaderboard that accepts checked submissions and is rebuilt from their summaries alone
(neocoder/report/leaderboard/submissions.py, docs/leaderboard.md)."""

from __future__ import annotations

from pathlib import Path

import click

from neocoder.cli import main


@main.group("board")
def board_group():
    """A committable leaderboard: checked submissions, rebuilt from their summaries."""


@board_group.command("add")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--board", "board", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The board's folder; summaries go into its submissions/.")
@click.option("--submitter", required=True,
              help="Who submits the run: with the run's content hash, the key of its row (another submitter's "
                   "run never replaces it).")
def add_command(run, board, submitter):
    """Check RUN (its files, manifest, dataset, items, metrics and intervals recomputed
    from its records, and the records re-judged or re-scored) and add its summaries to the
    board; refuses with one line naming the check that failed."""
    from neocoder.report.leaderboard.submissions import add_run
    for path, how in add_run(run, board, submitter):
        click.echo(f"added: {path} ({how})")


@board_group.command("build")
@click.argument("board", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The site's folder (default: BOARD/site).")
@click.option("--published/--no-published", default=True, show_default=True,
              help="Show the papers' published rows beside the submissions.")
def build_command(board, out, published):
    """Build the board's index.html from its submissions' summaries alone (the same
    summaries give the same bytes)."""
    from neocoder.report.leaderboard.submissions import build_board
    click.echo(f"board: {build_board(board, out or board / 'site', published=published)}")
