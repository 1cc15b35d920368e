"""Runs side by side: every state's rates with intervals, and paired differences.

``compare(runs)`` reads NeoCoder run folders (model evals and the human baseline alike),
and for every state t and metric gives each run's value with its 95% interval (from its
metrics.json), and for every run after the first the *paired* difference against the
first over the problems both runs scored at that state, with a bootstrap interval that
resamples those shared problems with one set of weights for both (neocoder/metrics/bootstrap.py).
A difference whose interval excludes 0 is marked ``*``.

Published figures are reference columns, shown as published with their source and never
re-measured or paired: the paper's Table 4 (GPT-4) is added beside a GPT-4 run and Table 5's
row of a strategy beside a run of that strategy (``published.py``); ``--published FILE``
adds the user's own: ``{"label": "...", "source": "...", "states": {"0": {"convergent":
0.xx, ...}}}`` with rates as fractions.

Dataset versions: a run's manifest names the dataset version it was scored on
(``extra["dataset_version"]``, e.g. ``codeforces-1.0``).  Runs whose versions are both
known and differ are not compared (``check_datasets``) unless the caller allows it; a run
without a version (older runs) is compared with anything, with a note.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Ratio, paired_difference
from neocoder.metrics.rates import human_ratios, sample_ratios
from neocoder.records import HUMAN, HumanBaseline, Sample
from neocoder.report.diversity import diversity_lines, diversity_rows
from neocoder.report.labels import (
    bases_lines,
    best_metric_label,
    distinct_labels,
    run_lines,
    shared_lines,
    small_run_lines,
    state_bases,
)
from neocoder.report.text import best_of_ks, percent
from neocoder.store import RunFolder

METRICS = ("pass@1", "pass@1_plus", "constraint_following", "convergent", "divergent", "neogauge",
           "cumulative_neogauge", "pass@5", "pass@10", "neogauge_best@5", "semantic_entropy",
           "semantic_entropy_rb", "technique_entropy")
NATS = {"semantic_entropy", "semantic_entropy_rb", "technique_entropy"}  # shown as numbers, not percentages
TABLE5 = ("convergent", "divergent", "neogauge")  # the paper's Table 5 columns


@dataclass
class RunScores:
    """One run as ``compare`` needs it: its label, metrics.json and per-problem ratios."""

    label: str
    path: str
    metrics: dict
    ratios: dict[int, dict[str, Ratio]] = field(default_factory=dict)
    published: str | None = None  # the source, for published reference rows
    model: str = ""  # metrics.json "model" (or the manifest's model spec); "human" for the baseline
    dataset_version: str | None = None  # manifest extra["dataset_version"]; None: not recorded
    table5: dict | None = None  # the paper's Table 5 row of this run's strategy (published.table5_for)
    samples: list = field(default_factory=list, repr=False)  # an eval run's Sample records (diversity overlap)
    language: str = "python"  # the language its programs were written in (manifest config; issue 49)
    problems: dict[str, int] | None = None  # published rows: problems per state the figures are over, if known

    def problems_at(self) -> dict[str, int]:
        """Problems per state "t": a published row's ``problems``, a measured run's problems
        with a per-problem ratio at t (any rate)."""
        if self.published:
            return dict(self.problems or {})
        return {str(t): len(set().union(*(r.num for r in rates.values()))) for t, rates in sorted(self.ratios.items())
                if rates}

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
    samples = []
    if manifest.kind == "eval":
        samples = folder.read(Sample)
        ratios = sample_ratios(samples)
    elif manifest.kind == HUMAN:
        rows = folder.read(HumanBaseline)
        if not rows:
            raise NeocoderError(f"{path}: a human baseline without per-problem records; run "
                                f"`neocoder eval --model human --out {path}` again")
        ratios = human_ratios(rows)
    else:
        raise NeocoderError(f"{path}: a {manifest.kind!r} run; compare takes NeoCoder runs (eval, human)")
    model = metrics.get("model") or manifest.config.get("model", {}).get("spec") or ""
    label = model or str(path)
    if metrics.get("strategy", "direct") != "direct":
        label += f" [{metrics['strategy']}]"
    language = manifest.config.get("language") or "python"  # runs from before issue 49 are Python
    if language != "python":
        label += f" [{language}]"
    if manifest.config.get("paper"):  # a step of the paper ablation (docs/paper.md)
        on = " on release" if manifest.config.get("dataset") == "release" else ""
        label += f" [paper: {','.join(manifest.config['paper'])}{on}]"
    return RunScores(label=label, path=str(path), metrics=metrics, ratios=ratios, model=model,
                     dataset_version=manifest.extra.get("dataset_version"), samples=samples, language=language)


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


def check_datasets(runs: list[RunScores], allow_mismatch: bool = False) -> list[str]:
    """Whether the measured ``runs`` may be paired, by their dataset versions; returns the
    note lines to show.  Raises NeocoderError naming both runs and both versions when two
    runs' versions are both known and differ, unless ``allow_mismatch`` (then a note says
    so).  A run without a version pairs with anything, noted when another run has one;
    published rows are exempt."""
    measured = [r for r in runs if not r.published]
    notes = []
    for i, a in enumerate(measured):
        for b in measured[i + 1:]:
            if a.dataset_version and b.dataset_version and a.dataset_version != b.dataset_version:
                what = (f"{a.label} ({a.path}) was scored on dataset {a.dataset_version}, {b.label} ({b.path}) "
                        f"on {b.dataset_version}")
                if not allow_mismatch:
                    raise NeocoderError(f"{what}: their differences would mix two datasets; rerun one of them, or "
                                        "pass --allow-dataset-mismatch to compare them anyway")
                notes.append(f"note: {what}; compared anyway (--allow-dataset-mismatch)")
    known = [r for r in measured if r.dataset_version]
    for r in measured:
        if not r.dataset_version and known:
            notes.append(f"note: {r.label} ({r.path}) records no dataset version (an older run); compared with "
                         + ", ".join(f"{k.label} ({k.dataset_version})" for k in known) + " unchecked")
    return notes


def check_languages(runs: list[RunScores], allow_mixed: bool = False) -> list[str]:
    """Whether the measured ``runs`` may be paired, by the language of their programs
    (issue 49: Denial Prompting may push a model differently in C++ and in Python, so a
    difference between a Python and a C++ run is not a difference between models).
    Returns the note lines to show; raises NeocoderError naming both runs and languages
    when two differ, unless ``allow_mixed`` (then a note says so).  Published rows are exempt."""
    measured = [r for r in runs if not r.published]
    languages = sorted({r.language for r in measured})
    if len(languages) < 2:
        return []
    what = "; ".join(f"{r.label} ({r.path}) is {r.language}" for r in measured)
    if not allow_mixed:
        raise NeocoderError(f"the runs were written in different languages ({what}): their differences would "
                            "mix languages with models; compare runs of one language, or pass "
                            "--allow-language-mismatch to compare them anyway")
    return [f"note: runs of different languages ({', '.join(languages)}) compared anyway (--allow-language-mismatch)"]


def compare(runs: list[RunScores], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
            allow_dataset_mismatch: bool = False, allow_language_mismatch: bool = False) -> dict:
    """The comparison as plain data: ``{"runs": [{label, path, published, strategy, cost,
    dataset_version, table5}], "rows": [{"state", "metric", "values": [{value, low, high}
    or None per run], "diffs": [{diff, low, high, se, units} or None per run after the
    first]}], "notes": [str], "bootstrap": {...}}``.  Differences are paired over the
    problems both runs scored at the state (published rows have no differences, and
    show only the states some measured run has).

    Raises NeocoderError without runs, for two runs scored on different dataset
    versions unless ``allow_dataset_mismatch`` (``check_datasets``), or for runs of
    different languages unless ``allow_language_mismatch`` (``check_languages``)."""
    if not runs:
        raise NeocoderError("give at least one run folder")
    runs = distinct_labels(runs)  # two runs of one model get their folders in their labels
    notes = check_datasets(runs, allow_dataset_mismatch) + check_languages(runs, allow_language_mismatch)
    if len({r.language for r in runs if not r.published}) > 1:  # mixed (allowed): every run names its language
        for run in runs:
            if not run.published and run.language == "python":
                run.label += " [python]"
    measured = [r for r in runs if not r.published] or runs  # published figures only beside measured states
    states = sorted({int(t) for r in measured for t in r.metrics.get("states", {})})
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
    return {"runs": [{"label": r.label, "path": r.path, "published": r.published,
                      "strategy": r.metrics.get("strategy", "direct"), "cost": _mean_cost(r.metrics),
                      "dataset_version": r.dataset_version, "table5": r.table5, "language": r.language,
                      "outcome": r.metrics.get("outcome"), "problems": r.problems_at(),
                      "bases": {} if r.published else state_bases(r.metrics),
                      "best_of": {t: list(k) for t, k in best_of_ks(r.samples).items()}} for r in runs],
            "rows": rows, "notes": notes, "diversity": diversity_rows(runs, resamples, seed),
            "bootstrap": {"resamples": resamples, "seed": seed, "unit": "problem", "level": 0.95}}


def _mean_cost(metrics: dict) -> dict | None:
    """A run's model calls and tokens per sample, averaged over its states (None: not recorded)."""
    costs = [m["cost"] for m in metrics.get("states", {}).values() if m.get("cost")]
    if not costs:
        return None
    return {k: sum(c[k] for c in costs) / len(costs) for k in ("calls", "tokens")}


