"""Fit the learned diversity measure on the tuning half of the labelled pairs (issue 48).

``neocoder diversity train`` (cli/diversity.py) calls ``train``: every pair of programs
of each tuning-half problem becomes one row of features.FEATURES with its label (1 when
the reader put the two programs in one class); scikit-learn's ``LogisticRegression``
(L2, lbfgs, balanced class weights: "different" pairs are the rarer kind) is fitted on
the standardised rows.  The regularisation ``C`` (from ``CS``) and the decision
threshold (from validity.THRESHOLDS, the grid the distance measures are tuned on) are
chosen together by cross-validation over problems (``FOLDS`` folds of the tuning
problems in sorted order, round robin: a problem's pairs share programs, so they stay
in one fold): for each pair (C, threshold), the pooled Cohen's kappa of the greedy
partitions (measures.partition, as a run classes its programs) of each fold's problems
by a model fitted on the other folds; the best pair wins (ties: the smaller C, then the
lower threshold), and the model is refitted on the whole tuning half with that C.  The
held-out half is never read.  The result is written with every number rounded to 10
significant digits and sorted keys, so the same labelled set and release give the same
file byte for byte (lbfgs from a zero start is deterministic).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from neocoder.metrics.diversity.agreement import PairCounts, counts
from neocoder.metrics.diversity.features import FEATURES, Traits, pair_features, traits
from neocoder.metrics.diversity.labelled import TUNE, LabelledProblem
from neocoder.metrics.diversity.learned import Classifier
from neocoder.metrics.diversity.measures import partition
from neocoder.metrics.diversity.validity import THRESHOLDS

CS = (0.01, 0.03, 0.1, 0.3, 1.0)
FOLDS = 5


def _round(x: float) -> float:
    return float(f"{x:.10g}")


def problem_traits(problems: list[LabelledProblem]) -> dict[str, list[Traits]]:
    """problem -> the Traits of its labelled programs, in order."""
    return {p.problem: [traits(x.code) for x in p.programs] for p in problems}


def rows(problems: list[LabelledProblem], got: dict[str, list[Traits]]) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): one row of FEATURES per labelled pair (shape (pairs, len(FEATURES))), y 1 for "same"."""
    xs, ys = [], []
    for p in problems:
        t = got[p.problem]
        for i, j, same in p.pairs():
            xs.append(pair_features(t[i], t[j]))
            ys.append(int(same))
    return np.asarray(xs).reshape(-1, len(FEATURES)), np.asarray(ys)


def pooled_kappa(model: Classifier, problems: list[LabelledProblem], got: dict[str, list[Traits]]) -> float | None:
    """Cohen's kappa (agreement.py) of the model's greedy partitions against the labels, pooled over ``problems``."""
    total = PairCounts()
    for p in problems:
        total = total.add(counts([x.label for x in p.programs], partition(got[p.problem], model.same)))
    return total.stats()["kappa"]


def train(problems: list[LabelledProblem], labels_sha256: str) -> dict:
    """The classifier file's content (learned.Classifier.from_dict reads it back), fitted on
    the TUNE-half problems of ``problems`` (module docstring).  ``labels_sha256`` names the
    labelled set it was fitted on.  Raises ValueError when the tuning half has no pair of
    each kind; ImportError (with the extra to install) without scikit-learn."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("training the diversity classifier needs scikit-learn: pip install 'neocoder[train]'") \
            from exc
    tune = [p for p in problems if p.half == TUNE]
    got = problem_traits(tune)
    x, y = rows(tune, got)
    if len(set(y.tolist())) < 2:
        raise ValueError("the tuning half needs both same and different pairs to fit a classifier")
    def fit(xs: np.ndarray, ys: np.ndarray, c: float) -> dict:
        mean = xs.mean(axis=0)
        scale = xs.std(axis=0)
        scale[scale == 0] = 1.0
        model = LogisticRegression(C=c, class_weight="balanced", solver="lbfgs", max_iter=5000)
        model.fit((xs - mean) / scale, ys)
        return {"features": list(FEATURES), "mean": [_round(v) for v in mean], "scale": [_round(v) for v in scale],
                "weights": [_round(v) for v in model.coef_[0]], "intercept": _round(model.intercept_[0])}

    order = sorted(tune, key=lambda p: p.problem)
    folds = [order[f::FOLDS] for f in range(FOLDS)]
    cv: dict[tuple[float, float], PairCounts] = {}
    for c in CS:
        for f, held in enumerate(folds):
            rest = [p for g, part in enumerate(folds) if g != f for p in part]
            if not held or len({int(s) for p in rest for *_, s in p.pairs()}) < 2:
                continue
            base = fit(*rows(rest, got), c)
            for t in THRESHOLDS:
                model = Classifier.from_dict({**base, "threshold": t})
                for p in held:
                    got_counts = counts([x.label for x in p.programs], partition(got[p.problem], model.same))
                    cv[(c, t)] = cv.get((c, t), PairCounts()).add(got_counts)
    best: tuple[tuple[float, float], float | None] = ((CS[-1], 0.5), None)
    for key in sorted(cv):
        k = cv[key].stats()["kappa"]
        if k is not None and (best[1] is None or k > best[1] + 1e-12):
            best = (key, k)
    (c, threshold), cv_kappa = best
    base = fit(x, y, c)
    model = Classifier.from_dict({**base, "threshold": threshold})
    tune_kappa = pooled_kappa(model, tune, got)
    pairs = len(y)
    return {**base, "threshold": threshold,
            "fitted_on": {"labelled_set_sha256": labels_sha256, "half": TUNE, "problems": len(tune), "pairs": pairs,
                          "different": int(pairs - y.sum()),
                          "cv_kappa": None if cv_kappa is None else _round(cv_kappa),
                          "tune_kappa": None if tune_kappa is None else _round(tune_kappa),
                          "model": f"LogisticRegression(C={c}, class_weight='balanced', solver='lbfgs')",
                          "chosen_by": f"{FOLDS}-fold cross-validation over the tuning problems: C in {list(CS)}, "
                                       f"threshold in 0.05..0.95"}}


def write(content: dict, path: Path) -> None:
    """Write the classifier file (sorted keys, one-space indent, trailing newline)."""
    path.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()
