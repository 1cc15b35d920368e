"""The leaderboard's rows: models by measures, from run folders and published tables.

Why: a leaderboard ranks models, but runs come as folders: a suite run holds several
benchmarks of one model, an AidanBench or LiveIdeaBench run may hold several models, and
one model may have been run more than once.  ``collect`` reads every folder given (a suite
run folder, a run folder of any registered benchmark, or a folder of such run folders),
and makes ``Row``s of each benchmark's headline measures (its descriptor's ``measures``,
neocoder/benchmarks/descriptor.py).

A row is one model under one set of settings (its sampling settings, reasoning and
budgets, and the task's strategy): two runs of a model with other settings are two rows.
Within a row each benchmark has one run, measured on one set of items (the descriptor's
``items``): a later run of a benchmark on the same items replaces an earlier one (a
rerun), a run on other items starts a row of its own, so a later 2-problem run never
hides the full one.  Every cell knows its n and whether its items are a subset of the
benchmark's default set (``default_items``).  ``published_rows`` adds the figures the papers published, labelled as
published: each benchmark's ``published`` rows (the NeoCoder paper's Table 4, the
LiveIdeaBench leaderboard of December 2024, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.benchmarks import SUITE, benchmark, benchmark_of_kind, benchmarks, task_names, unknown_kind
from neocoder.benchmarks.descriptor import resolve
from neocoder.errors import NeocoderError
from neocoder.replies import mostly_unreadable
from neocoder.report.runs import display_name, run_language
from neocoder.store import RunFolder
from neocoder.suite.profile import measures_of, read_metrics, unreadable_total

# the model settings a row is told apart by (the manifest's model config) and the task's own
SETTINGS = ("temperature", "top_p", "max_tokens", "reasoning", "reasoning_effort", "seed", "api")
TASK_SETTINGS = ("strategy", "samples", "states", "candidates", "max_steps", "max_answers", "ideas_per_keyword",
                 "protocol")


@dataclass
class Source:
    """One benchmark run behind a row's measures: its folder, the benchmark, the model's
    name in that run's metrics, the run's start time (ISO 8601) and the suite holding it;
    ``items``: the sorted ids of the items it measured (None: the benchmark does not say),
    ``default``: how many the benchmark's default set holds (None: unknown);
    ``settings``: how the model was run; ``facts``: the run's dataset, versions, date and spend."""

    bench: str
    folder: Path
    model: str
    started: str
    suite: Path | None = None
    items: tuple | None = None
    default: int | None = None
    settings: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    row_model: str = ""  # the model of the row it belongs to (a suite's model, whoever answered)
    values: dict = field(default_factory=dict)  # bench.key -> cell {"value", "low", "high", "n", "of", "subset"}
    outcome: dict | None = None  # its metrics.json "outcome" (runner.Outcome)
    unreadable: dict | None = None  # its judge replies' unreadable counts, all roles summed
    ratios: dict | None = None  # key -> per-item Ratios as stored in a board summary (None: read from ``folder``)

    @property
    def subset(self) -> bool:
        """Measured on fewer items than the benchmark's default set."""
        return self.items is not None and self.default is not None and len(self.items) < self.default

    @property
    def language(self) -> str | None:
        """The language of the programs behind its measures: the settings' ``language``
        (kept only when it is not Python), "python" for a benchmark whose runs take one
        (NeoCoder), None for a benchmark without programs (AidanBench, LiveIdeaBench, ...),
        whose measures do not depend on a language."""
        return source_language(self.bench, self.settings)


def source_language(bench: str, settings: dict) -> str | None:
    """The language of a Source of benchmark ``bench`` run with ``settings`` (see
    ``Source.language``); None for a benchmark that is not registered here."""
    try:
        main = benchmark(bench).main_task
    except KeyError:
        return None
    return run_language(main, {"language": settings.get("language")})


@dataclass
class Row:
    """One model on the leaderboard: ``values`` maps ``bench.key`` to ``{"value", "low",
    "high"}``; ``published`` rows come from a paper (``origin`` says which)."""

    id: str
    model: str
    published: bool = False
    origin: str = ""
    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)  # bench -> Source
    stand_in: dict = field(default_factory=dict)  # bench -> the stand-in model that answered it
    runs: list = field(default_factory=list)  # the run folders (suites and single runs) behind the row
    outcomes: dict = field(default_factory=dict)  # bench -> its run's metrics.json "outcome" (runner.Outcome)
    unreadable: dict = field(default_factory=dict)  # bench -> its judge replies' unreadable counts (all roles)
    settings: dict = field(default_factory=dict)  # how the model was run (SETTINGS, TASK_SETTINGS): the row's key
    other: dict = field(default_factory=dict)  # a published row's figures that have no column here: {label: value}

    @property
    def language(self) -> str | None:
        """The language of the row's programs ("python", "cpp"): part of its identity, since
        its settings hold a language other than Python; None for a row none of whose
        benchmarks has programs (and for published rows)."""
        found = [s.language for s in self.sources.values() if s.language is not None]
        return found[0] if found else None

    def settings_text(self) -> str:
        """The settings as one short line ("temperature 0, max_tokens 1024, strategy direct");
        the language is left out (the row shows it as a label of its own, ``language``)."""
        return ", ".join(f"{k} {_text(v)}" for k, v in self.settings.items()
                         if v not in (None, False, [], "") and k != "language")


