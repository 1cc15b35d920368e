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
- pass@k (Chen et al. 2021, Eq. 1) for k in PASS_KS up to the samples per problem.
- Best-of-k NeoGauge (Sec. 5.3 "Sampling"): per problem, the convergent x divergent
  product of the best of k samples, as the expected maximum over k-subsets of its n
  samples (``best_of_k``), averaged over problems.
- Semantic entropy (the creativity-evaluation framework, Sec. 3.1; neocoder/entropy.py):
  per problem, the entropy of its samples' behaviour classes (programs with identical
  outputs or verdicts on every test are one class), averaged over problems; with
  log-probabilities also the Rao-Blackwellised estimate; and the entropy of the
  samples' technique sets.  Needs n >= 2 samples per problem.

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

from . import entropy
from .bootstrap import Ratio, state_intervals
from .records import HumanBaseline, ProblemState, Sample

PASS_KS = (1, 5, 10)  # the k of pass@k reported where every problem has at least k samples
BEST_OF_K = 5  # the paper's k for best-of-k NeoGauge (Sec. 5.3)


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


def best_of_k(values: list[float], k: int) -> float:
    """The expected maximum of ``k`` values drawn without replacement from ``values``
    (n of them, 1 <= k <= n): sum_i v_(i) C(i - 1, k - 1) / C(n, k) over the values
    sorted ascending (v_(i) is the i-th smallest, 1-based), the unbiased estimator of
    best-of-k from n >= k samples (the max-analogue of Chen et al.'s Eq. 1).  For k = n
    it is the maximum; for k = 1 the mean.  Raises ValueError unless 1 <= k <= n.
    """
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError(f"best-of-k needs 1 <= k <= n, got n={n} k={k}")
    ordered = sorted(values)
    return float(sum(v * comb(i, k - 1) for i, v in enumerate(ordered)) / comb(n, k))


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
    out.update(sampling_metrics(kept))
    out["cost"] = cost_per_sample(samples)
    return out


def per_problem(samples: list[Sample]) -> dict[str, list[Sample]]:
    """The samples grouped by problem, in order of first appearance."""
    by_problem: dict[str, list[Sample]] = {}
    for s in samples:
        by_problem.setdefault(s.problem_id, []).append(s)
    return by_problem


def problem_values(samples: list[Sample]) -> dict[str, dict[str, float]]:
    """Per problem, the multi-sample rates of one state's kept ``samples``: pass@k for
    k in PASS_KS (2 <= k <= n), best-of-k NeoGauge (k = min(BEST_OF_K, n), n >= 2, over
    the samples with a human technique set) and the semantic entropies (n >= 2):
    ``{problem_id: {"pass@5": .., "neogauge_best@5": .., "semantic_entropy": ..,
    "semantic_entropy_rb": .. (every sample has a logprob), "technique_entropy": ..}}``."""
    out: dict[str, dict[str, float]] = {}
    for pid, got in per_problem(samples).items():
        n, values = len(got), {}
        for k in PASS_KS[1:]:
            if n >= k:
                values[f"pass@{k}"] = pass_at_k(n, sum(s.correct for s in got), k)
        scored = [s for s in got if s.divergent is not None]
        if len(scored) >= 2:
            k = min(BEST_OF_K, len(scored))
            values[f"neogauge_best@{BEST_OF_K}"] = best_of_k(
                [s.correct * s.follows * s.divergent for s in scored], k)
        if n >= 2:
            behaviours = [behaviour(s) for s in got]
            if len({len(b) for b in behaviours}) == 1:  # judged on the same tests (a fail-fast tier is not)
                classes = entropy.classes_by_behaviour(behaviours)
                values["semantic_entropy"] = entropy.discrete_entropy(classes)
                if all(s.logprob is not None for s in got):
                    values["semantic_entropy_rb"] = entropy.rao_blackwell_entropy(classes, [s.logprob for s in got])
            values["technique_entropy"] = entropy.discrete_entropy([tuple(sorted(s.techniques)) for s in got])
        out[pid] = values
    return out


