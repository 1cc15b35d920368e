"""Which rows the leaderboard cannot tell apart on a measure: ties marked, not ranks.

Why: a leaderboard of point estimates ranks models whose difference is noise, and a run
on two problems can beat a run on 199 by luck.  So a column's best run (the star) is
chosen only among runs measured on the same items: the rows whose run of the benchmark
covered exactly the benchmark's default set (all of it), or, where the benchmark does not
say what its default set is, the largest set of items at least two rows share.  A row
measured on other items (a subset: a quick suite, a ``--limit`` run) is never starred
and never tied; where no two rows share the chosen items, the column has no star.
Published rows have no intervals and other judges: they are never ranked.

Among the rows that are compared, each is compared with the best:

- when both rows' runs share items of the benchmark (the same problems for NeoCoder, the
  same questions for AidanBench: the measure's ``per_item``), by a paired bootstrap of the
  difference over the shared items (neocoder/metrics/bootstrap.py ``paired_difference``: one
  set of resampling weights for both, Efron & Tibshirani 1993 Ch. 13), a tie when its 95%
  interval holds 0;
- otherwise (different items, or LiveIdeaBench, whose keyword-cluster scores have no
  per-item ratio here), a tie when the two rows' own 95% intervals overlap.

A row tied with the best gets the best's mark; ``ties`` returns, per measure, the ids of
the rows tied with its best (the best included) and how each tie was decided.

Rows of different languages are never compared (issue 58): on a benchmark whose programs
have a language (NeoCoder), the rows are first split by the language of their run of it
(``Source.language``: a C++ run of a model is a row of its own), and each language has its
own best and its own ties, chosen as above among its rows alone.  A benchmark without
programs (AidanBench, LiveIdeaBench) has no language, so all its rows are compared.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks import benchmark
from neocoder.metrics.bootstrap import Ratio, paired_difference
from neocoder.report.leaderboard.collect import Row


def measure_of(column: str):
    """The ``Measure`` of a column ``bench.key`` (None: no registered benchmark has it)."""
    bench, key = column.split(".", 1)
    try:
        return benchmark(bench).measure(key)
    except KeyError:
        return None


def unit_ratios(row: Row, bench: str, key: str) -> list[Ratio] | None:
    """The measure ``bench.key`` of ``row`` as per-item Ratios (summed when several: the
    measure's ``per_item``), or None where it has none (published rows, LiveIdeaBench,
    humans)."""
    source = row.sources.get(bench)
    measure = measure_of(f"{bench}.{key}")
    if source is None or measure is None or measure.per_item is None:
        return None
    if source.ratios is not None:  # a board's summary keeps them: its run folder is not here
        return source.ratios.get(f"{bench}.{key}") or None
    return measure.per_item(Path(source.folder), source.model) or None


def _units(ratios: list[Ratio]) -> set:
    return {u for r in ratios for u in r.num}


def tied(a: Row, b: Row, column: str, resamples: int = 2000, seed: int = 0) -> tuple[bool, str] | None:
    """Whether rows ``a`` and ``b`` cannot be told apart on ``column`` (``bench.key``), and
    how that was decided ("paired" over N shared items, or "intervals"); None when neither
    test applies (a value or an interval missing)."""
    bench, key = column.split(".", 1)
    ra, rb = unit_ratios(a, bench, key), unit_ratios(b, bench, key)
    if ra and rb:
        shared = sorted(_units(ra) & _units(rb))
        if len(shared) >= 2:
            diff = paired_difference(ra, rb, shared, resamples, seed)
            if diff is not None and diff.get("low") is not None:
                return diff["low"] <= 0.0 <= diff["high"], f"paired over {len(shared)} shared items"
    va, vb = a.values.get(column, {}), b.values.get(column, {})
    if None in (va.get("low"), va.get("high"), vb.get("low"), vb.get("high")):
        return None
    overlap = va["low"] <= vb["high"] and vb["low"] <= va["high"]
    return overlap, "intervals overlap" if overlap else "intervals apart"


def comparable(rows: list[Row], column: str) -> list[Row]:
    """The rows of ``column`` (``bench.key``) that may be ranked: ours with a value, on the
    same items, those items the benchmark's whole default set where it has one, else the
    largest item set two rows share (see the module); [] when fewer than two qualify."""
    bench = column.split(".", 1)[0]
    ours = [r for r in rows if not r.published and r.values.get(column, {}).get("value") is not None]
    groups: dict = {}
    for row in ours:
        source = row.sources.get(bench)
        items = getattr(source, "items", None)
        groups.setdefault(items, []).append(row)
    if None in groups and len(groups) == 1:  # the benchmark does not say its items: compare them all
        return ours if len(ours) >= 2 else []
    groups.pop(None, None)
    full = [g for g in groups.values() if len(g) >= 2 and not any(r.sources[bench].subset for r in g)
            and all(r.sources[bench].default is not None for r in g)]
    if full:
        return full[0]
    if any(r.sources[bench].default is not None for g in groups.values() for r in g):
        return []  # the default set is known and no two rows cover it: no star
    shared = [g for g in groups.values() if len(g) >= 2]
    return max(shared, key=lambda g: (len(next(iter(g)).sources[bench].items), len(g))) if shared else []


def by_language(rows: list[Row], column: str) -> dict[str | None, list[Row]]:
    """``rows`` split by the language of their run of ``column``'s benchmark
    (``Source.language``; None: a row without a run of it, a published row, or a benchmark
    without programs), in the order given."""
    bench = column.split(".", 1)[0]
    groups: dict[str | None, list[Row]] = {}
    for row in rows:
        source = row.sources.get(bench)
        groups.setdefault(getattr(source, "language", None), []).append(row)
    return groups


def ties(rows: list[Row], columns: list[str]) -> dict[str, dict]:
    """Per column: ``{"best": row id, "tied": {row id: how}}`` over the rows ``comparable``
    gives (ours on the same items; published ones left out), within one language (see the
    module); a column without two such rows has no entry.  Where rows of several languages
    each have a best, ``"tied"`` holds every language's marks (each language's best marked
    "best"), ``"best"`` is None and ``"languages"`` maps each language to its best's id."""
    out = {}
    for column in columns:
        found = {}
        for language, group in by_language(rows, column).items():
            got = _best_and_ties(comparable(group, column), column)
            if got is not None:
                found[language] = got
        if not found:
            continue
        if len(found) == 1:
            out[column] = next(iter(found.values()))
        else:
            out[column] = {"best": None, "tied": {k: v for got in found.values() for k, v in got["tied"].items()},
                           "languages": {language: got["best"] for language, got in found.items()}}
    return out


def _best_and_ties(ours: list[Row], column: str) -> dict | None:
    """``{"best": row id, "tied": {row id: how}}`` among ``ours`` (rows ``comparable`` gave);
    None for fewer than two."""
    if len(ours) < 2:
        return None
    measure = measure_of(column)
    sign = 1 if measure is None or measure.higher_is_better else -1
    best = max(ours, key=lambda r: sign * r.values[column]["value"])
    marks = {best.id: "best"}
    for row in ours:
        if row is best:
            continue
        got = tied(best, row, column)
        if got is not None and got[0]:
            marks[row.id] = got[1]
    return {"best": best.id, "tied": marks}
