"""Plain-text tables of an ideas run (``neocoder ideas``), and the run beside the published
LiveIdeaBench leaderboard.

Each function takes a model's summary as ``metrics.json`` holds it (``models[name]``,
``neocoder.benchmarks.ideas.summary.summarize_model``) and gives a string or rows; nothing here
computes a score.  The leaderboard is read from ``../shared/liveideabench`` (or
``$LIVEIDEABENCH_DIR``) when the table is made, never copied into the project.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.errors import NeocoderError

SCORES = (("originality", "originality"), ("feasibility", "feasibility"), ("clarity", "clarity"),
          ("fluency", "fluency"), ("flexibility", "flexibility (P30 of the keyword average of the four)"))
UNREADABLE = "unreadable"  # what a measure resting on mostly unreadable judge replies shows instead of a number
# a leaderboard column -> the measures it rests on (Average: all four columns)
COLUMN_MEASURES = {"Fluency": ("fluency",), "Feasibility": ("feasibility",), "Originality": ("originality",),
                   "Flexibility": ("flexibility",), "Average": ("fluency", "feasibility", "originality", "flexibility")}
LEADERBOARD_COLUMNS = ("Fluency", "Feasibility", "Originality", "Flexibility", "Average")


def _num(value, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.2f}"


def _interval(iv: dict | None) -> str:
    return f"[{iv['low']:.2f}, {iv['high']:.2f}]" if iv else ""


def ideas_table(name: str, summary: dict) -> str:
    """One idea model's results: what became of its ideas (replies that held no idea counted
    per reason), the five scores (1-10) with their 95% bootstrap intervals over keywords (a
    measure in ``unreadable_measures`` printed as "unreadable", never a number), the
    judge replies that could not be read, and the judging counts."""
    s = summary
    bad = s.get("unreadable_measures") or []
    why = ", ".join(f"{n} x {r}" for r, n in (s.get("no_idea_reasons") or {}).items())
    lines = [f"model: {name}",
             f"keywords {s['keywords']}, ideas {s['ideas']}: {s['kept']} judged, {s['too_long']} over the word limit "
             f"(left out), {s['refused']} refused ({s['fallback_asked']} asked again with the fallback prompt, "
             f"{s['fallback_kept']} then kept), {s.get('no_idea', 0)} held no idea{f' ({why})' if why else ''}, "
             f"{s['errors']} model errors; {s['mean_words']} words per kept idea",
             f"  {'score':<52} {'value':>6}  95% interval"]
    for key, label in SCORES:
        if key in bad:
            lines.append(f"  {label:<52} {UNREADABLE}  (most of its judge replies could not be read: no number)")
            continue
        lines.append(f"  {label:<52} {_num(s.get(key))}  {_interval((s.get('intervals') or {}).get(key))}")
    for part, block in (s.get("replies") or {}).items():
        if block and block.get("unreadable"):
            reasons = ", ".join(f"{n} x {r}" for r, n in block["reasons"].items())
            lines.append(f"judge {'score' if part == 'scores' else 'fluency'} replies: {block['readable']} of "
                         f"{block['replies']} readable, {block['unreadable']} unreadable ({reasons})")
    used = ", ".join(f"{k} {v}" for k, v in (s.get("judges") or {}).items()) or "none"
    lines.append(f"judgements {s['judgements']} scored (draws per seat: {used}), judge errors {s['judge_errors']} "
                 "(unparseable after the retries, or a model error: never a score); fluency graded for "
                 f"{s['fluency_graded']} keywords, {s['fluency_errors']} errors")
    return "\n".join(lines)


def keyword_table(summary: dict, limit: int = 40) -> str:
    """The first ``limit`` keyword rows: kept ideas, the three criteria, fluency (grade)
    and the keyword's four-score average."""
    lines = [f"  {'keyword':<28} {'category':<20} {'kept':>4} {'orig':>6} {'feas':>6} {'clar':>6} {'flu':>6} "
             f"{'avg':>6}"]
    for row in summary.get("per_keyword", [])[:limit]:
        flu = "-" if row.get("fluency") is None else f"{row['fluency']:.0f} ({row['grade']})"
        lines.append(f"  {row['keyword'][:28]:<28} {(row.get('category') or '-')[:20]:<20} {row['kept']:>4} "
                     f"{_num(row.get('originality'))} {_num(row.get('feasibility'))} {_num(row.get('clarity'))} "
                     f"{flu:>6} {_num(row.get('average'))}")
    return "\n".join(lines)


