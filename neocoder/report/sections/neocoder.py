"""NeoCoder's section of the report (runs of kind ``eval`` and ``human``): what its pages
show, computed from the records, and its part of ``index.html`` (``neocoder.html``).

The index shows the metrics per state with their bootstrap intervals, NeoGauge@t and
cumulative NeoGauge (NeoCoder Fig. 4), convergent and divergent creativity against the
humans (Fig. 6, Fig. 8), the top-5 techniques per state against the humans' (Table 2),
sample verdicts per state, and pass@1 against pass@1 with the extended tests; each model
run also gets a drill-down page (``drilldown.py``).  Beside a GPT-4 run the figures and a
table show the paper's Table 4, beside a strategy run Table 5's row of its strategy
(``published.py``), marked published with their source.

Definitions (documented in ``docs/report.md``):

- a sample's *verdict* is that of its first example test that is not AC (Codeforces'
  convention), AC when all are; ``INFRA`` when the sandbox failed; ``no reply`` on a
  model error; a tier none of whose tests ran (the extended tests after a failed example)
  is ``skipped``, never AC;
- the *humans' techniques at state t* (Table 2) are those of the accepted human
  solutions (Python and C/C++, detected by the same detector as model code) of the
  problems the model run has at state t that *follow that state's constraints* (use
  none of its forbidden techniques); a technique's share is averaged over problems
  (each problem weighs the same, as a model's one sample per problem does), and the
  model's share is the share of its samples at state t that use it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from markupsafe import Markup

from neocoder.benchmarks.neocoder.descriptor import EVAL, LAST_STATE
from neocoder.dataset import shipped
from neocoder.errors import NeocoderError
from neocoder.records import HUMAN, Sample
from neocoder.report import plots
from neocoder.report.render import render
from neocoder.report.runs import Run
from neocoder.report.sections.base import Section
from neocoder.report.sections.drilldown import write_drilldowns
from neocoder.report.sections.metrics_view import metrics_view, published_series, published_view
from neocoder.report.verdicts import verdict_counts


def top_techniques(groups: list[list[set[str]]], k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` most used techniques and their share in [0, 1]: per group (a problem), the
    share of its technique sets that use the technique, averaged over the groups; ties
    by name.  Empty groups are left out; no group gives []."""
    groups = [g for g in groups if g]
    shares: Counter = Counter()
    for sets in groups:
        for name, n in Counter(t for s in sets for t in s).items():
            shares[name] += n / len(sets) / len(groups)
    return sorted(shares.items(), key=lambda item: (-item[1], item[0]))[:k]


def technique_table(samples: list[Sample], human: dict[str, list[set[str]]] | None, k: int = 5) -> dict[int, dict]:
    """NeoCoder Table 2 for one model run: per state t, ``{"model": top-k of its samples,
    "human": top-k of the human solutions that follow the state's constraints (None
    without human sets), "problems": problems with such a solution}``.

    Excluded samples (model error, INFRA) are left out.  A model has one group per sample
    (so its share is the share of samples); humans one group per problem.
    """
    by_state: dict[int, list[Sample]] = {}
    for s in samples:
        if not s.excluded:
            by_state.setdefault(int(s.state), []).append(s)
    table = {}
    for t, rows in sorted(by_state.items()):
        entry = {"model": top_techniques([[set(s.techniques)] for s in rows], k), "human": None, "problems": 0}
        if human is not None:
            constraints = {s.problem_id: set(s.constraints) for s in rows}
            groups = [[sol for sol in human.get(pid, []) if not sol & forbidden]
                      for pid, forbidden in constraints.items()]
            entry["human"] = top_techniques(groups, k)
            entry["problems"] = sum(1 for g in groups if g)
        table[t] = entry
    return table


def human_sets_for(models: list[Run]) -> tuple[dict | None, str]:
    """The human solution sets for every problem of the model runs (the shipped ones,
    ``techniques.human.human_solution_sets``), and a note for the page (where they come
    from, or why they are missing)."""
    from neocoder.techniques.human import human_solution_sets

    if not models:
        return None, ""
    problems = {s.problem_id for r in models for s in r.samples}
    try:
        sets = human_solution_sets(problems)
    except NeocoderError as exc:
        return None, f"humans' techniques unavailable: {exc}"
    return sets, (f"humans: {sum(len(v) for v in sets.values())} accepted solutions of {len(sets)} problems "
                  f"(the technique sets shipped with the {shipped.version()} dataset)")


