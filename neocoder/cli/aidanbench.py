"""``neocoder aidanbench`` (the loop) and ``neocoder aidanbench rescore RUN`` (new
thresholds from a run's stored scores, no model call)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from .. import api
from ..config import AidanConfig, COHERENCE_STOP, COHERENCE_STOP_10, NOVELTY_STOP
from ..report import text as report
from . import main
from .options import run_dir, bootstrap_options, limit_option, model_options, quiet_option


@main.group("aidanbench", invoke_without_command=True, subcommand_metavar="[rescore RUN ...]")
@model_options(temperature=0.7, max_tokens=256, required=False,
               model_help="Generator: openai/<name>, local/gemma-3-270m, or replay/<answers.jsonl or run folder> "
               "to re-score recorded answers (every model in it).  Required unless a subcommand is given.")
@click.option("--judge", "judge_spec", default=None,
              help="Coherence judge (PROVIDER/NAME), or 'none' to score novelty only.  Required with --model.")
@click.option("--embedder", default="local/all-MiniLM-L6-v2", show_default=True,
              help="local/all-MiniLM-L6-v2 (offline) or openai/<embedding model>.")
@click.option("--questions", "questions_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="One question per line (default: the 65 AidanBench questions).")
@limit_option
@click.option("--max-answers", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--coherence-scale", type=click.Choice(["100", "10"]), default="100", show_default=True,
              help="The judge's coherence scale: 0-100 (the README's) or 1-10 (the paper's).")
@click.option("--coherence-stop", type=float, default=None,
              help=f"Stop at coherence <= this, on the scale (default: {COHERENCE_STOP:g} on 0-100, "
              f"{COHERENCE_STOP_10:g} on 1-10).")
@click.option("--novelty-stop", type=float, default=NOVELTY_STOP, show_default=True, help="Stop at novelty <= this.")
@click.option("--llm-similarity", is_flag=True, help="Also stop when the judge rates an answer as similar to "
              "an earlier one (1 - max similarity/100 <= --novelty-stop).")
@click.option("--cot", is_flag=True, help="Chain-of-thought answer prompt: the generator reasons first, and "
              "its answer is what follows 'Answer:'.")
@click.option("--mmr-lambda", type=click.FloatRange(0.0, 1.0), default=0.5, show_default=True,
              help="MMR_AB's weight on coherence against redundancy (paper Eq. 3).")
@click.option("--entailment", type=click.Choice(["judge", "embedding"]), default=None,
              help="Semantic entropy of each question's answers, with meaning classes from bidirectional "
              "entailment asked of the judge, or from embedding similarity (an approximation).")
@click.option("--entailment-threshold", type=click.FloatRange(-1.0, 1.0), default=0.85, show_default=True,
              help="--entailment embedding: cosine similarity at or above which an answer joins a class.")
@click.option("--judge-retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Asks again after an unparseable judge reply, then records an error.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Questions in flight at once.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/aidanbench/<model>); an existing one is resumed.")
@bootstrap_options("question")
@quiet_option
@click.pass_context
def aidanbench_command(ctx, model, judge_spec, embedder, questions_path, limit, max_answers, coherence_scale,
                       coherence_stop, novelty_stop, llm_similarity, cot, mmr_lambda, entailment,
                       entailment_threshold, judge_retries, concurrency, out, bootstrap, bootstrap_seed, quiet):
    """AidanBench: answers until incoherent or repetitive; counts and novelty per question,
    with the paper's analyses (coherence-gated novelty, MMR_AB) and, with --entailment, the
    semantic entropy of each question's answers (docs/aidanbench.md)."""
    if ctx.invoked_subcommand is not None:
        return
    if model is None or judge_spec is None:
        raise click.UsageError("--model and --judge are required (or give a subcommand: rescore RUN)")
    if entailment == "judge" and judge_spec == "none":
        raise click.UsageError("--entailment judge asks the judge: give a --judge model, or use --entailment embedding")
    judge = None if judge_spec == "none" else model.with_(spec=judge_spec, temperature=0.0, max_tokens=16)
    config = AidanConfig(
        model=model, judge=judge, out=out or run_dir(model.spec, "aidanbench"), embedder=embedder,
        questions=questions_path, limit=limit, max_answers=max_answers, coherence_stop=coherence_stop,
        novelty_stop=novelty_stop, llm_similarity=llm_similarity, judge_retries=judge_retries,
        concurrency=concurrency, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed,
        coherence_scale=int(coherence_scale), cot=cot, mmr_lambda=mmr_lambda, entailment=entailment,
        entailment_threshold=entailment_threshold, progress=not quiet)
    # the stop in force, written out: the manifest says 15 or 3, not "the scale's default"
    result = api.run_aidanbench(dataclasses.replace(config, coherence_stop=config.stop_at_coherence()))
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
    click.echo(f"embedded {result.embedded} texts; model calls {result.calls['calls_made']} made, "
               f"{result.calls['cache_hits']} cache hits; {result.seconds:.0f}s; run folder {result.run}; look at it "
               f"with `neocoder report {result.run}`")


@aidanbench_command.command("rescore")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--coherence-stop", type=float, default=None,
              help="Stop at coherence <= this, on the run's scale (default: the run's).")
@click.option("--novelty-stop", type=float, default=None, help="Stop at novelty <= this (default: the run's).")
@click.option("--max-answers", type=click.IntRange(min=1), default=None, help="Default: the run's.")
@click.option("--mmr-lambda", type=click.FloatRange(0.0, 1.0), default=None, help="Default: the run's.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The new run folder (default: <RUN>-rescore-c<X>-n<Y> beside RUN); RUN is never changed.")
@click.option("--bootstrap", type=click.IntRange(min=2), default=None, help="Default: the run's.")
@click.option("--seed", "bootstrap_seed", type=int, default=None, help="Default: the run's.")
def rescore_command(run, coherence_stop, novelty_stop, max_answers, mmr_lambda, out, bootstrap, bootstrap_seed):
    """Re-score AidanBench run RUN at new thresholds from its stored judge scores and
    novelties, with no model call; writes a new run folder (docs/aidanbench.md)."""
    result = api.rescore_aidanbench(run, out, coherence_stop=coherence_stop, novelty_stop=novelty_stop,
                                    max_answers=max_answers, mmr_lambda=mmr_lambda, bootstrap=bootstrap,
                                    bootstrap_seed=bootstrap_seed)
    r = result.rule
    click.echo(f"re-scored {result.source} at coherence stop {r.coherence_stop:g}, novelty stop {r.novelty_stop:g}, "
               f"max answers {r.max_answers}, lambda {r.mmr_lambda:g}")
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
        click.echo(report.aidan_change(result.original[name], result.totals[name]))
    if result.unfinished:
        click.echo(f"{result.unfinished} questions the run had not ended were left out")
    click.echo(f"model calls 0; {result.seconds:.1f}s; run folder {result.run}")
