"""The benchmarks, one package each, and their registry.

Each benchmark is a package holding what it alone knows: its config with its model
defaults (``config.py``), its task (``runner.Task``), its loop, prompts list, scoring and
records, and its descriptor (``descriptor.py``: a ``Benchmark`` naming its tasks, records,
measures, suite presets and the surfaces' extensions; neocoder/benchmarks/descriptor.py).

They sit on the shared stages (dataset, models, judge, executors, techniques, metrics) and
the runner; the surfaces (CLI, API, server, inspect tasks, report, suite, leaderboard)
sit on them and find them here, never by name.  Adding a benchmark is one package and one
line in ``BUILT_IN`` (or ``register_benchmark`` for a plugin's or a test's): docs/tasks.md.

An installed plug-in is found through the entry point group ``neocoder.benchmarks``
(``PLUGINS``): each entry point names a ``Benchmark`` (``"package.module:BENCHMARK"``),
loaded once, on first use, after the built-in ones, so every process (the CLI, the
server, the suite, report and leaderboard) knows it with no import of its own.  A
plug-in that cannot be loaded is left out with a warning naming its entry point
(``broken_plugins``), and asking for it by name says why; unrelated commands run on.

A task is found by its name (``neocoder run NAME``, ``neocoder.run(NAME, config)``,
``POST /v1/runs {"task": NAME}``): every benchmark's tasks, and the tasks that are no
benchmark (``OTHER_TASKS``: the suite of them all).  Descriptors are imported on first
use, so importing this module imports no benchmark; ``register_task`` adds a lone task.
"""

from __future__ import annotations

import warnings
from importlib import import_module, metadata

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

PLUGINS = "neocoder.benchmarks"  # the entry point group of installed benchmark plug-ins

_loaded: list[Benchmark] | None = None
_plugins: list[Benchmark] | None = None
_broken: dict[str, str] = {}  # entry point name -> why it was left out
_registered: list[Benchmark] = []
_tasks: dict[str, type] = {}


class UnknownBenchmark(NeocoderError, KeyError):
    """A benchmark name (or a run's manifest kind) that no registered benchmark has: its
    plug-in is not installed here, or could not be loaded (the message says which).  A
    KeyError too, for the callers that ask ``benchmark`` whether a name is known."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def benchmarks() -> list[Benchmark]:
    """Every registered benchmark: the built-in ones, then the installed plug-ins
    (``PLUGINS``), then those given to ``register_benchmark``, in that order."""
    return _built_in() + _discovered() + _registered


def _built_in() -> list[Benchmark]:
    """The ``BUILT_IN`` benchmarks, imported once."""
    global _loaded
    if _loaded is None:
        _loaded = [import_module(module).BENCHMARK for module in BUILT_IN]
    return _loaded


def _discovered() -> list[Benchmark]:
    """The benchmarks of the ``PLUGINS`` entry points, loaded once (a plug-in that asks for
    the registry while it loads sees the built-in ones)."""
    global _plugins
    if _plugins is None:
        _plugins, found = [], []
        for point in sorted(metadata.entry_points(group=PLUGINS), key=lambda p: p.name):
            declared = _load(point, [b.name for b in _built_in() + found + _registered])
            if declared is not None:
                found.append(declared)
        _plugins = found
    return _plugins


def _load(point, taken: list[str]) -> Benchmark | None:
    """The Benchmark entry point ``point`` names, or None (with a warning naming it, kept in
    ``_broken``) when it cannot be imported, is no Benchmark or its name is ``taken``."""
    where = f"entry point {point.name!r} ({point.value}) of group {PLUGINS!r}"
    try:
        declared = point.load()
        if not isinstance(declared, Benchmark):
            raise TypeError(f"it names a {type(declared).__name__}, not a neocoder Benchmark")
        if declared.name in taken:
            raise NeocoderError(f"benchmark name {declared.name!r} is taken")
    except Exception as exc:  # any failure of a plug-in's own code: left out, never the end of the command
        why = " ".join(f"{type(exc).__name__}: {exc}".split())
        _broken[point.name] = f"{where}: {why}"
        warnings.warn(f"neocoder plug-in left out: {where} cannot be loaded ({why})", stacklevel=3)
        return None
    return declared


def broken_plugins() -> dict[str, str]:
    """Entry point name -> why that installed plug-in was left out (empty when every one
    loaded)."""
    _discovered()
    return dict(_broken)


def reload_plugins() -> None:
    """Forget the plug-ins found so far; the next use looks for the entry points again (a
    plug-in installed while this process runs; the tests)."""
    global _plugins
    _plugins = None
    _broken.clear()


def unknown_kind(kind: str) -> str:
    """One line saying that runs of ``kind`` belong to no registered benchmark here, with
    what is registered and, where some failed to load, the broken plug-ins."""
    why = f"; plug-ins that failed to load: {'; '.join(broken_plugins().values())}" if broken_plugins() else ""
    return (f"unknown benchmark {kind!r}: no registered benchmark declares it (registered: "
            f"{', '.join(benchmark_names())}); install its plug-in (entry point group {PLUGINS!r}) or register it "
            f"with neocoder.register_benchmark{why}")


def benchmark(name: str) -> Benchmark:
    """The benchmark ``name``.  Raises UnknownBenchmark (a NeocoderError and a KeyError)
    naming it as unknown for a name no benchmark has."""
    for b in benchmarks():
        if b.name == name:
            return b
    raise UnknownBenchmark(unknown_kind(name))


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
    broken = f"; plug-ins that failed to load: {'; '.join(broken_plugins().values())}" if broken_plugins() else ""
    raise NeocoderError(f"unknown task {name!r}; choose from {', '.join(task_names())}{broken}")


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


__all__ = ["BUILT_IN", "OTHER_TASKS", "PLUGINS", "SUITE", "Benchmark", "UnknownBenchmark", "benchmark",
           "benchmark_names", "benchmark_of_kind", "benchmark_of_record", "benchmarks", "broken_plugins", "get_task",
           "record_class", "register_benchmark", "register_task", "reload_plugins", "task_names", "unknown_kind",
           "unregister_benchmark"]
