"""Human technique sets H(p): the union of techniques over a problem's accepted solutions."""

from __future__ import annotations

from pathlib import Path

from ..dataset.release import HUMAN_FILE, DatasetError, load_json
from .detector import detect, guess_language

SUPPORTED = ("python", "cpp")


def human_solution_techniques(release_dir: Path, problem_ids=None) -> dict[str, list[set[str]]]:
    """Technique set of every human solution in a supported language, per problem.

    Returns ``{problem_id: [set, ...]}`` (solutions in other languages are left out).
    Raises DatasetError for a malformed file.
    """
    path = Path(release_dir) / HUMAN_FILE
    data = load_json(path)
    if not isinstance(data, dict):
        raise DatasetError(path, "-", "-", "expected an object problem_id -> list of solutions")
    wanted = set(problem_ids) if problem_ids is not None else set(data)
    result = {}
    for pid in wanted:
        solutions = data.get(pid, [])
        if not isinstance(solutions, list):
            raise DatasetError(path, pid, "-", "expected a list of solution strings")
        sets = []
        for j, src in enumerate(solutions):
            if not isinstance(src, str):
                raise DatasetError(path, pid, f"[{j}]", "expected a string")
            lang = guess_language(src)
            if lang in SUPPORTED:
                sets.append(detect(src, lang))
        result[pid] = sets
    return result


def human_technique_sets(release_dir: Path, problem_ids=None) -> dict[str, dict]:
    """H(p) for each problem (NeoCoder Eq. 3), found by the same detector as model code.

    Reads ``human_solutions.json`` (problem_id -> list of source strings).  Returns
    ``{problem_id: {"techniques": set[str], "by_language": {"python": n, ...}}}``;
    solutions in a language the detector does not support (not Python or C/C++) are
    counted, not used.
    ``techniques`` is None for a problem with no usable solution (its divergent score
    is then undefined).  Raises DatasetError for a malformed file.
    """
    path = Path(release_dir) / HUMAN_FILE
    data = load_json(path)
    if not isinstance(data, dict):
        raise DatasetError(path, "-", "-", "expected an object problem_id -> list of solutions")
    wanted = set(problem_ids) if problem_ids is not None else set(data)
    result = {}
    for pid in wanted:
        solutions = data.get(pid, [])
        if not isinstance(solutions, list):
            raise DatasetError(path, pid, "-", "expected a list of solution strings")
        union: set[str] = set()
        counts: dict[str, int] = {}
        for j, src in enumerate(solutions):
            if not isinstance(src, str):
                raise DatasetError(path, pid, f"[{j}]", "expected a string")
            lang = guess_language(src)
            counts[lang] = counts.get(lang, 0) + 1
            if lang in SUPPORTED:
                union |= detect(src, lang)
        usable = any(counts.get(lang) for lang in SUPPORTED)
        result[pid] = {"techniques": union if usable else None, "by_language": counts}
    return result
