"""``neocoder framework`` (divergent and convergent creativity on a domain),
``neocoder framework validate`` (the judge against ground truth) and ``neocoder
framework diversity RUN`` (entropy against diversity baselines): docs/framework.md."""

from __future__ import annotations

import json
from pathlib import Path

import click

from neocoder.api import run as run_task
from neocoder.benchmarks.framework.config import FrameworkConfig, ValidateConfig
from neocoder.cli import main
from neocoder.cli.options import model_options, role_model, run_dir, run_options
from neocoder.config import ModelConfig


def _number(block: dict | None) -> str:
    if block and block.get("unreadable"):
        return "unreadable (most of its judge replies could not be read: no number)"
    if not block or block.get("value") is None:
        return "-"
    ci = f" [{block['low']:.3f}, {block['high']:.3f}]" if "low" in block else ""
    return f"{block['value']:.3f}{ci} (n={block.get('n')})"


def _replies(summary: dict | None) -> str:
    """A role's or criterion's replies, e.g. "3 of 4 replies readable, 1 unreadable (1 x echo)"."""
    if not summary or not summary.get("replies"):
        return "no replies"
    why = ", ".join(f"{n} x {r}" for r, n in (summary.get("reasons") or {}).items())
    return (f"{summary['readable']} of {summary['replies']} replies readable, {summary['unreadable']} unreadable"
            + (f" ({why})" if why else ""))


def _outcome(o: dict | None) -> str:
    """The run's solutions: judged, unreadable, in error (metrics ``outcome``)."""
    if not o:
        return ""
    return (f"{o['items']} solutions: {o['judged']} judged, {o['unreadable']} unreadable, "
            f"{o['errors']} in error")


def _cost(cost: dict) -> str:
    """A judge's mean calls and tokens, e.g. "9.0 calls, 19,993 input and 839 output tokens"."""
    return (f"{cost['calls']:.1f} calls, {cost['prompt_tokens']:,.0f} input and "
            f"{cost['completion_tokens']:,.0f} output tokens")


def _ratio(ratio: dict) -> str:
    """The retrieval judge's tokens and calls over ChatEval's (metrics ``token_ratio.ratio``)."""
    return (f"input {ratio['prompt_tokens']:.2f}, output {ratio['completion_tokens']:.2f}, "
            f"all tokens {ratio['total_tokens']:.2f}, calls {ratio['calls']:.2f}")


@main.group("framework", invoke_without_command=True, subcommand_metavar="[validate | diversity RUN]")
@model_options(FrameworkConfig, required=False,
               model_help="Generator (PROVIDER/NAME).  Required unless a subcommand is given.")
@click.option("--judge", "judge_spec", default=None, help="The judge model (PROVIDER/NAME; default: --model); it "
              "shares the model options but for its own --judge-temperature, --judge-max-tokens, ...")
@run_options(FrameworkConfig, "judge", "runs/framework/<domain>/<model>", sandbox=True)
@click.pass_context
def framework_command(ctx, model, judge_spec, judge_generation, declared, sandbox, out, quiet):
    """Step-wise semantic entropy (divergent) and the retrieval-based multi-agent judge
    (convergent) on MacGyver, HypoGen, BookMIA or code (docs/framework.md)."""
    if ctx.invoked_subcommand is not None:
        return
    if model is None:
        raise click.UsageError("--model is required (or give a subcommand: validate, diversity RUN)")
    judge = role_model(model, judge_spec or model.spec, judge_generation)
    config = FrameworkConfig(model=model, judge=judge, sandbox=sandbox, progress=not quiet,
                             out=out or run_dir(model.spec, "framework", declared["domain"]), **declared)
    result = run_task("framework", config)
    m = result["metrics"]
    click.echo(f"domain {m['domain']}: {m['problems']} problems, {m['steps']} steps; classes by {m['entailment']}")
    for agg, block in m["divergent"].items():
        click.echo(f"divergent ({agg} of step entropies, nats): {_number(block)}")
    for name, judged in m["judges"].items():
        for criterion, block in judged["yes"].items():
            click.echo(f"{name} judge, {criterion}: share YES {_number(block)}; verdicts: "
                       f"{_replies((judged.get('unreadable') or {}).get(criterion))}")
        click.echo(f"{name} judge, overall (mean of the criteria): {_number(judged['overall'])}")
        click.echo(f"{name} judge per solution: {_cost(judged['cost_per_solution'])}")
    for role, summary in (m.get("unreadable") or {}).items():
        click.echo(f"{role}: {_replies(summary)}")
    if m.get("outcome"):
        click.echo(_outcome(m["outcome"]))
    if "token_ratio" in m:
        click.echo(f"tokens retrieval / ChatEval: {_ratio(m['token_ratio']['ratio'])}")
    if "sandbox" in m:
        click.echo("sandbox: " + ", ".join(f"{k} {_number(v)}" for k, v in m["sandbox"].items()))
    click.echo(f"model calls {result['calls']['calls_made']} made, {result['calls']['cache_hits']} cache hits; "
               f"{result['seconds']:.0f}s; run folder {result['run']}; `neocoder report {result['run']}`")


@framework_command.command("validate")
@click.option("--judge", "judge_spec", required=True, help="The judge model (PROVIDER/NAME).")
@run_options(ValidateConfig, "judge", "runs/framework-validate/<against>/<judge>", sandbox=True)
def validate_command(judge_spec, judge_generation, declared, sandbox, out, quiet):
    """The judge against MacGyver's human annotations or the sandbox's verdicts: accuracy
    and AUARC with 95% intervals (docs/framework.md)."""
    config = ValidateConfig(judge=ModelConfig(judge_spec, **judge_generation), sandbox=sandbox, progress=not quiet,
                            out=out or run_dir(judge_spec, "framework-validate", declared["against"]), **declared)
    m = run_task("framework-validate", config)
    share = "-" if m["correct_share"] is None else f"{m['correct_share']:.3f}"
    click.echo(f"against {m['against']}: {m['pairs']} solutions, {share} of them correct")
    for name, block in m["judges"].items():
        said = "-" if block["said_correct"] is None else f"{block['said_correct']:.3f}"
        click.echo(f"{name}: accuracy {_number(block['accuracy'])}; AUARC {_number(block['auarc'])}; "
                   f"said correct {said}; {block['set_aside']} solutions set aside for an unreadable verdict; "
                   f"per pair {_cost(block['cost_per_pair'])}")
        for criterion, summary in (block.get("unreadable") or {}).items():
            click.echo(f"{name} judge, {criterion}: {_replies(summary)}, {summary['unreadable']} set aside")
    for role, summary in (m.get("unreadable") or {}).items():
        click.echo(f"{role}: {_replies(summary)}")
    if m.get("outcome"):
        click.echo(_outcome(m["outcome"]))
    if "token_ratio" in m:
        click.echo(f"tokens retrieval / ChatEval: {_ratio(m['token_ratio']['ratio'])}")


@framework_command.command("diversity")
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--embedder", default=FrameworkConfig.embedder, show_default=True, help="Sentence embeddings.")
def diversity_command(run, embedder):
    """Step entropy of framework run RUN against average cosine, self-BLEU and distinct-n
    (Spearman with 95% intervals)."""
    from neocoder.benchmarks.framework.diversity import entropy_vs_diversity
    from neocoder.models.embedders import get_embedder
    out = entropy_vs_diversity(run, get_embedder(embedder))
    click.echo(json.dumps(out, indent=1))
