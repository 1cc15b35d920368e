"""Human technique sets: what a problem's accepted solutions use (NeoCoder Eq. 3, 5, 6).

Every reader (evals, the human baselines, the report's Table 2, the server) takes them
from the shipped dataset (``human_solution_sets``).  ``detected_solution_sets`` makes them
from a release with the detector (about a minute on 2 cores, cached on disk): that is
how ``neocoder build-dataset`` writes the shipped file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from neocoder.dataset import shipped
from neocoder.dataset.release import HUMAN_FILE, DatasetError, load_json, release_file
from neocoder.paths import cache_root, fingerprint, package_files
from neocoder.techniques.detector import detect, guess_language

SUPPORTED = ("python", "cpp")


def solutions_by_language(release_dir: Path, problem_ids=None) -> dict[str, list[tuple[str, str]]]:
    """problem_id -> [(language, source)] from ``human_solutions.json``; DatasetError if malformed."""
    path = release_file(release_dir, HUMAN_FILE)
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


def human_technique_sets(problem_ids, release_dir: Path | None = None) -> dict[str, dict]:
    """H(p) for each problem of ``problem_ids`` (NeoCoder Eq. 3): the union of the
    technique sets of its accepted solutions (``human_solution_sets``).

    Returns ``{problem_id: {"techniques": set[str] | None}}`` for the problems the source
    has (the shipped sets, or those of the release at ``release_dir``); ``techniques`` is
    None for a problem with no solution in a language the detector supports (Python,
    C/C++): its divergent score is then undefined.
    """
    return {pid: {"techniques": set().union(*sets) if sets else None}
            for pid, sets in human_solution_sets(problem_ids, release_dir).items()}


def human_solution_sets(problem_ids, release_dir: Path | None = None) -> dict[str, list[set[str]]]:
    """Technique set of every accepted human solution (Python and C/C++) of each problem of
    ``problem_ids``: as shipped with neocoder (neocoder/dataset/shipped.py; the detector's
    sets, made by ``detected_solution_sets`` when the dataset was built), the one source for
    evals, the human baselines, the report and the server; or, given ``release_dir`` (an
    eval on another release's examples), detected from that release.  Raises
    ShippedDataError for a broken install, DatasetError for a malformed release."""
    if release_dir is not None:
        return detected_solution_sets(release_dir, problem_ids)
    return shipped.human_solution_sets(problem_ids)


def detector_fingerprint() -> str:
    """SHA-256 (``paths.fingerprint``) of the detector's sources (rules and queries): the
    shipped human sets name the one they were made with."""
    return fingerprint(_detector_files())


# Not the detector that makes the sets: the LLM detector (--detector llm) reads a model's
# reply, so its reply grammar may change without making the shipped sets stale; the C++
# glossary (glossary.py) only puts the rules in words for the C++ prompts.
_NOT_THE_DETECTOR = ("llm.py", "glossary.py")


def _detector_files() -> list:
    return [f for f in package_files("neocoder.techniques", suffixes=(".py", ".scm"))
            if f.name not in _NOT_THE_DETECTOR]


def detected_solution_sets(release_dir: Path, problem_ids) -> dict[str, list[set[str]]]:
    """``human_solution_techniques`` of the release at ``release_dir``, cached on disk:
    how the shipped human sets are made (``neocoder build-dataset``).

    Detecting the 5,910 solutions of the 199 problems takes about a minute on 2 cores,
    so the sets are kept in ``paths.cache_root()`` in a file named after the fingerprint
    of the release's ``human_solutions.json`` and of the detector's sources (a changed
    release or detector gets a new file); problems missing from it are detected and
    added.  A cache that cannot be written is skipped.  Raises DatasetError (a
    NeocoderError) for a malformed or missing solutions file.
    """
    wanted = sorted(set(problem_ids))
    source = release_file(release_dir, HUMAN_FILE)
    digest = fingerprint(([source] if source.is_file() else []) + _detector_files())
    cache = cache_root() / f"human-techniques-{digest[:24]}.json"
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    missing = [p for p in wanted if p not in known]
    if missing:
        fresh = human_solution_techniques(Path(release_dir), missing)
        known.update({pid: [sorted(s) for s in sets] for pid, sets in fresh.items()})
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(known), encoding="utf-8")
            tmp.replace(cache)
        except OSError:
            pass
    return {pid: [set(s) for s in known[pid]] for pid in wanted if pid in known}
