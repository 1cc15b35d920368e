"""Metrics: every number a run reports, computed once, typed.

- ``rates.py``: NeoCoder's per-state rates (pass@k, constraint following, convergent,
  divergent, NeoGauge, Eq. 2-6), the human baselines, best-of-k, semantic entropy, cost;
- ``types.py``: ``EvalMetrics``, ``StateMetrics``, ``HumanStateMetrics`` (metrics.json);
- ``bootstrap.py``: bootstrap intervals over problems (or questions, keywords);
- ``entropy.py``: semantic entropy's formulas as pure functions;
- ``diversity/``: algorithm classes of correct programs and the diversity measures.
"""
