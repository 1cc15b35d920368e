"""The LiveIdeaBench paper's analyses over ideas runs (``neocoder ideas-analyse``, the report).

Ruan et al. (LiveIdeaBench, arXiv:2412.17596) report beyond their table: how the models'
scores relate to general intelligence (LiveBench's Global Average, their Fig. 4 and
Supplementary Fig. S.4), that an idea's length hardly predicts its quality (Fig. 6,
Supplementary Figs. S.1-S.2), the scores per scientific discipline (Fig. 3), and the Pareto
front of originality against feasibility (Fig. 5).  This module computes each of them from
run folders (and, with ``published``, the published December 2024 rows), as plain data that
the report (report/ideas_plots.py, report/sections/liveideabench.py) and the command print.

Inputs read from the LiveIdeaBench clone at run time (official.py): ``csvs/Livebench20250315.csv``,
``csvs/keyword_classifications.csv`` and ``results/LiveIdeaBench-202412.csv``.

Statistics (the paper's Supplementary Note 9 names Pearson's r and Spearman's rho):

- Pearson's r with a 95% interval by Fisher's z: z = atanh(r), se = 1 / sqrt(n - 3),
  interval tanh(z -/+ 1.96 se) (Fisher 1921);
- Spearman's rho (Pearson's r of the ranks, ties averaged) with the Fisher-z interval of
  Bonett and Wright (2000): se = sqrt((1 + rho^2 / 2) / (n - 3));
- p-values are scipy.stats' (``pearsonr``, ``spearmanr``); fewer than 4 pairs give no value.

Choices of ours: a model's LiveBench row is found by its name (``match_livebench``: lower
case, without provider and ``:free``-like marks, dots as dashes; exact, else the one
LiveBench name holding it as a dash-separated part; no match is listed, not guessed);
an idea's quality is the mean of its three criteria, each the mean of its scored
judgements; a keyword's discipline is its run's category, else the clone's classification.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from neocoder.benchmarks.ideas.official import CLASSIFICATIONS_CSV, LEADERBOARD_CSV, LIVEBENCH_CSV, clone_dir
from neocoder.benchmarks.ideas.records import Idea, IdeaJudgement
from neocoder.benchmarks.ideas.scoring import CRITERIA
from neocoder.errors import NeocoderError, RecordError
from neocoder.store import RunFolder

Z95 = 1.959963984540054
LENGTH_BINS = (0, 50, 75, 100, 125, 150, 200, 10**9)
SCORES = ("originality", "feasibility", "clarity", "fluency", "flexibility", "average")


@dataclass
class RunData:
    """One ideas run as the analyses need it: its folder, protocol, per model its summary
    (``metrics.json``'s ``models``), and its ideas and judgements."""

    path: Path
    protocol: str
    models: dict
    ideas: list = field(default_factory=list)
    judgements: list = field(default_factory=list)


def load_run_data(path: Path) -> RunData:
    """An ideas run folder's manifest protocol, metrics and records.  NeocoderError naming
    the folder when it is not a finished ideas run."""
    path = Path(path)
    if not (path / RunFolder.MANIFEST).is_file():
        raise NeocoderError(f"{path}: not a run folder (no {RunFolder.MANIFEST})")
    folder = RunFolder(path, create=False)
    manifest = folder.read_manifest()
    if manifest.kind != "ideas":
        raise NeocoderError(f"{path}: a {manifest.kind!r} run folder; the analyses read ideas runs")
    try:
        metrics = folder.read_metrics()
    except (OSError, ValueError) as exc:
        raise NeocoderError(f"{path}: no readable metrics.json ({exc}); finish the run first") from exc
    records = folder.read()
    return RunData(path, manifest.config.get("protocol") or "ours", metrics.get("models", {}),
                   [r for r in records if isinstance(r, Idea)], [r for r in records if isinstance(r, IdeaJudgement)])


def read_csv(path: Path, needed: tuple[str, ...]) -> list[dict]:
    """The rows of a CSV file of the clone (a byte-order mark allowed).  RecordError naming
    the file and the column when one of ``needed`` is missing; NeocoderError when the file is."""
    if not path.is_file():
        raise NeocoderError(f"{path}: not found in the LiveIdeaBench clone")
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        for column in needed:
            if column not in (reader.fieldnames or []):
                raise RecordError(path, "line 1", column, "column missing from the header")
        return list(reader)


def load_livebench(clone: Path) -> list[dict]:
    """LiveBench's rows with a Global Average: ``{"model", "organization", "global"}``."""
    path = clone / LIVEBENCH_CSV
    out = []
    for i, row in enumerate(read_csv(path, ("Model", "Global Average")), 2):
        text = (row.get("Global Average") or "").strip()
        if not text or text == "-":
            continue
        try:
            out.append({"model": row["Model"].strip(), "organization": row.get("Organization") or "",
                        "global": float(text)})
        except ValueError:
            raise RecordError(path, f"line {i}", "Global Average", f"{text!r} is not a number") from None
    return out


def load_classifications(clone: Path) -> dict[str, str]:
    """keyword (lower case) -> discipline, from the clone's keyword classifications."""
    rows = read_csv(clone / CLASSIFICATIONS_CSV, ("keyword", "category"))
    return {r["keyword"].strip().lower(): r["category"].strip() for r in rows if r.get("keyword")}


def normal_name(name: str) -> str:
    """A model name for matching: the part after a replay source's ``#`` and after the
    last ``/``, lower case, without ``:free``/``:beta``/``:Q4_K_M``-like tags, ``.`` and
    ``_`` as ``-``, ``qwen-2`` as ``qwen2``."""
    n = name.split("#")[-1].rsplit("/", 1)[-1].lower()
    n = n.replace(":thinking", "-thinking")
    n = re.sub(r":[a-z0-9_]+$", "", n)
    n = re.sub(r"[._]", "-", n)
    return n.replace("qwen-2", "qwen2")


def match_livebench(name: str, livebench: list[dict]) -> dict | None:
    """The LiveBench row of model ``name``: the exact normalised name, else the single row
    whose normalised name holds it as a dash-separated part; None when none or several do."""
    ours = normal_name(name)
    rows = {normal_name(r["model"]): r for r in livebench}
    if ours in rows:
        return rows[ours]
    hits = [r for n, r in rows.items() if f"-{ours}-" in f"-{n}-"]
    return hits[0] if len(hits) == 1 else None


def correlation(x, y) -> dict:
    """Pearson's r and Spearman's rho of paired values with 95% Fisher-z intervals and
    p-values (module docstring); ``{"n", "pearson": {"r", "low", "high", "p"} | None,
    "spearman": {...} | None}``.  None entries below 4 pairs or for constant values."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    out = {"n": n, "pearson": None, "spearman": None}
    if n < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return out
    for name, test, se in (("pearson", stats.pearsonr, lambda r: 1 / math.sqrt(n - 3)),
                           ("spearman", stats.spearmanr, lambda r: math.sqrt((1 + r * r / 2) / (n - 3)))):
        res = test(x, y)
        r, p = float(res[0]), float(res[1])
        z, s = math.atanh(max(-0.999999, min(0.999999, r))), se(r)
        out[name] = {"r": r, "low": math.tanh(z - Z95 * s), "high": math.tanh(z + Z95 * s), "p": p}
    return out


def model_points(runs: list[RunData], leaderboard: list[dict] | None) -> list[dict]:
    """One point per model: each run model's scores (``source`` "run", its protocol; its
    one flexibility, the paper's, and ``average`` the December 2024 leaderboard's mean of
    fluency, feasibility, originality and flexibility) and, given
    ``leaderboard`` (sources.load_leaderboard rows), each published row (``source``
    "published", no clarity)."""
    points = []
    for run in runs:
        for name, s in run.models.items():
            board = s.get("leaderboard") or {}
            points.append({"label": name, "source": "run", "protocol": run.protocol, "run": str(run.path),
                           **{k: s.get(k) for k in ("originality", "feasibility", "clarity", "fluency",
                                                    "flexibility")},
                           "flexibility_3": None, "average": board.get("average")})
    for row in leaderboard or []:
        points.append({"label": row["short"], "source": "published", "protocol": "published", "run": None,
                       "originality": row["Originality"], "feasibility": row["Feasibility"], "clarity": None,
                       "fluency": row["Fluency"], "flexibility": None, "flexibility_3": row["Flexibility"],
                       "average": row["Average"]})
    return points


def livebench_view(points: list[dict], livebench: list[dict]) -> dict:
    """Each point's LiveBench Global Average (matched by name) and the correlation of the
    models' Average (December 2024 definition) with it; ``{"pairs": [{"label", "source",
    "livebench_model", "livebench", "average"}], "unmatched": [labels], "all": correlation,
    "published": correlation over the published rows only}``."""
    pairs, unmatched = [], []
    for p in points:
        row = match_livebench(p["label"], livebench)
        if row is None or p["average"] is None:
            unmatched.append(p["label"])
            continue
        pairs.append({"label": p["label"], "source": p["source"], "livebench_model": row["model"],
                      "livebench": row["global"], "average": p["average"]})
    pub = [q for q in pairs if q["source"] == "published"]
    return {"pairs": pairs, "unmatched": unmatched,
            "all": correlation([q["livebench"] for q in pairs], [q["average"] for q in pairs]),
            "published": correlation([q["livebench"] for q in pub], [q["average"] for q in pub])}


def idea_quality(ideas: list, judgements: list) -> list[dict]:
    """Per judged kept idea: ``{"model", "keyword", "words", "quality"}``, quality the mean of
    the three criteria, each the mean of the idea's scored judgements."""
    scored: dict[tuple, list[dict]] = {}
    for j in judgements:
        if j.scores:
            scored.setdefault((j.model, j.keyword_index, j.idea_num), []).append(j.scores)
    out = []
    for i in ideas:
        got = scored.get((i.model, i.keyword_index, i.idea_num))
        if i.status != "ok" or not got:
            continue
        quality = float(np.mean([np.mean([s[c] for s in got]) for c in CRITERIA]))
        out.append({"model": i.model, "keyword": i.keyword, "words": i.words, "quality": quality})
    return out