MULTI_SAMPLE_RATES = tuple(f"pass@{k}" for k in PASS_KS[1:]) + (
    f"neogauge_best@{BEST_OF_K}", "semantic_entropy", "semantic_entropy_rb", "technique_entropy")


def sampling_metrics(kept: list[Sample]) -> dict:
    """The multi-sample rates of one state averaged over the problems that have them
    (``problem_values``), with ``entropy_divergent_r``: Pearson's r across problems
    between semantic entropy and mean divergent creativity (Eq. 3), where at least 3
    problems have both and neither is constant.  Empty when every problem has 1 sample."""
    values = problem_values(kept)
    out: dict = {}
    for name in MULTI_SAMPLE_RATES:
        got = [v[name] for v in values.values() if name in v]
        if got:
            out[name] = float(np.mean(got))
    pairs = [(v["semantic_entropy"], float(np.mean([s.divergent for s in g if s.divergent is not None])))
             for pid, g in per_problem(kept).items() for v in [values[pid]]
             if "semantic_entropy" in v and any(s.divergent is not None for s in g)]
    if len(pairs) >= 3:
        a, b = np.array(pairs).T
        if a.std() > 0 and b.std() > 0:
            out["entropy_divergent_r"] = float(np.corrcoef(a, b)[0, 1])
    return out


def behaviour(sample: Sample) -> tuple:
    """What a sample's program did on every test of its state, examples then extended
    tests: per test its output hash when it ran to its end, else its verdict
    (judge/verdicts.py ``TestVerdict.behaviour``); a compile error is one behaviour."""
    tests = list(sample.examples.tests if sample.examples else []) + list(sample.plus.tests if sample.plus else [])
    if sample.compile_error:
        return ("compile error",) * len(tests)
    return tuple(t.get("stdout_sha256") or t["verdict"] for t in tests)


def cost_per_sample(samples: list[Sample]) -> dict:
    """Mean spend per sample of the strategy that produced ``samples`` (model errors
    included: they cost too): model calls, prompt and completion tokens (reported by the
    endpoint; 0 where it reports none).  Seconds stay in the records (``Sample.cost``):
    they vary run to run, and metrics.json is the same for the same samples."""
    if not samples:
        return {}
    cost = [s.cost or {"calls": 1, "prompt_tokens": (s.tokens or {}).get("prompt") or 0,
                       "completion_tokens": (s.tokens or {}).get("completion") or 0} for s in samples]
    mean = lambda key: float(np.mean([c.get(key) or 0 for c in cost]))  # noqa: E731
    return {"calls": mean("calls"), "prompt_tokens": mean("prompt_tokens"),
            "completion_tokens": mean("completion_tokens"),
            "tokens": mean("prompt_tokens") + mean("completion_tokens")}


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


def human_rows(states: list[ProblemState], solutions: dict[str, list[set[str]]]) -> list[HumanBaseline]:
    """One ``HumanBaseline`` per problem state whose problem has human solutions.

    ``solutions``: problem_id -> technique sets of its human solutions.  Per problem
    state: Eq. 5 (share of solutions following the constraints), Eq. 6 (mean share of a
    solution's techniques no other solution of the problem uses) and the mean of their
    product.  Problems without solutions are skipped.
    """
    rows = []
    for st in states:
        sols = solutions.get(st.problem_id) or []
        if not sols:
            continue
        constraints = set(st.constraints)
        follows = np.array([not (t & constraints) for t in sols], dtype=float)
        div = np.array([unique_share(t, sols[:i] + sols[i + 1:]) for i, t in enumerate(sols)])
        rows.append(HumanBaseline(problem_id=st.problem_id, state=int(st.state), solutions=len(sols),
                                  follows=float(np.mean(follows)), divergent=float(np.mean(div)),
                                  neogauge=float(np.mean(follows * div))))
    return rows


