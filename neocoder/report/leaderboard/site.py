"""The static leaderboard site (``neocoder leaderboard RUN_OR_DIR ... --out DIR``).

``DIR`` gets ``index.html`` (models by measures, sortable and filterable by
``static/leaderboard.js``, published rows beside ours), ``models/<id>.html`` per model
(its profile figure, its runs with their reports and downloads), ``reports/<run>/`` (the
run's ``neocoder report``), ``data/<run>-<benchmark>.parquet`` (every record of the run,
one row each) and ``static/`` (the script and style sheet, shipped in this package).  Every
file is local: the site opens from disk with the network off.  ``neocoder serve`` shows
the same table at ``/`` (neocoder/serve/web/), rendered by ``board_html``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from neocoder.benchmarks import SUITE, benchmark, benchmarks
from neocoder.errors import NeocoderError
from neocoder.report.leaderboard.collect import Row, collect, published_rows, slug
from neocoder.report.leaderboard.ties import ties
from neocoder.suite.profile import write_figure

STATIC = ("leaderboard.js", "leaderboard.css")
ENV = Environment(loader=PackageLoader("neocoder.report.leaderboard", "templates"), autoescape=True,
                  undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def columns() -> list[dict]:
    """The registered benchmarks that declare measures and their measure columns, in the
    registry's order: ``[{"name", "title", "columns": [{"id", "label", "kind", "scale",
    "source"}]}]``."""
    return [{"name": b.name, "title": b.title, "columns": [
        {"id": f"{b.name}.{m.key}", "label": m.label, "kind": m.kind, "scale": m.scale, "source": m.source}
        for m in b.measures]} for b in benchmarks() if b.measures]


def fmt_value(value, scale: str) -> str:
    """A measure as shown: a fraction as a percentage (1 decimal), a 1-10 score with 2
    decimals, a count or sum with 3 significant digits; '—' for none."""
    if value is None:
        return "—"
    if scale == "fraction":
        return f"{100 * value:.1f}%"
    if scale == "1-10":
        return f"{value:.2f}"
    return f"{value:.3g}"


def cells(row: Row, marks: dict) -> dict:
    """``{column id: {"value", "text", "ci", "mark", "how", "n", "subset", "verified",
    "verified_how", "lost"}}`` of ``row`` for the table: ``n`` the items the cell was
    measured on ("" unknown), ``subset`` a note when those are fewer than the benchmark's
    default set, ``verified`` how a board verified it ("re-judged", "re-scored from
    recorded judgements", "not verified"; "" for a run read from its folder) and
    ``verified_how`` the whole line, ``lost`` what its run lost (``lost_text``)."""
    out = {}
    for bench in columns():
        unit = benchmark(bench["name"]).unit
        for c in bench["columns"]:
            got = row.values.get(c["id"], {})
            low, high = got.get("low"), got.get("high")
            how = marks.get(c["id"], {}).get("tied", {}).get(row.id)
            n, of = got.get("n"), got.get("of")
            out[c["id"]] = {"value": got.get("value"), "text": fmt_value(got.get("value"), c["scale"]),
                            "ci": f"[{fmt_value(low, c['scale'])}, {fmt_value(high, c['scale'])}]"
                            if low is not None and high is not None else "",
                            "mark": how,
                            "how": "" if how in (None, "best") else f"tied with the best{_of(row, bench)}: {how}",
                            "n": "" if n is None or got.get("value") is None else str(n),
                            "subset": f"measured on {n} of the {of} {unit}s of the benchmark's default set: "
                                      "not ranked against runs on other items"
                                      if got.get("subset") and got.get("value") is not None else ""}
            verified = got.get("verified") or ""
            out[c["id"]].update(verified=verified.split(":", 1)[0], verified_how=verified,
                                lost=lost_text(row.outcomes.get(bench["name"])) if got.get("value") is not None
                                else "")
            if got.get("unreadable"):
                u = row.unreadable.get(bench["name"]) or {}
                out[c["id"]].update(text="unreadable", how=f"{u.get('unreadable')} of {u.get('replies')} judge "
                                    "replies unreadable: no number is shown")
    return out


def _of(row: Row, bench: dict) -> str:
    """Whose best a tie of ``row`` on ``bench`` is with: " python run" where its run of the
    benchmark has a language (each language has its own best, ties.py), else ""."""
    language = getattr(row.sources.get(bench["name"]), "language", None)
    return f" {language} run" if language else ""


def lost_text(outcome) -> str:
    """What a cell's run lost, from its metrics.json ``outcome`` block (runner.Outcome):
    "lost 3 of 1063 samples (a model, sandbox or protocol failure: ...)", with the model's
    replies that held no answer where the block counts them; "" for a run that lost
    nothing (or has no such block)."""
    if not isinstance(outcome, dict) or not outcome.get("errors"):
        return ""
    reasons = outcome.get("reasons") or {}
    first = next(iter(reasons), "")
    text = f"lost {outcome['errors']} of {outcome.get('items')} {outcome.get('unit', 'item')}s: left out of n"
    text += f" (e.g. {first})" if first else ""
    if outcome.get("no_answer"):  # only where the run counted its model's replies
        text += (f"; {outcome['no_answer']} of {outcome.get('replies')} replies held no "
                 f"{outcome.get('answer', 'answer')}")
    return text


def board_html(rows: list[Row], base: str = "", pages: dict | None = None) -> Markup:
    """The leaderboard table of ``rows`` as markup; links start with ``base`` (a static
    site's "" or the server's URL prefix); ``pages`` maps a row id to its model page."""
    marks = ties(rows, [c["id"] for b in columns() for c in b["columns"]])
    shown = [{"id": r.id, "model": r.model, "published": r.published, "origin": r.origin,
              "page": (pages or {}).get(r.id), "cells": cells(r, marks), "settings": r.settings_text(),
              "language": None if r.published else r.language,
              "date": min((s.started for s in r.sources.values()), default="")[:10]}
             for r in rows if not (r.published and not r.values)]
    # published figures without a column here (another domain's criteria): listed apart, never in a column
    apart = [{"model": r.model, "origin": r.origin, "figures": [(k, f"{v:g}") for k, v in r.other.items()]}
             for r in rows if r.published and r.other]
    return Markup(ENV.get_template("board.html").render(benches=columns(), rows=shown, base=base, apart=apart))


def page(title: str, body: Markup, base: str, script: bool = False) -> str:
    """A whole HTML page around ``body`` (its style sheet and script under ``base``)."""
    return ENV.get_template("layout.html").render(title=title, body=body, base=base, script=script)


def write_static(out: Path) -> None:
    """Copy the script and style sheet shipped in this package to ``out/static``."""
    (out / "static").mkdir(parents=True, exist_ok=True)
    for name in STATIC:
        data = resources.files(__package__).joinpath("static", name).read_bytes()
        (out / "static" / name).write_bytes(data)


def build_leaderboard(paths: list[Path], out: Path, published: bool = True, reports: bool = True) -> Path:
    """Write the static leaderboard of the runs in ``paths`` (run folders, suite run
    folders, or folders holding them) into ``out`` and return its ``index.html``.
    ``published``: add the papers' rows; ``reports``: build each run's HTML report.
    Raises NeocoderError for a path that is not a run folder or a folder of them, or when
    no finished run is found; nothing is written before every run was read."""
    rows = collect(paths)
    if not rows:
        raise NeocoderError(f"no finished runs in {', '.join(map(str, paths))}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_static(out)
    runs = {run: _run_files(run, out, reports) for run in sorted({p for r in rows for p in r.runs}, key=str)}
    pages = {}
    (out / "models").mkdir(exist_ok=True)
    for row in rows:
        pages[row.id] = f"models/{row.id}.html"
        _model_page(row, [runs[p] for p in row.runs], out / pages[row.id])
    board = rows + (published_rows() if published else [])
    index = out / "index.html"
    index.write_text(page("NeoCoder leaderboard", board_html(board, "", pages), "", script=True), encoding="utf-8")
    return index


def _run_files(run: Path, out: Path, reports: bool) -> dict:
    """Build one run's report and downloads under ``out``; what its model pages link.  The
    downloads are Parquet with the leaderboard extra (pyarrow), else JSON lines (the same
    flat rows), so a core install builds the whole site."""
    from importlib.util import find_spec

    from neocoder.report.html import build_report
    from neocoder.report.leaderboard.export import write_jsonl, write_parquet
    parquet = find_spec("pyarrow") is not None
    from neocoder.store import RunFolder
    name = slug(run.resolve().name)
    manifest = RunFolder(run, create=False).read_manifest()
    folders = [run / b.name for b in benchmarks() if (run / b.name / "metrics.json").is_file()] \
        if manifest.kind == SUITE else [run]
    downloads, benches = [], []
    (out / "data").mkdir(exist_ok=True)
    for folder in folders:
        bench = folder.name if manifest.kind == SUITE else manifest.kind
        benches.append(bench)
        target = out / "data" / f"{name}-{bench}.{'parquet' if parquet else 'jsonl'}"
        (write_parquet if parquet else write_jsonl)(folder, target)
        downloads.append({"name": target.name, "href": f"data/{target.name}"})
    report = None
    if reports and folders:
        build_report(folders, out / "reports" / name, full_paths=False)  # a board is shown to others
        report = f"reports/{name}/index.html"
    return {"name": run.resolve().name, "benches": benches, "report": report, "downloads": downloads}


def _model_page(row: Row, runs: list[dict], path: Path) -> None:
    """The model's page: its profile figure and its runs."""
    profile = {"model": row.model, "measures": [
        {"benchmark": b["name"], "key": c["id"].split(".", 1)[1], "label": c["label"], "kind": c["kind"],
         "scale": c["scale"], "stand_in": b["name"] in row.stand_in, **{k: row.values[c["id"]].get(k)
                                                                        for k in ("value", "low", "high")}}
        for b in columns() for c in b["columns"] if c["id"] in row.values]}
    figure = path.with_suffix(".svg")
    write_figure(profile, figure)
    svg = figure.read_text(encoding="utf-8")
    svg = svg[svg.index("<svg"):]  # inline, without the XML prologue
    body = Markup(ENV.get_template("model.html").render(row=row, figure=Markup(svg), runs=runs, base="../"))
    path.write_text(page(row.model, body, "../"), encoding="utf-8")
