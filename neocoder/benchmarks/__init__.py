"""The benchmarks, one package each, and their registry.

Each benchmark is a package holding what it alone knows: its config with its model
defaults (``config.py``), its task (``runner.Task``), its loop, prompts list, scoring and
records, and its descriptor (``descriptor.py``: a ``Benchmark`` naming its tasks, records,
measures, suite presets and the surfaces' extensions; neocoder/benchmarks/descriptor.py).

They sit on the shared stages (dataset, models, judge, executors, techniques, metrics) and
the runner; the surfaces (CLI, API, server, inspect tasks, report, suite, leaderboard)
sit on them and find them here, never by name.  Adding a benchmark is one package and one
line in ``BUILT_IN`` (or ``register_benchmark`` for a plugin's or a test's): docs/tasks.md.

A task is found by its name (``neocoder run NAME``, ``neocoder.run(NAME, config)``,
``POST /v1/runs {"task": NAME}``): every benchmark's tasks, and the tasks that are no
benchmark (``OTHER_TASKS``: the suite of them all).  Descriptors are imported on first
use, so importing this module imports no benchmark; ``register_task`` adds a lone task.
"""

from __future__ import annotations

from importlib import import_module

from neocoder.benchmarks.descriptor import Benchmark, resolve
from neocoder.errors import NeocoderError

# One line per built-in benchmark: the module whose ``BENCHMARK`` declares it.
BUILT_IN = (
    "neocoder.benchmarks.neocoder.descriptor",
    "neocoder.benchmarks.aidanbench.descriptor",
    "neocoder.benchmarks.ideas.descriptor",
    "neocoder.benchmarks.framework.descriptor",
)
SUITE = "suite"  # every benchmark for one model and its creativity profile (neocoder/suite/task.py)
OTHER_TASKS = {SUITE: "neocoder.suite.task:SuiteTask"}  # tasks that are no benchmark of their own

_loaded: list[Benchmark] | None = None
_registered: list[Benchmark] = []
_tasks: dict[str, type] = {}


def benchmarks() -> list[Benchmark]:
    """Every registered benchmark, the built-in ones first, in registry order."""
    global _loaded
    if _loaded is None:
        _loaded = [import_module(module).BENCHMARK for module in BUILT_IN]
    return _loaded + _registered


def benchmark(name: str) -> Benchmark:
    """The benchmark ``name``.  Raises KeyError for a name no benchmark has."""
    for b in benchmarks():
        if b.name == name:
            return b
    raise KeyError(name)


def benchmark_names() -> list[str]:
    """Every benchmark's name, in registry order."""
    return [b.name for b in benchmarks()]


def register_benchmark(declared: Benchmark) -> Benchmark:
    """Add the benchmark ``declared`` (a plugin's, or a test's) to the registry, with its
    tasks and records; returns it.  Registering the same descriptor again is a no-op.
    Raises NeocoderError when its name or one of its task names is taken."""
    if any(b is declared for b in benchmarks()):
        return declared
    taken = set(task_names())
    clash = ({declared.name} & set(benchmark_names())) | (set(declared.tasks) & taken)
    if clash:
        raise NeocoderError(f"benchmark {declared.name!r}: name(s) {sorted(clash)} taken")
    _registered.append(declared)
    return declared


def unregister_benchmark(declared: Benchmark) -> None:
    """Remove a benchmark ``register_benchmark`` added (tests clean up with it)."""
    if declared in _registered:
        _registered.remove(declared)


def register_task(task: type) -> type:
    """Register the Task subclass ``task`` under ``task.name`` (usable as a decorator), a
    task that belongs to no benchmark; returns it.  Raises NeocoderError when the name is
    taken by another task."""
    name = task.name
    known = _tasks.get(name)
    if known is task:
        return task
    if known is not None or name in OTHER_TASKS or any(name in b.tasks for b in benchmarks()):
        raise NeocoderError(f"task name {name!r} is taken")
    _tasks[name] = task
    return task


def task_names() -> list[str]:
    """Every task name: each benchmark's, then the others, then those registered alone."""
    names = [t for b in benchmarks() for t in b.tasks] + list(OTHER_TASKS)
    return names + [n for n in _tasks if n not in names]


def get_task(name: str) -> type:
    """The Task class registered as ``name``.  Raises NeocoderError for an unknown name."""
    if name in _tasks:
        return _tasks[name]
    if name in OTHER_TASKS:
        return resolve(OTHER_TASKS[name])
    for b in benchmarks():
        if name in b.tasks:
            return resolve(b.tasks[name])
    raise NeocoderError(f"unknown task {name!r}; choose from {', '.join(task_names())}")


def benchmark_of_kind(kind: str) -> Benchmark | None:
    """The benchmark whose task wrote runs of manifest kind ``kind`` (None: no benchmark's,
    e.g. the suite's)."""
    for b in benchmarks():
        if kind in b.tasks or kind in b.kinds:
            return b
    return None


def record_class(tag: str) -> type | None:
    """The record class a registered benchmark declares for the ``type`` tag ``tag``
    (imported now), or None when none declares it."""
    owner = benchmark_of_record(tag)
    return None if owner is None else resolve(owner.records[tag])


def benchmark_of_record(tag: str) -> Benchmark | None:
    """The benchmark that declares the record ``type`` tag ``tag`` (None: none does)."""
    for b in benchmarks():
        if tag in b.records:
            return b
    return None


__all__ = ["BUILT_IN", "OTHER_TASKS", "SUITE", "Benchmark", "benchmark", "benchmark_names", "benchmark_of_kind",
           "benchmark_of_record", "benchmarks", "get_task", "record_class", "register_benchmark", "register_task",
           "task_names", "unregister_benchmark"]
