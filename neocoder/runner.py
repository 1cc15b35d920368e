"""One runner for every benchmark: a ``Task`` says what is evaluated, ``run`` does it.

After inspect_ai's ``Task(dataset, solver, scorer)`` and its one ``eval()``: a task
(NeoCoder evaluation, the human baselines, dataset building, Denial Prompting chains,
AidanBench, LiveIdeaBench, an AidanBench re-score, or one of your own) declares

- ``name`` (its registry key and the manifest's ``kind``), ``config_type`` (its typed
  config, config.py: the one declaration of its options), ``prompts`` (the prompt files
  whose texts and SHA-256 go into the manifest) and ``unit`` (what an item is);
- ``open(run)``: the models, sandbox and inputs it needs (entered into ``run.stack``, so
  they are closed when the run ends, whatever happens), returned as one object of the
  task's own type, which the runner keeps as ``run.inputs`` (after inspect_ai's typed
  ``TaskState``: no string-keyed dict travels between the steps);
- ``items(run)``: every item of the run in order, and ``pending(run, items)``: those not
  finished in the run folder yet (the resume rule, docs/records.md);
- ``solve(item, run)``: one item through the model and the scorer, yielding the typed
  records to append (each is appended and fsynced as it is yielded);
- ``score(run)``: the content of ``metrics.json``; ``result(run, metrics)``: what the
  Python API returns.

``run(task)`` owns everything else, once for every task: checking the config before
anything is written, the run folder and its manifest, the call cache (``run.cached``),
resume, ``concurrency`` items in flight on a thread pool (where items wait on the
sandbox too, enough for the model calls of ``--max-connections`` besides those judged:
each model's limiter bounds its calls, models/limiter.py, and the sandbox bounds judging
to ``--workers``), the progress bar (with the calls in flight and retried), the stop
event (``neocoder serve`` stopping: items in flight finish, the rest never start,
``Stopped`` is raised and a rerun resumes) and the cancel (a job cancelled: its sandbox
stops the programs being judged too, and their items are left for the rerun), stopping at the first exception that is
not the item's own (an unreachable endpoint: every item would fail), and writing
``metrics.json``.  The CLI, the Python API, the client and the server all go through it.

    >>> from neocoder.runner import run
    >>> from neocoder.benchmarks.neocoder.evaluation import EvalTask
    >>> result = run(EvalTask(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=Path("runs/gpt4"),
    ...                                  release_dir=Path("../shared/neocoder"))))

A task is found by its name in the registry (neocoder/benchmarks/__init__.py) by the
surfaces (``neocoder.run(NAME, config)``, api.py), never here: the runner sits below the
benchmarks and imports none of them.

docs/tasks.md shows how to add a task.
"""

from __future__ import annotations

import hashlib
import threading
import time
from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import ExitStack
from typing import Any, ClassVar, Iterable

from neocoder.errors import NeocoderError
from neocoder.outcome import LostItems, Outcome, check_outcome, settled, tally, tolerating, widen, with_lost
from neocoder.records import Manifest, Record
from neocoder.store import RunFolder

__all__ = ["LostItems", "Outcome", "Run", "Stopped", "Task", "check_outcome", "prompt_texts", "run", "run_items"]


class Stopped(NeocoderError):
    """The run was asked to stop before every item was done: the items in flight were
    finished and kept, the others never started; running again resumes."""


