"""A cost curve fitted to a complexity class (issue 25, classes by execution).

For each class ``f`` in ``COMPLEXITY_CLASSES`` the model ``cost = a * f(n) + b`` with
``a >= 0`` is fitted by weighted least squares with weights ``1 / cost^2`` (each point's
*relative* error counts alike, so the small sizes are not drowned by the large ones;
closed-form 2x2 normal equations).  The residual is the root mean squared relative
error.  The best class is the one with the smallest residual, except that a simpler
class (earlier in the tuple) is preferred when its residual is within ``TOLERANCE``
(absolute, in relative error) of the best one, and a curve that grows by less than
``FLAT_RATIO`` from its smallest to its largest size is ``O(1)``.

Method: fitting measured cost against input size to a family of growth functions is
the approach of "empirical computational complexity" (Goldsmith, Aiken and Wilkerson,
"Measuring empirical computational complexity", ESEC/FSE 2007: trend-prof fits
``cost = a * n^b`` and linear models to basic-block counts) and of BigO(Bench)
(Chambon et al., 2025: time and memory measured on inputs of growing size and fitted to
the classes O(1), O(log n), O(n), O(n log n), O(n^2), O(n^3), exponential).

``O(2^n)`` stays in the tuple but is only found for tiny sizes: with the geometric sizes
of ``growth.DEFAULT_SIZES`` an exponential program is capped after two or three points,
too few to fit (``MIN_POINTS``).  It is fitted only where ``n <= EXP_MAX_N``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

COMPLEXITY_CLASSES = ("O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)", "O(2^n)")
TOLERANCE = 0.02  # a simpler class wins when its residual is at most this much worse
FLAT_RATIO = 1.3  # cost(n_max) / cost(n_min) below this: O(1)
MIN_POINTS = 3
EXP_MAX_N = 64

_F = {
    "O(1)": lambda n: 1.0,
    "O(log n)": lambda n: math.log2(n),
    "O(n)": lambda n: float(n),
    "O(n log n)": lambda n: n * math.log2(n),
    "O(n^2)": lambda n: float(n) ** 2,
    "O(n^3)": lambda n: float(n) ** 3,
    "O(2^n)": lambda n: 2.0 ** n,
}


class FitError(ValueError):
    """Too few points, or points that are not positive sizes and costs."""


@dataclass
class Fit:
    """The chosen class ``label``, its ``residual`` (RMS relative error), the fitted
    ``a`` and ``b`` of ``cost = a f(n) + b``, and every class's residual (``residuals``)."""

    label: str
    residual: float
    a: float = 0.0
    b: float = 0.0
    residuals: dict = field(default_factory=dict)


def _weighted_fit(fs: list[float], costs: list[float]) -> tuple[float, float, float]:
    """(a, b, RMS relative residual) of cost = a f + b, weights 1/cost^2, a >= 0."""
    w = [1.0 / (c * c) for c in costs]
    sw = sum(w)
    sf = sum(wi * f for wi, f in zip(w, fs))
    sc = sum(wi * c for wi, c in zip(w, costs))
    sff = sum(wi * f * f for wi, f in zip(w, fs))
    sfc = sum(wi * f * c for wi, f, c in zip(w, fs, costs))
    det = sw * sff - sf * sf
    a = (sw * sfc - sf * sc) / det if det > 1e-12 * max(1.0, sw * sff) else 0.0
    if a < 0:
        a = 0.0
    b = (sc - a * sf) / sw
    rms = math.sqrt(sum(((a * f + b - c) / c) ** 2 for f, c in zip(fs, costs)) / len(costs))
    return a, b, rms


def fit_complexity(ns: list[int], costs: list[float], classes=COMPLEXITY_CLASSES) -> Fit:
    """The complexity class of the curve ``costs`` (operations, seconds or KiB; positive)
    against sizes ``ns`` (positive, ascending or not), chosen among ``classes`` as the
    module docstring says.  Raises FitError for fewer than MIN_POINTS points, unequal
    lengths, or a size or cost that is not positive."""
    if len(ns) != len(costs) or len(ns) < MIN_POINTS:
        raise FitError(f"fit_complexity: need at least {MIN_POINTS} (n, cost) pairs of equal length, "
                       f"got {len(ns)} sizes and {len(costs)} costs")
    if any(n <= 0 for n in ns) or any(not c > 0 for c in costs):
        raise FitError("fit_complexity: sizes and costs must be positive")
    pairs = sorted(zip(ns, costs))
    ns, costs = [p[0] for p in pairs], [float(p[1]) for p in pairs]
    residuals, params = {}, {}
    for label in classes:
        if label == "O(2^n)" and max(ns) > EXP_MAX_N:
            continue
        fs = [_F[label](n) for n in ns]
        a, b, rms = _weighted_fit(fs, costs)
        residuals[label], params[label] = rms, (a, b)
    if costs[-1] < FLAT_RATIO * costs[0] and "O(1)" in residuals:
        label = "O(1)"
    else:
        best = min(residuals.values())
        label = next(c for c in classes if c in residuals and residuals[c] <= best + TOLERANCE)
    return Fit(label, residuals[label], *params[label], residuals=residuals)
