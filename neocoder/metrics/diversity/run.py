"""The ``diversity`` block of a run's metrics.json: how different its programs are.

For an eval run (``run_diversity``), by each measure the run allows (classes.py):

- per state t, over the k samples of each problem (k >= 2 only: one sample is one
  class): mean ``distinct_k``, ``utility_k`` (u_i = convergent, patience 0.8) and
  ``effective`` (classes among the correct samples; 0 when none is correct), each a
  mean over problems with a 95% bootstrap interval over problems (bootstrap.py);
- along the Denial Prompting chain (``chain``): per problem, the classes among the run's
  correct programs across states t = 0..5 (``classes``), how many correct programs that
  is (``correct``), the classes k humans drawn at random give for the same k
  (``human_classes``: measures.expected_distinct), and ``overlap_humans``, the share of
  the run's classes that a human solution of the problem also falls in; means over the
  problems with at least one correct program.

For the humans (``human_diversity``): per measure the classes among each problem's
accepted solutions and the expected classes among k of them, means over problems with
intervals, and the disagreement between measures (humans.disagreements).
"""

from __future__ import annotations

from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Ratio, state_intervals
from neocoder.metrics.diversity.classes import (
    DEFAULT,
    EXECUTION,
    LEARNED,
    OPERATIONS,
    OPERATIONS_THRESHOLD,
    STRUCTURE,
    Program,
    available,
    classes,
    joint_classes,
    validated,
)
from neocoder.metrics.diversity.humans import disagreements, measures_for, reference
from neocoder.metrics.diversity.measures import (
    PATIENCE,
    distinct_k,
    effective_distinct,
    expected_distinct,
    overlap,
    utility_k,
)
from neocoder.metrics.diversity.structure import THRESHOLD
from neocoder.records import Sample

CHAIN = -1  # the key the chain's rates use in the interval computation


def sample_program(sample: Sample, fingerprints: dict | None = None) -> Program:
    """The ``Program`` of a judged sample: its code, techniques, correctness and quality
    (1 when convergent: correct and follows, NeoCoder Eq. 2), with its execution class
    from ``fingerprints`` (code_sha256 -> class key) where given."""
    key = (fingerprints or {}).get(sample.code_sha256)
    return Program(source=sample.code or "", techniques=frozenset(sample.techniques), execution=key,
                   correct=sample.correct, quality=float(sample.convergent))


def _judged(samples: list[Sample]) -> list[Sample]:
    return [s for s in samples if not s.excluded and s.code]


def _state_values(programs: list[Program], measure: str) -> dict[str, float] | None:
    """One problem-state's k-sample measures (k >= 2).  Execution classes exist only for
    correct programs (execution_classes.py), so by execution only ``effective`` is given
    (0 when none is correct); distinct_k and utility_k need every sample in its place."""
    if len(programs) < 2:
        return None
    kept = [programs[i] for i in available(programs, measure)]
    if measure == EXECUTION:
        return {"effective": distinct_k(classes(kept, measure)) if kept else 0}
    if len(kept) < 2:
        return None
    labels = classes(kept, measure)
    return {"distinct_k": distinct_k(labels), "utility_k": utility_k(labels, [p.quality for p in kept], PATIENCE),
            "effective": effective_distinct(labels, [p.correct for p in kept]), "k": len(kept)}


def _chain_values(programs: list[Program], humans: list[Program] | None, measure: str) -> dict | None:
    correct = [p for p in programs if p.correct]
    correct = [correct[i] for i in available(correct, measure)]
    if not correct:
        return None
    out = {"classes": distinct_k(classes(correct, measure)), "correct": len(correct)}
    if humans:
        human_kept = [humans[i] for i in available(humans, measure)]
        if human_kept:
            mine, theirs = joint_classes(correct, human_kept, measure)
            out["overlap_humans"] = overlap(mine, theirs)
            got = expected_distinct(classes(human_kept, measure), len(correct))
            if got is not None:
                out["human_classes"] = got
    return out


def _summarise(values: dict[int, dict[str, dict[str, float]]], resamples: int, seed: int) -> dict:
    """values: t -> name -> problem -> value  =>  t -> name -> {"value", "problems", "low", "high", "se"}."""
    ratios = {t: {name: Ratio.from_terms((pid, v, 1.0) for pid, v in sorted(by_pid.items()))
                  for name, by_pid in by_name.items()} for t, by_name in values.items()}
    cis = state_intervals(ratios, resamples, seed)
    return {t: {name: {"value": r.value(), "problems": len(r.num), **(cis.get(t, {}).get(name) or {})}
                for name, r in by_name.items()} for t, by_name in ratios.items()}


