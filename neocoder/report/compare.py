"""Runs side by side: every state's rates with intervals, and paired differences.

``compare(runs)`` reads NeoCoder run folders (model evals and the human baseline alike),
and for every state t and metric gives each run's value with its 95% interval (from its
metrics.json), and for every run after the first the *paired* difference against the
first over the problems both runs scored at that state, with a bootstrap interval that
resamples those shared problems with one set of weights for both (neocoder/bootstrap.py).
A difference whose interval excludes 0 is marked ``*``.

``--published FILE`` adds reference rows (a JSON file of published figures, e.g. a
paper's table), shown as published and never re-measured: ``{"label": "...", "source":
"...", "states": {"0": {"convergent": 0.xx, ...}}}`` with rates as fractions.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Ratio, paired_difference
from ..errors import NeocoderError
from ..metrics import human_ratios, sample_ratios
from ..records import HumanBaseline, Sample
from ..store import RunFolder
from .text import percent

METRICS = ("pass@1", "pass@1_plus", "constraint_following", "convergent", "divergent", "neogauge",
           "cumulative_neogauge")


@dataclass
class RunScores:
    """One run as ``compare`` needs it: its label, metrics.json and per-problem ratios."""

    label: str
    path: str
    metrics: dict
    ratios: dict[int, dict[str, Ratio]] = field(default_factory=dict)
    published: str | None = None  # the source, for published reference rows

    def value(self, t: int, metric: str) -> tuple[float | None, dict | None]:
        """(value, interval) of ``metric`` at state t from the run's metrics."""
        m = self.metrics.get("states", {}).get(str(t), {})
        return m.get(metric), (m.get("intervals") or {}).get(metric)

    def terms(self, t: int, metric: str) -> list[Ratio]:
        """The Ratios whose sum is ``metric`` at t (cumulative NeoGauge: every state <= t)."""
        if metric == "cumulative_neogauge":
            return [r["neogauge"] for s, r in sorted(self.ratios.items()) if s <= t and "neogauge" in r]
        got = self.ratios.get(t, {}).get(metric)
        return [got] if got is not None else []


def load_run(path: Path) -> RunScores:
    """A NeoCoder run folder (eval or human) with its per-problem ratios.

    Raises NeocoderError for a folder that is not a finished NeoCoder run, or a human
    baseline written before its per-problem records were kept (rerun it).
    """
    folder = RunFolder(path, create=False)
    manifest = folder.read_manifest()
    metrics = folder.read_metrics()
    if manifest.kind == "eval":
        ratios = sample_ratios(folder.read(Sample))
    elif manifest.kind == "human":
        rows = folder.read(HumanBaseline)
        if not rows:
            raise NeocoderError(f"{path}: a human baseline without per-problem records; run "
                                f"`neocoder eval --model human --out {path}` again")
        ratios = human_ratios(rows)
    else:
        raise NeocoderError(f"{path}: a {manifest.kind!r} run; compare takes NeoCoder runs (eval, human)")
    return RunScores(label=metrics.get("model") or str(path), path=str(path), metrics=metrics, ratios=ratios)


def load_published(path: Path) -> RunScores:
    """Published reference figures (module docstring); raises NeocoderError naming the field."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NeocoderError(f"{path}: cannot read published figures: {exc}") from exc
    for key in ("label", "source", "states"):
        if key not in data:
            raise NeocoderError(f"{path}: field {key!r} missing (see neocoder/report/compare.py)")
    return RunScores(label=data["label"], path=str(path), metrics={"states": data["states"]},
                     published=data["source"])


def compare(runs: list[RunScores], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """The comparison as plain data: ``{"runs": [{label, path, published}], "rows": [{"state",
    "metric", "values": [{value, low, high} or None per run], "diffs": [{diff, low, high,
    se, units} or None per run after the first]}]}``.  Differences are paired over the
    problems both runs scored at the state (published rows have no differences)."""
    if not runs:
        raise NeocoderError("give at least one run folder")
    states = sorted({int(t) for r in runs for t in r.metrics.get("states", {})})
    base = runs[0]
    rows = []
    for t in states:
        for metric in METRICS:
            values = []
            for run in runs:
                value, ci = run.value(t, metric)
                values.append(None if value is None else {"value": value, **({k: ci[k] for k in ("low", "high")}
                                                                            if ci else {})})
            if all(v is None for v in values):
                continue
            diffs = [_paired(run, base, t, metric, resamples, seed) for run in runs[1:]]
            rows.append({"state": t, "metric": metric, "values": values, "diffs": diffs})
    return {"runs": [{"label": r.label, "path": r.path, "published": r.published} for r in runs], "rows": rows,
            "bootstrap": {"resamples": resamples, "seed": seed, "unit": "problem", "level": 0.95}}


def _paired(run: RunScores, base: RunScores, t: int, metric: str, resamples: int, seed: int) -> dict | None:
    a, b = run.terms(t, metric), base.terms(t, metric)
    if run.published or base.published or not a or not b:
        return None
    shared = sorted(set().union(*(r.num for r in a)) & set().union(*(r.num for r in b)))
    return paired_difference(a, b, shared, resamples, seed)


def _cell(v: dict | None) -> str:
    return "-" if v is None else percent(v["value"], v if "low" in v else None)


def _diff(d: dict | None) -> str:
    if d is None:
        return "-"
    star = "*" if d["low"] > 0 or d["high"] < 0 else ""
    return f"{100 * d['diff']:+.1f} [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}]{star}"


def _table_rows(result: dict) -> tuple[list[str], list[list[str]]]:
    labels = [r["label"] + (" (published)" if r["published"] else "") for r in result["runs"]]
    header = ["state", "metric"] + labels + [f"{lab} - {labels[0]}" for lab in labels[1:]]
    body = [[str(row["state"]), row["metric"]] + [_cell(v) for v in row["values"]] + [_diff(d) for d in row["diffs"]]
            for row in result["rows"]]
    return header, body


def render(result: dict, fmt: str = "table") -> str:
    """The comparison as ``table`` (plain text), ``markdown``, ``csv`` or ``json``.

    Cells: value with ± half its 95% interval (points); differences in points with their
    95% paired-bootstrap interval, ``*`` where it excludes 0.
    """
    if fmt == "json":
        return json.dumps(result, indent=2)
    header, body = _table_rows(result)
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out).writerows([header] + body)
        return out.getvalue()
    note = (f"values: ± half the 95% interval; differences: paired bootstrap over shared problems "
            f"({result['bootstrap']['resamples']} resamples, seed {result['bootstrap']['seed']}), * excludes 0")
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines + ["", note])
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in [header] + body]
    return "\n".join(lines + [note])
