"""What ``neocoder compare`` prints around its table so that every label says what was computed.

Why (issue 58): two runs of one model printed two identical column headers; the
differences never said how many problems they were paired over; a rate over fewer samples
than the state's n (pass@1+ext over the samples with extended tests, follow over the
replies holding a program, divergent and NeoGauge over the samples whose problem has a
human technique set) looked like a rate over all of them; the best-of-k NeoGauge was
called best@5 whatever k was; and the paper's Table 4 column (about 200 problems per
state) sat beside a run of 3 problems with nothing said.  Nothing here computes a score:
each function reads ``compare``'s result (or its runs) and gives labels or lines.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

from neocoder.report.text import BASES, base_of, best_label, percent

BEST = "neogauge_best@5"  # the metrics.json key of the best-of-k NeoGauge, whatever its k


def distinct_labels(runs: list) -> list:
    """Copies of ``runs`` (``compare.RunScores``) whose labels differ: where two measured
    runs share a label, each gets its folder in brackets ("m (run-a)"), with as many of the
    folder's parents as it takes to tell them apart ("m (a/run)" and "m (b/run)"); the
    same folder given twice gets "#2".  Runs whose label is already unique are kept as
    they are (published rows are never renamed)."""
    measured = [i for i, r in enumerate(runs) if not r.published]
    counts = Counter(runs[i].label for i in measured)
    out = list(runs)
    clashing = [i for i in measured if counts[runs[i].label] > 1]
    for i in clashing:
        same = [j for j in clashing if runs[j].label == runs[i].label]
        parts = Path(runs[i].path).resolve().parts
        depth = 1
        while depth < len(parts) and len({Path(runs[j].path).resolve().parts[-depth:] for j in same}) < len(same):
            depth += 1
        suffix = "/".join(parts[-depth:])
        out[i] = dataclasses.replace(runs[i], label=f"{runs[i].label} ({suffix})")
    seen: Counter = Counter()
    for i in measured:
        seen[out[i].label] += 1
        if seen[out[i].label] > 1:  # one folder given twice
            out[i] = dataclasses.replace(out[i], label=f"{out[i].label} #{seen[out[i].label]}")
    return out


def best_metric_label(metric: str, state: int, runs: list[dict]) -> str:
    """The metric column's text: the key itself, but the best-of-k NeoGauge named with the
    k its measured ``runs`` (``compare``'s result["runs"], with ``best_of``) used at
    ``state`` ("neogauge_best@2"; "neogauge_best@2-5" when it varied; "@k" when no run's
    records say)."""
    if metric != BEST:
        return metric
    ks = {}
    for r in runs:
        got = (r.get("best_of") or {}).get(str(state))
        if not r["published"] and got:
            ks[str(len(ks))] = tuple(got)
    return "neogauge_" + best_label(ks or None)


def run_lines(result: dict) -> list[str]:
    """One line per measured run: its label, folder, language, dataset version and problems
    per state, so every column header can be told apart and traced to its folder."""
    lines = ["runs:"]
    for r in result["runs"]:
        if r["published"]:
            continue
        problems = ", ".join(f"t={t}: {n}" for t, n in (r.get("problems") or {}).items())
        lines.append(f"  {r['label']}: folder {r['path']}; language {r['language']}; dataset "
                     f"{r.get('dataset_version') or 'not recorded'}; problems {problems or 'none'}")
    return lines if len(lines) > 1 else []


def shared_lines(result: dict) -> list[str]:
    """Per measured run after the first, the problems its differences are paired over, per
    state ("3 shared problems"; a rate paired over fewer, e.g. pass@1_plus over those with
    extended tests, named with its count)."""
    runs = result["runs"]
    if not runs or runs[0]["published"]:
        return []
    lines = []
    for i, r in enumerate(runs[1:], 1):
        if r["published"]:
            continue
        per_state: dict[int, dict[str, int]] = {}
        for row in result["rows"]:
            d = row["diffs"][i - 1]
            if d is not None:
                per_state.setdefault(row["state"], {})[row["metric"]] = d["units"]
        if not per_state:
            lines.append(f"{r['label']} - {runs[0]['label']}: no shared problems, so no differences")
            continue
        cells = []
        for t, units in sorted(per_state.items()):
            most = max(units.values())
            fewer = _grouped({m: n for m, n in units.items() if n < most}, "{names} {n}")
            if set(units) == {"cumulative_neogauge"}:  # a state only the first run has: its running sum
                fewer = "cumulative_neogauge only"
            cells.append(f"t={t}: {most}" + (f" ({fewer})" if fewer else ""))
        lines.append(f"{r['label']} - {runs[0]['label']}: paired over the shared problems, " + "; ".join(cells))
    return lines


def state_bases(metrics: dict) -> dict[str, dict]:
    """Per state "t" of a run's metrics.json, the rates whose base is not the state's n:
    ``{"n": n, rate: base, ..., "pass@1_same": pass@1 over pass@1+ext's samples}``; states
    where every rate is over n are left out."""
    out = {}
    for t, m in (metrics.get("states") or {}).items():
        got = {rate: base_of(m, rate) for rate, _, _ in BASES if m.get(rate) is not None}
        got = {rate: b for rate, b in got.items() if b is not None}
        if got and m.get("n"):
            if "pass@1_plus" in got and m.get("pass@1_examples_tiered") is not None:
                got["pass@1_same"] = m["pass@1_examples_tiered"]
            out[t] = {"n": m["n"], **got}
    return out


def bases_lines(result: dict) -> list[str]:
    """Per measured run with a rate over fewer samples than its state's n (``bases`` of
    ``compare``'s runs), one line naming each such rate's base per state."""
    lines = []
    for r in result["runs"]:
        for t, b in (r.get("bases") or {}).items():
            text = _grouped({rate: b[rate] for rate, _, _ in BASES if rate in b}, "{names} over {n}")
            if "pass@1_same" in b:
                text = text.replace(f"pass@1_plus over {b['pass@1_plus']}", f"pass@1_plus over {b['pass@1_plus']} "
                                    f"(pass@1 on those: {percent(b['pass@1_same'])})")
            lines.append(f"  {r['label']}: t={t}: of its n={b['n']} samples, {text}")
    if lines:
        lines.insert(0, "rates over fewer samples than the state's n (pass@1_plus: those with extended tests; "
                        "constraint_following: replies holding a program; divergent, neogauge: problems with a "
                        "human technique set):")
    return lines


def _grouped(counts: dict[str, int], form: str) -> str:
    """Metrics with one count as one part, joined by "/": ``{"divergent": 2, "neogauge":
    2, "pass@1_plus": 1}`` -> "divergent/neogauge 2, pass@1_plus 1" (``form`` with
    ``{names}`` and ``{n}``)."""
    by_count: dict[int, list[str]] = {}
    for metric, n in counts.items():
        by_count.setdefault(n, []).append(metric)
    return ", ".join(form.format(names="/".join(names), n=n) for n, names in by_count.items())


def small_run_lines(result: dict) -> list[str]:
    """One line per published column that knows its problems per state (``problems``)
    beside a measured run that scored fewer at a state both have: both counts, so a
    3-problem run is not read against the paper's ~200 as a like-for-like comparison."""
    lines = []
    for p in result["runs"]:
        paper = p.get("problems") if p["published"] else None
        if not paper:
            continue
        for r in result["runs"]:
            mine = {t: n for t, n in (r.get("problems") or {}).items() if t in paper and not r["published"]}
            if mine and any(n < paper[t] for t, n in mine.items()):
                states = sorted(mine, key=int)
                lines.append(f"beside a small run: {p['label']} is over {', '.join(str(paper[t]) for t in states)} "
                             f"problems at t={', '.join(states)}; {r['label']} scored "
                             f"{', '.join(str(mine[t]) for t in states)}: at that size its rates can differ from "
                             "the published ones by chance alone (see its ± intervals)")
    return lines