def length_view(runs: list[RunData]) -> dict:
    """Idea length (words) against quality: per model and pooled, the correlation and a
    table of quality per length bin (``LENGTH_BINS``); ``{"points": [...], "models": {label:
    correlation}, "pooled": correlation, "bins": [{"low", "high", "n", "mean" (quality),
    "words" (mean length)}]}``."""
    points = [p for run in runs for p in idea_quality(run.ideas, run.judgements)]
    models = {}
    for name in sorted({p["model"] for p in points}):
        mine = [p for p in points if p["model"] == name]
        models[name] = correlation([p["words"] for p in mine], [p["quality"] for p in mine])
    bins = []
    for low, high in zip(LENGTH_BINS, LENGTH_BINS[1:]):
        inside = [p for p in points if low <= p["words"] < high]
        if inside:
            bins.append({"low": low, "high": high, "n": len(inside),
                         "mean": float(np.mean([p["quality"] for p in inside])),
                         "words": float(np.mean([p["words"] for p in inside]))})
    return {"points": points, "models": models, "bins": bins,
            "pooled": correlation([p["words"] for p in points], [p["quality"] for p in points])}


def discipline_view(runs: list[RunData], classes: dict[str, str]) -> dict:
    """Per model and discipline the mean keyword average (four scores) and the keywords
    counted: ``{"disciplines": [names, most keywords first], "models": {label: {discipline:
    {"keywords", "average", "originality", "feasibility"}}}}``."""
    models: dict[str, dict] = {}
    counts: dict[str, int] = {}
    for run in runs:
        for name, s in run.models.items():
            groups: dict[str, list[dict]] = {}
            for row in s.get("per_keyword") or []:
                d = row.get("category") or classes.get(row["keyword"].lower()) or "-"
                groups.setdefault(d, []).append(row)
            table = {}
            for d, rows in groups.items():
                def mean(key):
                    vals = [r[key] for r in rows if r.get(key) is not None]
                    return float(np.mean(vals)) if vals else None
                table[d] = {"keywords": len(rows), "average": mean("average"),
                            "originality": mean("originality"), "feasibility": mean("feasibility")}
                counts[d] = counts.get(d, 0) + len(rows)
            models[name] = table
    return {"disciplines": sorted(counts, key=lambda d: (-counts[d], d)), "models": models}


