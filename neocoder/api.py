"""The Python API: one function per command, what the CLI and any other harness call.

    >>> from neocoder import EvalConfig, ModelConfig, evaluate
    >>> result = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"),
    ...                              out=Path("runs/gpt4"), release_dir=Path("../shared/neocoder")))
    >>> result.metrics["states"]["0"]["neogauge"]

Each function takes a config (config.py), sets up the model and the sandbox, runs the
stage functions, writes the run folder (store.RunFolder: manifest, records, calls,
metrics) and returns a result object.  Errors a user can act on are NeocoderError.
"""

from __future__ import annotations

import hashlib
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .config import AidanConfig, ChainConfig, DatasetConfig, EvalConfig, ModelConfig, SandboxConfig
from .dataset import BuildReport, build_from_release, load_states
from .errors import NeocoderError
from .metrics import all_states, human_baselines, sample_ratios, with_intervals
from .models import ModelError, get_model
from .models.base import load_prompt
from .models.cache import CachedModel, CallCache
from .records import Manifest, ProblemState, QuestionResult
from .store import RunFolder


@dataclass
class EvalResult:
    """What ``evaluate`` returns: the run folder, its metrics (as in ``metrics.json``:
    ``{"model", "states": {t: {...}}}``) and the wall time in seconds."""

    run: Path
    metrics: dict
    seconds: float


@dataclass
class DatasetResult:
    """What ``build_dataset`` and ``build_chains`` return: the run folder, the problem
    states written, the import report, the oracle report (build_dataset with the oracle),
    the problems that failed (build_chains: problem id -> model error), the call-cache
    stats (build_chains) and the wall time in seconds."""

    run: Path
    states: list[ProblemState]
    report: BuildReport | None = None
    oracle: dict | None = None
    failed: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class AidanResult:
    """What ``aidanbench`` returns: per generator model, its question results (in question
    order) and totals; texts embedded, call-cache stats, wall time in seconds."""

    run: Path
    results: dict[str, list[QuestionResult]]
    totals: dict[str, dict]
    embedded: int = 0
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


@contextmanager
def open_sandbox(config: SandboxConfig, concurrency: int | None = None):
    """The sandbox backend ``config`` names, closed on exit.

    The executor seam: ``config.executor`` "local" gives this machine's warm pool,
    "ray" sandbox-pool actors on a Ray cluster (neocoder/executors/ray.py); both answer
    ``run(code, tests, limits, checker=..., stop_at_first_failure=...)`` alike.
    Raises NeocoderError when it cannot run here (no engine, no image, no Ray).
    """
    if config.executor == "ray":
        from .executors.ray import RaySandbox
        box = RaySandbox(config, concurrency=concurrency or config.workers)
    else:
        from .judge import make_sandbox
        box = make_sandbox(config.kind, concurrency=concurrency or config.workers, fresh=config.fresh,
                           runtime=config.runtime)
    try:
        if box.unavailable:
            raise NeocoderError(box.unavailable)
        yield box
    finally:
        box.close()


def run_program(program: Path, tests: Path, cpu_seconds: float, memory_mb: int, sandbox: SandboxConfig):
    """Judge the program in file ``program`` on the tests JSONL ``tests`` (``{"input",
    "output"}`` lines) with ``cpu_seconds`` of CPU time and ``memory_mb`` MiB per test;
    returns the judge's SubmissionResult.  Raises NeocoderError (bad tests file, no sandbox)."""
    from .dataset import load_tests
    from .judge import Limits
    cases = load_tests(tests)
    with open_sandbox(sandbox, concurrency=1) as box:
        return box.run(Path(program).read_text(encoding="utf-8", errors="replace"), cases,
                       Limits.for_cpu(cpu_seconds, memory_mb))


class TreeSitterDetector:
    """The default technique detector (techniques/detector.py) behind the same face as
    the LLM detector: ``detect(code, language) -> set[str]`` and ``dropped`` labels."""

    dropped = 0

    @staticmethod
    def detect(code: str, language: str | None = None) -> set[str]:
        from .techniques import detect
        return detect(code, language)


@contextmanager
def open_detector(kind: str = "treesitter", model: ModelConfig | None = None):
    """A technique detector: "treesitter" (default) or "llm" (asks ``model``, closed on exit).
    Raises NeocoderError when "llm" has no model."""
    if kind == "treesitter":
        yield TreeSitterDetector()
        return
    if model is None:
        raise NeocoderError("--detector llm needs --model")
    from .techniques.llm import LLMDetector
    with get_model(model) as chat:
        yield LLMDetector(chat)


