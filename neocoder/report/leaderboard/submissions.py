"""A committable board: run folders checked on submission, the board rebuilt from their
summaries alone (``neocoder board add``, ``neocoder board build``; docs/leaderboard.md).

Why: a leaderboard that anyone may submit to must not take a run's word for its numbers.
After NoveltyBench, whose board is rebuilt from the score files committed with each
submission: ``add`` checks a run folder and writes one small JSON summary per model and
benchmark into ``BOARD/submissions/``; ``build`` makes the site from those files only (the
run folders need not be there), byte-identical each time for the same summaries.

The checks, each refusing with one line naming it (``SubmissionRefused.check``):

- ``manifest``: manifest.json and metrics.json read, of a registered benchmark with
  headline measures, naming the model, its start time and the neocoder version;
- ``dataset``: the run measured the benchmark's known default set (the shipped dataset
  of this version, the shipped questions, keywords or problems: the descriptor's
  ``default_items`` knows it), not a file of the submitter's;
- ``items``: the items the records hold are those the run claims: the problems its
  manifest names, and as many as its ``outcome`` block counts where that block counts
  the benchmark's own unit (records cut short, or items added, are refused);
- ``metrics``: every headline measure with per-item values is recomputed from the records
  (``Measure.per_item``: the ratio of the sums over the items) and must equal the value
  in metrics.json (to 1e-9): a hand-edited number is refused.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from neocoder.benchmarks import benchmark
from neocoder.errors import NeocoderError
from neocoder.metrics.bootstrap import Ratio
from neocoder.report.leaderboard.collect import Source, rows_of, slug, sources_of
from neocoder.store import RunFolder

FORMAT = 1  # a summary's format
SUBMISSIONS = "submissions"
TOLERANCE = 1e-9


class SubmissionRefused(NeocoderError):
    """A run folder ``board add`` refuses: ``check`` names the check that failed."""

    def __init__(self, check: str, message: str):
        super().__init__(f"refused ({check}): {message}")
        self.check = check


def check_run(folder: Path) -> list[Source]:
    """Run every check of the module on the run folder ``folder`` (a benchmark's or a
    suite's); its Sources when all hold.  Raises SubmissionRefused naming the first check
    that fails."""
    folder = Path(folder)
    try:
        manifest = RunFolder(folder, create=False).read_manifest()
        sources = sources_of(folder)
    except (NeocoderError, OSError, ValueError, KeyError, TypeError) as exc:
        raise SubmissionRefused("manifest", f"{folder}: {exc}") from exc
    if not sources:
        raise SubmissionRefused("manifest", f"{folder}: no finished run of a benchmark with headline measures "
                                            "(metrics.json missing, or a build or validation run)")
    if not manifest.started or not manifest.packages.get("neocoder") or not (manifest.config.get("model") or {}).get(
            "spec"):
        raise SubmissionRefused("manifest", f"{folder}/manifest.json: incomplete (needs started, packages.neocoder "
                                            "and config.model.spec)")
    for source in sources:
        _check_source(source)
    return sources


def _check_source(source: Source) -> None:
    bench = benchmark(source.bench)
    where = f"{source.folder} ({source.bench}, {source.model})"
    if source.default is None:
        raise SubmissionRefused("dataset", f"{where}: not measured on the benchmark's known default set "
                                           "(a dataset, questions or keywords file of its own)")
    manifest = RunFolder(source.folder, create=False).read_manifest()
    claimed = manifest.extra.get("problems") if bench.unit == "problem" else None
    if claimed is not None and source.items is not None and int(claimed) != len(source.items):
        raise SubmissionRefused("items", f"{where}: manifest.json names {claimed} problems, the records hold "
                                         f"{len(source.items)}")
    outcome = source.outcome or {}
    if outcome.get("unit") == bench.unit and outcome.get("items") is not None and source.items is not None:
        finished = outcome["items"] - outcome.get("errors", 0)
        if finished != len(source.items):
            raise SubmissionRefused("items", f"{where}: metrics.json counts {finished} finished {bench.unit}s, "
                                             f"the records hold {len(source.items)}")
    for m in bench.measures:
        if m.per_item is None:
            continue
        key = f"{source.bench}.{m.key}"
        claimed = source.values.get(key, {}).get("value")
        ratios = m.per_item(Path(source.folder), source.model) or []
        recomputed = _total(ratios) if ratios else None
        if claimed is None and recomputed is None:
            continue
        if claimed is None or recomputed is None or abs(claimed - recomputed) > TOLERANCE * max(1.0, abs(claimed)):
            raise SubmissionRefused("metrics", f"{where}: {m.key} is {claimed} in metrics.json, {recomputed} "
                                               "recomputed from the records")


def _total(ratios: list[Ratio]) -> float | None:
    """A measure from its per-item Ratios, as ``per_item`` defines it: their values summed;
    None when a Ratio has no item (a state the run did not measure: NeoGauge summed to t=5
    has no value without state 5)."""
    if not all(r.num for r in ratios):
        return None
    values = [r.value() for r in ratios]
    return None if any(v is None for v in values) else float(sum(values))


def summary(source: Source) -> dict:
    """What the board keeps of one checked Source: enough to rebuild its row and cells and
    to compare it pairwise (per-item Ratios), and the SHA-256 of its records and metrics."""
    bench = benchmark(source.bench)
    ratios = {}
    for m in bench.measures:
        if m.per_item is not None:
            got = m.per_item(Path(source.folder), source.model) or []
            ratios[f"{source.bench}.{m.key}"] = [{"num": r.num, "den": r.den} for r in got]
    folder = Path(source.folder)
    digest = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
              for name in (RunFolder.RECORDS, RunFolder.METRICS) if (folder / name).is_file()}
    return {"format": FORMAT, "benchmark": source.bench, "model": source.model, "row_model": source.row_model,
            "run": (source.suite or folder).name, "started": source.started, "suite": source.suite is not None,
            "items": list(source.items) if source.items is not None else None, "default": source.default,
            "settings": source.settings, "facts": source.facts, "values": source.values, "outcome": source.outcome,
            "unreadable": source.unreadable, "ratios": ratios, "sha256": digest}


def add_run(folder: Path, board: Path) -> list[Path]:
    """Check the run folder ``folder`` (``check_run``) and write a summary per model and
    benchmark into ``BOARD/submissions/``; the files written.  Raises SubmissionRefused."""
    written = []
    out = Path(board) / SUBMISSIONS
    out.mkdir(parents=True, exist_ok=True)
    for source in check_run(folder):
        data = summary(source)
        name = slug(f"{data['run']}-{source.bench}-{source.model}") + ".json"
        path = out / name
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written


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


def build_board(board: Path, out: Path, published: bool = True) -> Path:
    """Write the board's ``index.html`` (and its script and style sheet) into ``out`` from
    the summaries in ``BOARD/submissions/`` alone; the same summaries give the same bytes.
    Raises NeocoderError when there are none."""
    from neocoder.report.leaderboard.collect import published_rows
    from neocoder.report.leaderboard.site import board_html, page, write_static
    files = sorted((Path(board) / SUBMISSIONS).glob("*.json"))
    if not files:
        raise NeocoderError(f"{board}/{SUBMISSIONS}: no submissions (add runs with `neocoder board add RUN "
                            f"--board {board}`)")
    sources = [source_of(json.loads(f.read_text(encoding="utf-8")), f) for f in files]
    rows = rows_of(sources) + (published_rows() if published else [])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_static(out)
    index = out / "index.html"
    index.write_text(page("NeoCoder leaderboard", board_html(rows, ""), "", script=True), encoding="utf-8")
    return index