def _text(value) -> str:
    if isinstance(value, list):
        return "/".join(map(str, value))
    return "on" if value is True else str(value)


def slug(text: str) -> str:
    """A file-name-safe id for ``text``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "row"


def run_folders(paths: list[Path]) -> list[Path]:
    """The run folders among ``paths``: each path that has a manifest.json, else its
    sub-folders that have one (sorted).  Raises NeocoderError naming a path that is
    neither."""
    found = []
    for p in map(Path, paths):
        if (p / RunFolder.MANIFEST).is_file():
            found.append(p)
            continue
        if not p.is_dir():
            raise NeocoderError(f"{p}: no such run folder or folder of runs")
        children = sorted(c for c in p.iterdir() if (c / RunFolder.MANIFEST).is_file())
        if not children:
            raise NeocoderError(f"{p}: neither a run folder nor a folder holding run folders (no manifest.json)")
        found += children
    return found


def sources_of(folder: Path) -> list[Source]:
    """A Source for each model and benchmark in the run folder ``folder`` (its
    ``row_model`` the row it belongs to); a folder of another kind, or unfinished, gives
    none."""
    run = RunFolder(folder, create=False)
    try:
        manifest = run.read_manifest()
    except (NeocoderError, ValueError, TypeError) as exc:
        raise NeocoderError(f"{folder}: not a readable run folder ({exc})") from exc
    if not (folder / RunFolder.METRICS).is_file():
        return []  # not finished yet: nothing to rank
    if manifest.kind == SUITE:
        from neocoder.suite.records import SuiteStep
        model = manifest.config["model"]["spec"]
        out = []
        for step in run.read(SuiteStep):
            if step.skipped is None:
                from neocoder.report.leaderboard.intake import inside
                sub = inside(folder, step.folder)  # never a folder outside the suite's (``..``, absolute)
                try:
                    bench = benchmark(step.benchmark)
                except KeyError as exc:  # UnknownBenchmark: a plug-in not installed here
                    raise NeocoderError(f"{folder}: the suite ran {exc}") from None
                out.append(_source(bench, sub, step.model, model, folder, manifest.config))
        return out
    bench = benchmark_of_kind(manifest.kind)
    if bench is None and manifest.kind not in task_names():
        raise NeocoderError(f"{folder}: {unknown_kind(manifest.kind)}")  # never "no finished runs"
    if bench is None or manifest.kind not in bench.kinds or not bench.measures:
        return []  # a build or validation run: no headline measures
    metrics = read_metrics(folder)
    return [_source(bench, folder, name, name) for name in bench.models(manifest.config, metrics)]


def _source(bench, folder: Path, model: str, row_model: str, suite: Path | None = None,
            suite_config: dict | None = None) -> Source:
    """The Source of ``model`` in the run folder ``folder`` of ``bench``: its items, the
    default set's size, its settings and facts (from its manifest and metrics.json).  The
    settings of a suite's benchmark are the suite's (``suite_config``: what its user set;
    each benchmark's own defaults are the suite's choice, the same in every suite run)."""
    manifest = RunFolder(folder, create=False).read_manifest()
    metrics = read_metrics(folder)
    items = resolve(bench.items)(folder, model) if bench.items else None
    default = resolve(bench.default_items)(manifest) if bench.default_items else None
    config = manifest.config
    spec = ((suite_config if suite_config is not None else config).get("model") or {})
    settings = {k: spec.get(k) for k in SETTINGS if spec.get(k) not in (None, False)}
    if suite_config is not None:
        settings["suite"] = suite_config.get("preset")
    else:
        settings.update({k: config[k] for k in TASK_SETTINGS if config.get(k) not in (None, False, [], "")})
    # issue 49: a C++ run is its own row, told apart by it; a suite's is the suite's (one row for all its benchmarks)
    language = (suite_config if suite_config is not None else config).get("language")
    if language not in (None, "python"):
        settings["language"] = language
    calls = metrics.get("calls") or {}
    facts = {"started": manifest.started, "provider": model.split("/", 1)[0] if "/" in model else model,
             "dataset": manifest.extra.get("dataset_version") or manifest.extra.get("dataset") or config.get("domain"),
             "neocoder": manifest.packages.get("neocoder"), "metrics_version": metrics.get("format_version"),
             "git_commit": manifest.git_commit, "prompt_tokens": calls.get("prompt_tokens"),
             "completion_tokens": calls.get("completion_tokens"), "cost": metrics.get("cost")}
    source = Source(bench.name, folder, model, manifest.started, suite, tuple(items) if items is not None else None,
                    default, settings, facts, row_model, outcome=metrics.get("outcome"),
                    unreadable=unreadable_total(metrics))
    n = len(source.items) if source.items is not None else (source.outcome or {}).get("items")
    # a benchmark may name the measures resting on mostly unreadable replies itself (ideas: per model)
    own = ((metrics.get("models") or {}).get(model) or {}).get("unreadable_measures") or []
    for m in measures_of(bench.name, metrics, model):
        cell = {k: m[k] for k in ("value", "low", "high")}
        if mostly_unreadable(source.unreadable) or m["key"] in own:  # never a number resting on few readable replies
            cell = {"value": None, "low": None, "high": None, "unreadable": True}
        covered = measured_on(bench.measure(m["key"]), folder, model)
        cell.update(n=n if covered is None else covered, of=default, subset=source.subset)
        source.values[f"{bench.name}.{m['key']}"] = cell
    return source


def measured_on(measure, folder: Path, model: str, ratios: list | None = None) -> int | None:
    """How many items ``measure`` was computed on in the run in ``folder``: the items its
    per-item values cover (``ratios``, else the measure's ``per_item``: NeoCoder's t=5
    measures cover the problems that have a state 5 and a judged sample there; a sample
    in error is in no ratio); None for a measure without per-item values."""
    if ratios is None:
        if measure.per_item is None:
            return None
        ratios = measure.per_item(Path(folder), model) or []
    return len({u for r in ratios for u in r.num})


def collect(paths: list[Path]) -> list[Row]:
    """The rows of the runs in ``paths`` (run folders or folders of them): one per model and
    settings, each benchmark's measures from one run of it, a run on other items than the
    row's run of that benchmark in a row of its own (see the module).  Sorted by model,
    then by the first run's start.  Raises NeocoderError for a path that is not a run
    folder or a folder of them, or a finished run whose metrics cannot be read."""
    return rows_of([source for folder in run_folders(paths) for source in sources_of(folder)])


def rows_of(sources: list[Source]) -> list[Row]:
    """The rows of ``sources`` (from run folders, or from a board's summaries), grouped as
    the module says, sorted by model, then by the first run's start."""
    found = sorted(sources, key=lambda s: (s.started, str(s.folder), s.bench, s.model))  # earliest first
    rows: list[Row] = []
    for source in found:
        name = display_name(source.row_model)
        row = _row_for(rows, name, source)
        if row is None:
            row = Row(id=_row_id(rows, name), model=name, settings=dict(source.settings))
            rows.append(row)
        _fill(row, source)
    for row in rows:
        row.runs = sorted({s.suite or s.folder for s in row.sources.values()}, key=str)
    return sorted(rows, key=lambda r: (r.model, min(s.started for s in r.sources.values())))


def _row_for(rows: list[Row], name: str, source: Source) -> Row | None:
    """The row of model ``name`` with the source's settings that can take it: one without
    a run of its benchmark, or whose run of it covered the same items (the later one
    replaces it); None when a new row is needed."""
    for row in rows:
        if row.model != name or row.settings != source.settings:
            continue
        known = row.sources.get(source.bench)
        if known is None or known.items == source.items:
            return row
    return None


def _row_id(rows: list[Row], name: str) -> str:
    """A file-name-safe id for a new row of ``name``, unique among ``rows``."""
    base, taken = slug(name), {r.id for r in rows}
    rid, n = base, 2
    while rid in taken:
        rid, n = f"{base}-{n}", n + 1
    return rid


def _fill(row: Row, source: Source) -> None:
    """Put ``source``'s cells into ``row`` (a later run of the benchmark replaces its cells)."""
    known = row.sources.get(source.bench)
    if known is not None:
        for key in known.values:
            row.values.pop(key, None)
    row.sources[source.bench] = source
    row.stand_in.pop(source.bench, None)
    if source.suite is not None and source.model != source.row_model:
        row.stand_in[source.bench] = display_name(source.model)
    row.outcomes[source.bench] = source.outcome
    row.unreadable[source.bench] = source.unreadable
    row.values.update(source.values)


def published_rows() -> list[Row]:
    """The published figures as rows, each benchmark's (``Benchmark.published``: dicts with
    ``id``, ``model``, ``origin``, ``values`` by ``bench.key`` and, optionally, ``other``:
    figures without a column, ``{label: value}``), labelled as published.
    A benchmark whose published table cannot be read here gives none (its function says
    why it left it out)."""
    rows = []
    for bench in benchmarks():
        if bench.published is None:
            continue
        for entry in resolve(bench.published)():
            rows.append(Row(id=entry["id"], model=entry["model"], published=True, origin=entry["origin"],
                            values=dict(entry["values"]), other=dict(entry.get("other") or {})))
    return rows