def detect_file(path: Path, language: str, detect) -> dict:
    """Techniques of the program in ``path``: ``{"file", "language", "techniques": sorted
    names}``; ``language`` "auto" guesses it.  Raises NeocoderError for an unsupported one."""
    from .techniques import UnsupportedLanguage, guess_language
    source = Path(path).read_text(encoding="utf-8", errors="replace")
    lang = guess_language(source) if language == "auto" else language
    try:
        return {"file": str(path), "language": lang, "techniques": sorted(detect(source, lang))}
    except UnsupportedLanguage as exc:
        raise NeocoderError(f"{path}: {exc}") from exc


def select_states(config: EvalConfig) -> list[ProblemState]:
    """The problem states an eval covers: first ``limit`` problems, states in
    ``config.states``, from ``config.dataset``: None for the default validated dataset
    (neocoder/validated.py: built on first use for the problems asked for, then cached),
    "release" for the release's statement examples with plain checkers, or a path (a
    build-dataset run folder or a problem-states JSONL file).  Raises NeocoderError when
    no state is left."""
    if config.dataset is None:
        from .validated import default_states
        order = list(dict.fromkeys(r["problem_id"] for r in build_from_release(config.release_dir)[0]))
        chosen = order[:config.limit] if config.limit else order
        states = default_states(config.release_dir, chosen, lambda: open_sandbox(config.sandbox),
                                workers=config.sandbox.workers, progress=config.progress)
    elif str(config.dataset) == "release":
        states = [ProblemState.from_dict(r) for r in build_from_release(config.release_dir)[0]]
    else:
        states = load_states(config.dataset)
    order = list(dict.fromkeys(s.problem_id for s in states))
    keep = set(order[:config.limit]) if config.limit else set(order)
    states = [s for s in states if s.problem_id in keep and s.state in config.states]
    if not states:
        raise NeocoderError("no problem states selected (check --states and --limit)")
    return states


def dataset_path(config: EvalConfig) -> Path | None:
    """Where the problem states ``config`` judges on are kept (None: the release's examples)."""
    if config.dataset is None:
        from .validated import dataset_folder
        return dataset_folder(config.release_dir)
    return None if str(config.dataset) == "release" else Path(config.dataset)


def dataset_name(config: EvalConfig) -> str:
    """What ``config.dataset`` means, for the manifest and the printed table."""
    path = dataset_path(config)
    if path is None:
        return "release examples (plain checkers)"
    return f"validated (default): {path}" if config.dataset is None else str(path)


def bootstrap_info(resamples: int, seed: int, unit: str = "problem") -> dict:
    """How the intervals in a metrics.json were made (neocoder/bootstrap.py)."""
    from .bootstrap import LEVEL
    return {"resamples": resamples, "seed": seed, "unit": unit, "level": LEVEL, "method": "percentile"}


def score_samples(model: str, samples: list, resamples: int = 2000, seed: int = 0) -> dict:
    """The metrics of ``samples`` (Sample records): ``{"model", "states": {t: {rates...,
    "intervals": {rate: {"low", "high", "se"}}}}, "bootstrap": {...}}`` (metrics.py,
    bootstrap.py: resampling problems, ``resamples`` times with ``seed``)."""
    return {"model": model, "states": with_intervals(all_states(samples), sample_ratios(samples), resamples, seed),
            "bootstrap": bootstrap_info(resamples, seed)}


def run_states(run: Path) -> dict[tuple, ProblemState]:
    """The problem states an eval run folder was judged on, by key (problem_id, state):
    read again from the dataset or release its manifest names.  Raises NeocoderError
    when the folder has no manifest or its dataset is gone."""
    manifest = RunFolder(run, create=False).read_manifest()
    source = manifest.extra.get("dataset_path") or manifest.config.get("dataset")
    if source and source != "release":
        states = load_states(Path(source))
    else:
        states = [ProblemState.from_dict(r) for r in build_from_release(Path(manifest.config["release_dir"]))[0]]
    return {s.key: s for s in states}


