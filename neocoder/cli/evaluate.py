"""``neocoder eval`` and ``neocoder detect``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .. import api
from ..config import EvalConfig
from ..report import text as report
from . import main
from .options import (run_dir, bootstrap_options, limit_option, model_options, parse_states, quiet_option,
                      release_option, sandbox_options)


@main.command("eval")
@model_options(model_help="PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/gpt-4-1106-preview, "
               "replay/<run folder>; or 'human' for the human baselines (Eq. 5, 6).")
@click.option("--states", "states_text", default="0-5", show_default=True, help="States t to evaluate.")
@limit_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/<model>); an existing one is resumed.")
@click.option("--dataset", default=None,
              help="Problem states: a build-dataset run folder or JSONL file, or 'release' for the release's "
                   "statement examples with plain checkers (default: the validated dataset, built on first use "
                   "and cached; see docs/dataset.md).")
@release_option()
@click.option("--samples", type=click.IntRange(min=1), default=1, show_default=True,
              help="Samples per problem state, each with its own seed (pass --temperature): pass@k, best-of-k "
              "NeoGauge and semantic entropy need n >= 2; every test is then judged.")
@click.option("--cpu-scale", type=float, default=1.0, show_default=True,
              help="Multiply each problem's time limit by this for the CPU-time limit per test.")
@click.option("--judge-all-tests", is_flag=True, help="Judge every test of every sample (default: a sample stops "
              "at its first failing test and runs the extended tests only when every example passed; no rate "
              "changes).")
@click.option("--strategy", type=click.Choice(["direct", "self-correct", "self-plan", "mcts", "sample"]),
              default="direct", show_default=True, help="How each sample is solved (docs/strategies.md).")
@click.option("--rounds", type=click.IntRange(min=0), default=3, show_default=True,
              help="self-correct: retries after the first attempt, each with the example tests' feedback.")
@click.option("--rollouts", type=click.IntRange(min=1), default=16, show_default=True,
              help="mcts: rollouts per problem state.")
@click.option("--top-k", type=click.IntRange(min=1), default=3, show_default=True,
              help="mcts: children per expansion (the most likely next tokens).")
@click.option("--best-of", type=click.IntRange(min=1), default=5, show_default=True,
              help="sample: programs drawn per state; the best convergent x divergent is kept.")
@click.option("--logprobs", is_flag=True, help="Ask for the final reply's token log-probabilities: adds the "
              "Rao-Blackwellised semantic entropy (slow on llama-cpp-python, whose logprobs are computed in Python).")
@bootstrap_options("problem")
@click.option("--server", default=None, envvar="NEOCODER_SERVER",
              help="Run the evaluation as a job on this `neocoder serve` URL (or $NEOCODER_SERVER); the run "
                   "folder stays on the server.")
@click.option("--token", default=None, envvar="NEOCODER_TOKEN", help="The server's bearer token (or $NEOCODER_TOKEN).")
@quiet_option
@sandbox_options
def eval_command(model, states_text, limit, out, dataset, release, samples, cpu_scale, judge_all_tests, strategy,
                 rounds, rollouts, top_k, best_of, logprobs, bootstrap, bootstrap_seed, server, token, quiet, sandbox):
    """Evaluate a model on NeoCoder: every solution judged in the Docker sandbox."""
    dataset = dataset if dataset in (None, "release") else Path(dataset)
    config = EvalConfig(model=model, out=out or run_dir(model.spec + ('' if strategy == 'direct' else '-' + strategy)), release_dir=release, dataset=dataset,
                        states=parse_states(states_text), limit=limit, samples=samples, cpu_scale=cpu_scale,
                        sandbox=sandbox, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed,
                        judge_all_tests=judge_all_tests, strategy=strategy, rounds=rounds, rollouts=rollouts,
                        top_k=top_k, best_of=best_of, logprobs=logprobs, progress=not quiet)
    if server:
        from ..client import Client
        remote = Client(server, token).evaluate(config)
        click.echo(report.eval_table(remote.metrics))
        click.echo(f"wall time {remote.seconds:.1f}s; job {remote.job['id']} on {server}; report {remote.report_url}")
        return
    result = api.evaluate(config)
    click.echo(report.eval_table(result.metrics))
    click.echo(f"wall time {result.seconds:.1f}s; run folder {result.run}; look at it with "
               f"`neocoder report {result.run}` or `neocoder compare {result.run} OTHER_RUN`")


@main.command("detect")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--language", type=click.Choice(["python", "cpp", "auto"]), default="auto", show_default=True)
@click.option("--agreement", "labels", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Compare with reference labels shaped like the release's human_solution_techniques.json.")
@release_option()
@click.option("--min-support", type=click.IntRange(min=1), default=20, show_default=True,
              help="Techniques in the macro F1 need at least this support.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@model_options(max_tokens=200, required=False, model_help="Chat model for --detector llm (PROVIDER/NAME).")
def detect_command(file, language, labels, release, min_support, as_json, detector, model):
    """Detect techniques in FILE, or measure agreement with reference labels."""
    from ..techniques.agreement import agreement
    if labels is None and file is None:
        raise click.UsageError("give a FILE or --agreement LABELS.json")
    with api.open_detector(detector, model) as find:
        if labels is not None:
            result = agreement(labels, release, min_support=min_support, detector=find.detect)
            click.echo(json.dumps(result, indent=2) if as_json else report.agreement_table(result, min_support))
        else:
            found = api.detect_file(file, language, find.detect)
            click.echo(json.dumps(found) if as_json else
                       f"{file} ({found['language']}): {', '.join(found['techniques']) or 'no techniques'}")
    if find.dropped:
        click.echo(f"{find.dropped} labels outside the taxonomy were dropped", err=True)