class Run:
    """What one run of a task has while it runs: its config, its run folder (made on
    first use, so a task can refuse its inputs before any folder exists), the call
    cache in that folder, the ``ExitStack`` that closes models and sandboxes, the stop
    event, the start time (``time.monotonic()`` seconds) and ``inputs``, what the task's
    ``open`` returned (its own typed object)."""

    def __init__(self, task: "Task", stop: threading.Event | None = None, folder: RunFolder | None = None,
                 cache=None, cancel=None):
        self.task, self.config, self.stop = task, task.config, stop
        self.cancel = cancel  # a judge.cancel.Cancel: once set, the programs being judged are stopped too
        self.stack = ExitStack()
        self.started = time.monotonic()
        self._folder = folder
        self._cache = cache  # a CallCache shared with other runs (the suite's), else the folder's own
        self.models: list = []  # the models open_model opened, in order
        self.inputs: Any = None  # what task.open returned: the task's own inputs type
        self.lost: dict[tuple, str] = {}  # item key -> the ModelError its solve raised (runner-counted, retried)

    @property
    def folder(self) -> RunFolder:
        """The run folder ``config.out`` (created, or resumed when it exists)."""
        if self._folder is None:
            self._folder = RunFolder(self.config.out)
        return self._folder

    @property
    def cache(self):
        """The run's call cache (``calls.jsonl``): a rerun pays for no call twice."""
        if self._cache is None:
            from neocoder.models.cache import CallCache
            self._cache = CallCache(self.folder.calls_path)
        return self._cache

    def open_model(self, config):
        """The model ``config`` (a ModelConfig) names, closed when the run ends.  Raises
        ModelError when it cannot start."""
        from neocoder.models import get_model
        model = self.stack.enter_context(get_model(config))
        self.models.append(model)
        return model

    def limiters(self) -> list:
        """The connection limiters of the models opened (models/limiter.py), one per
        model that has one (replays have none)."""
        return list({id(m.limiter): m.limiter for m in self.models if m.limiter is not None}.values())

    @property
    def connections(self) -> int:
        """The most calls one of the run's models may have in flight (its
        ``--max-connections``); 0 when no model makes calls."""
        return max((limiter.most for limiter in self.limiters()), default=0)

    def calls_status(self) -> str:
        """The progress bar's note: model calls in flight and retries so far ("" with no
        live model)."""
        limiters = self.limiters()
        if not limiters:
            return ""
        return (f"calls in flight {sum(x.in_flight for x in limiters)}, "
                f"retries {sum(x.retries for x in limiters)}")

    def cached(self, model):
        """``model`` behind the run's call cache."""
        from neocoder.models.cache import CachedModel
        return CachedModel(model, self.cache)

    def open_sandbox(self, config, concurrency: int | None = None):
        """The sandbox ``config`` (a SandboxConfig) names, closed when the run ends.
        Raises NeocoderError when it cannot run here.  With the run's ``cancel``, every
        submission of the sandbox returned stops once it is set (judge/cancel.py)."""
        from neocoder.executors import open_sandbox
        box = self.stack.enter_context(open_sandbox(config, concurrency))
        if self.cancel is None:
            return box
        from neocoder.judge.cancel import CancelledBy
        return CancelledBy(box, self.cancel)

    @property
    def progress(self) -> bool:
        """Whether the run shows a progress bar (the config's ``progress``)."""
        return self.config.progress

    def seconds(self) -> float:
        """Wall seconds since the run started."""
        return time.monotonic() - self.started