def _collect(samples, humans, measures, fingerprints):
    by_state: dict[int, dict[str, dict[str, float]]] = {}
    chain: dict[str, dict[str, float]] = {}
    by_problem: dict[str, list[Sample]] = {}
    for s in _judged(samples):
        by_problem.setdefault(s.problem_id, []).append(s)
    for pid, got in sorted(by_problem.items()):
        programs = {s.key: sample_program(s, fingerprints) for s in got}
        for t in sorted({s.state for s in got}):
            at_t = [programs[s.key] for s in got if s.state == t]
            for m in measures:
                for name, v in (_state_values(at_t, m) or {}).items():
                    by_state.setdefault(t, {}).setdefault(f"{m}.{name}", {})[pid] = v
        for m in measures:
            for name, v in (_chain_values(list(programs.values()), (humans or {}).get(pid), m) or {}).items():
                if v is not None:
                    chain.setdefault(f"{m}.{name}", {})[pid] = v
    return by_state, chain


def _nest(flat: dict[str, dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for key, value in flat.items():
        measure, name = key.split(".", 1)
        out.setdefault(measure, {})[name] = value
    return out


def run_diversity(samples: list[Sample], humans: dict[str, list[Program]] | None = None,
                  fingerprints: dict | None = None, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> dict:
    """The ``diversity`` block of an eval run's metrics.json (module docstring) from its
    ``samples`` (any states, any k; excluded samples and those without code are left out),
    the human reference programs (humans.human_programs; None: no comparison with humans)
    and the execution classes (code_sha256 -> execution.Fingerprint.key(); None: no
    execution measure).  Returns ``{"measures", "default" (the measure the report leads
    with, classes.DEFAULT), "validated" (whether it passed its check on held-out labelled pairs),
    "patience", "structure_threshold", "operations_threshold",
    "states": {str(t): {measure: {rate: {"value", "problems", "low", "high", "se"}}}},
    "chain": {measure: {...}}}``; a state appears only where some problem has k >= 2."""
    measures = ["technique", STRUCTURE, OPERATIONS, LEARNED] + ([EXECUTION] if fingerprints is not None else [])
    by_state, chain = _collect(samples, humans, measures, fingerprints)
    values = dict(by_state)
    if chain:
        values[CHAIN] = chain
    summary = _summarise(values, resamples, seed) if values else {}
    return {"measures": measures, "default": DEFAULT, "validated": validated(), "patience": PATIENCE,
            "structure_threshold": THRESHOLD,
            "operations_threshold": OPERATIONS_THRESHOLD,
            "states": {str(t): _nest(summary[t]) for t in sorted(by_state)},
            "chain": _nest(summary.get(CHAIN, {}))}


def human_diversity(programs: dict[str, list[Program]], ks=(1, 2, 3, 5, 6, 10),
                    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """The ``diversity`` block of the human baselines' metrics.json: per measure the
    problems' ``solutions`` and ``classes`` and ``classes@k`` (expected among k drawn),
    means over problems with intervals; ``per_problem`` (problem -> measure -> {"n",
    "classes"}); ``disagreement`` between measures (humans.disagreements)."""
    measures = measures_for(programs)
    values: dict[str, dict[str, float]] = {}
    per_problem: dict[str, dict] = {}
    for pid, progs in sorted(programs.items()):
        for m in measures:
            got = reference(progs, m, ks)
            if got is None:
                continue
            per_problem.setdefault(pid, {})[m] = {"n": got["n"], "classes": got["classes"]}
            values.setdefault(f"{m}.solutions", {})[pid] = got["n"]
            values.setdefault(f"{m}.classes", {})[pid] = got["classes"]
            for k, v in got["at_k"].items():
                values.setdefault(f"{m}.classes@{k}", {})[pid] = v
    summary = _summarise({0: values}, resamples, seed).get(0, {}) if values else {}
    return {"measures": list(measures), "default": DEFAULT, "validated": validated(), "structure_threshold": THRESHOLD,
            "operations_threshold": OPERATIONS_THRESHOLD, "humans": _nest(summary),
            "per_problem": per_problem, "disagreement": disagreements(programs)}


def cross_overlap(samples: list[Sample], reference: list[Sample], resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED) -> dict:
    """Cross-run overlap: per problem, the share of the classes of ``samples``' correct
    programs (all states together) that a correct program of the ``reference`` run also
    falls in (one joint partition, measures.overlap), by technique, structure, operations and learned;
    means over the problems where both runs have a correct program, with intervals:
    ``{measure: {"value", "problems", "low", "high", "se"}}``."""
    def correct_by_problem(got):
        out: dict[str, list[Program]] = {}
        for s in _judged(got):
            if s.correct:
                out.setdefault(s.problem_id, []).append(sample_program(s))
        return out
    mine, theirs = correct_by_problem(samples), correct_by_problem(reference)
    values: dict[str, dict[str, float]] = {}
    for pid in sorted(set(mine) & set(theirs)):
        for m in ("technique", STRUCTURE, OPERATIONS, LEARNED):
            a, b = joint_classes(mine[pid], theirs[pid], m)
            got = overlap(a, b)
            if got is not None:
                values.setdefault(m, {})[pid] = got
    return _summarise({0: values}, resamples, seed).get(0, {}) if values else {}
