"""A committable board: run folders checked on submission, the board rebuilt from their
summaries alone (``neocoder board add``, ``neocoder board build``; docs/leaderboard.md).

Why: a leaderboard that anyone may submit to must not take a run's word for its numbers,
nor for its records.  After NoveltyBench, whose board is rebuilt from the score files
committed with each submission: ``add`` checks a run folder and writes one small JSON
summary per model and benchmark into ``BOARD/submissions/``; ``build`` makes the site
from those files only (the run folders need not be there), byte-identical each time for
the same summaries.

The checks, each refusing with one line naming it (``SubmissionRefused.check``), cheapest
first:

- ``files``: nothing outside the folder is read (no symlink followed, a suite step's
  folder a name inside it) and no file beyond its size limit (intake.py);
- ``manifest`` and ``types``: manifest.json and metrics.json read, of a registered
  benchmark with headline measures, naming the model (a string), its start and the
  neocoder version; every claimed cell a number or None;
- ``numbers``: every number finite (no NaN, no Infinity), an interval holding its value;
- ``dataset``: the run measured the benchmark's known default set (the descriptor's
  ``default_ids``: NeoCoder's shipped dataset by name, version and the fingerprint computed
  here from the shipped files, never a file of the submitter's);
- ``items``: the items the records hold are ids of that set (no made-up problem), and
  those the run claims (its manifest's count, its ``outcome`` block's);
- ``metrics``: every headline measure and its interval recomputed from the records with
  the project's own scoring (the descriptor's ``recompute``, the run's bootstrap settings)
  must equal metrics.json's (to 1e-9), a claimed value with no records behind it
  included; the board keeps the recomputed numbers, never the submission's;
- ``records``: the records themselves re-judged or re-scored (the descriptor's
  ``verify``: NeoCoder's recorded programs judged again in the board's sandbox,
  AidanBench's and LiveIdeaBench's recorded judge replies read again with the grammars),
  the first item that differs named.  A benchmark without ``recompute`` and ``verify``
  (the framework) is kept with its cells marked "not verified".

A summary is keyed by its submission (a SHA-256 of the run folder's files and the
submitter's name given at ``add``): two runs whose folders share a name never overwrite
each other, and another submitter's run of the same model and settings gets a row of
its own.  Every summary field is type-checked (intake.py ``check_summary``) and the
summary's row is rendered once before it is written, so no accepted submission breaks
``build``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from neocoder.benchmarks import SUITE, benchmark
from neocoder.benchmarks.descriptor import RecordsDisagree, resolve
from neocoder.errors import NeocoderError
from neocoder.metrics.bootstrap import Ratio
from neocoder.report.leaderboard.collect import Source, rows_of, slug, sources_of
from neocoder.report.leaderboard.intake import (
    FILE_LIMIT,
    SubmissionRefused,
    check_cell,
    check_files,
    check_summary,
    inside,
    number,
)
from neocoder.store import RunFolder
from neocoder.suite.profile import read_metrics

__all__ = ["SubmissionRefused", "add_run", "build_board", "check_run", "source_of", "summary"]

FORMAT = 2  # a summary's format (2: verified cells, recomputed intervals, the submission's key)
SUBMISSIONS = "submissions"
TOLERANCE = 1e-9
NOT_VERIFIED = "not verified"


@dataclass
class Checked:
    """One Source that passed every check, and how its records were verified."""

    source: Source
    verified: str


def check_run(folder: Path, verify: bool = True) -> list[Checked]:
    """Run every check of the module on the run folder ``folder`` (a benchmark's or a
    suite's); its checked Sources when all hold (``verify`` False skips the re-judging:
    for tests of the cheaper checks only).  Raises SubmissionRefused naming the first
    check that fails."""
    folder = Path(folder)
    check_files(folder)
    manifest = _manifest(folder)
    try:
        if manifest.kind == SUITE:
            from neocoder.suite.records import SuiteStep
            for step in RunFolder(folder, create=False).read(SuiteStep):
                inside(folder, step.folder)
        sources = sources_of(folder)
    except SubmissionRefused:
        raise
    except (NeocoderError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SubmissionRefused("manifest", f"{folder}: {exc}") from exc
    if not sources:
        raise SubmissionRefused("manifest", f"{folder}: no finished run of a benchmark with headline measures "
                                            "(metrics.json missing, or a build or validation run)")
    return [_check_source(source, verify) for source in sources]


def _manifest(folder: Path):
    """The run's manifest, with the fields a board shows of the types it shows them in."""
    try:
        manifest = RunFolder(folder, create=False).read_manifest()
    except (NeocoderError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SubmissionRefused("manifest", f"{folder}: {exc}") from exc
    spec = (manifest.config.get("model") or {}).get("spec") if isinstance(manifest.config, dict) else None
    if not manifest.started or not isinstance(manifest.packages, dict) or not manifest.packages.get("neocoder") \
            or spec is None:
        raise SubmissionRefused("manifest", f"{folder}/manifest.json: incomplete (needs started, packages.neocoder "
                                            "and config.model.spec)")
    for name, value in (("config.model.spec", spec), ("started", manifest.started), ("kind", manifest.kind),
                        ("packages.neocoder", manifest.packages.get("neocoder"))):
        if not isinstance(value, str):
            raise SubmissionRefused("types", f"{folder}/manifest.json: {name} is {value!r}, not a string")
    return manifest


def _check_source(source: Source, verify: bool) -> Checked:
    """Every check of one model and benchmark (see the module); the Source's cells
    replaced by the recomputed ones."""
    bench = benchmark(source.bench)
    where = f"{source.folder} ({source.bench}, {source.model})"
    if not isinstance(source.model, str) or not isinstance(source.row_model, str):
        raise SubmissionRefused("types", f"{where}: the model's name is not a string")
    for key, cell in source.values.items():
        check_cell(cell, f"{where}: {key} in metrics.json", holds=False)
    manifest = RunFolder(source.folder, create=False).read_manifest()
    _check_items(source, bench, manifest, where)
    metrics = read_metrics(source.folder)
    if bench.recompute is None or bench.verify is None:
        for cell in source.values.values():
            cell["verified"] = NOT_VERIFIED
        return Checked(source, NOT_VERIFIED)
    _check_metrics(source, bench, manifest, metrics, where)
    how = _verify(source, bench, manifest, where) if verify else "not re-judged (checks of the records skipped)"
    for cell in source.values.values():
        cell["verified"] = how
    return Checked(source, how)


def _check_items(source: Source, bench, manifest, where: str) -> None:
    """The ``dataset`` and ``items`` checks."""
    ids = resolve(bench.default_ids)(manifest) if bench.default_ids else None
    if ids is None or source.default is None:
        raise SubmissionRefused("dataset", f"{where}: not measured on the benchmark's known default set (a "
                                           "dataset, questions or keywords file of its own, another version, or "
                                           "a fingerprint other than the shipped files')")
    if source.items is None:
        raise SubmissionRefused("items", f"{where}: the records name no item")
    unknown = sorted(set(source.items) - set(ids))
    if unknown:
        raise SubmissionRefused("items", f"{where}: {len(unknown)} items the default set does not hold, e.g. "
                                         f"{unknown[0]!r}")
    claimed = manifest.extra.get("problems") if bench.unit == "problem" else None
    if claimed is not None and (type(claimed) is not int or claimed != len(source.items)):
        raise SubmissionRefused("items", f"{where}: manifest.json names {claimed!r} problems, the records hold "
                                         f"{len(source.items)}")
    outcome = source.outcome or {}
    if not isinstance(outcome, dict):
        raise SubmissionRefused("types", f"{where}: metrics.json outcome is not an object")
    if outcome.get("unit") == bench.unit and outcome.get("items") is not None:
        counts = {key: outcome.get(key, 0) for key in ("items", "errors")}
        for key, value in counts.items():
            if type(value) is not int:
                raise SubmissionRefused("types", f"{where}: metrics.json outcome {key} is {value!r}, not a count")
        finished = counts["items"] - counts["errors"]
        if finished != len(source.items):
            raise SubmissionRefused("items", f"{where}: metrics.json counts {finished} finished {bench.unit}s, "
                                             f"the records hold {len(source.items)}")


def _differs(a, b) -> bool:
    if a is None or b is None:
        return a is not b
    return abs(a - b) > TOLERANCE * max(1.0, abs(a))


def _check_metrics(source: Source, bench, manifest, metrics: dict, where: str) -> None:
    """The ``metrics`` check: each headline measure and its interval recomputed from the
    records equal metrics.json's; the Source's cells become the recomputed ones."""
    try:
        again = resolve(bench.recompute)(Path(source.folder), source.model, manifest.config, metrics)
    except (NeocoderError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SubmissionRefused("metrics", f"{where}: cannot be recomputed from the records ({exc})") from exc
    for m in bench.measures:
        key = f"{source.bench}.{m.key}"
        cell = source.values.get(key, {})
        value, interval = m.pick(again, source.model)
        interval = interval or {}
        recomputed = {"value": value, "low": interval.get("low"), "high": interval.get("high")}
        # metrics.json's own figures, not the cell's: a measure resting on mostly unreadable replies
        # has a blank cell (collect.py), yet its claimed number must still be the recomputed one
        claimed_value, claimed_interval = m.pick(metrics, source.model)
        claimed = {"value": claimed_value, "low": (claimed_interval or {}).get("low"),
                   "high": (claimed_interval or {}).get("high")}
        for part in ("value", "low", "high"):
            number(claimed[part], f"{where}: {m.key} {part} in metrics.json")  # finite or None, never a string
            if _differs(claimed[part], recomputed[part]):
                what = m.key if part == "value" else f"{m.key}'s interval {part}"
                raise SubmissionRefused("metrics", f"{where}: {what} is {claimed[part]} in metrics.json, "
                                                   f"{recomputed[part]} recomputed from the records")
        if not cell.get("unreadable"):
            cell.update(recomputed)  # its n is the items the measure covers (collect.measured_on)


def _verify(source: Source, bench, manifest, where: str) -> str:
    """The ``records`` check: the descriptor's ``verify`` in a scratch folder."""
    with tempfile.TemporaryDirectory(prefix="neocoder-board-") as scratch:
        try:
            return resolve(bench.verify)(Path(source.folder), source.model, manifest.config, Path(scratch))
        except RecordsDisagree as exc:
            raise SubmissionRefused("records", f"{where}: {exc}") from exc
        except NeocoderError as exc:
            raise SubmissionRefused("records", f"{where}: cannot be verified ({exc})") from exc
        except (TypeError, ValueError) as exc:  # a manifest setting of the wrong type (samples "two")
            raise SubmissionRefused("types", f"{where}: manifest.json settings cannot be re-run: {exc}") from exc


def submission_sha256(folder: Path) -> str:
    """The submission's content hash: SHA-256 over every file of the run folder, in the
    order of their paths relative to it (each path, a NUL byte, its bytes, a NUL byte);
    read in blocks (the sizes were checked first)."""
    folder = Path(folder)
    digest = hashlib.sha256()
    paths = sorted(Path(root, name) for root, _, files in os.walk(folder, followlinks=False) for name in files)
    for path in paths:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def summary(checked: Checked, submitter: str = "", submission: str = "") -> dict:
    """What the board keeps of one checked Source: enough to rebuild its row and cells and
    to compare it pairwise (per-item Ratios), how it was verified, the submission's key
    (``submitter``, ``submission``: its content hash) and the SHA-256 of its records and
    metrics."""
    source = checked.source
    bench = benchmark(source.bench)
    ratios = {}
    for m in bench.measures:
        if m.per_item is not None:
            got = m.per_item(Path(source.folder), source.model) or []
            ratios[f"{source.bench}.{m.key}"] = [{"num": r.num, "den": r.den} for r in got]
    folder = Path(source.folder)
    digest = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
              for name in (RunFolder.RECORDS, RunFolder.METRICS) if (folder / name).is_file()}
    settings = dict(source.settings, **({"submitter": submitter} if submitter else {}))
    return {"format": FORMAT, "benchmark": source.bench, "model": source.model, "row_model": source.row_model,
            "run": (source.suite or folder).name, "started": source.started, "suite": source.suite is not None,
            "items": list(source.items) if source.items is not None else None, "default": source.default,
            "settings": settings, "facts": source.facts, "values": source.values, "outcome": source.outcome,
            "unreadable": source.unreadable, "ratios": ratios, "sha256": digest,
            "verified": {"how": checked.verified},
            "submission": {"submitter": submitter, "sha256": submission}}


def add_run(folder: Path, board: Path, submitter: str) -> list[tuple[Path, str]]:
    """Check the run folder ``folder`` (``check_run``) and write a summary per model and
    benchmark into ``BOARD/submissions/``, each named by its submitter and submission
    (content hash), so no other submission's file is replaced; [(the file, how its
    records were verified)].  Raises SubmissionRefused."""
    if not isinstance(submitter, str) or not submitter.strip():
        raise SubmissionRefused("types", "a submitter's name is needed (--submitter)")
    checked = check_run(folder)
    key = submission_sha256(folder)
    out = Path(board) / SUBMISSIONS
    written = []
    for one in checked:
        data = json.loads(json.dumps(summary(one, submitter.strip(), key)))  # as build will read it back
        check_summary(data, f"{folder} ({one.source.bench}, {one.source.model})")
        _renders(data, folder)
        name = slug(f"{submitter.strip()}-{key[:16]}-{one.source.bench}-{one.source.model}") + ".json"
        written.append((out / name, data))
    out.mkdir(parents=True, exist_ok=True)
    for path, data in written:
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return [(path, data["verified"]["how"]) for path, data in written]


def _renders(data: dict, folder: Path) -> None:
    """Render the summary's row as ``build`` will; a summary that cannot be is refused
    (``types``) before any file is written."""
    from neocoder.report.leaderboard.site import board_html
    try:
        board_html(rows_of([source_of(data, Path(folder))]))
    except (NeocoderError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise SubmissionRefused("types", f"{folder}: its summary does not render ({exc})") from exc


def source_of(data: dict, path: Path) -> Source:
    """The Source a summary describes (its ratios as stored).  Raises NeocoderError naming
    the file for a summary of another format."""
    if data.get("format") != FORMAT:
        raise NeocoderError(f"{path}: a board summary of format {data.get('format')!r}, not {FORMAT}")
    run = Path(data["run"])
    ratios = {k: [Ratio(r["num"], r["den"]) for r in v] for k, v in data["ratios"].items()}
    return Source(data["benchmark"], run, data["model"], data["started"], run if data["suite"] else None,
                  tuple(data["items"]) if data["items"] is not None else None, data["default"], data["settings"],
                  data["facts"], data["row_model"], data["values"], data["outcome"], data["unreadable"], ratios)


def read_summary(path: Path) -> dict:
    """A summary file of a board, read within ``FILE_LIMIT`` and type-checked
    (``check_summary``).  Raises NeocoderError naming the file."""
    path = Path(path)
    try:
        if path.is_symlink() or path.stat().st_size > FILE_LIMIT:
            raise NeocoderError("a symlink, or over the size limit")
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise NeocoderError(f"a board summary of format {data.get('format')!r}, not {FORMAT} (add its run again)")
        check_summary(data, path.name)
    except (OSError, ValueError, AttributeError, NeocoderError) as exc:
        raise NeocoderError(f"{path}: not a board summary ({exc})") from exc
    return data


def build_board(board: Path, out: Path, published: bool = True) -> Path:
    """Write the board's ``index.html`` (and its script and style sheet) into ``out`` from
    the summaries in ``BOARD/submissions/`` alone; the same summaries give the same bytes.
    Raises NeocoderError when there are none, or naming a summary file that is not one
    (``read_summary``)."""
    from neocoder.report.leaderboard.collect import published_rows
    from neocoder.report.leaderboard.site import board_html, page, write_static
    files = sorted((Path(board) / SUBMISSIONS).glob("*.json"))
    if not files:
        raise NeocoderError(f"{board}/{SUBMISSIONS}: no submissions (add runs with `neocoder board add RUN "
                            f"--board {board}`)")
    sources = [source_of(read_summary(f), f) for f in files]
    rows = rows_of(sources) + (published_rows() if published else [])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_static(out)
    index = out / "index.html"
    index.write_text(page("NeoCoder leaderboard", board_html(rows, ""), "", script=True), encoding="utf-8")
    return index