def evaluate(config: EvalConfig, stop: threading.Event | None = None) -> EvalResult:
    """Evaluate ``config.model`` on NeoCoder: solve, judge in the sandbox, detect, score.

    Writes ``config.out`` (manifest, one ``Sample`` record per sample, metrics.json); an
    existing folder is resumed.  ``model.spec == "human"`` scores the accepted human
    solutions instead (``human_baseline``).  Raises NeocoderError (model, sandbox or
    dataset problems; an unreachable endpoint stops the run with one message), and
    pipeline.Stopped when ``stop`` is set before the last sample (``neocoder serve``
    cancelling or shutting down: the samples judged are kept, metrics.json is not written).
    """
    if config.model.spec == "human":
        return human_baseline(config)
    from .pipeline import run_samples
    from .strategies import STRATEGIES, StrategyOptions
    from .techniques.human import human_technique_sets

    if config.logprobs and config.model.spec.startswith("replay/"):
        raise NeocoderError("--logprobs asks the endpoint for token log-probabilities; a replayed model has none")
    if config.strategy not in STRATEGIES:
        raise NeocoderError(f"unknown strategy {config.strategy!r}; choose from {', '.join(STRATEGIES)}")
    if (config.samples >= 2 or config.strategy == "sample") and config.model.temperature == 0:
        drawn = f"{config.best_of} candidates per sample" if config.strategy == "sample" else \
            f"{config.samples} samples per state"
        warnings.warn(f"{drawn} at temperature 0: greedy decoding gives one program per prompt unless the "
                      "endpoint honours seeds; pass --temperature (e.g. 0.8)", stacklevel=2)
    started = time.monotonic()
    states = select_states(config)
    problems = list(dict.fromkeys(s.problem_id for s in states))
    folder = RunFolder(config.out)
    if (folder.path / folder.MANIFEST).is_file():  # resuming: the samples already there must be of this strategy
        before = folder.read_manifest().config.get("strategy", "direct")
        if before != config.strategy:
            raise NeocoderError(f"{folder.path} holds samples of --strategy {before}, not {config.strategy}: "
                                "give another --out")
    human = human_technique_sets(config.release_dir, set(problems))
    model_config = config.model.with_(release_dir=config.model.release_dir or config.release_dir)
    path, name = dataset_path(config), dataset_name(config)  # each hashes the release and the builder once
    # semantic entropy's behaviour classes need every test's outcome (docs/metrics.md)
    judge_all_tests = config.judge_all_tests or config.samples >= 2
    cache = CallCache(folder.calls_path)  # a strategy's many calls resume from here
    with open_sandbox(config.sandbox) as box, get_model(model_config) as raw:
        model = CachedModel(raw, cache)
        options = StrategyOptions(rounds=config.rounds, rollouts=config.rollouts, top_k=config.top_k,
                                  best_of=config.best_of, logprobs=config.logprobs)
        folder.write_manifest(Manifest.capture("eval", config.public(), problems=len(problems),
                                               problem_states=len(states), sandbox_image=box.image,
                                               dataset=name, dataset_path=str(path) if path else None))
        workers = config.sandbox.workers
        if config.sandbox.executor == "ray":  # keep every node's slots busy: twice the cluster's slots in flight
            workers = max(workers, 2 * box.capacity)
        samples = run_samples(states, model, box, human, folder, samples=config.samples,
                              workers=workers, cpu_scale=config.cpu_scale, progress=config.progress,
                              judge_all_tests=judge_all_tests, stop=stop, strategy=config.strategy,
                              options=options, seed=config.model.seed)
    metrics = score_samples(model.name, samples, config.bootstrap, config.bootstrap_seed)
    metrics["strategy"], metrics["calls"] = config.strategy, cache.stats()
    metrics["tests"] = ["examples", "plus"] if any(s.extended_tests for s in states) else ["examples"]
    metrics["dataset"] = name
    folder.write_metrics(metrics)
    return EvalResult(folder.path, metrics, time.monotonic() - started)


