"""NeoCoder's creativity metrics (Lu et al., NAACL 2025, Sec. 4) and pass@k.

Notation, per state t: a problem p has samples s (solutions), each with
  correct(s)   1 if every test of p is AC, else 0,
  follow(s)    1 if s uses none of the state's constraint techniques, else 0,
  T(s)         the technique set detected in s,
  H(p)         the union of the technique sets of p's human solutions.

- Convergent creativity (Eq. 2):  convergent(s) = correct(s) * follow(s); the
  state's convergent score is its mean over samples.
- Divergent creativity (Eq. 3):   divergent(s) = |T(s) \\ H(p)| / |T(s)|, the share
  of the solution's techniques that no human used (0 when T(s) is empty).
- NeoGauge@t (Eq. 4):             mean over samples of convergent(s) * divergent(s).
- Cumulative NeoGauge:            sum of NeoGauge@t' over states t' <= t.

Human baselines (Appendix A), over a problem's accepted human solutions S(p):
- Human convergent creativity (Eq. 5): the share of S(p) that uses none of the
  state's constraint techniques (the solutions are accepted, so correct).
- Human divergent creativity (Eq. 6): for each s in S(p), the share of T(s) that no
  other solution of the problem uses, |T(s) - U_{s' != s} T(s')| / |T(s)|, averaged.

All rates are fractions in [0, 1].  Samples whose judging failed in the sandbox
(an INFRA verdict) or whose model call errored are left out of every rate and
counted separately, since they say nothing about the model.
"""

from __future__ import annotations

from math import comb

import numpy as np

from .records import ProblemState, Sample


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with n samples of which c are correct.

    Chen et al., 2021 ("Evaluating Large Language Models Trained on Code"), Eq. 1:
    1 - C(n - c, k) / C(n, k).  Raises ValueError unless 0 <= c <= n and 1 <= k <= n.
    """
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def divergent_ratio(techniques: set[str], human: set[str]) -> float:
    """Eq. 3: |T(s) \\ H(p)| / |T(s)|, and 0.0 for an empty T(s)."""
    if not techniques:
        return 0.0
    return len(set(techniques) - set(human)) / len(techniques)


def state_metrics(samples: list[Sample]) -> dict:
    """Metrics of one state from its ``Sample`` records (records.py).

    Reads each sample's ``problem_id``, ``correct`` (every example AC), ``correct_plus``
    (examples and extended tests AC; None without extended tests), ``follows``,
    ``divergent`` (Eq. 3 in [0, 1], or None without a human technique set) and
    ``excluded`` (INFRA or model error).  Returns ``{"n", "excluded", "pass@1",
    "constraint_following", "convergent", "divergent", "neogauge", "n_divergent",
    "n_extended", "pass@1_examples_tiered", "pass@1_plus"}``; pass@1 is averaged over
    problems (Chen et al. Eq. 1 with k = 1), the other rates over samples; the two tiered
    pass@1 cover the ``n_extended`` samples whose state has extended tests: on the
    examples alone, and on the examples plus the extended tests (EvalPlus' base/plus);
    divergent and NeoGauge over the ``n_divergent`` samples whose problem has a human
    technique set.  Rates are None when there is nothing to average.
    """
    kept = [s for s in samples if not s.excluded]
    out = {"n": len(kept), "excluded": len(samples) - len(kept)}
    if not kept:
        out.update({"pass@1": None, "constraint_following": None, "convergent": None,
                    "divergent": None, "neogauge": None, "n_divergent": 0})
        return out
    out["pass@1"] = _pass_at_1(kept, lambda s: s.correct)
    tiered = [s for s in kept if s.correct_plus is not None]
    out["n_extended"] = len(tiered)
    out["pass@1_examples_tiered"] = _pass_at_1(tiered, lambda s: s.correct) if tiered else None
    out["pass@1_plus"] = _pass_at_1(tiered, lambda s: s.correct_plus) if tiered else None
    follows = np.array([s.follows for s in kept], dtype=float)
    correct = np.array([s.correct for s in kept], dtype=float)
    convergent = correct * follows  # Eq. 2
    out["constraint_following"] = float(follows.mean())
    out["convergent"] = float(convergent.mean())
    has_div = np.array([s.divergent is not None for s in kept])
    divergent = np.array([s.divergent if s.divergent is not None else 0.0 for s in kept])
    out["n_divergent"] = int(has_div.sum())
    if has_div.any():
        out["divergent"] = float(divergent[has_div].mean())  # Eq. 3, averaged
        out["neogauge"] = float((convergent * divergent)[has_div].mean())  # Eq. 4
    else:
        out["divergent"] = out["neogauge"] = None
    return out


def _pass_at_1(samples: list[Sample], correct) -> float:
    """pass@1 averaged over problems: per problem Eq. 1 with k = 1 over its samples."""
    by_problem: dict[str, list[bool]] = {}
    for s in samples:
        by_problem.setdefault(s.problem_id, []).append(bool(correct(s)))
    return float(np.mean([pass_at_k(len(v), sum(v), 1) for v in by_problem.values()]))


def all_states(samples: list[Sample]) -> dict[str, dict]:
    """Per-state metrics keyed by str(t), with ``cumulative_neogauge`` (sum over t' <= t)."""
    states: dict[int, list[Sample]] = {}
    for s in samples:
        states.setdefault(int(s.state), []).append(s)
    result, running = {}, 0.0
    for t in sorted(states):
        m = state_metrics(states[t])
        running += m["neogauge"] or 0.0
        m["cumulative_neogauge"] = running
        result[str(t)] = m
    return result


def unique_share(techniques: set[str], others: list[set[str]]) -> float:
    """Eq. 6 for one human solution: |T(s) minus the union of the others| / |T(s)| (0 if empty)."""
    if not techniques:
        return 0.0
    union = set().union(*others) if others else set()
    return len(set(techniques) - union) / len(techniques)


def human_baselines(states: list[ProblemState], solutions: dict[str, list[set[str]]]) -> dict[str, dict]:
    """Human rows per state t (Eq. 5 and Eq. 6), shaped like ``all_states``.

    ``states``: ``ProblemState`` records;
    ``solutions``: problem_id -> technique sets of its human solutions.  Rates are
    means over problems of per-problem means over solutions; ``neogauge`` is the mean
    of follow(s) * unique_share(s); ``pass@1`` is None (accepted submissions are not
    judged here); ``n`` counts solutions.  Problems without solutions are skipped.
    """
    by_state: dict[int, list[tuple]] = {}
    for st in states:
        sols = solutions.get(st.problem_id) or []
        if not sols:
            continue
        constraints = set(st.constraints)
        follows = [not (t & constraints) for t in sols]
        div = [unique_share(t, sols[:i] + sols[i + 1:]) for i, t in enumerate(sols)]
        by_state.setdefault(int(st.state), []).append((follows, div))
    result, running = {}, 0.0
    for t in sorted(by_state):
        rows = by_state[t]
        conv = float(np.mean([np.mean(f) for f, _ in rows]))  # Eq. 5
        div = float(np.mean([np.mean(d) for _, d in rows]))  # Eq. 6
        neo = float(np.mean([np.mean(np.array(f, float) * np.array(d)) for f, d in rows]))
        running += neo
        result[str(t)] = {"n": sum(len(f) for f, _ in rows), "excluded": 0, "pass@1": None,
                          "constraint_following": conv, "convergent": conv, "divergent": div,
                          "neogauge": neo, "n_divergent": sum(len(d) for _, d in rows),
                          "cumulative_neogauge": running}
    return result
