"""The report's section for a benchmark that names none of its own: its declared measures.

Why: a plug-in benchmark (docs/tasks.md) declares its headline measures in its descriptor
(``Benchmark.measures``: name, kind, scale, how to read them from ``metrics.json``) but
may bring no report section.  Its runs are still shown, by this section, made from the
descriptor alone: per run, each model's measures with their 95% intervals and each
measure's kind, scale and source, and the run's outcome (items judged, unreadable, in
error).  ``neocoder report`` and ``neocoder leaderboard`` (its per-run reports) then take
its runs as they take the built-in ones.  No drill-down page: what a record holds is the
benchmark's own.
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup, escape

from neocoder.report.runs import Run
from neocoder.report.sections.base import Section


def _number(value) -> str:
    """A measure's value as the table shows it (3 significant digits; "-" for none)."""
    return "-" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value:.3g}"


class GenericSection(Section):
    """The runs of ``bench`` (a ``Benchmark`` without a section): their declared measures."""

    page_link = None

    def __init__(self, bench):
        self.bench = bench
        self.name, self.kinds = bench.name, bench.kinds

    def read(self, run: Run, folder) -> None:
        """Read each model's measures from the run's metrics into ``run.parts["measures"]``
        (``[(model, measure, value, interval | None)]``); the label is the manifest's model.
        A measure whose ``pick`` fails on these metrics shows no value."""
        rows = []
        for model in self.bench.models(run.manifest.config, run.metrics):
            for m in self.bench.measures:
                try:
                    value, interval = m.pick(run.metrics, model)
                except (KeyError, TypeError, ValueError, IndexError):  # a run without it: no number, no crash
                    value, interval = None, None
                rows.append((model, m, value, interval))
        run.parts["measures"] = rows
        run.label = run.model_label()

    def size(self, run: Run) -> str:
        """The run's items from its outcome block ("2 prompts"), else its models."""
        outcome = run.metrics.get("outcome") or {}
        if isinstance(outcome.get("items"), int):
            return f"{outcome['items']} {outcome.get('unit') or self.bench.unit}s"
        return f"{len({r[0] for r in run.parts.get('measures', [])})} model(s)"

    def index_html(self, runs: list[Run]) -> str:
        """This benchmark's part of ``index.html``: its title, then a table per run of each
        model's measures (value, 95% interval, kind, scale, source)."""
        parts = [f"<section id='{escape(self.bench.name)}' class='generic'><h2>{escape(self.bench.title)}</h2>",
                 "<p>Shown from the benchmark's declared measures (it brings no report section of its own).</p>"]
        for run in runs:
            parts.append(f"<h3>{escape(run.label)}</h3><table><thead><tr><th>model</th><th>measure</th>"
                         "<th>value</th><th>95% interval</th><th>kind</th><th>scale</th><th>source</th></tr>"
                         "</thead><tbody>")
            for model, m, value, interval in run.parts.get("measures", []):
                low, high = (interval or {}).get("low"), (interval or {}).get("high")
                shown = f"{_number(low)} - {_number(high)}" if low is not None and high is not None else "-"
                better = "higher is better" if m.higher_is_better else "lower is better"
                parts.append(f"<tr><td>{escape(model)}</td><td>{escape(m.label)} ({better})</td>"
                             f"<td>{_number(value)}</td><td>{shown}</td><td>{escape(m.kind)}</td>"
                             f"<td>{escape(m.scale)}</td><td>{escape(m.source)}</td></tr>")
            parts.append("</tbody></table>")
        parts.append("</section>")
        return Markup("".join(parts))

    def write_pages(self, runs: list[Run], out: Path) -> None:
        """No drill-down pages (the records are the benchmark's own)."""
