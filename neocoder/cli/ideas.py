"""``neocoder ideas`` (LiveIdeaBench)."""

from __future__ import annotations

from pathlib import Path

import click

from .. import api
from ..config import IdeasConfig
from ..errors import NeocoderError
from . import main
from .declared import declared_options
from .options import model_options, quiet_option, run_dir


@main.command("ideas")
@model_options(temperature=0.7, max_tokens=400, model_help="Idea model: openai/<name>, local/gemma-3-270m, or "
               "replay/<ideas run folder or ideas.jsonl> to judge recorded ideas again (every model in it).")
@click.option("--judges", "judges_text", required=True,
              help="The judge panel, comma-separated [NAME=]PROVIDER/NAME entries; NAME gives one model several "
                   "seats (a=local/gemma-3-270m,b=local/gemma-3-270m). A seat of the idea model's spec never "
                   "judges. Judges share the model options (--base-url ...) at temperature 0.")
@click.option("--judge-max-tokens", type=click.IntRange(min=1), default=64, show_default=True)
@declared_options(IdeasConfig, "declared")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/ideas/<model>); an existing one is resumed.")
@quiet_option
def ideas_command(model, judges_text, judge_max_tokens, declared, out, quiet):
    """LiveIdeaBench: ideas from keywords, scored by a judge panel; fluency and flexibility."""
    from ..ideas.panel import parse_judges
    from ..report.ideas import ideas_table, leaderboard_comparison

    try:
        seats = parse_judges(judges_text)
    except NeocoderError as exc:
        raise click.BadParameter(str(exc), param_hint="--judges") from exc
    judges = [model.with_(spec=s.spec, temperature=0.0, max_tokens=judge_max_tokens, api=None, reasoning=None,
                          reasoning_effort=None) for s in seats]  # a judge is a reasoning model by its own name
    result = api.run_ideas(IdeasConfig(model=model, judges=judges, out=out or run_dir(model.spec, "ideas"),
                                       judge_names=[s.name for s in seats], progress=not quiet, **declared))
    for name, summary in result.models.items():
        click.echo(ideas_table(name, summary))
        click.echo("")
    click.echo(leaderboard_comparison(result.models))
    click.echo(f"model calls {result.calls['calls_made']} made, {result.calls['cache_hits']} cache hits; "
               f"{result.seconds:.0f}s; run folder {result.run}; look at it with `neocoder report {result.run}`")