def pareto_front(points: list[dict]) -> list[str]:
    """The labels of the points no other point beats on both originality and feasibility
    (at least as high on both, higher on one), by originality, highest first."""
    shown = [p for p in points if p["originality"] is not None and p["feasibility"] is not None]
    front = [p for p in shown
             if not any(q["originality"] >= p["originality"] and q["feasibility"] >= p["feasibility"]
                        and (q["originality"] > p["originality"] or q["feasibility"] > p["feasibility"])
                        for q in shown)]
    return [p["label"] for p in sorted(front, key=lambda p: -p["originality"])]


def analyse_runs(runs: list[RunData], clone: Path | None = None, published: bool = False) -> dict:
    """Every analysis over ``runs`` (and the published rows when ``published``), reading the
    clone's CSV files: ``{"clone", "points", "livebench", "length", "disciplines", "pareto"}``."""
    from neocoder.benchmarks.ideas.sources import load_leaderboard
    root = clone_dir(clone)
    leaderboard = load_leaderboard(root / LEADERBOARD_CSV) if published else None
    points = model_points(runs, leaderboard)
    return {"clone": str(root), "published": published, "points": points,
            "livebench": livebench_view(points, load_livebench(root)), "length": length_view(runs),
            "disciplines": discipline_view(runs, load_classifications(root)), "pareto": pareto_front(points)}


def analyse(paths: list[Path], clone: Path | None = None, published: bool = False) -> dict:
    """``analyse_runs`` over the ideas run folders ``paths`` (``neocoder ideas-analyse``)."""
    if not paths:
        raise NeocoderError("no run folders given")
    return analyse_runs([load_run_data(p) for p in paths], clone, published)
