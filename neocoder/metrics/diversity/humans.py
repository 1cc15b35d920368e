"""The human reference: each problem's accepted solutions as a distribution of algorithms.

The release keeps about 30 accepted Codeforces submissions per problem (Python 3 and
C/C++ are the ones the detector reads: about 29.6 per problem).  They are all correct,
so their classes by each measure say how many algorithms people found; a model's k
samples compare with k humans drawn at random (``measures.expected_distinct``).

Sources: the technique sets are the shipped ones (neocoder/dataset/shipped.py, always
there); the code, needed for structure and execution, comes from the release's
``human_solutions.json`` (``--release`` / $NEOCODER_RELEASE) when it is present.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.dataset.release import has_release
from neocoder.metrics.diversity.classes import (
    EXECUTION,
    LEARNED,
    MEASURES,
    OPERATIONS,
    STRUCTURE,
    TECHNIQUE,
    Program,
    available,
    classes,
)
from neocoder.metrics.diversity.measures import distinct_k, expected_distinct
from neocoder.techniques.human import SUPPORTED, human_solution_sets, solutions_by_language


def human_programs(problem_ids, release_dir: Path | None = None,
                   solution_sets: dict[str, list[set[str]]] | None = None) -> dict[str, list[Program]]:
    """problem_id -> its accepted human solutions in Python or C/C++ as ``Program``s, in
    the release's order, with the shipped technique sets (``solution_sets`` where the
    caller has them already, as ``human_solution_sets`` gives them; else looked up); with
    ``release_dir`` (a release that has ``human_solutions.json``) also their code.  Raises
    DatasetError for a malformed release, ShippedDataError for a broken install, and
    ValueError when the release's solutions do not line up with the shipped sets (another
    release)."""
    if solution_sets is None:
        sets = human_solution_sets(problem_ids)
    else:
        sets = {pid: solution_sets[pid] for pid in sorted(set(problem_ids)) if pid in solution_sets}
    codes: dict[str, list[tuple[str, str]]] = {}
    if release_dir is not None and has_release(release_dir):
        codes = {pid: [(lang, src) for lang, src in sols if lang in SUPPORTED]
                 for pid, sols in solutions_by_language(release_dir, list(sets)).items()}
    out = {}
    for pid, technique_sets in sets.items():
        code = codes.get(pid)
        if code is not None and len(code) != len(technique_sets):
            raise ValueError(f"{release_dir}: problem {pid} has {len(code)} Python/C++ solutions, the shipped "
                             f"technique sets {len(technique_sets)}: not the release neocoder ships")
        out[pid] = [Program(source=code[i][1] if code else "", language=code[i][0] if code else "python",
                            techniques=frozenset(s)) for i, s in enumerate(technique_sets)]
    return out


def measures_for(programs: dict[str, list[Program]]) -> tuple[str, ...]:
    """The measures the programs allow: technique always, structure, operations and learned when they
    carry code, execution when some carry a fingerprint."""
    got = [TECHNIQUE]
    everyone = [p for ps in programs.values() for p in ps]
    if everyone and all(p.source for p in everyone):
        got += [STRUCTURE, OPERATIONS, LEARNED]
    if any(p.execution is not None for p in everyone):
        got.append(EXECUTION)
    return tuple(got)


def reference(programs: list[Program], measure: str, ks=(1, 2, 3, 5, 6, 10), draws: int = 200,
              seed: int = 0) -> dict | None:
    """One problem's human reference by ``measure``: ``{"n": solutions classed, "classes":
    distinct classes among them, "at_k": {k: expected distinct among k drawn without
    replacement}}`` (measures.expected_distinct; k above n is left out); None when the
    measure classes none of them."""
    kept = [programs[i] for i in available(programs, measure)]
    if not kept:
        return None
    labels = classes(kept, measure)
    at_k = {k: expected_distinct(labels, k, draws, seed) for k in ks if k <= len(kept)}
    return {"n": len(kept), "classes": distinct_k(labels), "at_k": at_k, "labels": labels}


def disagreement(programs: dict[str, list[Program]], first: str, second: str, examples: int = 3) -> dict:
    """How often two solutions of one problem in one class by ``first`` fall in different
    classes by ``second``: ``{"pairs": same-class pairs by first (both classable by
    second), "split": how many of them second splits, "share": split / pairs (None for no
    pair), "examples": [(problem_id, i, j), ...]}`` (indexes into the problem's list)."""
    pairs = split = 0
    found = []
    for pid, progs in sorted(programs.items()):
        both = sorted(set(available(progs, first)) & set(available(progs, second)))
        if len(both) < 2:
            continue
        kept = [progs[i] for i in both]
        a, b = classes(kept, first), classes(kept, second)
        for x in range(len(kept)):
            for y in range(x + 1, len(kept)):
                if a[x] == a[y]:
                    pairs += 1
                    if b[x] != b[y]:
                        split += 1
                        if len(found) < examples:
                            found.append((pid, both[x], both[y]))
    return {"pairs": pairs, "split": split, "share": split / pairs if pairs else None, "examples": found}


def disagreements(programs: dict[str, list[Program]]) -> dict[str, dict]:
    """``disagreement`` for every ordered pair of the measures the programs allow:
    "technique->structure" -> {...}."""
    allowed = [m for m in MEASURES if m in measures_for(programs)]
    return {f"{a}->{b}": disagreement(programs, a, b) for a in allowed for b in allowed if a != b}
