"""What the metrics table of a NeoCoder run shows (``metrics_table.html``), on the index and
on the run's drill-down page alike.

Why: both pages show the same table of ``metrics.json``'s states; deciding its columns
once keeps them the same.
"""

from __future__ import annotations

from neocoder.report.runs import Run

RATES = (("pass@1", "pass@1"), ("pass@1_plus", "pass@1+ext"), ("constraint_following", "follow"),
         ("convergent", "convergent"), ("divergent", "divergent"), ("neogauge", "NeoGauge@t"),
         ("cumulative_neogauge", "cum. NeoGauge"), ("pass@5", "pass@5"), ("pass@10", "pass@10"),
         ("neogauge_best@5", "best-of-5 NeoGauge"))
ENTROPIES = (("semantic_entropy", "semantic entropy"), ("semantic_entropy_rb", "SE (RB)"),
             ("technique_entropy", "technique entropy"), ("entropy_divergent_r", "r(SE, divergent)"))


def rate_name(key: str, name: str, states: dict, samples: list) -> str:
    """A rate's column name as the table shows it: the best-of-k NeoGauge with its k from
    the run's ``samples`` (``text.best_label``: "best-of-2 NeoGauge"), and a rate over
    fewer samples than a state's n (``text.BASES``) with those bases ("pass@1+ext (over
    the samples with extended tests: 168 at t=0)")."""
    from neocoder.report.text import BASES, base_of, best_label, best_of_ks
    if key == "neogauge_best@5":
        return name.replace("best-of-5", best_label(best_of_ks(samples)).replace("best@", "best-of-"))
    what = next((w for rate, _, w in BASES if rate == key), None)
    bases = [(t, base_of(states[t], key)) for t in sorted(states, key=int) if states[t].get(key) is not None]
    bases = [f"{b} at t={t}" for t, b in bases if b is not None]
    return f"{name} (over {what}: {', '.join(bases)})" if what and bases else name


def scored_problems(run: Run) -> dict[str, int]:
    """Problems per state "t" with a kept sample (neither a model error nor INFRA)."""
    got: dict[str, set] = {}
    for s in run.samples:
        if not s.excluded:
            got.setdefault(str(s.state), set()).add(s.problem_id)
    return {t: len(p) for t, p in got.items()}


def metrics_view(run: Run) -> dict:
    """What ``metrics_table.html`` shows of a run: its states in order, the rates and the
    entropies some state has (rates named by ``rate_name``), whether any state has a cost,
    the strategy, and whether any state has replies that held no program (``no_program``:
    a column with their reasons)."""
    states = run.metrics.get("states", {})
    present = list(states.values())
    return {"states": [(t, states[t]) for t in sorted(states, key=int)],
            "rates": [(k, rate_name(k, name, states, run.samples)) for k, name in RATES
                      if any(m.get(k) is not None for m in present)],
            "numbers": [(k, name) for k, name in ENTROPIES if any(m.get(k) is not None for m in present)],
            "costs": any(m.get("cost") for m in present), "strategy": run.metrics.get("strategy"),
            "no_program": any(m.get("no_program") for m in present)}


TABLE4_RATES = (("pass@1", "pass@1"), ("constraint_following", "follow"), ("convergent", "convergent"),
                ("divergent", "divergent"), ("neogauge", "NeoGauge@t"))
TABLE5_RATES = (("convergent", "convergent"), ("divergent", "divergent"), ("neogauge", "NeoGauge@t"))


def published_view(run: Run) -> dict | None:
    """The paper's figures beside one NeoCoder model run (``published.for_run``), for
    ``metrics_table.html``'s ``published_table``: ``{"table": 4 or 5, "title", "source",
    "file", "rates": [(key, name)], "rows": [(t, measured state dict, published cells)]}``
    over the states the run has.  Table 4 cells are fractions; Table 5 cells are
    ``{"delta", "old", "new"}`` fractions.  Table 4's view also has ``small``
    (``published.small_run_note``: the paper's problems per state against the run's, when
    the run scored fewer; None otherwise), appended to its ``source``.  None when no
    published figure belongs beside it (a run of another model without a strategy, the
    human baseline, a C++ run: the paper's figures are of Python programs)."""
    from neocoder.report import published

    which = published.for_run(run.metrics.get("model") or run.model_label(), run.metrics.get("strategy"),
                              run.language)
    states = run.metrics.get("states", {})
    if which["table5"]:
        paper = which["table5"]
        return {"table": 5, "title": f"GPT-4 + {paper['strategy']} (Lu et al., NAACL 2025, Table 5)",
                "source": paper["source"], "file": paper["file"], "rates": list(TABLE5_RATES),
                "rows": [(t, states[t], paper["states"].get(t, {})) for t in sorted(states, key=int)]}
    if which["table4"]:
        paper = published.table4_states()
        small = published.small_run_note(scored_problems(run))
        return {"table": 4, "title": "GPT-4 (Lu et al., NAACL 2025, Table 4)",
                "source": published.table4_source() + (f". Beside a small run: {small}" if small else ""),
                "small": small,
                "file": published.source_path(published.TABLE4_FILE), "rates": list(TABLE4_RATES),
                "rows": [(t, states[t], paper.get(t, {})) for t in sorted(states, key=int)]}
    return None


def published_series(views: list[tuple[str, dict | None]]) -> list[tuple[str, dict]]:
    """The published series the figures draw beside the runs: ``(label, {"t": {rate:
    fraction}})`` once per published table among ``views`` ((run label, ``published_view``)
    pairs), over the states those runs have; Table 5's values are its ``new`` ones (GPT-4
    with the strategy).  Labels end in "(published)"."""
    series: dict[str, dict] = {}
    for _, view in views:
        if view is None:
            continue
        label = view["title"].replace("(Lu et al., NAACL 2025, ", "(published, ")
        states = series.setdefault(label, {})
        for t, _, cells in view["rows"]:
            if cells:
                states[t] = {k: (c["new"] if isinstance(c, dict) else c) for k, c in cells.items()}
    return [(label, states) for label, states in series.items() if states]
