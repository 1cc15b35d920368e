"""Diversity beside each run in ``neocoder compare`` (neocoder/metrics/diversity/run.py computes it).

For every measured run: the chain's algorithm classes among its correct programs, the
classes as many humans give, and the share of its classes the humans also produced; the
k-sample measures (distinct_k, utility_k, effective) where the run has k >= 2 samples;
and, for every run after the first, the cross-run overlap with the first run (the
share of its correct programs' classes that the first run also produced).
"""

from __future__ import annotations

from neocoder.metrics.diversity.run import cross_overlap
from neocoder.report.text import default_status, mean_text, percent


def diversity_rows(runs: list, resamples: int = 2000, seed: int = 0) -> list[dict]:
    """Per run (``compare.RunScores``) with a diversity block: ``{"label", "chain",
    "states", "humans", "default", "validated", "overlap_with", "overlap_with_first"}`` (compare's
    result["diversity"]); the overlap is with the first eval run that has samples, named
    in ``overlap_with``, with intervals from ``resamples`` replicates seeded ``seed``."""
    rows, first, first_label = [], None, None
    for run in runs:
        block = run.metrics.get("diversity")
        if run.published or not block:
            continue
        row = {"label": run.label, "chain": block.get("chain", {}), "states": block.get("states", {}),
               "humans": block.get("humans"), "default": block.get("default"), "validated": block.get("validated")}
        samples = run.samples
        if not first:
            first, first_label = samples, run.label
        elif samples:
            row["overlap_with"] = first_label
            row["overlap_with_first"] = cross_overlap(samples, first, resamples=resamples, seed=seed)
        rows.append(row)
    return rows


def diversity_lines(rows: list[dict]) -> list[str]:
    """``diversity_rows`` as text lines for the table and markdown forms."""
    if not rows:
        return []
    from neocoder.metrics.diversity.labelled import validity_note
    measures = sorted({m for row in rows for part in (row["chain"], row.get("humans") or {}) for m in part}
                      | {m for row in rows for by in row["states"].values() for m in by})
    lines = ["", "diversity (algorithm classes; means over problems, ± half the 95% interval):",
             "  what a class is worth: " + "; ".join(f"{m}: {validity_note(m)}" for m in measures)]
    statuses = {default_status(row) for row in rows if row.get("default")}
    lines += [f"  {status}" for status in sorted(statuses)]
    for row in rows:
        for m, g in row["chain"].items():
            human = f" (humans at the same k: {mean_text(g.get('human_classes'))}" if g.get("human_classes") else " ("
            shared = f"; {percent(g['overlap_humans']['value'])} also human)" if g.get("overlap_humans") else ")"
            lines.append(f"  {row['label']}: chain by {m}: {mean_text(g.get('classes'))} classes among "
                         f"{mean_text(g.get('correct'))} correct{human}{shared}".replace(" ()", ""))
        for t, by_measure in row["states"].items():
            for m, g in by_measure.items():
                lines.append(f"  {row['label']}: t={t} by {m}: distinct_k {mean_text(g.get('distinct_k'))}, "
                             f"utility_k {mean_text(g.get('utility_k'))}, effective {mean_text(g.get('effective'))}")
        for m, g in (row.get("humans") or {}).items():
            lines.append(f"  {row['label']}: by {m}: {mean_text(g.get('classes'))} classes among "
                         f"{mean_text(g.get('solutions'), 1)} solutions; 6 drawn: {mean_text(g.get('classes@6'))}")
        for m, g in (row.get("overlap_with_first") or {}).items():
            lines.append(f"  {row['label']}: {percent(g['value'])} of its correct {m} classes also in "
                         f"{row['overlap_with']} ({g['problems']} problems)")
    return lines
