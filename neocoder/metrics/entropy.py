"""Semantic entropy: how a set of sampled outputs spreads over meaning classes.

Pure functions, no models: the caller samples the outputs, decides what "the same
meaning" is (identical behaviour, bidirectional entailment, embedding similarity) and
passes class ids and log-probabilities in.  docs/entropy.md has the formulas with a
worked example.

Sources:

- the creativity-evaluation framework, Sec. 3.1, Eq. 1-3 (divergent creativity as the
  semantic entropy of several sampled outputs; as summarised in issue 17): group the
  outputs into meaning classes c, then SE = -sum_c p(c) ln p(c);
- Kuhn, Gal, Farquhar, "Semantic Uncertainty: Linguistic Invariances for Uncertainty
  Estimation in Natural Language Generation", ICLR 2023: meaning classes by
  bidirectional entailment (their Algorithm 1, a greedy pass that compares each output
  with one member of every class so far), class probability
  p(c | x) = sum_{s in c} p(s | x), and length-normalised sequence log-probabilities;
- Farquhar, Kossen, Kuhn, Gal, "Detecting hallucinations in large language models using
  semantic entropy", Nature 630, 2024 (Methods): the discrete estimator from class
  counts, p(c) = |c| / n, for models that give no log-probabilities, and the
  Rao-Blackwellised estimator that normalises the class probabilities over the classes
  that were sampled.

Entropies are in nats (natural log).  Class ids are small ints in order of first
appearance (0 for the first output's class).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence

import numpy as np


def _check_ids(class_ids: Sequence[Hashable], name: str = "class_ids") -> list:
    ids = list(class_ids)
    if not ids:
        raise ValueError(f"{name}: no outputs (the entropy of an empty sample is undefined)")
    for i, c in enumerate(ids):
        if c is None:
            raise ValueError(f"{name}[{i}] is None: every output needs a class")
        try:
            hash(c)
        except TypeError as exc:
            raise TypeError(f"{name}[{i}] = {c!r} is not hashable") from exc
    return ids


def _entropy(probabilities) -> float:
    """-sum p ln p over p > 0, never -0.0."""
    h = -sum(p * math.log(p) for p in probabilities if p > 0)
    return max(0.0, h)


def discrete_entropy(class_ids: Sequence[Hashable]) -> float:
    """Discrete semantic entropy of n outputs from their class counts, in nats.

    ``class_ids``: one hashable class id per output, length n >= 1.  With p(c) = |c| / n
    (Farquhar et al. 2024, Methods, "discrete semantic entropy"; the framework's Sec. 3.1,
    Eq. 1 with counts for probabilities): SE = -sum_c p(c) ln p(c).  All outputs in one
    class give 0; n outputs in n classes give ln n (the maximum for n outputs).

    Raises ValueError for an empty sequence or a None id, TypeError for an unhashable id.
    """
    ids = _check_ids(class_ids)
    n = len(ids)
    return _entropy(count / n for count in Counter(ids).values())


def length_normalised_logprob(token_logprobs: Sequence[float]) -> float:
    """A sequence's length-normalised log-probability: the mean of its tokens'
    log-probabilities (nats per token), (1/L) sum_t ln p(token_t | earlier tokens, x)
    (the length normalisation of Kuhn et al. 2023, Sec. 3, after Malinin and Gales 2021;
    Farquhar et al. 2024, Methods).

    Raises ValueError for no tokens or a value that is not a finite number <= 0.
    """
    values = list(token_logprobs)
    if not values:
        raise ValueError("token_logprobs: no tokens")
    for i, v in enumerate(values):
        if v is None or not math.isfinite(v) or v > 1e-9:
            raise ValueError(f"token_logprobs[{i}] = {v!r} is not a log-probability (a finite number <= 0)")
    return sum(values) / len(values)


def class_probabilities(class_ids: Sequence[Hashable], logprobs: Sequence[float]) -> dict:
    """p(c) for each sampled class c from the outputs' sequence log-probabilities:

        p(c) = sum_{s in c} exp(lp_s) / sum_{all sampled s} exp(lp_s)

    (Kuhn et al. 2023, Eq. for p(c | x) as a sum over the class's sequences; normalised
    over the sampled classes, the Rao-Blackwellised estimate of Farquhar et al. 2024,
    Methods).  ``logprobs``: one log-probability per output, length n, usually
    length-normalised (``length_normalised_logprob``); a constant added to all of them
    changes nothing.  Computed with log-sum-exp, so very negative values are fine.

    Returns {class id: probability}, summing to 1.  Raises ValueError when the lengths
    differ, for an empty sample, or for a log-probability that is not finite.
    """
    ids = _check_ids(class_ids)
    lps = list(logprobs)
    if len(lps) != len(ids):
        raise ValueError(f"logprobs: {len(lps)} values for {len(ids)} class ids (one per output)")
    for i, v in enumerate(lps):
        if v is None or not math.isfinite(v):
            raise ValueError(f"logprobs[{i}] = {v!r} is not a finite log-probability")
    top = max(lps)
    weights: dict = {}
    for c, lp in zip(ids, lps):
        weights[c] = weights.get(c, 0.0) + math.exp(lp - top)  # shifted by the max: no underflow to 0 for all
    total = sum(weights.values())
    return {c: w / total for c, w in weights.items()}


def rao_blackwell_entropy(class_ids: Sequence[Hashable], logprobs: Sequence[float]) -> float:
    """Semantic entropy with class probabilities from sequence log-probabilities, in nats:
    SE = -sum_c p(c) ln p(c) with p(c) from ``class_probabilities`` (the framework's
    Sec. 3.1, Eq. 1-3; Kuhn et al. 2023; Farquhar et al. 2024, Methods, the
    Rao-Blackwellised estimator over the sampled classes).

    ``class_ids`` and ``logprobs``: one per output, same length n >= 1.  Equal
    log-probabilities give ``discrete_entropy``; one class gives 0.  Example: classes
    (a, a, b) with probabilities (0.5, 0.3, 0.2) give p(a) = 0.8, p(b) = 0.2 and
    SE = -(0.8 ln 0.8 + 0.2 ln 0.2) = 0.50040.

    Raises ValueError / TypeError as ``class_probabilities`` does.
    """
    return _entropy(class_probabilities(class_ids, logprobs).values())


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def classes_by_behaviour(behaviours: Sequence[Sequence]) -> list[int]:
    """Class ids of programs by behaviour: programs whose behaviour tuples are identical
    are one class (for code, a program's meaning is what it does: the framework's
    Sec. 3.1 applied to programs, as issue 17 specifies).

    ``behaviours``: one sequence per program, with one entry per test in the same test
    order for every program, e.g. the output it printed or its verdict when it failed
    ("TLE", "RE: ZeroDivisionError").  Lists and dicts inside are compared by value.
    Returns class ids in order of first appearance: [0, 0, 1] for (x, x, y).

    Raises ValueError for an empty list or when two programs have a different number of
    tests (they were not run on the same tests), naming the program's index.
    """
    frozen = [_freeze(b) for b in behaviours]
    if not frozen:
        raise ValueError("behaviours: no programs")
    size = len(frozen[0])
    ids: dict = {}
    out = []
    for i, b in enumerate(frozen):
        if len(b) != size:
            raise ValueError(f"behaviours[{i}] has {len(b)} tests, behaviours[0] has {size}: "
                             "programs must be run on the same tests")
        out.append(ids.setdefault(b, len(ids)))
    return out


def bidirectional(entails: Callable[[object, object], bool]) -> Callable[[object, object], bool]:
    """``equivalent(a, b)`` = entails(a, b) and entails(b, a): two outputs mean the same
    when each entails the other (Kuhn et al. 2023, Sec. 3 and Algorithm 1; Farquhar et al.
    2024, Methods).
    The second direction is asked only when the first holds."""
    def equivalent(a, b) -> bool:
        return bool(entails(a, b)) and bool(entails(b, a))
    return equivalent


class GreedyClasses:
    """Greedy clustering of outputs arriving one at a time (Kuhn et al. 2023,
    Algorithm 1): a new output is compared with the first member of each class in the
    order the classes were made, and joins the first class it is ``equivalent`` to;
    otherwise it starts a new class.  An output's class depends only on the outputs
    before it, so the classes of a prefix are a prefix of the classes.

    ``equivalent(first_member, new)`` is called at most once per existing class.
    """

    def __init__(self, equivalent: Callable[[object, object], bool]):
        self.equivalent = equivalent
        self.members: list = []  # the first member of each class, by class id

    def add(self, item) -> int:
        """The class id of ``item`` (a new id when it matches no class)."""
        for class_id, first in enumerate(self.members):
            if self.equivalent(first, item):
                return class_id
        self.members.append(item)
        return len(self.members) - 1

    def restore(self, item, class_id: int) -> None:
        """Record that ``item`` was given ``class_id`` earlier (resuming without asking
        ``equivalent`` again).  Raises ValueError for an id that skips a class."""
        if class_id == len(self.members):
            self.members.append(item)
        elif not 0 <= class_id < len(self.members):
            raise ValueError(f"class id {class_id}: {len(self.members)} classes so far, ids are given in order")


def classes_by_equivalence(items: Sequence, equivalent: Callable[[object, object], bool]) -> list[int]:
    """Class ids of ``items`` by greedy clustering (``GreedyClasses``; Kuhn et al. 2023,
    Algorithm 1), where ``equivalent(a, b)`` says a and b mean the same; in the semantic
    entropy papers that is bidirectional entailment (``bidirectional(entails)``: a -> b
    and b -> a, asked of an NLI model or an LLM).  Returns ids in order of first
    appearance; [] for no items.  Errors raised by ``equivalent`` propagate."""
    classes = GreedyClasses(equivalent)
    return [classes.add(item) for item in items]


def cosine_equivalence(threshold: float) -> Callable[[np.ndarray, np.ndarray], bool]:
    """``equivalent(u, v)``: cos(u, v) >= ``threshold``, for ``GreedyClasses`` over
    embedding vectors (shape (d,)).  Raises ValueError for a threshold outside [-1, 1]
    and, when called, for a zero vector or vectors of different sizes."""
    if not -1.0 <= threshold <= 1.0:
        raise ValueError(f"threshold {threshold} is not a cosine similarity (between -1 and 1)")

    def equivalent(u, v) -> bool:
        u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
        if u.shape != v.shape:
            raise ValueError(f"vectors of shapes {u.shape} and {v.shape}")
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
        if nu == 0 or nv == 0:
            raise ValueError("a zero embedding vector has no direction")
        return float(u @ v / (nu * nv)) >= threshold
    return equivalent


def classes_by_similarity(vectors, threshold: float) -> list[int]:
    """Class ids of outputs by embedding similarity: an output joins the class of the
    first member it has cosine similarity >= ``threshold`` with (members checked in
    class order), else starts a class (``GreedyClasses`` with ``cosine_equivalence``).

    An approximation of bidirectional entailment: similar embeddings are a proxy for
    mutual entailment, not a test of it (paraphrases can fall below the threshold and
    contradictory answers on the same topic above it); the threshold sets the grain.

    ``vectors``: shape (n, d), rows need not be normalised.  Returns n ids in order of
    first appearance.  Raises ValueError for a matrix that is not 2-D, a zero row, or a
    threshold outside [-1, 1].
    """
    m = np.asarray(vectors, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"vectors: shape {m.shape}, expected (n, d)")
    return classes_by_equivalence(list(m), cosine_equivalence(threshold))
