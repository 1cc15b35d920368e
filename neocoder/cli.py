"""The ``neocoder`` command line: parse options, build a config, call the library, print.

Every command is a thin shell around one function of ``neocoder.api`` (or of the stage
module it names).  The shared options are declared once (``model_options``,
``sandbox_options``, ``release_option``) and arrive in the command as one config
object.  A NeocoderError from anywhere becomes one message and exit status 1, in one
place (``Main.invoke``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from pathlib import Path

import click

from . import api
from .report import text as report
from .config import AidanConfig, ChainConfig, DatasetConfig, EvalConfig, ModelConfig, SandboxConfig
from .dataset import default_release_dir
from .errors import NeocoderError

MODEL_FIELDS = ("base_url", "api_key", "api", "temperature", "max_tokens", "timeout", "max_retries")


def parse_states(text: str) -> list[int]:
    """'0-5' -> [0..5]; '0,2,4' -> [0, 2, 4]; raises click.BadParameter otherwise."""
    states: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise click.BadParameter(f"{text!r}: use a range like 0-5 or a list like 0,2,4")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise click.BadParameter(f"{text!r}: empty range")
        states.update(range(lo, hi + 1))
    return sorted(states)


def _run_dir(spec: str, *parts: str) -> Path:
    """The default run folder of a model: runs/[parts/]<spec with / and odd characters as _>."""
    return Path("runs", *parts, re.sub(r"[^A-Za-z0-9._-]+", "_", spec))


def _apply(options, f):
    for option in reversed(options):
        f = option(f)
    return f


def model_options(temperature: float = 0.0, max_tokens: int = 1024, required: bool = True,
                  model_help: str = "PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/<source>."):
    """``--model`` and how to call it, handed to the command as ``model: ModelConfig``
    (None when ``--model`` is optional and not given)."""
    options = [
        click.option("--model", "model_spec", required=required, default=None, help=model_help),
        click.option("--base-url", default=None, help="OpenAI-compatible endpoint (or $OPENAI_BASE_URL)."),
        click.option("--api-key", default=None, help="API key (or $OPENAI_API_KEY); never written to a run."),
        click.option("--api", type=click.Choice(["chat", "completion"]), default=None,
                     help="Chat or completions API (default: chat; completion for local base models)."),
        click.option("--temperature", type=float, default=temperature, show_default=True),
        click.option("--max-tokens", type=click.IntRange(min=1), default=max_tokens, show_default=True),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=None, help="Seconds per model call."),
        click.option("--max-retries", type=click.IntRange(min=0), default=3, show_default=True,
                     help="Retries with backoff on 429, 5xx and timeouts (the openai SDK's own)."),
    ]

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, model_spec, **kw):
            fields = {name: kw.pop(name) for name in MODEL_FIELDS}
            return f(*args, model=ModelConfig(model_spec, **fields) if model_spec else None, **kw)
        return _apply(options, wrapper)
    return decorate


def sandbox_options(f):
    """``--sandbox --fresh --runtime --workers``, handed to the command as ``sandbox: SandboxConfig``."""
    options = [
        click.option("--sandbox", "sandbox_kind", type=click.Choice(["docker", "process"]), default="docker",
                     show_default=True, help="docker (strong isolation) or process (weaker: no Docker needed; "
                     "see docs/sandbox.md)."),
        click.option("--fresh", is_flag=True, help="A new container per submission instead of the warm pool."),
        click.option("--runtime", default=None, help="Docker runtime, e.g. runsc where gVisor is installed."),
        click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
                     help="Submissions judged at once."),
    ]

    @functools.wraps(f)
    def wrapper(*args, sandbox_kind, fresh, runtime, workers, **kw):
        return f(*args, sandbox=SandboxConfig(sandbox_kind, fresh, runtime, workers), **kw)
    return _apply(options, wrapper)


def release_option(name: str = "--release"):
    return click.option(name, "release", type=click.Path(file_okay=False, path_type=Path),
                        envvar="NEOCODER_RELEASE", default=default_release_dir, show_default=False,
                        help="NeoCoder release folder (default: $NEOCODER_RELEASE, else ../shared/neocoder).")


quiet_option = click.option("--quiet", is_flag=True, help="No progress bar.")


def bootstrap_options(unit: str):
    """``--bootstrap N --seed S``: the resamples and seed of the intervals (neocoder/bootstrap.py)."""
    return lambda f: _apply([
        click.option("--bootstrap", type=click.IntRange(min=2), default=2000, show_default=True,
                     help=f"Bootstrap resamples of {unit}s for the 95% intervals."),
        click.option("--seed", "bootstrap_seed", type=int, default=0, show_default=True,
                     help="Seed of the bootstrap resampling (the same seed gives the same intervals)."),
    ], f)
limit_option = click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N items.")


class Main(click.Group):
    """The command group; the one place a NeocoderError becomes a message."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except NeocoderError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=Main)