def comparison_rows(models: dict[str, dict], leaderboard: list[dict],
                    protocols: dict[str, str] | None = None) -> list[dict]:
    """The published rows and the run's models in one list, sorted by Average (highest
    first; a run without an Average last): ``{"rank": published rank or None, "model",
    "run": bool, Fluency, Feasibility, Originality, Flexibility, Average, "intervals":
    {column: {"low", "high"}}}``.  A run's columns are its ``leaderboard`` block (the
    December 2024 definitions: Flexibility over originality, feasibility and fluency); a
    run's row names its ``protocol`` (``protocols[name]``, default "ours"), the published
    rows "published"; ``"unreadable"``: a run's columns resting on a measure most of whose
    judge replies were unreadable (their value None: no number, no rank)."""
    rows = [{"rank": r["rank"], "model": r["short"], "run": False, "protocol": "published",
             **{c: r[c] for c in LEADERBOARD_COLUMNS}, "intervals": {}, "unreadable": []} for r in leaderboard]
    for name, s in models.items():
        block = s.get("leaderboard") or {}
        ivs = s.get("intervals") or {}
        bad = set(s.get("unreadable_measures") or [])
        rows.append({"rank": None, "model": name, "run": True, "protocol": (protocols or {}).get(name, "ours"),
                     **{c: block.get(c.lower()) for c in LEADERBOARD_COLUMNS},
                     "unreadable": [c for c in LEADERBOARD_COLUMNS if bad & set(COLUMN_MEASURES[c])],
                     "intervals": {"Fluency": ivs.get("fluency"), "Feasibility": ivs.get("feasibility"),
                                   "Originality": ivs.get("originality"),
                                   "Flexibility": ivs.get("leaderboard.flexibility"),
                                   "Average": ivs.get("leaderboard.average")}})
    return sorted(rows, key=lambda r: (r["Average"] is None, -(r["Average"] or 0.0)))


def leaderboard_comparison(models: dict[str, dict], path: Path | None = None,
                           protocols: dict[str, str] | None = None) -> str:
    """The run's models placed among the published December 2024 leaderboard's rows by
    Average, in its columns (1-10), each run row naming its protocol (``protocols``).  When
    the leaderboard cannot be read, says so in one line instead (the run's own tables stand
    without it)."""
    from neocoder.benchmarks.ideas.sources import load_leaderboard
    try:
        leaderboard = load_leaderboard(path)
    except NeocoderError as exc:
        return f"(no published leaderboard to compare with: {exc})"
    rows = comparison_rows(models, leaderboard, protocols)
    width = max(len(r["model"]) for r in rows) + 2
    lines = ["beside the published LiveIdeaBench leaderboard (December 2024; it has no clarity, so its Flexibility "
             "averages three scores per keyword; its Average is the mean of the four columns; the run's rows, marked "
             "*, use the paper's Flexibility, clarity included, and its own judge panel):",
             f"  {'rank':>4}  {'model':<{width}}" + "".join(f"{c:>12}" for c in LEADERBOARD_COLUMNS)]
    for r in rows:
        rank = "*" if r["run"] else str(r["rank"])
        lines.append(f"  {rank:>4}  {r['model']:<{width}}"
                     + "".join(f"{UNREADABLE:>12}" if c in r["unreadable"] else f"{_num(r[c], 12)}"
                               for c in LEADERBOARD_COLUMNS)
                     + (f"  ({r['protocol']} protocol)" if r["run"] else ""))
    for r in rows:
        if r["run"]:
            ivs = ", ".join(f"{c} {_interval(r['intervals'].get(c))}" for c in LEADERBOARD_COLUMNS
                            if r["intervals"].get(c))
            lines.append(f"  * {r['model']}: " + place_text(r, rows, len(leaderboard))
                         + (f"; 95% intervals over keywords: {ivs}" if ivs else ""))
    return "\n".join(lines)


def place_text(row: dict, rows: list[dict], published: int) -> str:
    """Where a run's ``row`` would rank among the ``published`` rows by Average, or why it
    has no rank: a column resting on mostly unreadable judge replies (no rank is given
    from it), or a missing score."""
    if row.get("unreadable"):
        return (f"no rank: {', '.join(row['unreadable'])} unreadable (most of the judge replies they rest on could "
                "not be read)")
    if row["Average"] is None:
        return "no Average (a score is missing)"
    place = sum(1 for o in rows if not o["run"] and o["Average"] > row["Average"])
    return f"would rank {place + 1} of {published + 1}"


