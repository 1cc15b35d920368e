"""The leaderboard's rows: models by measures, from run folders and published tables.

Why: a leaderboard ranks models, but runs come as folders: a suite run holds several
benchmarks of one model, an AidanBench or LiveIdeaBench run may hold several models, and
one model may have been run more than once.  ``collect`` reads every folder given (a suite
run folder, a run folder of any registered benchmark, or a folder of such run folders),
and makes one ``Row`` per model with each benchmark's headline measures (its descriptor's
``measures``, neocoder/benchmarks/descriptor.py) from that model's latest run of the
benchmark.  ``published_rows`` adds the figures the papers published, labelled as
published: each benchmark's ``published`` rows (the NeoCoder paper's Table 4, the
LiveIdeaBench leaderboard of December 2024, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.benchmarks import SUITE, benchmark_of_kind, benchmarks
from neocoder.benchmarks.descriptor import resolve
from neocoder.errors import NeocoderError
from neocoder.replies import mostly_unreadable
from neocoder.report.runs import display_name
from neocoder.store import RunFolder
from neocoder.suite.profile import measures_of, read_metrics, unreadable_total


@dataclass
class Source:
    """One benchmark run behind a row's measures: its folder, the benchmark, the model's
    name in that run's metrics, the run's start time (ISO 8601) and the suite holding it."""

    bench: str
    folder: Path
    model: str
    started: str
    suite: Path | None = None


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


def _sources(folder: Path) -> list[tuple[str, Source]]:
    """``(row model, Source)`` for each model and benchmark in the run folder ``folder``;
    a folder of another kind, or unfinished, gives none."""
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
                sub = folder / step.folder
                out.append((model, Source(step.benchmark, sub, step.model, manifest.started, folder)))
        return out
    bench = benchmark_of_kind(manifest.kind)
    if bench is None or manifest.kind not in bench.kinds or not bench.measures:
        return []  # a build or validation run: no headline measures
    metrics = read_metrics(folder)
    return [(name, Source(bench.name, folder, name, manifest.started))
            for name in bench.models(manifest.config, metrics)]


def collect(paths: list[Path]) -> list[Row]:
    """One Row per model found in ``paths`` (run folders or folders of them), each
    benchmark's measures from the model's latest run of it.  Raises NeocoderError for a
    path that is not a run folder or a folder of them, or a finished run whose metrics
    cannot be read."""
    rows: dict[str, Row] = {}
    for folder in run_folders(paths):
        for model, source in _sources(folder):
            name = display_name(model)
            row = rows.setdefault(name, Row(id=slug(name), model=name))
            known = row.sources.get(source.bench)
            if known is not None and known.started > source.started:
                continue
            row.sources[source.bench] = source
            if source.suite is not None and source.model != model:
                row.stand_in[source.bench] = display_name(source.model)
            metrics = read_metrics(source.folder)
            row.outcomes[source.bench] = metrics.get("outcome")
            row.unreadable[source.bench] = counts = unreadable_total(metrics)
            for m in measures_of(source.bench, metrics, source.model):
                cell = {k: m[k] for k in ("value", "low", "high")}
                if mostly_unreadable(counts):  # never a number resting on the few readable replies
                    cell = {"value": None, "low": None, "high": None, "unreadable": True}
                row.values[f"{source.bench}.{m['key']}"] = cell
    for row in rows.values():
        row.runs = sorted({s.suite or s.folder for s in row.sources.values()}, key=str)
    return sorted(rows.values(), key=lambda r: r.model)


def published_rows() -> list[Row]:
    """The published figures as rows, each benchmark's (``Benchmark.published``: dicts with
    ``id``, ``model``, ``origin`` and ``values`` by ``bench.key``), labelled as published.
    A benchmark whose published table cannot be read here gives none (its function says
    why it left it out)."""
    rows = []
    for bench in benchmarks():
        if bench.published is None:
            continue
        for entry in resolve(bench.published)():
            rows.append(Row(id=entry["id"], model=entry["model"], published=True, origin=entry["origin"],
                            values=dict(entry["values"])))
    return rows