@click.version_option(package_name="neocoder")
def main():
    """NeoCoder: sandboxed benchmarks of language-model creativity."""


@main.command("build-dataset")
@release_option("--from-release")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("data/codeforces/neocoder"),
              show_default=True, help="Run folder for the dataset (records.jsonl holds the problem states).")
@click.option("--oracle/--no-oracle", default=True, show_default=True,
              help="Validate the examples with the accepted human Python solutions in the sandbox and add "
                   "extended tests (neocoder/oracle.py); --no-oracle only converts the release.")
@click.option("--extended", type=click.IntRange(min=0), default=20, show_default=True,
              help="Mutated candidate inputs per problem (kept only where the humans agree).")
@click.option("--label-humans", type=click.IntRange(min=5), default=10, show_default=True,
              help="Human solutions that label each extended test (all must agree).")
@limit_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the input mutations / chains.")
@model_options(required=False, model_help="Build constraint chains by Denial Prompting with this augmentation "
               "model (PROVIDER/NAME) instead of converting the release.")
@click.option("--problems", "problems_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Raw problems JSONL for --model (default: the release's crawl).")
@click.option("--rounds", type=click.IntRange(min=0), default=5, show_default=True, help="Denial Prompting rounds.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Problems in flight at once (--model).")
@quiet_option
@sandbox_options
def build_dataset(release, out, oracle, extended, label_humans, limit, seed, model, problems_path, rounds,
                  detector, concurrency, quiet, sandbox):
    """Write one problem-state record per (problem, state t), from the release or by Denial Prompting."""
    if model is not None:
        return _build_chains(ChainConfig(model, release, out, problems_path, limit, rounds, seed, detector,
                                         concurrency, sandbox, progress=not quiet))
    result = api.build_dataset(DatasetConfig(release, out, oracle, extended, label_humans, limit, seed, sandbox,
                                             progress=not quiet))
    if result.oracle is not None:
        click.echo(report.oracle_summary(result.oracle, result.seconds))
    click.echo(f"wrote {len(result.states)} problem states of {len({s.problem_id for s in result.states})} "
               f"problems to {result.run}")
    click.echo(report.states_per_t(result.states))
    click.echo("tests taken from: " + ", ".join(f"{k}: {v} states" for k, v in sorted(result.report.tests_from.items())))
    for skip in result.report.skips:
        click.echo(f"skipped {skip}", err=True)


def _build_chains(config: ChainConfig) -> None:
    """build-dataset --model: Denial Prompting chains (neocoder/denial.py)."""
    result = api.build_chains(config)
    calls = result.calls
    click.echo(f"wrote {len(result.states)} problem states of {len({s.problem_id for s in result.states})} "
               f"problems to {result.run} in {result.seconds:.0f}s")
    click.echo(report.states_per_t(result.states))
    click.echo(f"augmentation solutions accepted: {sum(s.extra['augmentation']['accepted'] for s in result.states)} "
               f"of {len(result.states)} states")
    click.echo(f"model calls: {calls['calls_made']} made, {calls['cache_hits']} cache hits; tokens: "
               f"{calls['prompt_tokens']} prompt, {calls['completion_tokens']} completion")
    for pid, why in result.failed.items():
        click.echo(f"failed {pid}: {why} (rerun to resume from the call cache)", err=True)
    if result.failed:
        sys.exit(1)


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
              help="Samples per problem state.")
