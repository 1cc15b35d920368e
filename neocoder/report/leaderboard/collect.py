"""The leaderboard's rows: models by measures, from run folders and published tables.

Why: a leaderboard ranks models, but runs come as folders: a suite run holds several
benchmarks of one model, an AidanBench or LiveIdeaBench run may hold several models, and
one model may have been run more than once.  ``collect`` reads every folder given (a run
folder of kind ``suite``, ``eval``, ``human``, ``aidanbench`` or ``ideas``, or a folder
of such run folders), and makes one ``Row`` per model with each benchmark's headline
measures (neocoder/suite/registry.py) from that model's latest run of the benchmark.
``published_rows`` adds the figures the papers published, labelled as published: the
NeoCoder paper's Table 4 (GPT-4; neocoder/report/published.py) and the LiveIdeaBench
leaderboard of December 2024 (neocoder/ideas/sources.py ``load_leaderboard``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.report.runs import display_name
from neocoder.store import RunFolder
from neocoder.suite.profile import measures_of, read_metrics
from neocoder.suite.registry import LAST_STATE

BENCH_KINDS = ("eval", "human", "aidanbench", "ideas")  # run kinds that are one benchmark
SUITE = "suite"


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
    if manifest.kind not in BENCH_KINDS:
        return []
    bench = "eval" if manifest.kind == "human" else manifest.kind
    if bench == "eval":
        model = manifest.config.get("model", {}).get("spec", folder.name)
        return [(model, Source(bench, folder, model, manifest.started))]
    metrics = read_metrics(folder)
    return [(name, Source(bench, folder, name, manifest.started)) for name in metrics.get("models", {})]


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
            for m in measures_of(source.bench, read_metrics(source.folder), source.model):
                row.values[f"{source.bench}.{m['key']}"] = {k: m[k] for k in ("value", "low", "high")}
    for row in rows.values():
        row.runs = sorted({s.suite or s.folder for s in row.sources.values()}, key=str)
    return sorted(rows.values(), key=lambda r: r.model)


def published_rows() -> list[Row]:
    """The published figures as rows: GPT-4 in the NeoCoder paper's Table 4 (pass@1 at t=0,
    convergent and divergent at t=5, NeoGauge summed over t<=5) and each model of the
    LiveIdeaBench December 2024 leaderboard (originality, feasibility, fluency,
    flexibility on 1-10; the leaderboard has no clarity).  A table that cannot be read
    here (the LiveIdeaBench file is not shipped: $LIVEIDEABENCH_DIR) is left out."""
    from neocoder.report import published
    rows = []
    t4 = published.table4_states()
    row = Row(id="published-neocoder-gpt-4", model="gpt-4-1106-preview", published=True,
              origin="NeoCoder paper (Lu et al., NAACL 2025), Table 4")
    last = t4.get(str(LAST_STATE), {})
    row.values = {"eval.pass@1_t0": {"value": t4.get("0", {}).get("pass@1")},
                  "eval.convergent_t5": {"value": last.get("convergent")},
                  "eval.divergent_t5": {"value": last.get("divergent")},
                  "eval.neogauge_cum_t5": {"value": round(sum(t4.get(str(t), {}).get("neogauge") or 0.0
                                                              for t in range(LAST_STATE + 1)), 6)}}
    rows.append(row)
    try:
        from neocoder.benchmarks.ideas.sources import load_leaderboard
        board = load_leaderboard()
    except NeocoderError:
        board = []
    for entry in board:
        row = Row(id="published-liveideabench-" + slug(entry["model"]), model=entry["model"], published=True,
                  origin="LiveIdeaBench leaderboard, December 2024")
        row.values = {f"ideas.{k.lower()}": {"value": entry[k]} for k in ("Originality", "Feasibility", "Fluency",
                                                                           "Flexibility")}
        rows.append(row)
    return rows
