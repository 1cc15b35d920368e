"""``neocoder suite``: every benchmark for one model into one run folder, and its
creativity profile (neocoder/suite/, docs/leaderboard.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import model_options, quiet_option, release_option, role_model, run_dir, sandbox_options
from neocoder.suite.config import SuiteConfig


@main.command("suite")
@model_options(model_help="The model profiled: openai/<name>, local/gemma-3-270m, replay/gpt-4-1106-preview "
               "(recorded NeoCoder answers; --stand-in answers the other benchmarks).")
@click.option("--judge", "judge_specs", multiple=True, metavar="PROVIDER/NAME",
              help="A judge (repeatable): AidanBench's coherence judge is the first, LiveIdeaBench's panel all of "
                   "them. Judges share the model options (--base-url ...) at temperature 0.")
@click.option("--stand-in", "stand_in_spec", default=None, metavar="PROVIDER/NAME",
              help="Answers the benchmarks a replay --model has no recordings for (shares the model options).")
@declared_options(SuiteConfig, "declared")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/suite/<model>); an existing one is resumed.")
@release_option()
@sandbox_options
@quiet_option
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON (profile.json's content).")
def suite_command(model, judge_specs, stand_in_spec, declared, out, release, sandbox, quiet, as_json):
    """Every benchmark for one model, in one resumable run folder with one manifest and
    one call cache; prints the creativity profile (profile.json, profile.svg)."""
    from neocoder.runner import run
    from neocoder.suite.task import SuiteTask
    judges = [role_model(model, s, {}) for s in judge_specs]  # each benchmark's own judge defaults
    stand_in = model.with_(spec=stand_in_spec) if stand_in_spec else None
    config = SuiteConfig(model=model, out=out or run_dir(model.spec, "suite"), release_dir=release, judges=judges,
                         stand_in=stand_in, sandbox=sandbox, progress=not quiet, **declared)
    profile = run(SuiteTask(config))
    if as_json:
        click.echo(json.dumps(profile, indent=1))
        return
    click.echo(profile_text(profile))
    click.echo(f"run folder {config.out}; profile {Path(config.out) / 'profile.json'}; "
               f"figure {Path(config.out) / 'profile.svg'}")


def profile_text(profile: dict) -> str:
    """The profile as a plain table: benchmark, measure, kind, value [95% interval]."""
    lines = [f"creativity profile of {profile['model']} (no composite: each measure on its own scale)"]
    for name, bench in profile["benchmarks"].items():
        if bench["skipped"]:
            lines.append(f"  {name}: left out: {bench['skipped']}")
            continue
        who = f" (answered by stand-in {bench['model']})" if bench["stand_in"] else ""
        lines.append(f"  {bench['title']}{who}")
        if bench.get("lost"):
            lines.append(f"    LOST ITEMS: {bench['lost']}")
        lines += [f"    {line}" for line in outcome_lines(bench)]
        for m in bench["measures"]:
            lines.append(f"    {m['label']:<34} {m['kind']:<10} {fmt(m)}")
    return "\n".join(lines + [calls_line(profile.get("calls") or {})])


def calls_line(calls: dict) -> str:
    """The run's model calls (models/cache.py ``CallCache.stats``) as one sentence: calls
    made and answered from the cache, tokens of the calls made (prompt, completion, and the
    reasoning part of the completion where a model reported any)."""
    made, hits = calls.get("calls_made", 0), calls.get("cache_hits", 0)
    line = f"model calls: {made} made, {hits} answered from the call cache"
    if made:
        line += f"; tokens: {calls.get('prompt_tokens', 0)} prompt, {calls.get('completion_tokens', 0)} completion"
        if calls.get("reasoning_tokens"):
            line += f" ({calls['reasoning_tokens']} of them reasoning)"
    return line


def outcome_lines(bench: dict) -> list[str]:
    """A benchmark's items (judged, unreadable, in error) and its judge replies that could
    not be read, by reason; none for a run that records no outcome."""
    o, u = bench.get("outcome"), bench.get("unreadable")
    lines = []
    if o:
        lines.append(f"{o['judged']} of {o['items']} {o['unit']}s judged, {o['unreadable']} unreadable, "
                     f"{o['errors']} in error")
    if u and u["replies"]:
        why = ", ".join(f"{n} {r}" for r, n in u["reasons"].items())
        lines.append(f"judge replies unreadable: {u['unreadable']} of {u['replies']}" + (f" ({why})" if why else ""))
    return lines


def fmt(m: dict) -> str:
    """``value [low, high]`` with 3 significant digits; '-' where not measured, "unreadable"
    where the judge replies were mostly unreadable."""
    if m.get("unreadable"):
        return "unreadable (most judge replies could not be read)"
    if m["value"] is None:
        return "-"
    ci = f" [{m['low']:.3g}, {m['high']:.3g}]" if m["low"] is not None and m["high"] is not None else ""
    return f"{m['value']:.3g}{ci}"