@click.option("--cpu-scale", type=float, default=1.0, show_default=True,
              help="Multiply each problem's time limit by this for the CPU-time limit per test.")
@click.option("--judge-all-tests", is_flag=True, help="Judge every test of every sample (default: a sample stops "
              "at its first failing test and runs the extended tests only when every example passed; no rate "
              "changes).")
@bootstrap_options("problem")
@click.option("--server", default=None, envvar="NEOCODER_SERVER",
              help="Run the evaluation as a job on this `neocoder serve` URL (or $NEOCODER_SERVER); the run "
                   "folder stays on the server.")
@click.option("--token", default=None, envvar="NEOCODER_TOKEN", help="The server's bearer token (or $NEOCODER_TOKEN).")
@quiet_option
@sandbox_options
def eval_command(model, states_text, limit, out, dataset, release, samples, cpu_scale, judge_all_tests, bootstrap,
                 bootstrap_seed, server, token, quiet, sandbox):
    """Evaluate a model on NeoCoder: every solution judged in the Docker sandbox."""
    dataset = dataset if dataset in (None, "release") else Path(dataset)
    config = EvalConfig(model=model, out=out or _run_dir(model.spec), release_dir=release, dataset=dataset,
                        states=parse_states(states_text), limit=limit, samples=samples, cpu_scale=cpu_scale,
                        sandbox=sandbox, bootstrap=bootstrap, bootstrap_seed=bootstrap_seed,
                        judge_all_tests=judge_all_tests, progress=not quiet)
    if server:
        from .client import Client
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
    from .techniques.agreement import agreement
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


@main.group()
def sandbox():
    """Build the sandbox image; run a program in it."""


@sandbox.command("build")
@click.option("--rebuild-base", is_flag=True, help="Debootstrap the Debian base again.")
def sandbox_build(rebuild_base):
    """Build the sandbox image offline (debootstrap from the machine's apt mirror)."""
    from .judge import build_image
    click.echo(build_image(rebuild_base=rebuild_base, log=lambda m: click.echo(m, err=True)))


@sandbox.command("selftest")
@sandbox_options
def sandbox_selftest(sandbox):
    """Run the sandbox regression corpus (attacks and known-good programs); print a table."""
    from .judge.selftest import format_outcomes, run_selftest
    os.environ["NEOCODER_SELFTEST_SECRET"] = "must-not-leak"  # the corpus checks it stays outside
    with api.open_sandbox(sandbox, concurrency=1) as box:
        outcomes = run_selftest(box, progress=lambda o: click.echo(f"  {o.case.name}: {o.verdict}", err=True))
    click.echo(format_outcomes(outcomes))
    if not all(o.passed for o in outcomes):
        sys.exit(1)


@sandbox.command("run")
@click.argument("program", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--tests", "tests_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help='JSONL, one {"input": ..., "output": ...} per line.')
@click.option("--cpu-seconds", type=float, default=2.0, show_default=True)
@click.option("--memory-mb", type=int, default=256, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@sandbox_options
def sandbox_run(program, tests_path, cpu_seconds, memory_mb, as_json, sandbox):
    """Judge PROGRAM on TESTS in the sandbox."""
    result = api.run_program(program, tests_path, cpu_seconds, memory_mb, sandbox)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    for i, t in enumerate([] if as_json else result.tests):
        click.echo(f"test {i}: {t.verdict}  cpu {t.cpu_seconds}s  {t.detail or ''}")


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
        model, judge, out or _run_dir(model.spec, "aidanbench"), embedder, questions_path, limit, max_answers,
        coherence_stop, novelty_stop, llm_similarity, judge_retries, concurrency, bootstrap, bootstrap_seed,
        progress=not quiet))
    for name, results in result.results.items():
        click.echo(f"model: {name}\n" + report.aidan_table(results, result.totals[name]))
    click.echo(f"embedded {result.embedded} texts; model calls {result.calls['calls_made']} made, "
               f"{result.calls['cache_hits']} cache hits; {result.seconds:.0f}s; run folder {result.run}; look at it "
               f"with `neocoder report {result.run}`")


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Programs judged at once (the server's sandbox, and each eval job's).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Eval jobs run at once.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("serve-data"),
              show_default=True, help="The job store, the jobs' run folders and their reports.")
