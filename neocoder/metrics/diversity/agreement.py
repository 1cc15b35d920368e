"""How well a diversity measure's classes agree with the hand-labelled algorithm pairs.

For each labelled pair of programs of one problem (labelled.py) a measure says "same
class" or not (from its partition of the problem's labelled programs, the way the
measure is used on a run).  Against the labels ("same algorithm" or not), with TP the
pairs both call same, over N pairs:

- agreement       = (TP + TN) / N
- precision(same) = TP / (pairs the measure calls same)      (None when it calls none)
- recall(same)    = TP / (pairs labelled same)               (None when none is)
- Cohen's kappa   = (p_o - p_e) / (1 - p_e), p_o = agreement and
  p_e = q_m q_l + (1 - q_m)(1 - q_l), q_m and q_l the shares of pairs the measure and the
  labels call same (Cohen, "A coefficient of agreement for nominal scales", Educational
  and Psychological Measurement 20(1), 1960, Eq. 1); 0 is chance agreement, 1 perfect.
  None when p_e = 1 (both call every pair the same thing).

Intervals: 95% percentile bootstrap over problems (a problem's pairs move together:
pairs of one problem share programs, so they are not independent; Davison and Hinkley
1997, Sec. 3.8), ``resamples`` replicates with a seeded numpy generator.

Classes per problem: the measure's number of classes among a problem's labelled
programs against the labelled number, as a ratio of means over problems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STATS = ("agreement", "precision_same", "recall_same", "kappa")


@dataclass
class PairCounts:
    """Confusion counts of one or more problems' pairs (labels against a measure)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, other: "PairCounts") -> "PairCounts":
        """The counts of both tables summed, cell by cell."""
        return PairCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    @property
    def n(self) -> int:
        """Pairs counted in all four cells."""
        return self.tp + self.fp + self.fn + self.tn

    def stats(self) -> dict[str, float | None]:
        """agreement, precision_same, recall_same, kappa (module docstring); None where undefined."""
        n = self.n
        if n == 0:
            return dict.fromkeys(STATS)
        agree = (self.tp + self.tn) / n
        said, truth = (self.tp + self.fp) / n, (self.tp + self.fn) / n
        chance = said * truth + (1 - said) * (1 - truth)
        return {"agreement": agree,
                "precision_same": self.tp / (self.tp + self.fp) if self.tp + self.fp else None,
                "recall_same": self.tp / (self.tp + self.fn) if self.tp + self.fn else None,
                "kappa": (agree - chance) / (1 - chance) if chance < 1 else None}


def counts(labels: list[str], predicted: list[int]) -> PairCounts:
    """The confusion counts of every pair of one problem's programs: ``labels`` are the
    labelled classes, ``predicted`` the measure's class indexes, both in one order.
    Raises ValueError for unequal lengths."""
    if len(labels) != len(predicted):
        raise ValueError(f"{len(labels)} labels against {len(predicted)} predicted classes")
    c = PairCounts()
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            truth, said = labels[i] == labels[j], predicted[i] == predicted[j]
            if truth and said:
                c.tp += 1
            elif said:
                c.fp += 1
            elif truth:
                c.fn += 1
            else:
                c.tn += 1
    return c


def score(per_problem: dict[str, PairCounts], resamples: int = 2000, seed: int = 0, level: float = 0.95) -> dict:
    """Pooled statistics of ``per_problem`` counts with bootstrap intervals over problems:
    ``{stat: {"value", "low", "high"}, "pairs": N, "same": labelled same, "problems": P}``
    (low/high None when fewer than two problems or the statistic is undefined in more
    than half of the replicates)."""
    pids = sorted(per_problem)
    total = PairCounts()
    for pid in pids:
        total = total.add(per_problem[pid])
    point = total.stats()
    out = {"pairs": total.n, "same": total.tp + total.fn, "problems": len(pids)}
    reps: dict[str, list[float]] = {s: [] for s in STATS}
    if len(pids) >= 2:
        rng = np.random.default_rng(seed)
        table = np.array([[c.tp, c.fp, c.fn, c.tn] for c in (per_problem[p] for p in pids)])
        for _ in range(resamples):
            w = np.bincount(rng.integers(0, len(pids), len(pids)), minlength=len(pids))
            tp, fp, fn, tn = (w @ table).tolist()
            for name, v in PairCounts(tp, fp, fn, tn).stats().items():
                if v is not None:
                    reps[name].append(v)
    tail = (1 - level) / 2
    for name in STATS:
        got = reps[name]
        low = high = None
        if len(got) > resamples / 2:
            low, high = (float(x) for x in np.quantile(got, [tail, 1 - tail]))
        out[name] = {"value": point[name], "low": low, "high": high}
    return out


def classes_ratio(measured: dict[str, int], labelled: dict[str, int]) -> dict:
    """Mean classes per problem by the measure and by the labels over the same problems,
    and their ratio (measure / labels): ``{"measured", "labelled", "ratio", "problems"}``."""
    pids = sorted(set(measured) & set(labelled))
    if not pids:
        return {"measured": None, "labelled": None, "ratio": None, "problems": 0}
    m = float(np.mean([measured[p] for p in pids]))
    lab = float(np.mean([labelled[p] for p in pids]))
    return {"measured": m, "labelled": lab, "ratio": m / lab if lab else None, "problems": len(pids)}
