"""The Python API: one function per command, what the CLI and any other harness call.

    >>> from neocoder import EvalConfig, ModelConfig, evaluate
    >>> result = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"),
    ...                              out=Path("runs/gpt4"), release_dir=Path("../shared/neocoder")))
    >>> result.metrics["states"]["0"]["neogauge"]

Each benchmark function runs its task (a registered benchmark's, neocoder/benchmarks/)
through the one runner (neocoder/runner.py: ``run(task)``), which writes the run folder
(store.RunFolder: manifest, records, calls, metrics) and returns the task's result
object.  Errors a user can act on are NeocoderError.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path

from neocoder import runner
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.aidanbench.descriptor import AIDANBENCH
from neocoder.benchmarks.aidanbench.task import AidanResult, load_questions  # noqa: F401  (the API's names)
from neocoder.benchmarks.ideas.descriptor import IDEAS
from neocoder.benchmarks.neocoder.building import DatasetResult  # noqa: F401  (the API's names)
from neocoder.benchmarks.neocoder.config import ChainConfig, DatasetConfig, EvalConfig
from neocoder.benchmarks.neocoder.descriptor import CHAINS, DATASET, EVAL
from neocoder.benchmarks.neocoder.evaluation import EvalResult, describe_dataset, select_states  # noqa: F401  (the API's names)
from neocoder.config import CPP, LANGUAGES, PYTHON, GenerateDefaults, ModelConfig, ProgramLimits, SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.executors import open_sandbox  # noqa: F401  (the API's name for the executor seam)
from neocoder.models import get_model
from neocoder.records import HUMAN


def run(task, config=None, stop: threading.Event | None = None, cancel=None):
    """Run ``task`` (a ``runner.Task``, or a registered task's name with its ``config``;
    neocoder/benchmarks/__init__.py) through the one runner and return its result, as
    ``neocoder run NAME`` and ``POST /v1/runs`` do; a named task runs as the class its
    ``for_config`` chooses for ``config``.  ``stop`` and ``cancel``: as ``runner.run``'s.
    Raises NeocoderError for an unknown name, and whatever ``runner.run`` raises."""
    if isinstance(task, str):
        from neocoder.benchmarks import get_task
        task = get_task(task).for_config(config)(config)
    return runner.run(task, stop, cancel=cancel)


# A program file's language by its extension (lower case): what ``run_program`` and ``neocoder
# sandbox run``/``detect`` take when no language is given.  The languages are config.LANGUAGES.
LANGUAGE_BY_EXTENSION = {".py": PYTHON, ".cpp": CPP, ".cc": CPP, ".cxx": CPP, ".c++": CPP}


def language_of(path: Path) -> str | None:
    """The language of the program file ``path`` by its extension (``LANGUAGE_BY_EXTENSION``,
    case-insensitive: ``a.CPP`` is C++); None for any other extension or none."""
    return LANGUAGE_BY_EXTENSION.get(Path(path).suffix.lower())


def program_language(path: Path, language: str | None = None, ask: str = "the language") -> str:
    """The language ``path`` is judged in: ``language`` where given (it wins over the
    extension; it must be one of config.LANGUAGES), else ``language_of(path)``.  Raises
    NeocoderError naming the file when neither decides (telling the caller to give ``ask``,
    e.g. "--language"), or for an unknown ``language``."""
    if language is not None:
        if language not in LANGUAGES:
            raise NeocoderError(f"{path}: unknown language {language!r} (use one of {', '.join(LANGUAGES)})")
        return language
    found = language_of(path)
    if found is None:
        known = ", ".join(f"{ext} {lang}" for ext, lang in LANGUAGE_BY_EXTENSION.items())
        raise NeocoderError(f"{path}: cannot tell the program's language from its extension "
                            f"{Path(path).suffix or '(none)'!r} ({known}); give {ask} "
                            f"({' or '.join(LANGUAGES)})")
    return found


def run_program(program: Path, tests: Path, limits: ProgramLimits, sandbox: SandboxConfig,
                language: str | None = None):
    """Judge the program in file ``program`` on the tests JSONL ``tests`` (``{"input",
    "output"}`` lines) with ``limits`` (CPU seconds and MiB per test), in ``language``
    ("python" or "cpp"; None: from the file's extension, ``program_language``); returns the
    judge's SubmissionResult (a C++ program that does not compile is CE on every test, with
    ``compile_error`` set).  Raises NeocoderError (bad tests file, a limit out of bounds, a
    language neither given nor known by the extension, no sandbox)."""
    from neocoder.dataset import load_tests
    from neocoder.judge import Limits
    language = program_language(program, language)
    limits.check()
    cases = load_tests(tests)
    with open_sandbox(sandbox, concurrency=1) as box:
        return box.run(Path(program).read_text(encoding="utf-8", errors="replace"), cases,
                       Limits.for_cpu(limits.cpu_seconds, limits.memory_mb), language=language)


class TreeSitterDetector:
    """The default technique detector (techniques/detector.py) behind the same face as
    the LLM detector: ``detect(code, language) -> set[str]`` and ``dropped`` labels."""

    dropped = 0

    @staticmethod
    def detect(code: str, language: str | None = None) -> set[str]:
        """The technique names tree-sitter finds in ``code`` (``language`` None: guessed)."""
        from neocoder.techniques import detect
        return detect(code, language)


# ``neocoder detect --detector llm``: a detector's reply is a short list of technique names, greedy,
# 200 tokens (declared here, not in techniques/: that package's source is the detector's fingerprint,
# which the shipped dataset records)
DETECTOR_DEFAULTS = GenerateDefaults(temperature=0.0, max_tokens=200, reasoning_max_tokens=4096)


@contextmanager
def open_detector(kind: str = "treesitter", model: ModelConfig | None = None):
    """A technique detector: "treesitter" (default) or "llm" (asks ``model``, closed on exit).
    Raises NeocoderError when "llm" has no model."""
    if kind == "treesitter":
        yield TreeSitterDetector()
        return
    if model is None:
        raise NeocoderError("--detector llm needs --model")
    from neocoder.techniques.llm import LLMDetector
    with get_model(model.filled(DETECTOR_DEFAULTS)) as chat:
        yield LLMDetector(chat)


def detect_file(path: Path, language: str, detect) -> dict:
    """Techniques of the program in ``path``: ``{"file", "language", "techniques": sorted
    names}``; ``language`` "auto" guesses it.  Raises NeocoderError for an unsupported one."""
    from neocoder.techniques import UnsupportedLanguage, guess_language
    source = Path(path).read_text(encoding="utf-8", errors="replace")
    lang = guess_language(source) if language == "auto" else language
    try:
        return {"file": str(path), "language": lang, "techniques": sorted(detect(source, lang))}
    except UnsupportedLanguage as exc:
        raise NeocoderError(f"{path}: {exc}") from exc


def evaluate(config: EvalConfig, stop: threading.Event | None = None) -> EvalResult:
    """Evaluate ``config.model`` on NeoCoder: solve, judge in the sandbox, detect, score
    (the ``eval`` task, neocoder/benchmarks/neocoder/evaluation.py, through the runner).

    Writes ``config.out`` (manifest, one ``Sample`` record per sample, metrics.json); an
    existing folder is resumed.  ``model.spec == "human"`` scores the accepted human
    solutions instead (``human_baseline``).  Raises NeocoderError (model, sandbox or
    dataset problems; an unreachable endpoint stops the run with one message), and
    runner.Stopped when ``stop`` is set before the last sample (``neocoder serve``
    cancelling or shutting down: the samples judged are kept, metrics.json is not written).
    """
    return run(EVAL, config, stop)  # EvalTask.for_config: the human task for ``--model human``


def human_baseline(config: EvalConfig) -> EvalResult:
    """The human rows (NeoCoder Eq. 5, 6) from the release's accepted solutions, for the
    problem states ``config`` selects; no model and no sandbox (the ``human`` task).
    Writes manifest.json, the rows and metrics.json to ``config.out``."""
    return run(HUMAN, config)


def build_dataset(config: DatasetConfig) -> DatasetResult:
    """Problem states from the release: converted, and with the oracle (default) validated
    by the accepted human Python solutions in the sandbox, with extended tests (the
    ``dataset`` task, neocoder/benchmarks/neocoder/building.py).

    Writes ``config.out``: manifest, one ``ProblemState`` per line in records.jsonl, the
    oracle's human-run cache (``oracle-cache.jsonl``, so a killed build resumes) and its
    report as metrics.json.  Raises NeocoderError (DatasetError, sandbox unavailable).
    """
    return run(DATASET, config)


def build_chains(config: ChainConfig) -> DatasetResult:
    """Denial Prompting (NeoCoder Algorithm 1, neocoder/benchmarks/neocoder/denial.py): constraint chains for
    raw problems with ``config.model``, every solution judged in the sandbox (the
    ``chains`` task, neocoder/benchmarks/neocoder/chains.py).

    Writes ``config.out``: manifest, the problem states (records.jsonl, written at the
    end), the call cache (calls.jsonl: a killed build resumes without repeating a call)
    and a summary (metrics.json).  A problem whose model calls fail is reported in
    ``failed``; an unreachable endpoint raises.
    """
    return run(CHAINS, config)


def run_aidanbench(config: AidanConfig) -> AidanResult:
    """AidanBench: each generator answers each question until an answer is incoherent or
    repetitive (the ``aidanbench`` task, neocoder/benchmarks/aidanbench/task.py); a recorded source
    of several models is scored per model.  Writes ``config.out`` (manifest with the
    prompts' texts and hashes, one ``Answer`` per answer and one ``QuestionResult`` per
    question and model, calls.jsonl, metrics.json with per-model totals); an existing
    folder is resumed.
    """
    return run(AIDANBENCH, config)


def rescore_aidanbench(run: Path, out: Path | None = None, **thresholds):
    """Re-score the AidanBench run folder ``run`` at new thresholds from its stored judge
    scores and novelties, with no model call (``neocoder aidanbench rescore``).
    ``thresholds``: ``coherence_stop``, ``novelty_stop``, ``max_answers``, ``mmr_lambda``,
    ``bootstrap``, ``bootstrap_seed`` (None: the run's own).  Writes a new run folder
    (``out``, default beside ``run``) and returns its RescoreResult; raises
    NeocoderError as ``benchmarks.aidanbench.task.RescoreTask.check`` does."""
    from neocoder.benchmarks.aidanbench.task import rescore_run
    return rescore_run(run, out, **thresholds)


def run_ideas(config):
    """LiveIdeaBench (``neocoder ideas``): ``config.model`` writes ideas per keyword, a
    drawn judge panel scores them (the ``ideas`` task, neocoder/benchmarks/ideas/task.py); returns an
    IdeasResult (docs/ideas.md).  Raises NeocoderError before any model call for a bad
    config, an unreadable keywords file, or a panel with fewer than ``judges_per_idea``
    seats besides the idea model; ModelError (EndpointError) when an endpoint cannot be
    reached."""
    return run(IDEAS, config)


def __getattr__(name: str):
    """``IdeasResult`` from neocoder/benchmarks/ideas/summary.py, imported on first use only."""
    if name == "IdeasResult":
        from neocoder.benchmarks.ideas.summary import IdeasResult
        return IdeasResult
    raise AttributeError(f"module 'neocoder.api' has no attribute {name!r}")
