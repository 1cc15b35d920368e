"""Every diversity measure scored against the hand-labelled algorithm pairs (issue 39).

``validate`` partitions each labelled problem's programs (labelled.py) by each measure,
exactly as a run partitions its programs (measures.partition, the first member of a
class stands for it), and scores the pairs against the labels (agreement.py) on the
held-out half, with bootstrap intervals over problems.  A measure with a threshold gets
it from the tuning half only (``tune_threshold``: the threshold of highest kappa on the
tuning half's pairs; ties go to the smaller threshold).

The measures (``MEASURES``):

- ``technique``: equal detector technique sets (classes.py);
- ``structure``: pq-gram distance of the raw programs at most 0.3 (structure.py, the
  threshold used before this check);
- ``structure-tuned``: the same distance, threshold chosen on the tuning half;
- ``normalised``: pq-gram distance of the programs with their style removed
  (normalise.py), threshold chosen on the tuning half;
- ``operations``: Jaccard distance of the operation sets of the normalised programs
  (operations.py), threshold chosen on the tuning half;
- ``learned``: the shipped classifier's same-algorithm probability over every other
  static measure's distance and the reader's traits (learned.py, features.py; fitted on
  the tuning half by ``neocoder diversity train``), at the threshold shipped with it;
- ``execution``: equal execution fingerprints (execution.py), on the programs that have
  one (labelled_execution.py; needs the sandbox);
- ``judge``: a model asked whether two programs implement one algorithm
  (judge_measure.py; only with a model).

Classes per problem are counted among the held-out half's randomly sampled *human*
programs, by the measure and by the labels (the figure the human reference reports).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from neocoder.metrics.diversity import structure
from neocoder.metrics.diversity.agreement import PairCounts, classes_ratio, counts, score
from neocoder.metrics.diversity.labelled import HELD_OUT, TUNE, LabelledProblem
from neocoder.metrics.diversity.measures import partition, partition_by_key
from neocoder.metrics.diversity.normalise import normalise
from neocoder.metrics.diversity.operations import operations

TECHNIQUE, STRUCTURE, STRUCTURE_TUNED, NORMALISED, OPERATIONS, LEARNED, EXECUTION, JUDGE = (
    "technique", "structure", "structure-tuned", "normalised", "operations", "learned", "execution", "judge")
MEASURES = (TECHNIQUE, STRUCTURE, STRUCTURE_TUNED, NORMALISED, OPERATIONS, LEARNED, EXECUTION, JUDGE)
THRESHOLDS = tuple(round(x, 2) for x in np.arange(0.05, 0.96, 0.05))
_TUNED = (STRUCTURE_TUNED, NORMALISED, OPERATIONS)  # measures with a threshold chosen on the tuning half


def _technique_key(code: str) -> frozenset:
    from neocoder.techniques.detector import detect  # tree-sitter: loaded only when measured
    return frozenset(detect(code, "python"))


def profiles(problem: LabelledProblem, measure: str) -> list:
    """What a distance measure compares, per program of ``problem``: the pq-gram profile
    of the raw program (STRUCTURE, STRUCTURE_TUNED) or of its normal form (NORMALISED),
    or its operation set (OPERATIONS); each has ``distance``."""
    if measure == OPERATIONS:
        return [operations(p.code) for p in problem.programs]
    return [structure.shape(normalise(p.code) if measure == NORMALISED else p.code, "python")
            for p in problem.programs]


def distance_partition(items: list, threshold: float) -> list[int]:
    """Greedy classes (measures.partition) of items (with ``distance``) at most ``threshold`` apart."""
    return partition(items, lambda a, b: a.distance(b) <= threshold)


def tune_threshold(problems: list[LabelledProblem], measure: str,
                   grid: tuple[float, ...] = THRESHOLDS) -> tuple[float, float | None]:
    """(threshold, its kappa) of highest pooled kappa over ``problems``' pairs (the
    tuning half), among ``grid``; ties go to the smaller threshold.  Raises ValueError
    for an empty grid."""
    if not grid:
        raise ValueError("no threshold to choose from")
    got = {p.problem: profiles(p, measure) for p in problems}
    best: tuple[float, float | None] = (grid[0], None)
    for t in grid:
        total = PairCounts()
        for p in problems:
            total = total.add(counts([x.label for x in p.programs], distance_partition(got[p.problem], t)))
        k = total.stats()["kappa"]
        if k is not None and (best[1] is None or k > best[1] + 1e-12):
            best = (t, k)
    return best


def _keyed(keys: list) -> list[int | None]:
    """partition_by_key over the programs that have a key; None for those without."""
    kept = [k for k in keys if k is not None]
    labels = iter(partition_by_key(kept))
    return [None if k is None else next(labels) for k in keys]


def classer(measure: str, threshold: float | None = None, judge=None,
            execution: dict | None = None) -> Callable[[LabelledProblem], list[int | None]]:
    """A function from a labelled problem to its programs' class indexes by ``measure``
    (``threshold`` for the distance measures; ``judge`` a judge_measure.Judge for
    JUDGE; ``execution`` the programs' execution keys, labelled_execution.execution_keys,
    for EXECUTION, where a program without a fingerprint gets None).  Raises ValueError
    for an unknown measure or a missing threshold, judge or keys."""
    if measure == EXECUTION:
        if execution is None:
            raise ValueError("the execution measure needs the programs' fingerprints (--execution)")
        return lambda p: _keyed([execution.get((p.problem, x.ident)) for x in p.programs])
    if measure == TECHNIQUE:
        return lambda p: partition_by_key([_technique_key(x.code) for x in p.programs])
    if measure == STRUCTURE:
        return lambda p: distance_partition(profiles(p, STRUCTURE), structure.THRESHOLD)
    if measure == LEARNED:
        from neocoder.metrics.diversity.features import traits
        from neocoder.metrics.diversity.learned import shipped
        model = shipped()
        return lambda p: model.classes([traits(x.code) for x in p.programs])
    if measure in _TUNED:
        if threshold is None:
            raise ValueError(f"measure {measure} needs a threshold (tune_threshold)")
        return lambda p: distance_partition(profiles(p, measure), threshold)
    if measure == JUDGE:
        if judge is None:
            raise ValueError("the judge measure needs a model (--model)")
        limit = getattr(judge, "limit", None)

        def by_judge(p):
            shown = p.programs[:limit] if limit else p.programs
            labels = judge.partition(p.problem, [x.code for x in shown])
            return labels + [None] * (len(p.programs) - len(shown))  # programs past the limit: not classed
        return by_judge
    raise ValueError(f"unknown measure {measure!r} (one of {', '.join(MEASURES)})")


def _score_measure(problems: list[LabelledProblem], classify, resamples: int, seed: int) -> dict:
    per_problem: dict[str, PairCounts] = {}
    measured: dict[str, int] = {}
    labelled: dict[str, int] = {}
    classed = 0
    for p in problems:
        got = classify(p)
        keep = [i for i, g in enumerate(got) if g is not None]  # execution: fingerprinted programs only
        classed += len(keep)
        per_problem[p.problem] = counts([p.programs[i].label for i in keep], [got[i] for i in keep])
        humans = [i for i in keep if p.programs[i].human and not p.programs[i].deliberate]
        if humans:
            measured[p.problem] = len({got[i] for i in humans})
            labelled[p.problem] = len({p.programs[i].label for i in humans})
    out = score(per_problem, resamples, seed)
    out["human_classes"] = classes_ratio(measured, labelled)
    out["programs_classed"] = classed
    return out


def validate(problems: list[LabelledProblem], measures=(TECHNIQUE, STRUCTURE, STRUCTURE_TUNED, NORMALISED, OPERATIONS),
             judge=None, resamples: int = 2000, seed: int = 0, execution: dict | None = None) -> dict:
    """Each of ``measures`` scored on the held-out half of ``problems`` (thresholds tuned
    on the tuning half): ``{"measures": {name: {"threshold", "tune_kappa", "held_out":
    agreement.score(...) + "human_classes", "tune": the same on the tuning half (None
    for the judge, whose calls are spent on the held-out half only)}},
    "pairs": {half: {"pairs", "different", "problems"}}}``.  Raises ValueError when a
    half has no problem."""
    halves = {h: [p for p in problems if p.half == h] for h in (TUNE, HELD_OUT)}
    for h, got in halves.items():
        if not got:
            raise ValueError(f"the labelled set has no problem in its {h} half")
    out: dict = {"pairs": {}, "measures": {}}
    for h, got in halves.items():
        pairs = [s for p in got for *_, s in p.pairs()]
        out["pairs"][h] = {"pairs": len(pairs), "different": pairs.count(False), "problems": len(got),
                           "programs": sum(len(p.programs) for p in got)}
    for m in measures:
        threshold = tune_kappa = None
        if m in _TUNED:
            threshold, tune_kappa = tune_threshold(halves[TUNE], m)
        classify = classer(m, threshold, judge, execution)
        if m == LEARNED:
            from neocoder.metrics.diversity.learned import shipped
            threshold = shipped().threshold  # fitted with the weights (neocoder diversity train), not tuned here
        out["measures"][m] = {"threshold": structure.THRESHOLD if m == STRUCTURE else threshold,
                              "tune_kappa": tune_kappa,
                              # the judge has nothing to tune: its model calls go to the held-out half only
                              "tune": None if m == JUDGE else _score_measure(halves[TUNE], classify, resamples, seed),
                              "held_out": _score_measure(halves[HELD_OUT], classify, resamples, seed)}
    return out


def inter_rater(first: list[LabelledProblem], second: list[LabelledProblem], resamples: int = 2000,
                seed: int = 0) -> dict:
    """How well two readers agree: the pairs of the programs both labelled, of each
    problem both partitioned, scored as one reader against the other (agreement.score:
    agreement, precision and recall of "same", Cohen's kappa with 95% bootstrap intervals
    over problems), plus ``"problems"``, ``"programs"`` and ``"pairs"``.  Cohen's kappa is
    symmetric in the two readers.  Raises ValueError when they share no problem."""
    mine = {p.problem: p for p in first}
    per_problem: dict[str, PairCounts] = {}
    programs = 0
    for other in second:
        p = mine.get(other.problem)
        if p is None:
            continue
        theirs = {x.ident: x.label for x in other.programs}
        both = [x for x in p.programs if x.ident in theirs]
        names: dict[str, int] = {}
        per_problem[p.problem] = counts([x.label for x in both],
                                        [names.setdefault(theirs[x.ident], len(names)) for x in both])
        programs += len(both)
    if not per_problem:
        raise ValueError("the two readers labelled no problem in common")
    out = score(per_problem, resamples, seed)
    out.update(problems=len(per_problem), programs=programs, pairs=sum(c.n for c in per_problem.values()))
    return out


CANDIDATES = (TECHNIQUE, STRUCTURE, STRUCTURE_TUNED, NORMALISED, OPERATIONS, LEARNED)  # what a run can lead with


def choose_default(report: dict, low: float = 0.4) -> tuple[str, bool]:
    """(measure, validated) from a ``validate`` report (issue 48): the measure of highest
    kappa on the *held-out* half among those whose 95% interval's lower bound is at least
    ``low`` (validated True); when none reaches it, the measure of highest held-out kappa
    (validated False: a run prints its figures as unvalidated).  Candidates are the
    static measures a run can compute without a model or the sandbox (``CANDIDATES``:
    not the judge, not execution); ties go to the earlier one.  ``structure-tuned`` and
    ``normalised`` are not measures a run has, so a tie with them goes to the run's own."""
    def kappa(m):
        v = report["measures"][m]["held_out"]["kappa"]
        return (-2.0 if v["value"] is None else v["value"]), v["low"]
    got = [m for m in CANDIDATES if m in report["measures"]]
    if not got:
        raise ValueError("no measure a run can lead with was scored")
    passing = [m for m in got if kappa(m)[1] is not None and kappa(m)[1] >= low]
    pool = passing or got
    best = max(pool, key=lambda m: kappa(m)[0])
    return best, bool(passing)