@click.option("--database-url", envvar="NEOCODER_DATABASE_URL", default=None,
              help="Job store as a SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in "
                   "--data-dir).")
@click.option("--dataset", default=None, help="What /v1/score judges on and the jobs' default: 'release', a "
              "problem-states file or folder (default: the validated dataset, built per problem on first use).")
@release_option()
@click.option("--sandbox", "sandbox_kind", type=click.Choice(["docker", "process"]), default="docker",
              show_default=True)
@click.option("--tokens-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Bearer tokens, one per line (also $NEOCODER_SERVE_TOKENS).")
@click.option("--no-auth", is_flag=True, help="No tokens: only on a loopback --host.")
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=2 << 20, show_default=True)
@click.option("--max-program-bytes", type=click.IntRange(min=1), default=64 << 10, show_default=True)
@click.option("--max-tests", type=click.IntRange(min=1), default=256, show_default=True, help="Tests per /v1/run.")
@click.option("--per-token-concurrency", "per_token", type=click.IntRange(min=1), default=16, show_default=True,
              help="Judge requests of one token in flight (judging or queued) before 429.")
@click.option("--queue", type=click.IntRange(min=0), default=64, show_default=True,
              help="Judge requests waiting for a slot, all tokens together, before 429.")
@click.option("--max-jobs", type=click.IntRange(min=1), default=32, show_default=True,
              help="Eval jobs queued or running before POST /v1/evals answers 429.")
@click.option("--jobs-per-token", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--shutdown-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              help="Seconds SIGTERM waits for requests and jobs in flight.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
def serve_command(host, port, workers, jobs, data_dir, database_url, dataset, release, sandbox_kind, tokens_file,
                  no_auth, max_body_bytes, max_program_bytes, max_tests, per_token, queue, max_jobs, jobs_per_token,
                  shutdown_timeout, log_level):
    """Serve NeoCoder over HTTP: judge programs, score replies, run evals as jobs (docs/serve.md)."""
    from .serve import ServeConfig, serve
    serve(ServeConfig(release, host, port, workers, jobs, data_dir, database_url, dataset, sandbox_kind, tokens_file,
                      no_auth, max_body_bytes, max_program_bytes, max_tests, per_token, queue, max_jobs,
                      jobs_per_token, shutdown_timeout, log_level))


@main.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "csv", "json"]), default="table",
              show_default=True)
@click.option("--published", "published", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              multiple=True, help="Published reference figures (JSON, see neocoder/report/compare.py), shown as "
              "published and not re-measured.")
@bootstrap_options("shared problem")
def compare_command(runs, fmt, published, bootstrap, bootstrap_seed):
    """NeoCoder runs side by side per state and metric, with paired differences against the first."""
    from .report.compare import compare, load_published, load_run, render
    scores = [load_run(r) for r in runs] + [load_published(p) for p in published]
    click.echo(render(compare(scores, bootstrap, bootstrap_seed), fmt))


@main.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("report"), show_default=True,
              help="Folder for the static HTML report (index.html).")
def report_command(runs, out):
    """A static, offline HTML report of one or more run folders (NeoCoder, human baselines, AidanBench)."""
    from .report.html import build_report
    click.echo(f"report: {build_report(list(runs), out)}")


@main.command("upgrade-run")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def upgrade_run(folder):
    """Convert a run folder written before record format 2 (samples.jsonl or answers.jsonl)."""
    from .upgrade import upgrade_run_folder
    click.echo(upgrade_run_folder(folder))


if __name__ == "__main__":
    main()