def human_baseline(config: EvalConfig) -> EvalResult:
    """The human rows (NeoCoder Eq. 5, 6) from the release's accepted solutions, for the
    problem states ``config`` selects; no model and no sandbox.  Writes manifest.json and
    metrics.json to ``config.out``."""
    from .metrics import human_ratios, human_rows
    from .techniques.human import human_solution_techniques

    started = time.monotonic()
    states = select_states(config)
    folder = RunFolder(config.out)
    folder.write_manifest(Manifest.capture("human", config.public()))
    rows = human_rows(states, human_solution_techniques(config.release_dir, {s.problem_id for s in states}))
    folder.write_all(rows)
    metrics = {"model": "human", "states": with_intervals(human_baselines(rows), human_ratios(rows),
                                                          config.bootstrap, config.bootstrap_seed),
               "bootstrap": bootstrap_info(config.bootstrap, config.bootstrap_seed)}
    folder.write_metrics(metrics)
    return EvalResult(folder.path, metrics, time.monotonic() - started)


def build_dataset(config: DatasetConfig) -> DatasetResult:
    """Problem states from the release: converted, and with the oracle (default) validated
    by the accepted human Python solutions in the sandbox, with extended tests.

    Writes ``config.out``: manifest, one ``ProblemState`` per line in records.jsonl, the
    oracle's human-run cache (``oracle-cache.jsonl``, so a killed build resumes) and its
    report as metrics.json.  Raises NeocoderError (DatasetError, sandbox unavailable).
    """
    started = time.monotonic()
    records, report = build_from_release(config.release_dir)
    if config.limit:
        keep = set(list(dict.fromkeys(r["problem_id"] for r in records))[:config.limit])
        records = [r for r in records if r["problem_id"] in keep]
    folder = RunFolder(config.out)
    folder.write_manifest(Manifest.capture("dataset", config.public()))
    oracle_report = None
    if config.oracle:
        from .oracle import validate_release_states
        with open_sandbox(config.sandbox) as box:
            records, oracle_report = validate_release_states(
                records, config.release_dir, box, folder.path / "oracle-cache.jsonl", extended=config.extended,
                label_humans=config.label_humans, seed=config.seed, workers=config.sandbox.workers,
                progress=config.progress)
    states = [ProblemState.from_dict(r) for r in records]
    folder.write_all(states)
    folder.write_metrics({"import": report.__dict__, "oracle": oracle_report})
    return DatasetResult(folder.path, states, report=report, oracle=oracle_report,
                         seconds=time.monotonic() - started)


def build_chains(config: ChainConfig) -> DatasetResult:
    """Denial Prompting (NeoCoder Algorithm 1, neocoder/denial.py): constraint chains for
    raw problems with ``config.model``, every solution judged in the sandbox.

    Writes ``config.out``: manifest, the problem states (records.jsonl, written at the
    end), the call cache (calls.jsonl: a killed build resumes without repeating a call)
    and a summary (metrics.json).  A problem whose model calls fail is reported in
    ``failed``; an unreachable endpoint raises.
    """
    from .dataset.raw import CRAWL_FILE, load_raw_problems
    from .denial import denial_chain
    from .models.openai_compat import EndpointError
    from .techniques import detect

    started = time.monotonic()
    problems_path = config.problems or Path(config.release_dir) / CRAWL_FILE
    problems = load_raw_problems(problems_path)
    problems = problems[:config.limit] if config.limit else problems
    folder = RunFolder(config.out)
    folder.write_manifest(Manifest.capture(
        "chains", config.public(), problems=len(problems),
        problems_sha256=hashlib.sha256(Path(problems_path).read_bytes()).hexdigest()))
    cache = CallCache(folder.calls_path)
    failed: dict[str, str] = {}
    with open_sandbox(config.sandbox, config.concurrency) as box, get_model(config.model) as raw:
        model = CachedModel(raw, cache)
        detect_code = detect
        if config.detector == "llm":
            from .techniques.llm import LLMDetector
            detect_code = LLMDetector(model).detect
        from tqdm import tqdm
        bar = tqdm(total=len(problems), desc="denial prompting", unit="problem", disable=not config.progress)

        def one(problem):
            try:
                return denial_chain(problem, model, detect_code, box, rounds=config.rounds, seed=config.seed)
            except EndpointError:
                raise
            except ModelError as exc:
                failed[problem["problem_id"]] = str(exc)
                return []
            finally:
                bar.update(1)

        with ThreadPoolExecutor(max_workers=config.concurrency) as pool:
            chains = list(pool.map(one, problems))
        bar.close()
    states = [ProblemState.from_dict(r) for chain in chains for r in chain]
    folder.write_all(states)
    calls = cache.stats()
    folder.write_metrics({"problems": len(problems), "failed": failed, "states": len(states),
                          "accepted": sum(s.extra["augmentation"]["accepted"] for s in states), "calls": calls})
    return DatasetResult(folder.path, states, failed=failed, calls=calls, seconds=time.monotonic() - started)