class Task(ABC):
    """A benchmark (or any job over items that writes a run folder); see the module
    docstring.  Subclasses set the class attributes and implement ``items``, ``solve``
    and ``score``; the other methods have defaults."""

    name: ClassVar[str]  # registry key and the manifest's kind
    config_type: ClassVar[type]  # its typed config (a config.Config); ``config.out`` is the run folder
    prompts: ClassVar[tuple[str, ...]] = ()  # prompt files recorded in the manifest
    unit: ClassVar[str] = "item"  # what the progress bar counts
    record_type: ClassVar[type[Record] | None] = None  # the record whose finished keys mark done items

    def __init_subclass__(cls, **declared):
        """The class attributes may be given as class keywords, in one line:
        ``class MyTask(Task, name="mine", config_type=MyConfig, unit="word")``.  Raises
        TypeError for a keyword that is not one of them."""
        super().__init_subclass__()
        unknown = set(declared) - {"name", "config_type", "prompts", "unit", "record_type"}
        if unknown:
            raise TypeError(f"{cls.__name__}: unknown task declaration(s) {sorted(unknown)}")
        for key, value in declared.items():
            setattr(cls, key, value)
        if "config_type" in cls.__dict__:  # every task takes --max-errors (outcome.tolerating)
            cls.config_type = tolerating(cls.config_type)

    def __init__(self, config):
        """Keep ``config`` with the benchmark's defaults filled in (``Config.resolved``:
        each model role's temperature and token budget, ...), so every surface runs the
        same values and the manifest records them.  Raises NeocoderError for a config
        of another type."""
        config = widen(config, self.config_type)  # a config written without max_errors: the runner's own
        if not isinstance(config, self.config_type):
            raise NeocoderError(f"task {self.name!r} takes a {self.config_type.__name__}, got "
                                f"{type(config).__name__}")
        self.config = config.resolved()

    def check(self) -> None:
        """Refuse settings the task cannot honour (NeocoderError naming the option),
        before any folder, model or manifest is made."""

    def open(self, run: Run) -> Any:
        """Open models and sandboxes (``run.open_model``, ``run.open_sandbox``), read the
        inputs and return what ``items``, ``solve`` and ``score`` need as one object of
        the task's own type (the runner keeps it as ``run.inputs``)."""
        return None

    @abstractmethod
    def items(self, run: Run) -> list:
        """Every item of the run, in order."""

    def key(self, item) -> tuple:
        """The item's key in the run folder (the key of its ``record_type`` record)."""
        return tuple(item)

    def pending(self, run: Run, items: list) -> list:
        """The items not finished in the run folder yet (default: those whose key has no
        finished ``record_type`` record holding no ``error``: ``outcome.settled``)."""
        if self.record_type is None:
            return list(items)
        done = {r.key for r in run.folder.read(self.record_type) if settled(r)}
        return [item for item in items if self.key(item) not in done]

    @abstractmethod
    def solve(self, item, run: Run) -> Iterable[Record]:
        """Do one item; yield the records to append, as they are made."""

    def concurrency(self, run: Run) -> int:
        """Items in flight at once (default: the task's ``concurrency`` option; each model
        still has at most its ``--max-connections`` calls in flight).  A task whose items
        also wait on the sandbox adds ``run.connections``, so the model calls do not wait
        on the sandbox's workers (EvalTask, ChainTask)."""
        return self.config.concurrency

    def tolerated(self) -> int:
        """Items that may end in error before the run fails (default: the config's
        ``max_errors``, ``--max-errors``)."""
        return self.config.max_errors

    def label(self, run: Run) -> str:
        """The progress bar's description."""
        return self.name

    def manifest(self, run: Run) -> dict:
        """Extra manifest fields (``Manifest.extra``) besides the config, the prompts and the
        number of items (``items``, which the runner writes)."""
        return {}

    @classmethod
    def for_config(cls, config) -> type[Task]:
        """The task class that runs ``config`` (default: this one).  A task whose config may
        ask for another task says so here (an eval of ``--model human`` is the human
        baselines), so every surface that runs a task by name runs the same one."""
        return cls

    def manifest_head(self, run: Run) -> tuple[str, dict]:
        """The manifest's kind and config (default: the task's name and public config;
        a re-score writes the kind and config of the run it re-scores, so readers treat
        it like that run)."""
        return self.name, self.config.public()

    @abstractmethod
    def score(self, run: Run) -> dict:
        """The content of ``metrics.json``, computed from the run folder's records."""

    def result(self, run: Run, metrics: dict):
        """What ``run`` returns (default: the metrics)."""
        return metrics


def prompt_texts(names: Iterable[str]) -> dict:
    """``{file: {"sha256", "text"}}`` of the prompt files ``names`` (prompts/), for a
    manifest: a run records exactly what its model was asked."""
    from neocoder.resources import prompt_text
    out = {}
    for name in names:
        text = prompt_text(name)
        out[name] = {"sha256": hashlib.sha256(text.encode()).hexdigest(), "text": text}
    return out


def run(task: Task, stop: threading.Event | None = None, cache=None, cancel=None):
    """Run ``task`` into its run folder and return ``task.result``.

    ``cache``: a CallCache to use instead of the run folder's own (``neocoder suite``
    shares one among its benchmarks' runs).  ``cancel``: a judge.cancel.Cancel set with
    ``stop`` when the run is cancelled rather than paused: the programs being judged are
    stopped as well (their items are not recorded and are done again on a rerun).

    Raises NeocoderError for a config value outside its declaration (options.py) or
    settings the task refuses (both before anything is written),
    Stopped when ``stop`` is set before the last item, whatever ``solve`` raises
    (the first such error stops the run; the records appended so far are kept and a
    rerun resumes after them) but the item's own ModelError in a task with a
    ``record_type`` (counted as that item's error: ``scored``), and LostItems, after
    ``metrics.json`` is written, when its ``"outcome"`` (``Outcome``) has more items in
    error than the config's ``max_errors`` or none judged.
    """
    task.config.check()  # each declared option's value within its declaration (config.py, options.py)
    task.check()
    current = Run(task, stop, cache=cache, cancel=cancel)
    with current.stack:
        current.inputs = task.open(current)
        items = task.items(current)
        extra = {"items": len(items), **task.manifest(current)}  # items: a job's progress total (serve/jobs.py)
        if task.prompts:
            extra["prompts"] = prompt_texts(task.prompts)
        kind, public = task.manifest_head(current)
        current.folder.write_manifest(Manifest.capture(kind, public, **extra))
        run_items(task, current, items)
        metrics = scored(task, current, items)
    if metrics is not None:
        current.folder.write_metrics(metrics)
        check_outcome(metrics, task.tolerated())
    return task.result(current, metrics)