class NeoCoderSection(Section):
    """NeoCoder model runs and human baselines, drawn together; model runs get a
    drill-down page."""

    name = "neocoder"
    kinds = (EVAL, HUMAN)
    page_link = "samples"

    def read(self, run: Run, folder) -> None:
        """Read an eval run's samples (sorted by state, problem and sample) into ``run.samples``,
        labelled with its model; a human-baseline run is labelled "human" and reads nothing."""
        if run.kind == EVAL:
            run.samples = sorted(folder.read(Sample), key=lambda s: (s.state, s.problem_id, s.sample))
            run.label = run.metrics.get("model") or run.model_label()
        else:
            run.label = HUMAN

    def has_page(self, run: Run) -> bool:
        """Only eval runs get a drill-down page; the human baselines do not."""
        return run.kind == EVAL

    def size(self, run: Run) -> str:
        """The samples of an eval run ("36 samples"), or the solution-states of a human-baseline run."""
        if run.kind == EVAL:
            return f"{len(run.samples)} samples"
        return f"{sum(m.get('n', 0) for m in run.metrics.get('states', {}).values())} solution-states"

    def index_html(self, runs: list[Run]) -> str:
        """``neocoder.html``: every run's metrics per state beside the paper's published rows,
        the NeoGauge, creativity, diversity, verdict and pass figures, the verdict counts and,
        per model run, the technique table against the humans' technique sets."""
        models = [r for r in runs if r.kind == EVAL]
        human_sets, human_note = human_sets_for(models)
        papers = [(r.label, published_view(r) if r.kind == EVAL else None) for r in runs]
        paper_series = published_series(papers)
        shown = frozenset(label for label, _ in paper_series)
        colors = plots.palette([r.label for r in runs] + list(shown))
        series = [(r.label, r.metrics.get("states", {})) for r in runs] + paper_series
        counts = [(r.label, verdict_counts(r.samples)) for r in models]
        figures = {"neogauge": plots.neogauge_svg(series, colors, shown),
                   "creativity": plots.creativity_svg(series, colors, shown)}
        diversity = plots.diversity_svg([(r.label, r.metrics.get("diversity")) for r in models], colors)
        if diversity:
            figures["diversity"] = diversity
        if models:
            figures["verdicts"] = plots.verdicts_svg(counts)
            figures["pass"] = plots.pass_svg([(r.label, r.metrics.get("states", {})) for r in models]
                                             + paper_series, colors, shown)
        return render(
            "neocoder.html", runs=runs, models=models, views=[metrics_view(r) for r in runs], human_note=human_note,
            figures={k: Markup(v) for k, v in figures.items()}, counts=counts, papers=[v for _, v in papers],
            techniques=[(r.label, technique_table(r.samples, human_sets)) for r in models],
            verdicts=[v for v in plots.VERDICT_COLORS if any(v in c for _, per in counts for c in per.values())],
            has_plus=any(m.get("pass@1_plus") is not None
                         for r in models for m in r.metrics.get("states", {}).values()))

    def write_pages(self, runs: list[Run], out: Path) -> None:
        """Write the samples page of every eval run (``write_drilldowns``)."""
        write_drilldowns([r for r in runs if r.kind == EVAL], out)


def published_rows() -> list[dict]:
    """The leaderboard's published NeoCoder row (``Benchmark.published``): GPT-4 in the
    NeoCoder paper's Table 4, pass@1 at t=0, convergent and divergent at t=5 and NeoGauge
    summed over t<=5 (Eq. 4), as fractions."""
    from neocoder.report import published
    t4 = published.table4_states()
    last = t4.get(str(LAST_STATE), {})
    cumulative = round(sum(t4.get(str(t), {}).get("neogauge") or 0.0 for t in range(LAST_STATE + 1)), 6)
    return [{"id": "published-neocoder-gpt-4", "model": "gpt-4-1106-preview",
             "origin": "NeoCoder paper (Lu et al., NAACL 2025), Table 4",
             "values": {f"{EVAL}.pass@1_t0": {"value": t4.get("0", {}).get("pass@1")},
                        f"{EVAL}.convergent_t5": {"value": last.get("convergent")},
                        f"{EVAL}.divergent_t5": {"value": last.get("divergent")},
                        f"{EVAL}.neogauge_cum_t5": {"value": cumulative}}}]