def load_questions(path: Path | None = None) -> list[str]:
    """AidanBench questions, one per non-blank line of ``path`` (default: the 65 shipped
    questions).  Raises NeocoderError for a missing file."""
    if path is None:
        from importlib import resources
        text = resources.files("neocoder.aidanbench").joinpath("questions.txt").read_text(encoding="utf-8")
    elif not Path(path).is_file():
        raise NeocoderError(f"{path}: questions file not found")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return [q.strip() for q in text.splitlines() if q.strip()]


def run_aidanbench(config: AidanConfig) -> AidanResult:
    """AidanBench: each generator answers each question until an answer is incoherent or
    repetitive (neocoder/aidanbench/loop.py); a recorded source of several models is scored
    per model.  Writes ``config.out`` (manifest with the prompts' texts and hashes, one
    ``Answer`` per answer and one ``QuestionResult`` per question and model, calls.jsonl,
    metrics.json with per-model totals); an existing folder is resumed.
    """
    from .aidanbench.embedders import get_embedder
    from .aidanbench.loop import PROMPT_FILES, check_settings, run_benchmark, total_intervals

    check_settings(config, config.judge is not None)  # before any folder, model or manifest is made
    started = time.monotonic()
    folder = RunFolder(config.out)
    cache = CallCache(folder.calls_path)
    with ExitStack() as stack:
        raw = stack.enter_context(get_model(config.model))
        generators = [CachedModel(m, cache) for m in raw.variants()]
        judge = None
        if config.judge is not None:
            shared = raw.with_temperature(config.judge.temperature) if config.judge.spec == config.model.spec else None
            judge = CachedModel(shared or stack.enter_context(get_model(config.judge)), cache)
        embedder = get_embedder(config.embedder, base_url=config.model.base_url, api_key=config.model.api_key)
        questions = load_questions(config.questions) if config.questions or not raw.recorded_items() \
            else raw.recorded_items()
        questions = questions[:config.limit] if config.limit else questions
        folder.write_manifest(Manifest.capture(
            "aidanbench", config.public(), questions=len(questions),
            prompts={name: {"sha256": hashlib.sha256(load_prompt(name).encode()).hexdigest(),
                            "text": load_prompt(name)} for name in PROMPT_FILES}))
        results, totals = {}, {}
        for generator in generators:
            results[generator.name], totals[generator.name] = run_benchmark(
                questions, generator, judge, embedder, folder, config, progress=config.progress)
            totals[generator.name]["intervals"] = total_intervals(results[generator.name], config.bootstrap,
                                                                  config.bootstrap_seed)
    folder.write_metrics({"benchmark": "aidanbench", "models": totals,
                          "bootstrap": bootstrap_info(config.bootstrap, config.bootstrap_seed, "question")})
    return AidanResult(folder.path, results, totals, embedded=embedder.texts_embedded, calls=cache.stats(),
                       seconds=time.monotonic() - started)



def rescore_aidanbench(run: Path, out: Path | None = None, **thresholds):
    """Re-score the AidanBench run folder ``run`` at new thresholds from its stored judge
    scores and novelties, with no model call (``neocoder aidanbench rescore``).
    ``thresholds``: ``coherence_stop``, ``novelty_stop``, ``max_answers``, ``mmr_lambda``,
    ``bootstrap``, ``bootstrap_seed`` (None: the run's own).  Writes a new run folder
    (``out``, default beside ``run``) and returns its RescoreResult; raises
    NeocoderError as ``aidanbench.rescore.rescore_run`` does."""
    from .aidanbench.rescore import rescore_run
    return rescore_run(run, out, **thresholds)


def run_ideas(config):
    """LiveIdeaBench (``neocoder ideas``): ``config.model`` writes ideas per keyword, a
    drawn judge panel scores them; returns an IdeasResult (neocoder/ideas/, docs/ideas.md)."""
    from .ideas import run_ideas as run
    return run(config)


def __getattr__(name: str):
    """``IdeasResult`` from neocoder/ideas/ on first use (the package is imported only when needed)."""
    if name == "IdeasResult":
        from .ideas import IdeasResult
        return IdeasResult
    raise AttributeError(f"module 'neocoder.api' has no attribute {name!r}")