def _paired(run: RunScores, base: RunScores, t: int, metric: str, resamples: int, seed: int) -> dict | None:
    a, b = run.terms(t, metric), base.terms(t, metric)
    if run.published or base.published or not a or not b:
        return None
    shared = sorted(set().union(*(r.num for r in a)) & set().union(*(r.num for r in b)))
    return paired_difference(a, b, shared, resamples, seed)


def _cell(v: dict | None, metric: str = "") -> str:
    if v is None:
        return "-"
    if metric in NATS:
        return f"{v['value']:.3f}" + (f" ±{(v['high'] - v['low']) / 2:.3f}" if "low" in v else "")
    return percent(v["value"], v if "low" in v else None)


def _diff(d: dict | None, metric: str = "") -> str:
    if d is None:
        return "-"
    star = "*" if d["low"] > 0 or d["high"] < 0 else ""
    scale, digits = (1, 3) if metric in NATS else (100, 1)
    return f"{scale * d['diff']:+.{digits}f} [{scale * d['low']:+.{digits}f}, {scale * d['high']:+.{digits}f}]{star}"


def _shown(run: dict) -> str:
    """A run's column label: published rows say so (once)."""
    return run["label"] if not run["published"] or "published" in run["label"] else run["label"] + " (published)"


def _table_rows(result: dict) -> tuple[list[str], list[list[str]]]:
    """Header and body of the table: measured runs, their differences against the first,
    then the published reference columns (never paired, so no difference columns)."""
    runs = result["runs"]
    measured = [i for i, r in enumerate(runs) if not r["published"]]
    published = [i for i, r in enumerate(runs) if r["published"]]
    labels = [_shown(r) for r in runs]
    header = (["state", "metric"] + [labels[i] for i in measured]
              + [f"{labels[i]} - {labels[0]}" for i in measured if i > 0] + [labels[i] for i in published])
    body = [[str(row["state"]), best_metric_label(row["metric"], row["state"], runs)]
            + [_cell(row["values"][i], row["metric"]) for i in measured]
            + [_diff(row["diffs"][i - 1], row["metric"]) for i in measured if i > 0]
            + [_cell(row["values"][i], row["metric"]) for i in published] for row in result["rows"]]
    return header, body


