"""Human technique sets: what a problem's accepted solutions use (NeoCoder Eq. 3, 5, 6)."""

from __future__ import annotations

from pathlib import Path

from ..dataset.release import HUMAN_FILE, DatasetError, load_json
from .detector import detect, guess_language

SUPPORTED = ("python", "cpp")


def solutions_by_language(release_dir: Path, problem_ids=None) -> dict[str, list[tuple[str, str]]]:
    """problem_id -> [(language, source)] from ``human_solutions.json``; DatasetError if malformed."""
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
        for j, src in enumerate(solutions):
            if not isinstance(src, str):
                raise DatasetError(path, pid, f"[{j}]", "expected a string")
        result[pid] = [(guess_language(src), src) for src in solutions]
    return result


def human_solution_techniques(release_dir: Path, problem_ids=None) -> dict[str, list[set[str]]]:
    """Technique set of every human solution in a supported language, per problem.

    Returns ``{problem_id: [set, ...]}`` (solutions in other languages are left out).
    Raises DatasetError for a malformed file.
    """
    return {pid: [detect(src, lang) for lang, src in sols if lang in SUPPORTED]
            for pid, sols in solutions_by_language(release_dir, problem_ids).items()}


def human_technique_sets(release_dir: Path, problem_ids=None) -> dict[str, dict]:
    """H(p) for each problem (NeoCoder Eq. 3), found by the same detector as model code.

    Returns ``{problem_id: {"techniques": set[str], "by_language": {"python": n, ...}}}``;
    solutions in a language the detector does not support (not Python or C/C++) are
    counted, not used.  ``techniques`` is None for a problem with no usable solution
    (its divergent score is then undefined).  Raises DatasetError for a malformed file.
    """
    result = {}
    for pid, sols in solutions_by_language(release_dir, problem_ids).items():
        counts: dict[str, int] = {}
        union: set[str] = set()
        for lang, src in sols:
            counts[lang] = counts.get(lang, 0) + 1
            if lang in SUPPORTED:
                union |= detect(src, lang)
        usable = any(counts.get(lang) for lang in SUPPORTED)
        result[pid] = {"techniques": union if usable else None, "by_language": counts}
    return result
