"""The static HTML report of one or more run folders (``neocoder report RUN ... --out DIR``).

Why: a run ends with one table; a researcher wants to see the paper's figures for their
own runs, with uncertainty, and to open any sample to see where a model fails and what it
wrote instead of a forbidden technique.  The report is plain files that open offline
from disk: figures are matplotlib SVG inlined in the pages (``plots.py``), code is
highlighted by pygments, and the only script is the drill-down page's filter
(``filter.js``, no framework); without JavaScript every figure, table and sample still
shows.

This module only reads the runs and puts the pages together.  Each benchmark's part is
its section (``sections/``: NeoCoder with its drill-down, AidanBench, LiveIdeaBench),
chosen by the run's manifest ``kind``; the markup is Jinja2 templates
(``templates/``, rendered by ``render.py`` with autoescaping).  ``DIR`` gets
``index.html`` (the runs and every section), ``run<i>-<folder>.html`` per run whose
section has a drill-down page (NeoCoder model runs, ideas runs), and ``report.css`` and
``filter.js`` (copied from the package).  What each part shows: ``docs/report.md``.
"""

from __future__ import annotations

import re
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.report.render import render, write_page, write_static
from neocoder.report.runs import Run, disambiguate, display_name, open_run
from neocoder.report.sections import kinds, ordered_sections, section_for

__all__ = ["Run", "build_report", "display_name", "load_run"]


def load_run(path: Path) -> Run:
    """Read a run folder written by ``neocoder eval`` (model or ``--model human``),
    ``neocoder aidanbench`` or ``neocoder ideas``: manifest, metrics, and the records its
    section reads.

    Raises NeocoderError naming the folder when it is missing, is not a run folder (no
    ``manifest.json``), is of another kind (a built dataset), or has no ``metrics.json``
    yet; RecordError (a NeocoderError) for a record of another format version.
    """
    run, folder = open_run(Path(path), kinds())
    section_for(run.kind).read(run, folder)
    return run


def outcome_cells(metrics: dict) -> dict | None:
    """What the index's table of runs shows of a run's items and judge replies: its
    ``"outcome"`` (runner.Outcome) and its replies' unreadable counts summed over the roles
    (``{"replies", "unreadable", "share", "reasons"}``, None where it counts none); None for
    a run that records no outcome (older runs)."""
    from neocoder.suite.profile import unreadable_total
    outcome = metrics.get("outcome")
    if not outcome:
        return None
    return {**outcome, "replies": unreadable_total(metrics)}


def build_report(runs: list[Path], out: Path, full_paths: bool = True) -> Path:
    """Write the static HTML report of ``runs`` (run folders of any of the kinds ``eval``,
    ``human``, ``aidanbench``, ``ideas``) into folder ``out`` and return the path of its
    ``index.html``.  ``full_paths``: the pages show each run folder's absolute path (a
    report for its operator); False shows only the folder's name (a public board's
    reports, which must not reveal the operator's file system).

    NeoCoder model runs and ideas runs get a drill-down page each.  The humans' techniques
    (Table 2) are detected in the release's accepted solutions once and cached
    (``techniques.human.human_solution_sets``).  Raises NeocoderError for a folder that is
    not a run folder of those kinds (naming it) or for an empty ``runs``; nothing is
    written before every folder was read.
    """
    if not runs:
        raise NeocoderError("no run folders given")
    loaded = [load_run(Path(p)) for p in runs]
    disambiguate(loaded, lambda r: section_for(r.kind).name)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_static(out)
    for i, run in enumerate(loaded, 1):
        run.shown = str(run.path.resolve()) if full_paths else run.path.resolve().name
        if section_for(run.kind).has_page(run):
            run.page = f"run{i}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', run.path.resolve().name)}.html"
    parts = []
    for section in ordered_sections():
        members = [r for r in loaded if section_for(r.kind) is section]
        if members:
            parts.append(section.index_html(members))
            section.write_pages(members, out)
    rows = [(r, section_for(r.kind).size(r), section_for(r.kind).page_link, outcome_cells(r.metrics))
            for r in loaded]
    index = out / "index.html"
    write_page(index, "NeoCoder report", render("index.html", runs=rows, sections=parts))
    return index