def human_baselines(rows: list[HumanBaseline]) -> dict[str, dict]:
    """Human rows per state t (Eq. 5 and Eq. 6), shaped like ``all_states``.

    Rates are means over problems of the per-problem means in ``rows`` (human_rows);
    ``pass@1`` is None (accepted submissions are not judged here); ``n`` counts solutions.
    """
    by_state: dict[int, list[HumanBaseline]] = {}
    for row in rows:
        by_state.setdefault(row.state, []).append(row)
    result, running = {}, 0.0
    for t in sorted(by_state):
        got = by_state[t]
        conv = float(np.mean([r.follows for r in got]))  # Eq. 5
        div = float(np.mean([r.divergent for r in got]))  # Eq. 6
        neo = float(np.mean([r.neogauge for r in got]))
        running += neo
        n = sum(r.solutions for r in got)
        result[str(t)] = {"n": n, "excluded": 0, "pass@1": None, "constraint_following": conv, "convergent": conv,
                          "divergent": div, "neogauge": neo, "n_divergent": n, "cumulative_neogauge": running}
    return result


def sample_ratios(samples: list[Sample]) -> dict[int, dict[str, Ratio]]:
    """Every rate of every state as per-problem sums (bootstrap.Ratio), for intervals.

    Their values equal ``all_states``: pass@1 (and pass@1_plus) is the problem's pass@1
    over 1, the mean over problems; the sample rates are the problem's sums over its
    sample count (divergent and NeoGauge over the samples with a human technique set).
    Excluded samples are left out, as in the point estimates.
    """
    by_state: dict[int, dict[str, list[Sample]]] = {}
    for s in samples:
        if not s.excluded:
            by_state.setdefault(int(s.state), {}).setdefault(s.problem_id, []).append(s)
    out: dict[int, dict[str, Ratio]] = {}
    for t, problems in by_state.items():
        rates = {name: Ratio({}, {}) for name in ("pass@1", "pass@1_plus", "constraint_following", "convergent",
                                                  "divergent", "neogauge")}
        for pid, got in problems.items():
            _add(rates["pass@1"], pid, pass_at_k(len(got), sum(s.correct for s in got), 1), 1)
            tiered = [s for s in got if s.correct_plus is not None]
            if tiered:
                _add(rates["pass@1_plus"], pid, pass_at_k(len(tiered), sum(s.correct_plus for s in tiered), 1), 1)
            _add(rates["constraint_following"], pid, sum(s.follows for s in got), len(got))
            _add(rates["convergent"], pid, sum(s.correct and s.follows for s in got), len(got))
            scored = [s for s in got if s.divergent is not None]
            if scored:
                _add(rates["divergent"], pid, sum(s.divergent for s in scored), len(scored))
                _add(rates["neogauge"], pid, sum(s.correct * s.follows * s.divergent for s in scored), len(scored))
        for pid, values in problem_values([s for g in problems.values() for s in g]).items():
            for name, value in values.items():
                _add(rates.setdefault(name, Ratio({}, {})), pid, value, 1)
        out[t] = {name: r for name, r in rates.items() if r.num}
    return out


def human_ratios(rows: list[HumanBaseline]) -> dict[int, dict[str, Ratio]]:
    """The human rates of every state as per-problem values over 1 (means over problems)."""
    out: dict[int, dict[str, Ratio]] = {}
    for row in rows:
        rates = out.setdefault(row.state, {name: Ratio({}, {}) for name in (
            "constraint_following", "convergent", "divergent", "neogauge")})
        for name, value in (("constraint_following", row.follows), ("convergent", row.follows),
                            ("divergent", row.divergent), ("neogauge", row.neogauge)):
            _add(rates[name], row.problem_id, value, 1)
    return out


def _add(ratio: Ratio, unit: str, num: float, den: float) -> None:
    ratio.num[unit] = float(num)
    ratio.den[unit] = float(den)


def with_intervals(states: dict[str, dict], ratios: dict[int, dict[str, Ratio]], resamples: int, seed: int) -> dict:
    """``states`` (all_states / human_baselines) with ``intervals`` added to each state:
    rate -> {"low", "high", "se"} from bootstrap.state_intervals (resampling problems)."""
    intervals = state_intervals(ratios, resamples, seed)
    for t, m in states.items():
        m["intervals"] = {name: got for name, got in intervals.get(int(t), {}).items()
                          if got is not None and m.get(name) is not None}
    return states
