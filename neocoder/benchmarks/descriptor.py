"""What a benchmark declares about itself, in one place: the ``Benchmark`` descriptor.

Why: the surfaces (the command line, the Python API, the server's jobs, the report,
``export``, ``suite``, ``leaderboard``, the inspect tasks) and the shared machinery below
them must serve every benchmark without naming any.  Each benchmark package declares one
``Benchmark`` (in its ``descriptor.py``) and the registry (``neocoder/benchmarks/__init__.py``)
lists it; every surface loops over the registered descriptors.  After inspect_ai, whose
own evals register exactly as a plugin's do, and lm-eval, whose tasks are declarations
its harness reads.

A descriptor names code by reference (``"module:attribute"``, imported on first use), so
listing the benchmarks imports none of them, and a layer may name code above it (a
benchmark's report section lives beside the report) without importing it.

A descriptor holds:

- ``tasks``: its tasks by name (the first is the benchmark's main task, the one the suite
  runs) and ``records``: its record types by ``type`` tag, so a run folder reads back with
  no benchmark imported first (records.py asks the registry for a tag it does not hold);
- ``measures``: its headline measures (``Measure``: name, direction, convergent, divergent
  or its own composite, scale, how to read them from ``metrics.json``, and where they
  have them the per-item values a paired comparison needs);
- ``presets``: the task options each suite size sets, and how the suite builds its config;
- ``items`` and ``default_items``: which items a run measured (the leaderboard compares
  and stars only runs on the same items) and how many its default set holds;
  ``default_ids``: the ids of that set, so a board refuses an item it does not hold;
- ``recompute`` and ``verify``: how a board (``neocoder board add``) checks a submitted
  run: its headline measures and intervals recomputed from its records, and its records
  re-judged (NeoCoder: the recorded programs judged again in the board's sandbox) or
  re-scored (AidanBench: the recorded judge replies read again with the grammars); a
  benchmark without them is shown "not verified";
- the surfaces' extensions: its report section, its own command-line modules (none: a
  generic command built from its config), its inspect tasks, its export tables, the
  published figures the leaderboard shows beside ours, and its extra server routes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from operator import attrgetter
from typing import Any, Callable, Mapping

from neocoder.errors import NeocoderError

CONVERGENT, DIVERGENT, COMPOSITE = "convergent", "divergent", "composite"  # a measure's kind
QUICK, FULL = "quick", "full"  # the suite's sizes: minutes on a hosted model, and the papers' sizes
SIZES = (QUICK, FULL)
# the column types an exported table may declare (``Benchmark.tables``; neocoder/export.py writes them)
STRINGS, BOOLS, INTS, DOUBLES = "list<string>", "list<bool>", "list<int64>", "list<double>"
COLUMN_TYPES = ("string", "int64", "double", "bool", STRINGS, BOOLS, INTS, DOUBLES)


def attributes(**types: str) -> dict:
    """Exported-table columns read straight off a record's attribute of the same name:
    ``{name: (type, getter)}``, in the order given (``attributes(model="string")``)."""
    return {name: (kind, attrgetter(name)) for name, kind in types.items()}


def lists(**types: str) -> dict:
    """Exported-table columns holding a copy of a record's list attribute of the same name."""
    return {name: (kind, lambda record, name=name: list(getattr(record, name))) for name, kind in types.items()}


def resolve(ref: Any) -> Any:
    """The object ``ref`` names: ``"package.module:attribute"`` imported now (dots in the
    attribute walk into it), or ``ref`` itself when it is not such a string; None stays
    None.  Raises NeocoderError naming the reference when it cannot be imported."""
    if not isinstance(ref, str) or ":" not in ref:
        return ref
    module, _, attribute = ref.partition(":")
    try:
        found: Any = import_module(module)
        for part in attribute.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise NeocoderError(f"{ref}: cannot be loaded ({exc})") from exc
    return found


@dataclass(frozen=True)
class Measure:
    """One headline measure of a benchmark.

    ``key`` is its name in the benchmark (the leaderboard's column is ``<benchmark>.<key>``),
    ``label`` what the pages show, ``kind`` CONVERGENT, DIVERGENT or COMPOSITE (the
    benchmark's own composite of the two, e.g. NeoGauge), ``scale`` its unit ("fraction",
    "count", "1-10", "nats"), ``source`` the paper and equation it follows.
    ``pick(metrics, model) -> (value, {"low", "high"} | None)`` reads it and its 95%
    interval from a run's ``metrics.json`` (``model``: the model's name in the run).
    ``higher_is_better`` is its direction.  ``per_item(folder, model)``, where given, gives
    the measure as per-item ``metrics.bootstrap.Ratio``s (summed when several), so two runs
    on shared items are compared by a paired bootstrap (report/leaderboard/ties.py)."""

    key: str
    label: str
    kind: str
    scale: str
    pick: Callable[[dict, str], tuple]
    source: str
    higher_is_better: bool = True
    per_item: Callable | None = None


