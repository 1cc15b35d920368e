"""``neocoder aidanbench``."""

from __future__ import annotations

from pathlib import Path

import click

from .. import api
from ..config import AidanConfig
from ..report import text as report
from . import main
from .options import run_dir, bootstrap_options, limit_option, model_options, quiet_option


@main.command("aidanbench")
@model_options(temperature=0.7, max_tokens=256, model_help="Generator: openai/<name>, local/gemma-3-270m, or "
               "replay/<answers.jsonl or run folder> to re-score recorded answers (every model in it).")
@click.option("--judge", "judge_spec", required=True,
              help="Coherence judge (PROVIDER/NAME), or 'none' to score novelty only.")
@click.option("--embedder", default="local/all-MiniLM-L6-v2", show_default=True,
              help="local/all-MiniLM-L6-v2 (offline) or openai/<embedding model>.")
@click.option("--questions", "questions_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="One question per line (default: the 65 AidanBench questions).")
@limit_option
@click.option("--max-answers", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--coherence-stop", type=float, default=15.0, show_default=True, help="Stop at coherence <= this.")
@click.option("--novelty-stop", type=float, default=0.15, show_default=True, help="Stop at novelty <= this.")
@click.option("--llm-similarity", is_flag=True, help="Also stop when the judge rates an answer as similar to "
              "an earlier one (1 - max similarity/100 <= --novelty-stop).")
@click.option("--judge-retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Asks again after an unparseable judge reply, then records an error.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Questions in flight at once.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/aidanbench/<model>); an existing one is resumed.")
@bootstrap_options("question")
@quiet_option
def aidanbench_command(model, judge_spec, embedder, questions_path, limit, max_answers, coherence_stop,
                       novelty_stop, llm_similarity, judge_retries, concurrency, out, bootstrap, bootstrap_seed, quiet):
    """AidanBench: answers until incoherent or repetitive; counts and novelty per question."""
    judge = None if judge_spec == "none" else model.with_(spec=judge_spec, temperature=0.0, max_tokens=16)
    result = api.run_aidanbench(AidanConfig(
        model, judge, out or run_dir(model.spec, "aidanbench"), embedder, questions_path, limit, max_answers,
        coherence_stop, novelty_stop, llm_similarity, judge_retries, concurrency, bootstrap, bootstrap_seed,
        progress=not quiet))
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
    click.echo(f"embedded {result.embedded} texts; model calls {result.calls['calls_made']} made, "
               f"{result.calls['cache_hits']} cache hits; {result.seconds:.0f}s; run folder {result.run}; look at it "
               f"with `neocoder report {result.run}`")
