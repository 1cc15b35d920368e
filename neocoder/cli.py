"""The ``neocoder`` command line: parse options, call one function, print."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import click

from .dataset import (DatasetError, build_from_release, default_release_dir, load_states, load_tests,
                      write_states)

RELEASE_HELP = "NeoCoder release folder (default: $NEOCODER_RELEASE, else ../shared/neocoder)."


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


def _release_option(name="--release"):
    return click.option(name, "release", type=click.Path(file_okay=False, path_type=Path),
                        envvar="NEOCODER_RELEASE", default=default_release_dir, show_default=False,
                        help=RELEASE_HELP)


def _sandbox_options(f):
    f = click.option("--sandbox", "sandbox_kind", type=click.Choice(["docker", "process"]), default="docker",
                     show_default=True, help="docker (strong isolation) or process (weaker: no Docker needed; "
                     "see docs/sandbox.md).")(f)
    f = click.option("--fresh", is_flag=True, help="A new container per submission instead of the warm pool.")(f)
    f = click.option("--runtime", default=None, help="Docker runtime, e.g. runsc where gVisor is installed.")(f)
    return f


@click.group()
@click.version_option(package_name="neocoder")
def main():
    """NeoCoder: sandboxed benchmarks of language-model creativity."""


@main.command("build-dataset")
@_release_option("--from-release")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("data/codeforces/neocoder_states.jsonl"), show_default=True)
@click.option("--oracle/--no-oracle", default=True, show_default=True,
              help="Validate the examples with the accepted human Python solutions in the sandbox and "
                   "add extended tests (neocoder/oracle.py); --no-oracle only converts the release.")
@click.option("--extended", type=click.IntRange(min=0), default=20, show_default=True,
              help="Mutated candidate inputs per problem (kept only where the humans agree).")
@click.option("--label-humans", type=click.IntRange(min=5), default=10, show_default=True,
              help="Human solutions that label each extended test (all must agree).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N problems.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the input mutations.")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True)
@click.option("--model", "model_spec", default=None,
              help="Build constraint chains by Denial Prompting with this augmentation model (PROVIDER/NAME) "
                   "instead of converting the release.")
@click.option("--problems", "problems_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Raw problems JSONL for --model (default: the release's crawl).")
@click.option("--rounds", type=click.IntRange(min=0), default=5, show_default=True, help="Denial Prompting rounds.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="Problems in flight at once (--model).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--max-tokens", type=click.IntRange(min=1), default=1024, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.1), default=None, help="Seconds per model call.")
@click.option("--max-retries", type=click.IntRange(min=0), default=3, show_default=True,
              help="Retries with backoff on 429, 5xx and timeouts (the openai SDK's own).")
@click.option("--base-url", default=None)
@click.option("--api-key", default=None)
@click.option("--api", type=click.Choice(["chat", "completion"]), default=None)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@_sandbox_options
def build_dataset(release: Path, out: Path, oracle: bool, extended: int, label_humans: int, limit, seed: int,
                  workers: int, model_spec, problems_path, rounds, detector, concurrency, temperature, max_tokens,
                  timeout, max_retries, base_url, api_key, api, quiet: bool, sandbox_kind, fresh, runtime):
    """Write one canonical JSONL record per (problem, state t) from the release.

    With the oracle (default), every example test is run by the problem's accepted human
    Python solutions and checked with the problem's checker (refined on human evidence);
    tests most humans fail are dropped, and extended tests are added.  Human runs are cached in
    OUT.oracle-cache.jsonl, so an interrupted build resumes; the report goes to
    OUT.oracle.json.
    """
    if model_spec:
        return _denial_build(
            release, out, model_spec, problems_path, limit, rounds, seed, detector, concurrency,
            dict(temperature=temperature, max_tokens=max_tokens, base_url=base_url, api_key=api_key, api=api,
                 max_retries=max_retries, **({"timeout": timeout} if timeout else {})),
            quiet, sandbox_kind, fresh, runtime)
    try:
        records, report = build_from_release(release)
    except DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    if limit:
        keep = set(list(dict.fromkeys(r["problem_id"] for r in records))[:limit])
        records = [r for r in records if r["problem_id"] in keep]
    if oracle:
        from .judge import make_sandbox
        from .oracle import build_oracle
        from .techniques.human import solutions_by_language

        sandbox = make_sandbox(sandbox_kind, concurrency=workers, fresh=fresh, runtime=runtime)
        if sandbox.unavailable:
            raise click.ClickException(sandbox.unavailable + " (or use --no-oracle)")
        pids = list(dict.fromkeys(r["problem_id"] for r in records))
        try:
            humans = {pid: [src for lang, src in sols if lang == "python"]
                      for pid, sols in solutions_by_language(release, pids).items()}
        except DatasetError as exc:
            raise click.ClickException(str(exc)) from exc
        out.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        try:
            records, oracle_report = build_oracle(
                records, humans, sandbox, Path(str(out) + ".oracle-cache.jsonl"), extended=extended,
                label_humans=label_humans, seed=seed, workers=workers, progress=not quiet)
        finally:
            sandbox.close()
        Path(str(out) + ".oracle.json").write_text(json.dumps(oracle_report, indent=1), encoding="utf-8")
        click.echo(oracle_summary(oracle_report, time.monotonic() - started))
    write_states(records, out)
    click.echo(f"wrote {len(records)} problem states of {len({r['problem_id'] for r in records})} problems to {out}")
    click.echo(states_per_t(records))
    sources: dict[str, int] = {}
    for r in records:
        sources[r["tests_source"]] = sources.get(r["tests_source"], 0) + 1
    click.echo("tests taken from: " + ", ".join(f"{k}: {v} states" for k, v in sorted(sources.items())))
    for skip in report.skips:
        click.echo(f"skipped {skip}", err=True)


def _denial_build(release, out, model_spec, problems_path, limit, rounds, seed, detector, concurrency,
                  model_options, quiet, sandbox_kind, fresh, runtime):
    """build-dataset --model: Denial Prompting chains (neocoder/denial.py)."""
    import hashlib
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    from .dataset.raw import CRAWL_FILE, load_raw_problems
    from .denial import denial_chain
    from .judge import make_sandbox
    from .models import ModelError, get_model
    from .models.cache import CachedModel, CallCache
    from .runs import manifest
    from .techniques import detect

    problems_path = problems_path or Path(release) / CRAWL_FILE
    try:
        problems = load_raw_problems(problems_path)
    except DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    problems = problems[:limit] if limit else problems
    cache = CallCache(Path(str(out) + ".calls.jsonl"))
    sandbox = make_sandbox(sandbox_kind, concurrency=concurrency, fresh=fresh, runtime=runtime)
    if sandbox.unavailable:
        raise click.ClickException(sandbox.unavailable)
    out.parent.mkdir(parents=True, exist_ok=True)
    Path(str(out) + ".manifest.json").write_text(json.dumps(manifest(
        sys.argv, model=model_spec, rounds=rounds, seed=seed, detector=detector, limit=limit,
        problems_file=str(problems_path), problems=len(problems),
        problems_sha256=hashlib.sha256(Path(problems_path).read_bytes()).hexdigest(),
        **{k: v for k, v in model_options.items() if k != "api_key"}), indent=1), encoding="utf-8")
    started = time.monotonic()
    failed = {}
    try:
        with get_model(model_spec, release_dir=release, **model_options) as raw_model:
            model = CachedModel(raw_model, cache)
            if detector == "llm":
                from .techniques.llm import LLMDetector
                llm = LLMDetector(model)
                detect_code = llm.detect
            else:
                detect_code = detect
            bar = tqdm(total=len(problems), desc="denial prompting", unit="problem", disable=quiet)

            def one(problem):
                try:
                    return denial_chain(problem, model, detect_code, sandbox, rounds=rounds, seed=seed)
                except ModelError as exc:
                    failed[problem["problem_id"]] = str(exc)
                    return []
                finally:
                    bar.update(1)

            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                chains = list(pool.map(one, problems))
            bar.close()
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        sandbox.close()
    records = [r for chain in chains for r in chain]
    write_states(records, out)  # atomic: a killed build leaves no half-written file
    stats = cache.stats()
    solved = sum(r["augmentation"]["accepted"] for r in records)
    click.echo(f"wrote {len(records)} problem states of {len(problems) - len(failed)} problems to {out} "
               f"in {time.monotonic() - started:.0f}s")
    click.echo(states_per_t(records))
    click.echo(f"augmentation solutions accepted: {solved} of {len(records)} states")
    click.echo(f"model calls: {stats['calls_made']} made, {stats['cache_hits']} cache hits; tokens: "
               f"{stats['prompt_tokens']} prompt, {stats['completion_tokens']} completion")
    for pid, why in failed.items():
        click.echo(f"failed {pid}: {why} (rerun to resume from the call cache)", err=True)
    if failed:
        sys.exit(1)


def states_per_t(records: list[dict]) -> str:
    """'problems per state t: t=0: 199, t=1: 199, ...' for written records."""
    counts: dict[int, int] = {}
    for r in records:
        counts[r["state"]] = counts.get(r["state"], 0) + 1
    return "problems per state t: " + ", ".join(f"t={t}: {n}" for t, n in sorted(counts.items()))


def oracle_summary(report: dict, seconds: float) -> str:
    """Plain-text summary of a build_oracle report."""
    probs = report["problems"].values()
    kinds: dict[str, int] = {}
    for p in probs:
        c = p["checker"]
        name = c["kind"] + (" (any case)" if c["ignore_case"] else "")
        kinds[name] = kinds.get(name, 0) + 1
    several = sum(1 for p in probs if p["checker"].get("consensus_evidence"))
    case = sum(1 for p in probs if p["checker"].get("case_evidence"))
    dropped = sum(1 for p in probs for e in p.get("log", []) if e["action"] == "dropped")
    ten = sum(1 for p in probs if p.get("extended", 0) >= 10)
    lines = [f"human oracle: {len(report['problems'])} problems in {seconds:.0f}s, "
             f"{report['cache_hits']} cached human runs reused",
             "checkers: " + ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())),
             f"turned consensus by human evidence: {several}, any-case by human evidence: {case}; "
             f"example tests dropped: {dropped}; problems below 90% of humans: "
             f"{len(report['below_90'])}",
             f"extended tests: {sum(p.get('extended', 0) for p in probs)} in all; "
             f"{ten} problems with at least 10"]
    lines += [f"  below 90%: {b['problem_id']} ({b['share']:.1%}): {b['reason']}; failing solutions: "
              + ", ".join(f"{k}: {v}" for k, v in b.get("failures", {}).items()) for b in report["below_90"]]
    return "\n".join(lines)


@main.command("eval")
@click.option("--model", "model_spec", required=True,
              help="PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/gpt-4-1106-preview; "
                   "or 'human' for the human baselines (Eq. 5, 6).")
@click.option("--states", "states_text", default="0-5", show_default=True, help="States t to evaluate.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N problems.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Run folder (default: runs/<model>); an existing one is resumed.")
@click.option("--dataset", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Problem states JSONL from build-dataset (default: built from the release).")
@_release_option()
@click.option("--samples", type=click.IntRange(min=1), default=1, show_default=True,
              help="Samples per problem state.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (or $OPENAI_BASE_URL).")
@click.option("--api-key", default=None, help="API key (or $OPENAI_API_KEY).")
@click.option("--api", type=click.Choice(["chat", "completion"]), default=None,
              help="Chat or completions API (default: chat; completion for local base models).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--max-tokens", type=click.IntRange(min=1), default=1024, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Samples in flight at once (also the sandbox concurrency).")
@click.option("--cpu-scale", type=float, default=1.0, show_default=True,
              help="Multiply each problem's time limit by this for the CPU-time limit per test.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@_sandbox_options
def eval_command(model_spec, states_text, limit, out, dataset, release, samples, base_url, api_key,
                 api, temperature, max_tokens, workers, cpu_scale, quiet, sandbox_kind, fresh, runtime):
    """Evaluate a model on NeoCoder: every solution judged in the Docker sandbox."""
    from .evaluate import evaluate, format_table
    from .judge import make_sandbox
    from .models import ModelError, get_model
    from .runs import RunDir, manifest
    from .techniques.human import human_technique_sets

    wanted_states = parse_states(states_text)
    try:
        states = load_states(dataset) if dataset else build_from_release(release)[0]
    except DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    order = list(dict.fromkeys(s["problem_id"] for s in states))
    keep = set(order[:limit]) if limit else set(order)
    states = [s for s in states if s["problem_id"] in keep and s["state"] in wanted_states]
    if not states:
        raise click.ClickException("no problem states selected (check --states and --limit)")
    out = out or Path("runs") / re.sub(r"[^A-Za-z0-9._-]+", "_", model_spec)
    run = RunDir(out)
    if model_spec == "human":
        from .metrics import human_baselines
        from .techniques.human import human_solution_techniques
        try:
            metrics = {"model": "human", "states": human_baselines(states, human_solution_techniques(release, keep))}
        except DatasetError as exc:
            raise click.ClickException(str(exc)) from exc
        run.write_json("metrics.json", metrics)
        click.echo(format_table(metrics))
        click.echo("human: accepted Codeforces solutions (Python and C/C++), not judged; convergent is Eq. 5, "
                   "divergent Eq. 6 (techniques no other human solution of the problem uses)")
        return
    sandbox = make_sandbox(sandbox_kind, concurrency=workers, fresh=fresh, runtime=runtime)
    if sandbox.unavailable:
        raise click.ClickException(sandbox.unavailable)
    try:
        human = human_technique_sets(release, keep)
    except DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    run.write_json("manifest.json", manifest(
        sys.argv, model=model_spec, states=wanted_states, limit=limit, samples=samples,
        temperature=temperature, max_tokens=max_tokens, api=api, base_url=base_url,
        dataset=str(dataset) if dataset else f"release:{release}", problems=len(keep),
        problem_states=len(states), sandbox=sandbox_kind,
        sandbox_image=getattr(sandbox, "image", None), fresh_containers=fresh, runtime=runtime))
    started = time.monotonic()
    try:
        with get_model(model_spec, release_dir=release, base_url=base_url, api_key=api_key, api=api,
                       temperature=temperature, max_tokens=max_tokens) as model:
            metrics = evaluate(states, model, sandbox, human, run, samples=samples, workers=workers,
                               cpu_scale=cpu_scale, progress=not quiet)
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        sandbox.close()
    click.echo(format_table(metrics))
    click.echo(f"wall time {time.monotonic() - started:.1f}s; samples in {run.samples_path}, "
               f"metrics in {run.path / 'metrics.json'}")


@main.command("detect")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--language", type=click.Choice(["python", "cpp", "auto"]), default="auto", show_default=True)
@click.option("--agreement", "labels", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Compare with reference labels shaped like the release's human_solution_techniques.json.")
@_release_option()
@click.option("--min-support", type=click.IntRange(min=1), default=20, show_default=True,
              help="Techniques in the macro F1 need at least this support.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--detector", type=click.Choice(["treesitter", "llm"]), default="treesitter", show_default=True)
@click.option("--model", "model_spec", default=None, help="Chat model for --detector llm (PROVIDER/NAME).")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint for --detector llm.")
@click.option("--api-key", default=None)
@click.option("--api", type=click.Choice(["chat", "completion"]), default=None)
def detect_command(file, language, labels, release, min_support, as_json, detector, model_spec, base_url,
                   api_key, api):
    """Detect techniques in FILE, or measure agreement with reference labels."""
    from .models import ModelError, get_model
    from .techniques import UnsupportedLanguage, detect, guess_language
    from .techniques.agreement import agreement
    from .techniques.llm import DetectionError, LLMDetector
    if labels is None and file is None:
        raise click.UsageError("give a FILE or --agreement LABELS.json")
    model = llm = None
    find = detect
    if detector == "llm":
        if not model_spec:
            raise click.UsageError("--detector llm needs --model")
        try:
            model = get_model(model_spec, release_dir=release, base_url=base_url, api_key=api_key, api=api,
                              max_tokens=200)
        except ModelError as exc:
            raise click.ClickException(str(exc)) from exc
        llm = LLMDetector(model)
        find = llm.detect
    try:
        if labels is not None:
            result = agreement(labels, release, min_support=min_support, detector=find)
            if as_json:
                click.echo(json.dumps(result, indent=2))
            else:
                click.echo(_agreement_table(result, min_support))
        else:
            source = file.read_text(encoding="utf-8", errors="replace")
            lang = guess_language(source) if language == "auto" else language
            found = sorted(find(source, lang))
            if as_json:
                click.echo(json.dumps({"file": str(file), "language": lang, "techniques": found}))
            else:
                click.echo(f"{file} ({lang}): {', '.join(found) if found else 'no techniques'}")
    except UnsupportedLanguage as exc:
        raise click.ClickException(f"{file}: {exc}") from exc
    except (DatasetError, DetectionError, ModelError) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if model is not None:
            model.close()
        if llm is not None and llm.dropped:
            click.echo(f"{llm.dropped} labels outside the taxonomy were dropped", err=True)


def _agreement_table(result: dict, min_support: int) -> str:
    lines = []
    for lang, r in result.items():
        lines.append(f"{lang}: {r['solutions']} solutions, micro F1 {r['micro_f1']:.3f}, macro F1 "
                     f"{r['macro_f1']:.3f} (support >= {min_support}), {r['dropped_labels']} labels outside "
                     "the taxonomy")
        lines.append(f"  {'technique':22} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8}")
        for name, m in sorted(r["per_technique"].items(), key=lambda kv: -kv[1]["support"]):
            lines.append(f"  {name:22} {m['precision']:9.2f} {m['recall']:7.2f} {m['f1']:6.2f} {m['support']:8d}")
    return "\n".join(lines)


@main.group()
def sandbox():
    """Build the sandbox image; run a program in it."""


@sandbox.command("build")
@click.option("--rebuild-base", is_flag=True, help="Debootstrap the Debian base again.")
def sandbox_build(rebuild_base):
    """Build the sandbox image offline (debootstrap from the machine's apt mirror)."""
    from .judge import ImageError, build_image
    try:
        tag = build_image(rebuild_base=rebuild_base, log=lambda m: click.echo(m, err=True))
    except ImageError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(tag)


@sandbox.command("selftest")
@_sandbox_options
def sandbox_selftest(sandbox_kind, fresh, runtime):
    """Run the sandbox regression corpus (attacks and known-good programs); print a table."""
    from .judge import make_sandbox
    from .judge.selftest import format_outcomes, run_selftest
    os.environ["NEOCODER_SELFTEST_SECRET"] = "must-not-leak"  # the corpus checks it stays outside
    with make_sandbox(sandbox_kind, concurrency=1, fresh=fresh, runtime=runtime) as box:
        if box.unavailable:
            raise click.ClickException(box.unavailable)
        outcomes = run_selftest(box, progress=lambda o: click.echo(
            f"  {o.case.name}: {o.verdict}", err=True))
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
@_sandbox_options
def sandbox_run(program, tests_path, cpu_seconds, memory_mb, as_json, sandbox_kind, fresh, runtime):
    """Judge PROGRAM on TESTS in the sandbox."""
    from .judge import Limits, make_sandbox
    try:
        tests = load_tests(tests_path)
    except DatasetError as exc:
        raise click.ClickException(str(exc)) from exc
    with make_sandbox(sandbox_kind, concurrency=1, fresh=fresh, runtime=runtime) as box:
        if box.unavailable:
            raise click.ClickException(box.unavailable)
        limits = Limits.for_cpu(cpu_seconds, memory_mb)
        result = box.run(program.read_text(encoding="utf-8", errors="replace"), tests, limits)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        for i, t in enumerate(result.tests):
            click.echo(f"test {i}: {t.verdict}  cpu {t.cpu_seconds}s  {t.detail or ''}")



@main.command("aidanbench")
@click.option("--model", "model_spec", required=True,
              help="Generator: openai/<name>, local/gemma-3-270m, or replay/<answers.jsonl> to re-score.")
@click.option("--judge", "judge_spec", required=True,
              help="Coherence judge (PROVIDER/NAME), or 'none' to score novelty only.")
@click.option("--embedder", "embedder_spec", default="local/all-MiniLM-L6-v2", show_default=True,
              help="local/all-MiniLM-L6-v2 (offline) or openai/<embedding model>.")
@click.option("--questions", "questions_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="One question per line (default: the 65 AidanBench questions).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N questions.")
@click.option("--max-answers", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--temperature", type=float, default=0.7, show_default=True, help="Generator temperature.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=256, show_default=True)
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
@click.option("--base-url", default=None)
@click.option("--api-key", default=None)
@click.option("--api", type=click.Choice(["chat", "completion"]), default=None)
@click.option("--timeout", type=click.FloatRange(min=0.1), default=None, help="Seconds per model call.")
@click.option("--max-retries", type=click.IntRange(min=0), default=3, show_default=True)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def aidanbench_command(model_spec, judge_spec, embedder_spec, questions_path, limit, max_answers, temperature,
                       max_tokens, coherence_stop, novelty_stop, llm_similarity, judge_retries, concurrency, out,
                       base_url, api_key, api, timeout, max_retries, quiet):
    """AidanBench: answers until incoherent or repetitive; counts and novelty per question."""
    import hashlib

    from .aidanbench.embedders import get_embedder
    from .aidanbench.loop import Settings, run_benchmark
    from .aidanbench.replay import ReplayAnswers
    from .models import ModelError, get_model
    from .models.base import load_prompt
    from .models.cache import CachedModel, CallCache
    from .runs import manifest

    out = out or Path("runs") / "aidanbench" / re.sub(r"[^A-Za-z0-9._-]+", "_", model_spec)
    out.mkdir(parents=True, exist_ok=True)
    settings = Settings(coherence_stop=coherence_stop, novelty_stop=novelty_stop, max_answers=max_answers,
                        judge_retries=judge_retries, llm_similarity=llm_similarity)
    client = dict(max_retries=max_retries, **({"timeout": timeout} if timeout else {}))
    cache = CallCache(out / "calls.jsonl")
    opened = []
    try:
        if model_spec.startswith("replay/"):
            generator = ReplayAnswers(model_spec, Path(model_spec.partition("/")[2]))
        else:
            raw = get_model(model_spec, base_url=base_url, api_key=api_key, api=api, temperature=temperature,
                            max_tokens=max_tokens, **client)
            opened.append(raw)
            generator = CachedModel(raw, cache)
        judge = None
        if judge_spec != "none":
            if judge_spec == model_spec and opened and hasattr(opened[0], "with_temperature"):
                raw_judge = opened[0].with_temperature(0.0)  # one local server for both roles
            else:
                raw_judge = get_model(judge_spec, base_url=base_url, api_key=api_key, api=api, temperature=0.0,
                                      max_tokens=16, **client)
                opened.append(raw_judge)
            judge = CachedModel(raw_judge, cache)
        embedder = get_embedder(embedder_spec, base_url=base_url, api_key=api_key)
        if questions_path:
            questions = [q.strip() for q in questions_path.read_text(encoding="utf-8").splitlines() if q.strip()]
        elif isinstance(generator, ReplayAnswers):
            questions = generator.questions
        else:
            questions = [q.strip() for q in (Path(__file__).parent / "aidanbench" / "questions.txt")
                         .read_text(encoding="utf-8").splitlines() if q.strip()]
        questions = questions[:limit] if limit else questions
        prompt_files = ["aidan_answer_system.txt", "aidan_answer_user.txt", "aidan_answer_completion.txt",
                        "aidan_coherence.txt", "aidan_similarity.txt"]
        (out / "manifest.json").write_text(json.dumps(manifest(
            sys.argv, model=model_spec, judge=judge_spec, embedder=embedder_spec, temperature=temperature,
            judge_temperature=0.0, max_tokens=max_tokens, max_answers=max_answers,
            coherence_stop=coherence_stop, novelty_stop=novelty_stop, llm_similarity=llm_similarity,
            judge_retries=judge_retries, questions=len(questions),
            questions_file=str(questions_path) if questions_path else "neocoder/aidanbench/questions.txt",
            prompts={name: {"sha256": hashlib.sha256(load_prompt(name).encode()).hexdigest(),
                            "text": load_prompt(name)} for name in prompt_files}), indent=1), encoding="utf-8")
        started = time.monotonic()
        lines, total = run_benchmark(questions, generator, judge, embedder, out, settings, concurrency,
                                     progress=not quiet)
    except (ModelError, DatasetError) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        for m in opened:
            m.close()
    (out / "metrics.json").write_text(json.dumps({"model": model_spec, "judge": judge_spec, "embedder":
                                                  embedder_spec, **total}, indent=1), encoding="utf-8")
    click.echo(f"{'#':>3}  {'answers':>7}  {'novelty sum':>11}  stop reason    question")
    for q in lines:
        click.echo(f"{q['question_index'] + 1:>3}  {q['answers']:>7}  {q['novelty_sum']:>11.3f}  "
                   f"{q['stop_reason']:<13}  {q['question'][:60]}")
    click.echo(f"total: {total['answers']} answers over {total['questions']} questions, novelty sum "
               f"{total['novelty_sum']:.3f}; stops: {total['stop_reasons']}; embedded {embedder.texts_embedded} "
               f"texts; model calls {cache.stats()['calls_made']} made, {cache.stats()['cache_hits']} cache hits; "
               f"{time.monotonic() - started:.0f}s; results in {out / 'answers.jsonl'}")

if __name__ == "__main__":
    main()
