"""What the metrics table of a NeoCoder run shows (``metrics_table.html``), on the index and
on the run's drill-down page alike.

Why: both pages show the same table of ``metrics.json``'s states; deciding its columns
once keeps them the same.
"""

from __future__ import annotations

from ..runs import Run

RATES = (("pass@1", "pass@1"), ("pass@1_plus", "pass@1+ext"), ("constraint_following", "follow"),
         ("convergent", "convergent"), ("divergent", "divergent"), ("neogauge", "NeoGauge@t"),
         ("cumulative_neogauge", "cum. NeoGauge"), ("pass@5", "pass@5"), ("pass@10", "pass@10"),
         ("neogauge_best@5", "best-of-5 NeoGauge"))
ENTROPIES = (("semantic_entropy", "semantic entropy"), ("semantic_entropy_rb", "SE (RB)"),
             ("technique_entropy", "technique entropy"), ("entropy_divergent_r", "r(SE, divergent)"))


def metrics_view(run: Run) -> dict:
    """What ``metrics_table.html`` shows of a run: its states in order, the rates and the
    entropies some state has, whether any state has a cost, and the strategy."""
    states = run.metrics.get("states", {})
    present = list(states.values())
    return {"states": [(t, states[t]) for t in sorted(states, key=int)],
            "rates": [(k, name) for k, name in RATES if any(m.get(k) is not None for m in present)],
            "numbers": [(k, name) for k, name in ENTROPIES if any(m.get(k) is not None for m in present)],
            "costs": any(m.get("cost") for m in present), "strategy": run.metrics.get("strategy")}