class RecordsDisagree(NeocoderError):
    """A submitted run's records say otherwise than re-judging or re-scoring them does
    (``Benchmark.verify``): the message names the first item that differs."""


def _always(_spec: str) -> bool:
    return True


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's declaration (see the module).  References may be objects or
    ``"module:attribute"`` strings (``resolve``)."""

    name: str  # the suite's sub-folder, the leaderboard's column prefix, the generic command's name
    title: str  # one line, as the pages show it
    tasks: Mapping[str, Any]  # task name -> Task class (or its reference); the first is the main task
    records: Mapping[str, Any] = field(default_factory=dict)  # record ``type`` tag -> Record class (or reference)
    result_kinds: tuple[str, ...] = ()  # manifest kinds whose runs carry the measures (default: the main task)
    unit: str = "item"  # what its bootstrap resamples: the unit runs are paired on
    measures: tuple[Measure, ...] = ()
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # size -> the main task's options
    suite_config: Any = None  # (SuiteConfig, ModelConfig, out, options) -> config; None: built by field names
    answers: Callable[[str], bool] = _always  # can a model of this spec answer it (a replay holds some only)?
    needs_judges: bool = False  # the suite runs it only with judges other than the model
    section: Any = None  # the report's section for its runs (report/sections/base.py Section)
    commands: tuple[str, ...] = ()  # modules adding its own commands to the CLI; () : one generic command
    inspect: tuple[str, ...] = ()  # modules registering its inspect_ai tasks
    tables: Any = None  # export: folder -> [(table name, rows, {column: type})]; None: no tables
    published: Any = None  # the leaderboard: () -> [{"id", "model", "origin", "values"}] from its papers
    routes: tuple[str, ...] = ()  # references to extra FastAPI routers of the server (``module:router``)
    models_of: Callable[[dict, dict], list] | None = None  # (manifest config, metrics) -> the run's models
    # the leaderboard's item sets: (run folder, model) -> the sorted ids of the items the run measured the model
    # on (problems, questions, keywords); and (manifest) -> how many items the benchmark's default set holds,
    # so a run on fewer is marked a subset.  None: unknown (the board shows no n, marks no subset)
    items: Any = None
    default_items: Any = None
    # (manifest) -> the ids of the default set's items (None: unknown, a set of the user's)
    default_ids: Any = None
    # a board's checks (report/leaderboard/submissions.py): (folder, model, manifest config, metrics) -> the
    # run's metrics in metrics.json's layout recomputed from its records (intervals included), and
    # (folder, model, manifest config, scratch folder) -> how the records were verified ("re-judged: ..."),
    # raising RecordsDisagree naming the first item that differs.  None: not verified
    recompute: Any = None
    verify: Any = None

    def __post_init__(self):
        if not self.tasks:
            raise NeocoderError(f"benchmark {self.name!r} declares no task")
        for m in self.measures:
            if m.kind not in (CONVERGENT, DIVERGENT, COMPOSITE):
                raise NeocoderError(f"benchmark {self.name!r}, measure {m.key!r}: kind {m.kind!r} is not one of "
                                    f"{CONVERGENT}, {DIVERGENT}, {COMPOSITE}")
        unknown = set(self.presets) - set(SIZES)
        if unknown:
            raise NeocoderError(f"benchmark {self.name!r}: presets {sorted(unknown)} are not suite sizes {SIZES}")

    @property
    def main_task(self) -> str:
        """The name of the task the suite runs and whose runs carry the measures."""
        return next(iter(self.tasks))

    @property
    def kinds(self) -> tuple[str, ...]:
        """The manifest kinds whose runs carry this benchmark's measures."""
        return self.result_kinds or (self.main_task,)

    @property
    def in_suite(self) -> bool:
        """Whether ``neocoder suite`` runs it (it declares presets)."""
        return bool(self.presets)

    def measure(self, key: str) -> Measure:
        """The measure ``key``.  Raises KeyError for another key."""
        for m in self.measures:
            if m.key == key:
                return m
        raise KeyError(key)

    def models(self, config: dict, metrics: dict) -> list[str]:
        """The models a run of this benchmark holds: ``models_of`` where declared, else the
        names under ``metrics["models"]`` when there are any, else the manifest's model."""
        if self.models_of is not None:
            return list(self.models_of(config, metrics))
        if metrics.get("models"):
            return list(metrics["models"])
        return [(config.get("model") or {}).get("spec", "?")]
