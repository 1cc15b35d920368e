"""The creativity profile of one model: each benchmark's headline measures with their 95%
intervals, convergent and divergent kept apart, and no composite score of the suite's own.

Why: the benchmarks measure creativity on different scales (fractions of problems,
answers counted until a model repeats itself, 1-10 judge scores), over different items;
summing or averaging them would hide which kind of creativity a model has and would
weigh the benchmarks by their scales.  So the profile lists every measure with its own
interval (each benchmark's bootstrap over its own items: neocoder/metrics/bootstrap.py) and its
kind (each benchmark's descriptor says which and why); a benchmark's own documented composite
(NeoGauge, NeoCoder Eq. 4) is listed as such beside its parts.

``build_profile`` reads the sub-runs' ``metrics.json``; ``write_figure`` draws the
profile with matplotlib (one small panel per measure, in a column per kind).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from neocoder.benchmarks import benchmark
from neocoder.benchmarks.descriptor import COMPOSITE, CONVERGENT, DIVERGENT
from neocoder.errors import NeocoderError
from neocoder.replies import mostly_unreadable

KINDS = (CONVERGENT, DIVERGENT, COMPOSITE)
KIND_TITLES = {CONVERGENT: "convergent", DIVERGENT: "divergent", COMPOSITE: "its own composite"}


def read_metrics(folder: Path) -> dict:
    """``folder``'s metrics.json.  Raises NeocoderError naming the file when it is missing
    or not JSON."""
    path = Path(folder) / "metrics.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NeocoderError(f"{path}: missing (the benchmark has not finished)") from None
    except ValueError as exc:
        raise NeocoderError(f"{path}: not JSON ({exc})") from None


def measures_of(bench_name: str, metrics: dict, model: str) -> list[dict]:
    """The headline measures of benchmark ``bench_name`` in its run's ``metrics``:
    ``[{"benchmark", "key", "label", "kind", "scale", "value", "low", "high", "source"}]``
    (value, low, high None where the run has none: e.g. no state 5 evaluated)."""
    out = []
    for m in benchmark(bench_name).measures:
        value, interval = m.pick(metrics, model)
        interval = interval or {}
        out.append({"benchmark": bench_name, "key": m.key, "label": m.label, "kind": m.kind, "scale": m.scale,
                    "value": value, "low": interval.get("low"), "high": interval.get("high"), "source": m.source})
    return out


def unreadable_total(metrics: dict) -> dict | None:
    """The judge replies of a run's ``metrics["unreadable"]`` (per role, replies.Tally's
    form) summed over its roles: ``{"replies", "readable", "unreadable", "share",
    "reasons"}``; None when the run counts none."""
    from neocoder.replies import unreadable_summary
    roles = metrics.get("unreadable")
    if not isinstance(roles, dict) or not roles:
        return None
    blocks = [b for b in roles.values() if isinstance(b, dict) and "replies" in b]
    reasons: dict = {}
    for b in blocks:
        for why, n in (b.get("reasons") or {}).items():
            reasons[why] = reasons.get(why, 0) + n
    return unreadable_summary(sum(b["replies"] for b in blocks), sum(b["unreadable"] for b in blocks), reasons)


def build_profile(folder: Path, model: str, steps: dict, names: list[str]) -> dict:
    """The profile of the suite run in ``folder`` for ``model``: per benchmark in ``names``
    its step (``SuiteStep`` by benchmark name), sub-folder, answering model and measures.
    Returns ``{"benchmark": "suite", "model", "benchmarks": {name: {...}}, "measures":
    [...], "kinds": {kind: [measure keys]}}``.  Raises NeocoderError for a finished
    benchmark whose metrics.json is missing."""
    benches, flat = {}, []
    for name in names:
        bench, step = benchmark(name), steps.get(name)
        entry = {"title": bench.title, "unit": bench.unit, "folder": name, "model": getattr(step, "model", None),
                 "stand_in": bool(getattr(step, "stand_in", False)), "skipped": getattr(step, "skipped", None),
                 "lost": getattr(step, "lost", None), "measures": [], "outcome": None, "unreadable": None}
        if step is not None and step.skipped is None:
            metrics = read_metrics(Path(folder) / step.folder)
            entry["measures"] = measures_of(name, metrics, step.model)
            entry["outcome"], entry["unreadable"] = metrics.get("outcome"), unreadable_total(metrics)
            if mostly_unreadable(entry["unreadable"]):  # never a number resting on the few readable replies
                entry["measures"] = [dict(m, value=None, low=None, high=None, unreadable=True)
                                     for m in entry["measures"]]
            flat += [dict(m, model=step.model, stand_in=entry["stand_in"]) for m in entry["measures"]]
        benches[name] = entry
    return {"benchmark": "suite", "model": model, "benchmarks": benches, "measures": flat,
            "kinds": {k: [f"{m['benchmark']}.{m['key']}" for m in flat if m["kind"] == k] for k in KINDS}}


def write_figure(profile: dict, path: Path, title: str | None = None) -> Path:
    """Draw ``profile`` as an SVG at ``path``: a column per kind (convergent, divergent,
    a benchmark's own composite), a panel per measure with its point and 95% interval on
    the measure's own scale (fractions 0-1, judge scores 1-10, counts from 0).  Returns
    ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = [k for k in KINDS if any(m["kind"] == k for m in profile["measures"])] or [CONVERGENT]
    rows = max([sum(1 for m in profile["measures"] if m["kind"] == k) for k in columns] + [1])
    fig, axes = plt.subplots(rows, len(columns), figsize=(5.0 * len(columns), 0.9 * rows + 0.9), squeeze=False)
    for c, kind in enumerate(columns):
        members = [m for m in profile["measures"] if m["kind"] == kind]
        axes[0][c].set_title(KIND_TITLES[kind], fontsize=10)
        for r in range(rows):
            ax = axes[r][c]
            if r >= len(members):
                ax.axis("off")
                continue
            m = members[r]
            _panel(ax, m)
    fig.suptitle(title or f"creativity profile: {profile['model']}", fontsize=11)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, format=path.suffix.lstrip(".") or "svg")
    plt.close(fig)
    return path


def _panel(ax, m: dict) -> None:
    """One measure: its point and interval on its scale, its name on the left."""
    value, low, high = m["value"], m["low"], m["high"]
    top = {"fraction": 1.0, "1-10": 10.0}.get(m["scale"])
    if top is None:
        top = max([v for v in (value, high) if isinstance(v, (int, float))] + [1.0]) * 1.15
    ax.set_xlim({"1-10": 1.0}.get(m["scale"], 0.0), top)
    ax.set_yticks([])
    ax.tick_params(axis="x", labelsize=7)
    label = f"{m['benchmark']}: {m['label']}" + (" (stand-in)" if m.get("stand_in") else "")
    ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=8)
    if isinstance(value, (int, float)) and not math.isnan(value):
        err = None
        if low is not None and high is not None:
            err = [[max(0.0, value - low)], [max(0.0, high - value)]]
        ax.errorbar([value], [0], xerr=err, fmt="o", color="#1f5fa8", capsize=4)
        ax.text(value, 0.25, f"{value:.3g}", ha="center", fontsize=7)
    else:
        why = "unreadable judge replies" if m.get("unreadable") else "not measured"
        ax.text(0.5, 0.5, why, transform=ax.transAxes, ha="center", va="center", fontsize=7,
                color="#888")
    ax.set_ylim(-0.6, 0.8)
