"""Diversity measures over a set of programs partitioned into algorithm classes.

The partition follows NoveltyBench (Zhang et al. 2025, arXiv 2504.05228, Sec. 3): the
programs are taken in order; a program is compared with one member of each class made
so far (here the class's first member, so the result is deterministic) and joins the
first class it is equivalent to, else it opens a new class.  For an exact key (a
technique set, an execution fingerprint) this is grouping by key; for a distance with a
threshold (structure.py) the order matters, as it does in NoveltyBench.

Measures, for k programs with classes c_1 .. c_k and qualities u_1 .. u_k:

- ``distinct_k`` = |{c_1, .., c_k}|, the number of classes (NoveltyBench, Sec. 3.1).
- ``utility_k`` = (1 - p) / (1 - p^k) * sum_{i=1..k} p^(i-1) * 1[c_i != c_j for all j < i] * u_i,
  with patience p = 0.8 (NoveltyBench, Sec. 3.2, Eq. 1): a user reading the programs in
  order, who stops after each with probability 1 - p, gains u_i from a program of a class
  not seen before.  Here u_i is 1 for a program that is convergent at its state (correct
  on every test and uses no forbidden technique: NeoCoder Eq. 2) and 0 otherwise, so
  utility_k is in [0, 1] (NoveltyBench's reward-model quality is on 1-10 instead).
- **effective diversity** = the number of classes among the *correct* programs only
  (Shypula et al. 2025, arXiv 2504.12522: diversity counted among outputs that pass a
  quality bar); 0 when no program is correct, which is a result, not an error.
- **overlap** of a run A with a reference B (another run, or the humans) on one problem:
  A's correct programs and B's are partitioned together; the overlap is the share of the
  classes holding one of A's programs that also hold one of B's.  None when A has no
  correct program.
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")
PATIENCE = 0.8  # NoveltyBench's p


def partition(items: Sequence[T], same: Callable[[T, T], bool]) -> list[int]:
    """Class index of each of ``items`` (0, 1, ... in order of first appearance), by
    NoveltyBench's greedy rule (module docstring): each item is compared with the first
    member of every class so far and joins the first one ``same`` accepts."""
    heads: list[T] = []
    labels = []
    for item in items:
        for index, head in enumerate(heads):
            if same(head, item):
                labels.append(index)
                break
        else:
            heads.append(item)
            labels.append(len(heads) - 1)
    return labels


def partition_by_key(keys: Sequence[Hashable]) -> list[int]:
    """``partition`` for an exact key: items with equal keys are one class."""
    seen: dict = {}
    return [seen.setdefault(key, len(seen)) for key in keys]


def distinct_k(classes: Sequence[int]) -> int:
    """distinct_k: the number of different classes among ``classes`` (NoveltyBench Sec. 3.1)."""
    return len(set(classes))


def utility_k(classes: Sequence[int], quality: Sequence[float], patience: float = PATIENCE) -> float:
    """utility_k of k programs in order (NoveltyBench Sec. 3.2, Eq. 1; module docstring):
    ``classes`` and ``quality`` (u_i, here 0 or 1) have length k >= 1; ``patience`` in
    (0, 1).  Returns a value in [0, max u].  Raises ValueError for k = 0 or unequal lengths."""
    k = len(classes)
    if k == 0 or len(quality) != k:
        raise ValueError(f"utility_k needs k >= 1 classes and as many qualities (got {k} and {len(quality)})")
    seen: set = set()
    total = 0.0
    for i, (c, u) in enumerate(zip(classes, quality)):
        if c not in seen:
            total += patience ** i * u
            seen.add(c)
    return (1 - patience) / (1 - patience ** k) * total


def effective_distinct(classes: Sequence[int], correct: Sequence[bool]) -> int:
    """Effective diversity (Shypula et al. 2025): classes among the correct programs only;
    0 when none is correct."""
    return len({c for c, ok in zip(classes, correct) if ok})


def overlap(own: Sequence[int], other: Sequence[int]) -> float | None:
    """Share of the classes of ``own`` (labels of A's correct programs, from one joint
    partition with B's) that B's labels ``other`` also hold; None when A has none."""
    mine = set(own)
    if not mine:
        return None
    return len(mine & set(other)) / len(mine)


def expected_distinct(classes: Sequence[int], k: int, draws: int = 200, seed: int = 0) -> float | None:
    """The expected distinct_k of ``k`` programs drawn without replacement from a
    reference set whose class labels are ``classes`` (the humans: each problem's
    accepted solutions), estimated from ``draws`` random subsamples (seeded); the exact
    count when k equals the set's size.  None when k exceeds the set's size or k < 1."""
    n = len(classes)
    if k < 1 or k > n:
        return None
    if k == n:
        return float(distinct_k(classes))
    labels = np.asarray(classes)
    rng = np.random.default_rng(seed)
    picks = np.argsort(rng.random((draws, n)), axis=1)[:, :k]
    return float(np.mean([len(set(labels[row].tolist())) for row in picks]))
