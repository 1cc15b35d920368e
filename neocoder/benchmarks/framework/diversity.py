"""Semantic entropy against diversity baselines (creativity-framework App. C.3, Tables 8-10):
for every step of a framework run, its candidates' average pairwise cosine similarity
(sentence embeddings), self-BLEU and distinct-1/2, and the Spearman correlation of the
step entropy with each, with a 95% bootstrap interval over the steps (scipy.stats).

- average cosine: mean of cos(E(a), E(b)) over the candidate pairs a != b;
- self-BLEU (Zhu et al. 2018, Texygen): mean over candidates of BLEU-4 of the candidate
  against the others as references (uniform weights, modified n-gram precision with
  +1 smoothing for n > 1, brevity penalty against the closest reference length);
- distinct-n (Li et al. 2016): distinct n-grams / all n-grams over the candidates.

Higher entropy should go with lower cosine and self-BLEU and higher distinct-n.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from neocoder.benchmarks.framework.records import FrameworkStep
from neocoder.store import RunFolder


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(candidate: list[str], references: list[list[str]], max_n: int = 4) -> float:
    """Sentence BLEU-``max_n`` of token list ``candidate`` against ``references`` (see the
    module); 0 for an empty candidate."""
    if not candidate or not references:
        return 0.0
    logs = []
    for n in range(1, max_n + 1):
        cand = _ngrams(candidate, n)
        most: Counter = Counter()
        for ref in references:
            most |= _ngrams(ref, n)
        hits, total = sum(min(c, most[g]) for g, c in cand.items()), max(1, sum(cand.values()))
        if n > 1:
            hits, total = hits + 1, total + 1
        if hits == 0:
            return 0.0
        logs.append(math.log(hits / total))
    closest = min((abs(len(r) - len(candidate)), len(r)) for r in references)[1]
    bp = 1.0 if len(candidate) > closest else math.exp(1 - closest / len(candidate))
    return bp * math.exp(sum(logs) / max_n)


def self_bleu(texts: list[str]) -> float | None:
    """Self-BLEU of ``texts`` (lower-cased, split on whitespace): the mean over texts of
    ``bleu`` against the others; None with fewer than two texts."""
    toks = [t.lower().split() for t in texts]
    if len(toks) < 2:
        return None
    return float(np.mean([bleu(toks[i], toks[:i] + toks[i + 1:]) for i in range(len(toks))]))


def distinct_n(texts: list[str], n: int) -> float | None:
    """Distinct-``n`` of ``texts`` (lower-cased, split on whitespace): distinct n-grams over
    all n-grams, in [0, 1]; None when the texts have no n-gram."""
    grams = [g for t in texts for g in _ngrams(t.lower().split(), n).elements()]
    return len(set(grams)) / len(grams) if grams else None


def average_cosine(vectors: np.ndarray) -> float | None:
    """Mean pairwise cosine of L2-normalised rows (pairs a != b)."""
    n = len(vectors)
    if n < 2:
        return None
    sims = vectors @ vectors.T
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))


def spearman_interval(x: list[float], y: list[float], resamples: int, seed: int) -> dict:
    """Spearman's rho (scipy.stats.spearmanr) and its p-value, with a percentile bootstrap
    interval over the pairs (x_i, y_i)."""
    from scipy.stats import spearmanr
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and b is not None]
    if len(pairs) < 3:
        return {"rho": None, "n": len(pairs)}
    xs, ys = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    if np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return {"rho": None, "n": len(pairs), "note": "a constant variable: no rank correlation"}
    rho, p = spearmanr(xs, ys)
    rng = np.random.default_rng(seed)
    reps = []
    for draw in rng.integers(0, len(xs), size=(resamples, len(xs))):
        if np.ptp(xs[draw]) > 0 and np.ptp(ys[draw]) > 0:
            reps.append(spearmanr(xs[draw], ys[draw])[0])
    low, high = (np.quantile(reps, [0.025, 0.975]) if len(reps) > 1 else (None, None))
    return {"rho": None if math.isnan(rho) else float(rho), "p": None if math.isnan(p) else float(p),
            "low": None if low is None else float(low), "high": None if high is None else float(high),
            "n": len(pairs)}


BASELINES = ("average_cosine", "self_bleu", "distinct_1", "distinct_2")


def _correlations(rows: list[dict], resamples: int, seed: int) -> dict:
    ent = [r["entropy"] for r in rows]
    return {"n": len(rows), "spearman": {k: spearman_interval(ent, [r[k] for r in rows], resamples, seed)
                                         for k in BASELINES},
            "means": {k: (float(np.mean([r[k] for r in rows if r[k] is not None]))
                          if any(r[k] is not None for r in rows) else None) for k in ("entropy", *BASELINES)}}


def entropy_vs_diversity(run: Path, embedder, resamples: int = 2000, seed: int = 0) -> dict:
    """Per step of the run folder ``run`` (steps with an entropy and at least two readable
    candidates that did not say STOP; an unreadable candidate, grammars.read_candidate, is
    left out): the entropy and the baselines over those candidates; per problem: their
    means over its steps (the paper's unit, App. C.3).  Spearman's rho with intervals at
    both grains."""
    def live(s: FrameworkStep) -> list[str]:
        why = list(s.unreadable or []) + [None] * (len(s.candidates) - len(s.unreadable or []))
        return [t for t, stop, reason in zip(s.candidates, s.stops, why) if not stop and reason is None]
    steps = [s for s in RunFolder(Path(run), create=False).read(FrameworkStep)
             if s.entropy is not None and len(live(s)) >= 2]
    rows = []
    for s in steps:
        texts = live(s)
        rows.append({"problem": s.problem_id, "entropy": s.entropy,
                     "average_cosine": average_cosine(embedder.embed(texts)), "self_bleu": self_bleu(texts),
                     "distinct_1": distinct_n(texts, 1), "distinct_2": distinct_n(texts, 2)})
    problems = []
    for pid in sorted({r["problem"] for r in rows}):
        mine = [r for r in rows if r["problem"] == pid]
        problems.append({k: (float(np.mean([r[k] for r in mine if r[k] is not None]))
                             if any(r[k] is not None for r in mine) else None) for k in ("entropy", *BASELINES)})
    return {"per_step": _correlations(rows, resamples, seed), "per_problem": _correlations(problems, resamples, seed)}