def _change(delta: float, old: float | None, new: float | None) -> str:
    """A Table 5 cell, "+1.2 (22.6 -> 23.8)", in points."""
    return f"{100 * delta:+.1f} ({100 * old:.1f} -> {100 * new:.1f})" if old is not None else f"{100 * delta:+.1f}"


def _measured_change(row: dict | None, i: int) -> str:
    """Run i's Table 5 cell for one state and metric: the paired difference against the
    first run with base -> new and its interval, "-" where either is missing."""
    base, new = (row["values"][0], row["values"][i]) if row else (None, None)
    d = row["diffs"][i - 1] if row else None
    if base is None or new is None or d is None:
        return "-"
    star = "*" if d["low"] > 0 or d["high"] < 0 else ""
    return (_change(d["diff"], base["value"], new["value"])
            + f" [{100 * d['low']:+.1f}, {100 * d['high']:+.1f}]{star}")


def table5(result: dict) -> list[list[str]]:
    """The paper's Table 5 layout (NeoCoder Sec. 5.3): for each measured run after the
    first, per state, the change in convergent, divergent and NeoGauge against the first
    run, as "+1.2 (22.6 -> 23.8) [-0.5, +3.0]": the paired difference in points, the base
    and new values in brackets, and the difference's 95% paired-bootstrap interval (``*``
    where it excludes 0).  A strategy run whose strategy the paper ran is followed, per
    state, by the paper's row (Lu et al., NAACL 2025, Table 5: GPT-4 with the strategy
    against GPT-4 without it, "+10.6 (1.5 -> 12.1)"), labelled published.  Returns rows,
    the first being the header."""
    runs = result["runs"]
    rows = [["run", "state"] + [f"delta {m}" for m in TABLE5]]
    by_key = {(row["state"], row["metric"]): row for row in result["rows"]}
    for i in range(1, len(runs)):
        if runs[i]["published"]:
            continue
        paper = runs[i].get("table5")
        for t in sorted({row["state"] for row in result["rows"]}):
            rows.append([runs[i]["label"], str(t)] + [_measured_change(by_key.get((t, m)), i) for m in TABLE5])
            cells = (paper or {}).get("states", {}).get(str(t))
            if cells:
                rows.append([f"paper: GPT-4 + {paper['strategy']} (published)", str(t)]
                            + [_change(cells[m]["delta"], cells[m].get("old"), cells[m].get("new"))
                               if m in cells else "-" for m in TABLE5])
    return rows


