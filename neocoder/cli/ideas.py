"""``neocoder ideas`` (LiveIdeaBench) and ``neocoder ideas-analyse`` (the paper's analyses)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import click

from neocoder import api
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.cli import main
from neocoder.cli.options import model_options, role_model, run_dir, run_options
from neocoder.errors import NeocoderError


def _panel(model, judges_text, judge_generation, declared):
    """The judges' ModelConfigs and seat names, from --judges, --panel, or (--protocol
    official) the shipped panel of the authors' critics; the panel file's path (or None).
    Each judge shares the model's endpoint options and takes the judges' own options
    (``judge_generation``; None: IdeasConfig's default for the protocol's judges)."""
    from neocoder.benchmarks.ideas.config import OFFICIAL
    from neocoder.benchmarks.ideas.panel import parse_judges
    from neocoder.benchmarks.ideas.panel_file import default_panel_path, judge_configs, load_panel
    shared = role_model(model, model.spec, judge_generation)
    panel = declared.get("panel")
    if judges_text:
        if panel is not None:
            raise click.UsageError("give --judges or --panel, not both")
        try:
            seats = parse_judges(judges_text)
        except NeocoderError as exc:
            raise click.BadParameter(str(exc), param_hint="--judges") from exc
        return [shared.with_(spec=s.spec) for s in seats], [s.name for s in seats], None
    if panel is None and declared.get("protocol") == OFFICIAL:
        panel = default_panel_path()
    if panel is None:
        return [], None, None
    entries = load_panel(panel)
    parse_judges(",".join(f"{e.name}={e.spec}" for e in entries), option=str(panel))
    return judge_configs(entries, shared), [e.name for e in entries], panel


@main.command("ideas")
@model_options(IdeasConfig, model_help="Idea model: openai/<name>, local/gemma-3-270m, or "
               "replay/<ideas run folder or ideas.jsonl> to judge recorded ideas again (every model in it).")
@click.option("--judges", "judges_text", default=None,
              help="The judge panel, comma-separated [NAME=]PROVIDER/NAME entries; NAME gives one model several "
                   "seats (a=local/gemma-3-270m,b=local/gemma-3-270m). A seat of the idea model's spec never "
                   "judges. Judges share the model options (--base-url ...) but for their own --judge-temperature, "
                   "--judge-max-tokens, --judge-reasoning. Or a panel file: --panel.")
@run_options(IdeasConfig, "judges", "runs/ideas/<model>")
def ideas_command(model, judges_text, judge_generation, declared, out, quiet):
    """LiveIdeaBench: ideas from keywords, scored by a judge panel; fluency and flexibility."""
    from neocoder.benchmarks.ideas.task import UnreadableMeasures

    judges, names, panel = _panel(model, judges_text, judge_generation, declared)
    declared = {**declared, "panel": panel}
    try:
        result = api.run_ideas(IdeasConfig(model=model, judges=judges, out=out or run_dir(model.spec, "ideas"),
                                           judge_names=names, progress=not quiet, **declared))
    except UnreadableMeasures as exc:  # the tables first, those measures printed as unreadable; then the line
        _print(exc.result, declared)
        raise click.ClickException(str(exc)) from exc
    _print(result, declared)


def _print(result, declared: dict) -> None:
    """The run's tables (``report.ideas``): per model its counts and scores, the run beside
    the published leaderboard, the calls and the run folder."""
    from neocoder.report.ideas import ideas_table, leaderboard_comparison
    for name, summary in result.models.items():
        click.echo(ideas_table(name, summary))
        click.echo("")
    click.echo(leaderboard_comparison(result.models, protocols={n: declared["protocol"] for n in result.models}))
    click.echo(f"model calls {result.calls['calls_made']} made, {result.calls['cache_hits']} cache hits; "
               f"{result.seconds:.0f}s; run folder {result.run}; look at it with `neocoder report {result.run}`")


@main.command("ideas-analyse")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--published/--no-published", default=False,
              help="Add the published December 2024 leaderboard's models to the model-level analyses.")
@click.option("--liveideabench", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="The LiveIdeaBench clone whose csvs/ and results/ are read (default: $LIVEIDEABENCH_REPO).")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write the HTML report of RUNS, with the analyses and their plots, into this folder.")
def ideas_analyse_command(runs, published, liveideabench, report_dir):
    """LiveIdeaBench's analyses over ideas runs: LiveBench correlation, length against quality,
    per discipline, the originality/feasibility Pareto front."""
    from neocoder.benchmarks.ideas.analyses import analyse
    from neocoder.report.ideas import analyses_text

    try:
        result = analyse(list(runs), clone=liveideabench, published=published)
    except NeocoderError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(analyses_text(result))
    if report_dir is not None:
        from neocoder.report.html import build_report
        with _clone_env(liveideabench):  # the report's section finds the clone there (sections/liveideabench.py)
            index = build_report(list(runs), report_dir)
        click.echo(f"report: {index}")


@contextmanager
def _clone_env(path: Path | None):
    """``$LIVEIDEABENCH_REPO`` set to ``path`` (when given) for the block, restored after."""
    old = os.environ.get("LIVEIDEABENCH_REPO")
    if path is not None:
        os.environ["LIVEIDEABENCH_REPO"] = str(Path(path).resolve())
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("LIVEIDEABENCH_REPO", None)
        else:
            os.environ["LIVEIDEABENCH_REPO"] = old