def scored(task: Task, run: Run, items: list) -> dict | None:
    """The content of ``metrics.json``: ``task.score``'s, with its ``"outcome"`` block.

    A task without a ``record_type`` gives its own (or none).  For one with a
    ``record_type``: a block the task counted itself gets the items whose ``solve``
    raised a ModelError and left no record (``run.lost``) added in error; a task that
    counted none gets the runner's (``outcome.tally``: from each item's latest record
    and ``run.lost``).  When items were lost and none has a finished record, ``score`` is
    not called (there is nothing to score): the metrics are the block alone."""
    if task.record_type is None:
        return task.score(run)
    keys = [task.key(item) for item in items]
    latest = {r.key: r for r in run.folder.read(task.record_type)}
    lost = {k: why for k, why in run.lost.items() if k not in latest or not settled(latest[k])}
    finished = any(k in latest and settled(latest[k]) for k in keys)
    metrics = task.score(run) if finished or not lost else {}
    if metrics is None and not lost:
        return None
    metrics = dict(metrics or {})
    if "outcome" in metrics:
        metrics["outcome"] = with_lost(metrics["outcome"], [lost[k] for k in keys if k in lost and k not in latest])
    else:
        metrics["outcome"] = tally(task.unit, keys, latest, lost).to_dict()
    return metrics


_SKIPPED = object()


def run_items(task: Task, run: Run, items: list) -> None:
    """Do every pending item of ``items``, ``task.concurrency(run)`` at once, appending
    each record ``solve`` yields.  Raises Stopped (the stop event was set, or the run's
    ``cancel`` stopped items while they were judged: those are not recorded) or the first
    error an item raised; after either, no further item starts (the items in flight
    finish and keep their records).  An item's own failure, a ModelError that is no
    EndpointError (a model call that failed after its retries: 429s, 5xx, a timeout, an
    unusable reply), is kept in ``run.lost`` instead when the task has a ``record_type``
    (it is counted in error and done again on resume), and the other items go on."""
    from tqdm import tqdm

    from neocoder.judge.cancel import Cancelled
    from neocoder.models.base import EndpointError, ModelError
    own = (ModelError,) if task.record_type is not None else ()
    todo = task.pending(run, items)
    bar = tqdm(total=len(items), initial=len(items) - len(todo), desc=task.label(run), unit=task.unit,
               disable=not run.progress or len(items) < 2)  # one item or none: its own output says more
    failed = threading.Event()

    def one(item):
        if failed.is_set() or (run.stop is not None and run.stop.is_set()):
            return _SKIPPED  # never started: done when the run resumes
        try:
            for record in task.solve(item, run):
                run.folder.append(record)
        except Cancelled:
            if run.cancel is None or not run.cancel.is_set():
                failed.set()
                raise
            return _SKIPPED  # stopped while judged (the run was cancelled): done again when it resumes
        except own as exc:
            if isinstance(exc, EndpointError):  # every call would fail alike: the run stops
                failed.set()
                raise
            run.lost[tuple(task.key(item))] = " ".join(str(exc).split()) or type(exc).__name__
        except BaseException:
            failed.set()
            raise
        return item

    skipped = 0
    with ThreadPoolExecutor(max_workers=max(1, task.concurrency(run))) as pool:
        futures = [pool.submit(one, item) for item in todo]
        try:
            for fut in as_completed(futures):
                if fut.result() is _SKIPPED:
                    skipped += 1
                    continue
                bar.set_postfix_str(run.calls_status(), refresh=False)
                bar.update(1)
        except BaseException:
            failed.set()
            for fut in futures:
                fut.cancel()
            raise
        finally:
            bar.close()
    if skipped:
        raise Stopped(f"stopped with {skipped} of {len(items)} {task.unit}s not done yet")