def _sources(result: dict) -> list[str]:
    """One line per published figure shown: its label and source."""
    lines = [f"published (not re-measured): {_shown(r)}: {r['published']}" for r in result["runs"] if r["published"]]
    papers = {r["table5"]["source"] for r in result["runs"] if not r["published"] and r.get("table5")}
    if any("Table 4" in str(r["published"]) for r in result["runs"] if r["published"]):
        lines.append("why measured and published rows differ, one change at a time: docs/paper.md "
                     "(scripts/paper_ablation.py; --dataset release --paper all judges as the paper did)")
    return lines + [f"published (not re-measured): paper rows of Table 5 layout: {s}" for s in sorted(papers)]


def outcome_line(outcome: dict | None) -> str | None:
    """``metrics.json``'s ``"outcome"`` block (runner.Outcome) in words: "3 of 4 samples
    judged, 1 unreadable, 0 in error"; None for a run that has none (older runs)."""
    if not outcome:
        return None
    o = outcome
    return (f"{o['judged']} of {o['items']} {o['unit']}s judged, {o['unreadable']} unreadable, "
            f"{o['errors']} in error")


def no_answer_line(outcome: dict | None) -> str | None:
    """The outcome block's replies of the model under test that held no answer, in words:
    "2 of 6 replies held no program (1 x empty, 1 x cut off)"; None when every one held one
    (or the run did not count them: runs written before)."""
    if not outcome or not outcome.get("no_answer"):
        return None
    why = ", ".join(f"{n} x {reason}" for reason, n in (outcome.get("no_answer_reasons") or {}).items())
    return f"{outcome['no_answer']} of {outcome['replies']} replies held no {outcome.get('answer', 'answer')} ({why})"


def _outcomes(result: dict) -> list[str]:
    """One line per measured run whose items did not all get a number, and one per run
    whose model's replies did not all hold an answer (counted wrong, not left out)."""
    lines = []
    for r in result["runs"]:
        o = r.get("outcome")
        if o and (o["unreadable"] or o["errors"]):
            lines.append(f"{_shown(r)}: {outcome_line(o)} (those are left out of its values)")
        held_none = no_answer_line(o)
        if held_none:
            lines.append(f"{_shown(r)}: {held_none}: counted wrong in its values, left out of follow's base")
    return lines


def render(result: dict, fmt: str = "table") -> str:
    """The comparison as ``table`` (plain text), ``markdown``, ``csv``, ``json`` or
    ``table5`` (the paper's strategy layout alone, ``table5``).

    Cells: value with ± half its 95% interval (points; entropies in nats); differences in
    points with their 95% paired-bootstrap interval, ``*`` where it excludes 0; published
    columns last, with their sources below the table.  When the runs used different
    strategies, the table and markdown forms end with the Table 5 layout (with the
    paper's rows) and each run's model calls and tokens per sample.  The notes
    (``check_datasets``) end every form but csv and json (json holds them as ``notes``).
    """
    if fmt == "json":
        return json.dumps(result, indent=2)
    notes = result.get("notes", [])
    strategies = {r["strategy"] for r in result["runs"] if not r["published"]}
    if fmt == "table5" or (fmt in ("table", "markdown") and len(strategies) > 1):
        paper = _aligned(table5(result)) + ["", "cost per sample:"] + [
            f"  {r['label']}: " + (f"{r['cost']['calls']:.1f} calls, {r['cost']['tokens']:,.0f} tokens"
                                   if r["cost"] else "not recorded") for r in result["runs"] if not r["published"]]
        if fmt == "table5":
            return "\n".join(paper + _sources(result) + notes)
        return (render(result, fmt + "-only") + "\n\nTable 5 layout (delta in points, base -> new):\n"
                + "\n".join(paper + _sources(result) + _labels(result) + notes))
    only = fmt.endswith("-only")
    fmt = fmt.removesuffix("-only")
    header, body = _table_rows(result)
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out).writerows([header] + body)
        return out.getvalue()
    tail = [] if only else (_sources(result) + _labels(result) + _outcomes(result)
                            + diversity_lines(result.get("diversity", [])) + notes)
    note = (f"values: ± half the 95% interval; differences: paired bootstrap over shared problems "
            f"({result['bootstrap']['resamples']} resamples, seed {result['bootstrap']['seed']}), * excludes 0")
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines + ["", note] + tail)
    return "\n".join(_aligned([header] + body) + [note] + tail)


def _labels(result: dict) -> list[str]:
    """What the table's labels stand for (``labels.py``, issue 58): Table 4 beside a small
    run, each run's folder and language, the shared problems of its differences, and the
    rates over fewer samples than n."""
    return small_run_lines(result) + run_lines(result) + shared_lines(result) + bases_lines(result)


def _aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]
