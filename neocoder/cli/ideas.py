"""``neocoder ideas`` (LiveIdeaBench)."""

from __future__ import annotations

from pathlib import Path

import click

from .. import api
from ..config import IdeasConfig
from ..errors import NeocoderError
from . import main
from .options import limit_option, model_options, quiet_option, run_dir


@main.command("ideas")
@model_options(temperature=0.7, max_tokens=400, model_help="Idea model: openai/<name>, local/gemma-3-270m, or "
               "replay/<ideas run folder or ideas.jsonl> to judge recorded ideas again (every model in it).")
@click.option("--judges", "judges_text", required=True,
              help="The judge panel, comma-separated [NAME=]PROVIDER/NAME entries; NAME gives one model several "
                   "seats (a=local/gemma-3-270m,b=local/gemma-3-270m). A seat of the idea model's spec never "
                   "judges. Judges share the model options (--base-url ...) at temperature 0.")
@click.option("--keywords", "keywords_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="A .csv with a keyword column (and category), or one keyword per line "
              "(default: LiveIdeaBench's 1180 keywords from $LIVEIDEABENCH_DIR or ../shared/liveideabench).")
@limit_option
@click.option("--ideas-per-keyword", type=click.IntRange(min=1), default=3, show_default=True,
              help="Ideas per keyword; fluency grades a keyword with at least 2 kept ideas.")
@click.option("--judges-per-idea", type=click.IntRange(min=1), default=3, show_default=True,
              help="Judges drawn from the panel for each idea.")
@click.option("--max-words", type=click.IntRange(min=1), default=200, show_default=True,
              help="Ideas over this many words are left out and counted.")
@click.option("--judge-retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Asks again after an unparseable judge reply, then records an error.")
@click.option("--judge-max-tokens", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the judge draws.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Keywords in flight at once.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/ideas/<model>); an existing one is resumed.")
@click.option("--bootstrap", type=click.IntRange(min=2), default=2000, show_default=True,
              help="Bootstrap resamples of keywords for the 95% intervals.")
@click.option("--bootstrap-seed", type=int, default=0, show_default=True)
@quiet_option
def ideas_command(model, judges_text, keywords_path, limit, ideas_per_keyword, judges_per_idea, max_words,
                  judge_retries, judge_max_tokens, seed, concurrency, out, bootstrap, bootstrap_seed, quiet):
    """LiveIdeaBench: ideas from keywords, scored by a judge panel; fluency and flexibility."""
    from ..ideas.panel import parse_judges
    from ..report.ideas import ideas_table, leaderboard_comparison

    try:
        seats = parse_judges(judges_text)
    except NeocoderError as exc:
        raise click.BadParameter(str(exc), param_hint="--judges") from exc
    judges = [model.with_(spec=s.spec, temperature=0.0, max_tokens=judge_max_tokens, api=None) for s in seats]
    result = api.run_ideas(IdeasConfig(
        model=model, judges=judges, out=out or run_dir(model.spec, "ideas"), keywords=keywords_path, limit=limit,
        ideas_per_keyword=ideas_per_keyword, judges_per_idea=judges_per_idea, max_words=max_words,
        judge_retries=judge_retries, seed=seed, concurrency=concurrency, bootstrap=bootstrap,
        bootstrap_seed=bootstrap_seed, judge_names=[s.name for s in seats], progress=not quiet))
    for name, summary in result.models.items():
        click.echo(ideas_table(name, summary))
        click.echo("")
    click.echo(leaderboard_comparison(result.models))
    click.echo(f"model calls {result.calls['calls_made']} made, {result.calls['cache_hits']} cache hits; "
               f"{result.seconds:.0f}s; run folder {result.run}; look at it with `neocoder report {result.run}`")
