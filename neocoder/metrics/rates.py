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
- Semantic entropy (the creativity-evaluation framework, Sec. 3.1; neocoder/metrics/entropy.py):
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

Each rate is computed once, as a per-problem ratio (bootstrap.Ratio, ``state_ratios``):
its value is the rate and its bootstrap over problems the interval.  A per-sample rate
keeps one term per sample, in sample order, so its value is the mean over the samples
exactly as numpy computes it; a per-problem rate keeps one term per problem over 1.
``score_samples`` and ``score_humans`` are the entry points: they return the typed
metrics of a run (metric_types.py) whose ``to_dict()`` is its metrics.json.
"""

from __future__ import annotations

from math import comb

import numpy as np

from neocoder.metrics import entropy
from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, Ratio, bootstrap_info, state_intervals
from neocoder.metrics.types import EvalMetrics, HumanStateMetrics, StateMetrics, field_name
from neocoder.records import HUMAN, HumanBaseline, ProblemState, Sample

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


def behaviour(sample: Sample) -> tuple:
    """What a sample's program did on every test of its state, examples then extended
    tests: per test its output hash when it ran to its end, else its verdict
    (judge/verdicts.py ``TestVerdict.behaviour``); a compile error is one behaviour, and so
    is a reply with no program (nothing ran)."""
    tests = list(sample.examples.tests if sample.examples else []) + list(sample.plus.tests if sample.plus else [])
    if sample.no_program:  # nothing ran: every test of the state skipped, one behaviour
        return ("no program",) * sum(t.skipped for t in (sample.examples, sample.plus) if t is not None)
    if sample.compile_error:
        return ("compile error",) * len(tests)
    return tuple(t.get("stdout_sha256") or t["verdict"] for t in tests)


def cost_per_sample(samples: list[Sample]) -> dict:
    """Mean spend per sample of the strategy that produced ``samples`` (model errors
    included: they cost too): model calls, prompt and completion tokens (reported by the
    endpoint; 0 where it reports none), and a reasoning model's reasoning tokens (counted
    among the completion tokens, as OpenAI's usage reports them; shown apart where any).
    Seconds stay in the records (``Sample.cost``): they vary run to run, and metrics.json
    is the same for the same samples."""
    if not samples:
        return {}
    cost = [s.cost or {"calls": 1, "prompt_tokens": (s.tokens or {}).get("prompt") or 0,
                       "completion_tokens": (s.tokens or {}).get("completion") or 0} for s in samples]
    mean = lambda key: float(np.mean([c.get(key) or 0 for c in cost]))  # noqa: E731
    spent = {"calls": mean("calls"), "prompt_tokens": mean("prompt_tokens"),
             "completion_tokens": mean("completion_tokens"),
             "tokens": mean("prompt_tokens") + mean("completion_tokens")}
    if any(c.get("reasoning_tokens") for c in cost):  # a reasoning model's: a part of the completion tokens
        spent["reasoning_tokens"] = mean("reasoning_tokens")
    return spent


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




# ------------------------------------------------------------- every rate once, as a per-problem ratio

SAMPLE_RATES = ("pass@1", "pass@1_examples_tiered", "pass@1_plus", "constraint_following", "convergent",
                "divergent", "neogauge")  # then the MULTI_SAMPLE_RATES a state has
WITHOUT_INTERVAL = ("pass@1_examples_tiered",)  # metrics.json has never held its interval


def state_ratios(kept: list[Sample], values: dict[str, dict[str, float]] | None = None) -> dict[str, Ratio]:
    """Every rate of one state as a per-problem ratio (bootstrap.Ratio), from its kept
    samples: their ``value()`` is the rate, their bootstrap its interval.

    Per sample (one term each, in sample order; a problem's sum over its samples):
    constraint following over the samples whose reply held a program (``Sample.no_program``
    None), convergent (Eq. 2) over all, and over the samples with a human technique set
    divergent (Eq. 3) and NeoGauge (Eq. 4), a reply with no program counting 0 in each
    (the paper's 1 / |Y_t| over every prediction; its T(s) is empty).  Per problem (one
    term over 1, so the rate is the mean over problems): pass@1 and, over the samples with extended tests, pass@1
    on the examples alone and pass@1_plus; the multi-sample rates of ``problem_values``
    (``values``, computed here when not given).  Rates with no term are left out.
    """
    terms: dict[str, list] = {name: [] for name in SAMPLE_RATES}
    for s in kept:
        if not s.no_program:  # a reply with no program follows nothing: not in the base (docs/metrics.md)
            terms["constraint_following"].append((s.problem_id, s.follows, 1))
        terms["convergent"].append((s.problem_id, s.convergent, 1))
        if s.divergent is not None:
            terms["divergent"].append((s.problem_id, s.divergent, 1))
            terms["neogauge"].append((s.problem_id, s.neogauge, 1))
    for pid, got in per_problem(kept).items():
        terms["pass@1"].append((pid, pass_at_k(len(got), sum(s.correct for s in got), 1), 1))
        tiered = [s for s in got if s.correct_plus is not None]
        if tiered:
            terms["pass@1_examples_tiered"].append((pid, pass_at_k(len(tiered), sum(s.correct for s in tiered), 1), 1))
            terms["pass@1_plus"].append((pid, pass_at_k(len(tiered), sum(s.correct_plus for s in tiered), 1), 1))
    for pid, rates in (problem_values(kept) if values is None else values).items():
        for name, value in rates.items():
            terms.setdefault(name, []).append((pid, value, 1))
    return {name: Ratio.from_terms(got) for name, got in terms.items() if got}


def entropy_divergent_r(kept: list[Sample], values: dict[str, dict[str, float]]) -> float | None:
    """Pearson's r across problems between semantic entropy (``values``, problem_values)
    and the problem's mean divergent creativity (Eq. 3), where at least 3 problems have
    both and neither is constant; else None."""
    pairs = [(v["semantic_entropy"], float(np.mean([s.divergent for s in g if s.divergent is not None])))
             for pid, g in per_problem(kept).items() for v in [values[pid]]
             if "semantic_entropy" in v and any(s.divergent is not None for s in g)]
    if len(pairs) < 3:
        return None
    a, b = np.array(pairs).T
    # constant means every value equal: a float mean of equal values can differ from them in
    # the last bit, so std() of a constant column may be 1e-16 rather than 0
    return float(np.corrcoef(a, b)[0, 1]) if np.ptp(a) > 0 and np.ptp(b) > 0 else None


def score_state(samples: list[Sample]) -> tuple[StateMetrics, dict[str, Ratio]]:
    """One state's metrics from its ``Sample`` records, and the ratios they are the values
    of (``state_ratios``; empty when every sample is excluded).  The state has no
    ``cumulative_neogauge`` or ``intervals`` yet: those need the run's other states."""
    kept = [s for s in samples if not s.excluded]
    if not kept:
        return StateMetrics(n=0, excluded=len(samples)), {}
    values = problem_values(kept)
    ratios = state_ratios(kept, values)
    rate = {name: ratio.value() for name, ratio in ratios.items()}
    multi = {field_name(name): rate[name] for name in MULTI_SAMPLE_RATES if name in rate}
    reasons: dict[str, int] = {}
    for s in kept:
        if s.no_program:
            reasons[s.no_program] = reasons.get(s.no_program, 0) + 1
    return StateMetrics(
        n=len(kept), excluded=len(samples) - len(kept), no_program=dict(sorted(reasons.items())) or None,
        n_program=len(kept) - sum(reasons.values()) if reasons else None, pass_at_1=rate["pass@1"],
        n_extended=sum(s.correct_plus is not None for s in kept),
        pass_at_1_examples_tiered=rate.get("pass@1_examples_tiered"), pass_at_1_plus=rate.get("pass@1_plus"),
        constraint_following=rate.get("constraint_following"), convergent=rate["convergent"],
        n_divergent=sum(s.divergent is not None for s in kept), divergent=rate.get("divergent"),
        neogauge=rate.get("neogauge"), **multi, entropy_divergent_r=entropy_divergent_r(kept, values),
        cost=cost_per_sample(samples)), ratios


def sample_states(samples: list[Sample]) -> tuple[dict[str, StateMetrics], dict[int, dict[str, Ratio]]]:
    """Every state of a run: str(t) -> StateMetrics (with ``cumulative_neogauge``, the
    sum of NeoGauge@t' over t' <= t, an undefined one counting 0) in increasing t, and
    t -> rate -> Ratio for the intervals.  A state with no judged sample (every sample
    excluded) has n 0 and no rate; the report shows it as "no samples" (report/text.py)."""
    by_state: dict[int, list[Sample]] = {}
    for s in samples:
        by_state.setdefault(int(s.state), []).append(s)
    states, ratios, running = {}, {}, 0.0
    for t in sorted(by_state):
        metrics, ratios[t] = score_state(by_state[t])
        running += metrics.neogauge or 0.0
        metrics.cumulative_neogauge = running
        states[str(t)] = metrics
    return states, {t: r for t, r in ratios.items() if r}


def human_states(rows: list[HumanBaseline]) -> tuple[dict[str, HumanStateMetrics], dict[int, dict[str, Ratio]]]:
    """The human baselines per state (Eq. 5 and 6) from the ``HumanBaseline`` rows
    (human_rows), each rate the mean over problems of the per-problem means: str(t) ->
    HumanStateMetrics in increasing t, and t -> rate -> Ratio (one term per problem).
    Constraint following and convergent are one ratio (accepted solutions are correct)."""
    by_state: dict[int, list[HumanBaseline]] = {}
    for row in rows:
        by_state.setdefault(row.state, []).append(row)
    states, ratios, running = {}, {}, 0.0
    for t in sorted(by_state):
        got = by_state[t]
        follows = Ratio.from_terms((r.problem_id, r.follows, 1) for r in got)  # Eq. 5
        ratios[t] = {"constraint_following": follows, "convergent": follows,
                     "divergent": Ratio.from_terms((r.problem_id, r.divergent, 1) for r in got),  # Eq. 6
                     "neogauge": Ratio.from_terms((r.problem_id, r.neogauge, 1) for r in got)}
        rate = {name: ratio.value() for name, ratio in ratios[t].items()}
        running += rate["neogauge"]
        n = sum(r.solutions for r in got)
        states[str(t)] = HumanStateMetrics(n=n, constraint_following=rate["constraint_following"],
                                           convergent=rate["convergent"], divergent=rate["divergent"],
                                           neogauge=rate["neogauge"], n_divergent=n, cumulative_neogauge=running)
    return states, ratios


def intervals(ratios: dict[int, dict[str, Ratio]], resamples: int, seed: int) -> dict[int, dict[str, dict]]:
    """bootstrap.state_intervals of every ratio but WITHOUT_INTERVAL: t -> rate -> {"low",
    "high", "se"}, resampling problems across all states together."""
    return state_intervals({t: {name: r for name, r in by_rate.items() if name not in WITHOUT_INTERVAL}
                            for t, by_rate in ratios.items()}, resamples, seed)


def add_intervals(states: dict, ratios: dict[int, dict[str, Ratio]], resamples: int, seed: int) -> None:
    """Set ``intervals`` of every state in ``states`` (str(t) -> StateMetrics or
    HumanStateMetrics): rate -> Interval from bootstrap.state_intervals over ``ratios``
    (resampling problems across all states together), for every rate the state has a
    value of, except WITHOUT_INTERVAL."""
    got = intervals(ratios, resamples, seed)
    for t, metrics in states.items():
        metrics.intervals = {name: Interval(**ci) for name, ci in got.get(int(t), {}).items()
                             if ci is not None and metrics.rate(name) is not None}


def score_samples(model: str | None, samples: list[Sample], resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED, *, strategy: str | None = None, calls: dict | None = None,
                  tests: list[str] | None = None, dataset: str | None = None,
                  language: str | None = None) -> EvalMetrics:
    """The metrics of a model's run from its ``Sample`` records: every state with its
    intervals (a bootstrap over problems, ``resamples`` replicates with ``seed``), and the
    run's ``strategy``, call-cache ``calls``, test ``tests`` tiers, ``dataset`` name and
    ``language`` (only when not Python) where given.  ``.to_dict()`` is the run's metrics.json."""
    states, ratios = sample_states(samples)
    add_intervals(states, ratios, resamples, seed)
    return EvalMetrics(model=model, states=states, bootstrap=bootstrap_info(resamples, seed, "problem"),
                       strategy=strategy, calls=calls, tests=tests, dataset=dataset,
                       language=None if language in (None, "python") else language)


def score_humans(rows: list[HumanBaseline], resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> EvalMetrics:
    """The metrics of the human baselines from their ``HumanBaseline`` rows (human_rows),
    with intervals as ``score_samples``; ``.to_dict()`` is the run's metrics.json."""
    states, ratios = human_states(rows)
    add_intervals(states, ratios, resamples, seed)
    return EvalMetrics(model=HUMAN, states=states, bootstrap=bootstrap_info(resamples, seed, "problem"))


# ------------------------------------------------- the names callers used before score_samples/score_humans

def state_metrics(samples: list[Sample]) -> dict:
    """One state's metrics as a dict (``score_state(samples)[0].to_dict()``): no
    cumulative NeoGauge or intervals (serve's per-reply scores)."""
    return score_state(samples)[0].to_dict()


def all_states(samples: list[Sample]) -> dict[str, dict]:
    """Per-state metrics as dicts keyed by str(t), with ``cumulative_neogauge`` and no
    intervals (upgrade.py's re-scored format-1 runs)."""
    return {t: m.to_dict() for t, m in sample_states(samples)[0].items()}


def sample_ratios(samples: list[Sample]) -> dict[int, dict[str, Ratio]]:
    """state t -> rate -> the per-problem Ratio whose value is that rate (state_ratios),
    for paired comparisons (report/compare.py)."""
    return sample_states(samples)[1]


def human_ratios(rows: list[HumanBaseline]) -> dict[int, dict[str, Ratio]]:
    """state t -> human rate -> its per-problem Ratio (human_states), for comparisons."""
    return human_states(rows)[1]