def leaderboard_svg(rows: list[dict], colors: dict[str, str]) -> str:
    """The comparison rows (``comparison_rows``) as horizontal bars of Average, one panel,
    highest first: published models in grey, the run's models in their colour with the
    95% interval over keywords as an error bar.  Returns one ``<svg>`` element."""
    from matplotlib import rc_context

    from neocoder.report.plots import _RC, _figure, _svg

    shown = [r for r in rows if r["Average"] is not None]
    with rc_context(_RC):
        fig, (ax,) = _figure(8.0, 0.8 + 0.2 * len(shown))
        for run in (False, True):
            idx = [i for i, r in enumerate(shown) if r["run"] == run]
            lows = [shown[i]["intervals"].get("Average") for i in idx] if run else []
            err = [[max(0.0, shown[i]["Average"] - iv["low"]) if iv else 0.0 for i, iv in zip(idx, lows)],
                   [max(0.0, iv["high"] - shown[i]["Average"]) if iv else 0.0 for i, iv in zip(idx, lows)]]
            ax.barh(idx, [shown[i]["Average"] for i in idx], height=0.7, xerr=err if run else None,
                    error_kw={"elinewidth": 0.8, "capsize": 2},
                    color=[colors.get(shown[i]["model"], "#1f77b4") if run else "#b8b8b8" for i in idx])
        ax.set_yticks(range(len(shown)), [("* " if r["run"] else "") + r["model"] for r in shown])
        for label, r in zip(ax.get_yticklabels(), shown):
            if r["run"]:
                label.set_fontweight("bold")
        ax.invert_yaxis()
        ax.set_xlim(0, 10)
        ax.set_xlabel("Average (1-10): mean of Fluency, Feasibility, Originality, Flexibility")
        ax.grid(axis="x", alpha=0.3)
        return _svg(fig, "ideas-leaderboard")


def _corr(c: dict | None) -> str:
    if not c:
        return "-"
    return f"{c['r']:+.3f} [{c['low']:+.3f}, {c['high']:+.3f}], p = {c['p']:.3g}"


def analyses_text(result: dict) -> str:
    """The analyses of ``ideas.analyses.analyse`` as plain-text tables: LiveBench correlation,
    length against quality, per discipline, the Pareto front."""
    lv, ln, disc = result["livebench"], result["length"], result["disciplines"]
    lines = [f"LiveIdeaBench analyses (files of {result['clone']}; published rows "
             f"{'included' if result['published'] else 'left out'})", "",
             "1. Average (December 2024 definition) against LiveBench's Global Average (March 2025):"]
    for p in sorted(lv["pairs"], key=lambda q: -q["livebench"]):
        lines.append(f"  {p['label'][:36]:<36} {p['source']:<9} LiveBench {p['livebench']:6.2f} "
                     f"({p['livebench_model']})  Average {p['average']:.2f}")
    for key, label in (("all", "all matched models"), ("published", "published rows only")):
        c = lv[key]
        lines.append(f"  {label} (n = {c['n']}): Pearson r {_corr(c['pearson'])}; Spearman rho {_corr(c['spearman'])}")
    if lv["unmatched"]:
        lines.append(f"  no LiveBench row for: {', '.join(lv['unmatched'])}")
    lines += ["", "2. Idea length (words) against quality (mean of the three criteria):",
              f"  pooled (n = {ln['pooled']['n']}): Pearson r {_corr(ln['pooled']['pearson'])}; "
              f"Spearman rho {_corr(ln['pooled']['spearman'])}"]
    for name, c in ln["models"].items():
        lines.append(f"  {name} (n = {c['n']}): Spearman rho {_corr(c['spearman'])}")
    lines.append("  " + "; ".join(f"{b['low']}-{b['high'] if b['high'] < 10**9 else ''} words: "
                                  f"{b['mean']:.2f} (n = {b['n']})" for b in ln["bins"]))
    lines += ["", "3. Keyword average (four scores) per discipline:"]
    for name, table in disc["models"].items():
        cells = [f"{d} {table[d]['average']:.2f} ({table[d]['keywords']})" for d in disc["disciplines"]
                 if d in table and table[d]["average"] is not None]
        lines.append(f"  {name}: " + ("; ".join(cells) or "-"))
    lines += ["", "4. Pareto front of originality and feasibility (highest originality first):"]
    by_label = {p["label"]: p for p in result["points"]}
    for label in result["pareto"]:
        p = by_label[label]
        lines.append(f"  {label} ({p['source']}): originality {p['originality']:.2f}, feasibility "
                     f"{p['feasibility']:.2f}")
    return "\n".join(lines)
