"""``neocoder eval`` and ``neocoder detect``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from neocoder import api
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.cli import main
from neocoder.cli.declared import declared_options, secret_option
from neocoder.cli.options import (
    extensions_help,
    language_option,
    model_options,
    quiet_option,
    release_option,
    run_dir,
    sandbox_options,
)
from neocoder.report import text as report


@main.command("eval")
@model_options(EvalConfig, model_help="PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/gpt-4-1106-preview, "
               "replay/<run folder>; or 'human' for the human baselines (Eq. 5, 6).")
@declared_options(EvalConfig, "declared")
# this machine's work, not a server's
@declared_options(EvalConfig, "local_declared", only=["execution_classes", "shard"])
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/<model>); an existing one is resumed.")
@release_option()
@click.option("--server", default=None, envvar="NEOCODER_SERVER",
              help="Run the evaluation as a job on this `neocoder serve` URL (or $NEOCODER_SERVER); the run "
                   "folder stays on the server.")
@secret_option("--token", default=None, envvar="NEOCODER_TOKEN",
               help="The server's bearer token (or $NEOCODER_TOKEN); never written or shown.")
@quiet_option
@sandbox_options
def eval_command(model, declared, local_declared, out, release, server, token, quiet, sandbox):
    """Evaluate a model on NeoCoder: every solution judged in the Docker sandbox."""
    strategy = declared["strategy"]
    config = EvalConfig(model=model, out=out or run_dir(model.spec + ('' if strategy == 'direct' else '-' + strategy)),
                        release_dir=release, sandbox=sandbox, progress=not quiet, **declared, **local_declared)
    if server and config.execution_classes:
        raise click.UsageError("--execution-classes runs on this machine only: a server does not offer it")
    if server and config.shard:
        raise click.UsageError("--shard splits a run over this machine's driver processes: a server runs its "
                               "jobs whole")
    if server:
        from neocoder.client import Client
        remote = Client(server, token).evaluate(config)
        click.echo(report.eval_table(remote.metrics))
        click.echo(f"wall time {remote.seconds:.1f}s; job {remote.job['id']} on {server}; report {remote.report_url}")
        return
    result = api.evaluate(config)
    if result.metrics is None:  # one part of a sharded run: the whole run is scored without --shard
        click.echo(f"part {config.shard} of the run done in {result.seconds:.1f}s ({result.run}); once every part is "
                   "done, the same command without --shard writes the metrics of the whole run (nothing is judged "
                   "again)")
        return
    from neocoder.records import Sample
    from neocoder.store import RunFolder
    samples = RunFolder(result.run, create=False).read(Sample)  # the k of best@k is the run's own
    click.echo(report.eval_table(result.metrics, samples))
    click.echo(f"wall time {result.seconds:.1f}s; run folder {result.run}; look at it with "
               f"`neocoder report {result.run}` or `neocoder compare {result.run} OTHER_RUN`")


@main.command("detect")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@language_option(f"Default: by FILE's extension ({extensions_help()}), else guessed from its text, as auto always is.",
                 extra=("auto",))
@click.option("--agreement", "labels", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Compare with reference labels shaped like the release's human_solution_techniques.json.")
@release_option()
@click.option("--min-support", type=click.IntRange(min=1), default=20, show_default=True,
              help="Techniques in the macro F1 need at least this support.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@model_options(required=False, model_help="Chat model for --detector llm (PROVIDER/NAME; default 200 tokens a reply).")
def detect_command(file, language, labels, release, min_support, as_json, detector, model):
    """Detect techniques in FILE, or measure agreement with reference labels."""
    from neocoder.techniques.agreement import agreement
    if labels is None and file is None:
        raise click.UsageError("give a FILE or --agreement LABELS.json")
    with api.open_detector(detector, model) as find:
        if labels is not None:
            result = agreement(labels, release, min_support=min_support, detector=find.detect)
            click.echo(json.dumps(result, indent=2) if as_json else report.agreement_table(result, min_support))
        else:
            found = api.detect_file(file, language or api.language_of(file) or "auto", find.detect)
            click.echo(json.dumps(found) if as_json else
                       f"{file} ({found['language']}): {', '.join(found['techniques']) or 'no techniques'}")
    if find.dropped:
        click.echo(f"{find.dropped} labels outside the taxonomy were dropped", err=True)
