"""``neocoder aidanbench`` (the loop) and ``neocoder aidanbench rescore RUN`` (new
thresholds from a run's stored scores, no model call)."""

from __future__ import annotations

from pathlib import Path

import click

from neocoder import api
from neocoder.benchmarks.aidanbench.config import AidanConfig, RescoreConfig
from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import model_options, role_model, run_dir, run_options
from neocoder.report import text as report


@main.group("aidanbench", invoke_without_command=True, subcommand_metavar="[rescore RUN ...]")
@model_options(AidanConfig, required=False,
               model_help="Generator: openai/<name>, local/gemma-3-270m, or replay/<answers.jsonl or run folder> "
               "to re-score recorded answers (every model in it).  Required unless a subcommand is given.")
@click.option("--judge", "judge_spec", default=None,
              help="Coherence judge (PROVIDER/NAME), or 'none' to score novelty only; it shares the model options "
                   "(--base-url ...) but for its own --judge-temperature and --judge-max-tokens.  Required with "
                   "--model.")
@run_options(AidanConfig, "judge", "runs/aidanbench/<model>")
@click.pass_context
def aidanbench_command(ctx, model, judge_spec, judge_generation, declared, out, quiet):
    """AidanBench: answers until incoherent or repetitive; counts and novelty per question,
    with the paper's analyses (coherence-gated novelty, MMR_AB) and, with --entailment, the
    semantic entropy of each question's answers (docs/aidanbench.md)."""
    if ctx.invoked_subcommand is not None:
        return
    if model is None or judge_spec is None:
        raise click.UsageError("--model and --judge are required (or give a subcommand: rescore RUN)")
    if declared["entailment"] == "judge" and judge_spec == "none":
        raise click.UsageError("--entailment judge asks the judge: give a --judge model, or use --entailment embedding")
    judge = None if judge_spec == "none" else role_model(model, judge_spec, judge_generation)
    result = api.run_aidanbench(AidanConfig(model=model, judge=judge, out=out or run_dir(model.spec, "aidanbench"),
                                            progress=not quiet, **declared))
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
    click.echo(f"embedded {result.embedded} texts; model calls {result.calls['calls_made']} made, "
               f"{result.calls['cache_hits']} cache hits; {result.seconds:.0f}s; run folder {result.run}; look at it "
               f"with `neocoder report {result.run}`")


@aidanbench_command.command("rescore")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The new run folder (default: <RUN>-rescore-c<X>-n<Y> beside RUN); RUN is never changed.")
@declared_options(RescoreConfig, "declared", exclude=("run",))
def rescore_command(run, out, declared):
    """Re-score AidanBench run RUN at new thresholds from its stored judge scores and
    novelties, with no model call; writes a new run folder (docs/aidanbench.md)."""
    result = api.rescore_aidanbench(run, out, **declared)
    r = result.rule
    click.echo(f"re-scored {result.source} at coherence stop {r.coherence_stop:g}, novelty stop {r.novelty_stop:g}, "
               f"max answers {r.max_answers}, lambda {r.mmr_lambda:g}")
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
        click.echo(report.aidan_change(result.original[name], result.totals[name]))
    if result.unfinished:
        click.echo(f"{result.unfinished} questions the run had not ended were left out")
    click.echo(f"model calls 0; {result.seconds:.1f}s; run folder {result.run}")
