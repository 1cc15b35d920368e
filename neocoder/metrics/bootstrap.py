"""Uncertainty of every rate: a bootstrap over problems (NeoCoder) or questions (AidanBench).

Each rate of a state is a ratio of sums over *units* (problems, or AidanBench questions):

    rate = sum_p num_p / sum_p den_p

e.g. constraint following has num_p = the problem's samples that follow, den_p = its
samples; pass@1 has num_p = the problem's pass@1 (Chen et al. 2021, Eq. 1, k = 1) and
den_p = 1, so it is the mean over problems; a total (AidanBench's answer count) has no
denominator: rate = sum_p num_p.  metrics.py computes every NeoCoder rate as such a
ratio's value, so a point estimate and its interval come from one object; a ratio made
``from_terms`` sums its terms (one per sample) in order for the point estimate, which
is then numpy's mean over the samples to the last bit.  ``bootstrap_info`` is the one
definition of the ``bootstrap`` block every metrics.json carries.

The bootstrap resamples units with replacement (a problem's samples and all its states
move together: a cluster bootstrap, since samples of one problem are not independent),
``resamples`` times with a seeded generator; replicate b weights unit p by how often it
was drawn, w_bp, and gives rate_b = sum_p w_bp num_p / sum_p w_bp den_p.  Reported per
rate: the percentile interval (the (1 - level)/2 and (1 + level)/2 quantiles of the
replicates) and the standard error (their standard deviation, ddof 1).  Method: Efron and
Tibshirani, "An Introduction to the Bootstrap" (1993), Ch. 6 (standard error) and Ch. 13
(percentile interval); resampling clusters: Davison and Hinkley, "Bootstrap Methods and
their Application" (1997), Sec. 3.8.  For a Bernoulli rate over n independent units the
standard error approaches sqrt(p (1 - p) / n), which the tests check.

Paired differences between two runs use the *same* weights for both over the units they
share, so the difference's interval accounts for their correlation (problems hard for one
model are hard for the other).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
LEVEL = 0.95


@dataclass
class Ratio:
    """One rate as per-unit sums: ``num`` and ``den`` map a unit (problem id or question)
    to its numerator and denominator; ``den`` None makes the rate a plain total.

    A ratio made with ``from_terms`` also keeps its terms (one per sample, or one per
    problem) in the order they came, so that its point estimate is summed exactly as the
    plain mean over the samples always was (see ``value``)."""

    num: dict[str, float]
    den: dict[str, float] | None = None
    terms: list[tuple[str, float, float]] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_terms(cls, terms: Iterable[tuple[str, float, float]]) -> "Ratio":
        """The ratio of ``terms`` (unit, numerator, denominator): a unit's ``num`` and
        ``den`` are Python's ``sum`` of its terms in order.  A per-sample rate has one
        term per sample (its 0/1 or its score over 1), a per-problem rate one term per
        problem (its value over 1)."""
        terms = [(unit, float(num), float(den)) for unit, num, den in terms]
        num: dict[str, list[float]] = {}
        den: dict[str, list[float]] = {}
        for unit, n, d in terms:
            num.setdefault(unit, []).append(n)
            den.setdefault(unit, []).append(d)
        return cls({u: float(sum(v)) for u, v in num.items()}, {u: float(sum(v)) for u, v in den.items()}, terms)

    def vectors(self, units: list[str]) -> tuple[np.ndarray, np.ndarray | None]:
        """(num, den) as arrays of shape (len(units),), 0 for a unit without data."""
        num = np.array([self.num.get(u, 0.0) for u in units], dtype=float)
        den = None if self.den is None else np.array([self.den.get(u, 0.0) for u in units], dtype=float)
        return num, den

    def value(self, units: list[str] | None = None) -> float | None:
        """The point estimate sum num / sum den over ``units`` (default: all of them); None
        for a zero denominator.  Over all units, a ratio with terms sums the terms in
        their order (numpy's pairwise sum), so a per-sample rate is, to the last bit,
        numpy's mean over the samples: the number metrics.json has always held."""
        if units is None and self.terms:
            num = np.array([n for _, n, _ in self.terms], dtype=float)
            den = np.array([d for _, _, d in self.terms], dtype=float)
            return float(num.sum() / den.sum()) if den.sum() > 0 else None
        units = list(self.num) if units is None else units
        num, den = self.vectors(units)
        if den is None:
            return float(num.sum())
        return float(num.sum() / den.sum()) if den.sum() > 0 else None


@dataclass
class Interval:
    """A rate's uncertainty from the bootstrap replicates (``summarize``)."""

    low: float
    """The (1 - LEVEL)/2 quantile of the replicates: the interval's lower end."""
    high: float
    """The (1 + LEVEL)/2 quantile of the replicates: the interval's upper end."""
    se: float
    """The standard error: the replicates' standard deviation (ddof 1)."""

    def to_dict(self) -> dict:
        """``{"low", "high", "se"}``, as metrics.json holds it."""
        return {"low": self.low, "high": self.high, "se": self.se}


def bootstrap_info(resamples: int, seed: int, unit: str = "problem") -> dict:
    """The ``bootstrap`` block of a metrics.json: how its intervals were made.

    ``{"resamples", "seed", "unit", "level", "method": "percentile"}``: ``resamples``
    replicates drawn with numpy's generator seeded ``seed``, resampling ``unit``s
    ("problem" for NeoCoder, "question" for AidanBench, "keyword" for LiveIdeaBench),
    percentile intervals at ``LEVEL``.
    """
    return {"resamples": resamples, "seed": seed, "unit": unit, "level": LEVEL, "method": "percentile"}


def weights(n_units: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """How often each of ``n_units`` units is drawn in each replicate: shape (resamples,
    n_units), rows summing to n_units.  Deterministic for a seed (numpy's PCG64)."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n_units, size=(resamples, n_units))
    counts = np.zeros((resamples, n_units))
    np.add.at(counts, (np.arange(resamples)[:, None], drawn), 1.0)
    return counts


def replicates(ratio: Ratio, units: list[str], w: np.ndarray) -> np.ndarray:
    """The rate in each replicate: shape (resamples,); NaN where a replicate's denominator is 0."""
    num, den = ratio.vectors(units)
    top = w @ num
    if den is None:
        return top
    bottom = w @ den
    out = np.full(top.shape, np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def summarize(values: np.ndarray, level: float = LEVEL) -> dict | None:
    """``{"low", "high", "se"}`` of bootstrap replicates (percentile interval, standard
    error); None when fewer than two replicates are defined."""
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return None
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return {"low": float(low), "high": float(high), "se": float(values.std(ddof=1))}


def state_intervals(rates: dict[int, dict[str, Ratio]], resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED, level: float = LEVEL) -> dict[int, dict[str, dict]]:
    """Intervals of every rate of every state, resampling units across all states together.

    ``rates``: state t -> rate name -> Ratio.  Returns state t -> rate name -> {"low",
    "high", "se"}, with ``cumulative_neogauge`` (the replicate-wise sum of NeoGauge@t' over
    t' <= t, a state whose NeoGauge is undefined counting 0, as in metrics.all_states).
    """
    units = sorted({u for by_rate in rates.values() for r in by_rate.values() for u in r.num})
    if not units:
        return {t: {} for t in rates}
    w = weights(len(units), resamples, seed)
    out: dict[int, dict[str, dict]] = {}
    running = np.zeros(resamples)
    for t in sorted(rates):
        out[t] = {}
        for name, ratio in rates[t].items():
            reps = replicates(ratio, units, w)
            if name == "neogauge":
                running = running + np.nan_to_num(reps)
            got = summarize(reps, level)
            if got is not None:
                out[t][name] = got
        if "neogauge" in rates[t]:
            out[t]["cumulative_neogauge"] = summarize(running.copy(), level)
    return out


def paired_difference(a: list[Ratio], b: list[Ratio], units: list[str], resamples: int = DEFAULT_RESAMPLES,
                      seed: int = DEFAULT_SEED, level: float = LEVEL) -> dict | None:
    """rate(a) - rate(b) over the shared ``units``, with its interval from one set of
    bootstrap weights applied to both.  A rate given as several Ratios is their sum (a
    cumulative NeoGauge: the states' NeoGauge, an undefined one counting 0).  Returns
    ``{"diff", "low", "high", "se", "units"}``; None when no rate of a or b is defined."""
    values_a = [r.value(units) for r in a]
    values_b = [r.value(units) for r in b]
    if not units or all(v is None for v in values_a) or all(v is None for v in values_b):
        return None
    w = weights(len(units), resamples, seed)
    reps = sum(np.nan_to_num(replicates(r, units, w)) for r in a) - \
        sum(np.nan_to_num(replicates(r, units, w)) for r in b)
    got = summarize(np.asarray(reps, dtype=float), level)
    diff = sum(v or 0.0 for v in values_a) - sum(v or 0.0 for v in values_b)
    return None if got is None else {"diff": diff, **got, "units": len(units)}
