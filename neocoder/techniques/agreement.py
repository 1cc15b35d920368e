"""How far the detector agrees with reference labels (e.g. the release's GPT-4 labels).

For each language, per technique: precision, recall, F1 and support (solutions the
reference labels with it); micro F1 over all (solution, technique) decisions and
macro F1 over techniques.  Reference labels are mapped to taxonomy names through
the aliases; labels outside the taxonomy are dropped and counted.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.dataset.release import HUMAN_FILE, DatasetError, load_json, release_file
from neocoder.techniques.detector import UnsupportedLanguage, detect, guess_language
from neocoder.techniques.taxonomy import canonical


def _f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def agreement(labels_path: Path, release_dir: Path, min_support: int = 1, detector=detect) -> dict:
    """Compare the detector with ``labels_path`` (problem_id -> label lists aligned with
    the release's ``human_solutions.json``).

    Returns ``{language: {"micro_f1", "macro_f1", "solutions", "dropped_labels",
    "per_technique": {name: {"precision", "recall", "f1", "support"}}}}``; macro F1
    averages the techniques with support >= ``min_support``.  Raises DatasetError when
    the files are malformed or a problem's label list is not aligned with its solutions.
    """
    labels_path = Path(labels_path)
    labels = load_json(labels_path)
    solutions = load_json(release_file(release_dir, HUMAN_FILE))
    if not isinstance(labels, dict):
        raise DatasetError(labels_path, "-", "-", "expected an object problem_id -> list of label lists")
    counts: dict[str, dict[str, list[int]]] = {}
    solved: dict[str, int] = {}
    dropped: dict[str, int] = {}
    for pid, per_solution in labels.items():
        sols = solutions.get(pid)
        if not isinstance(per_solution, list) or sols is None or len(per_solution) != len(sols):
            raise DatasetError(labels_path, pid, "-", "label lists not aligned with human_solutions.json")
        for j, (src, raw) in enumerate(zip(sols, per_solution)):
            lang = guess_language(src)
            try:
                found = detector(src, lang)
            except UnsupportedLanguage:
                continue
            ref = set()
            for label in raw if isinstance(raw, list) else [raw]:
                name = canonical(str(label))
                if name is None:
                    dropped[lang] = dropped.get(lang, 0) + 1
                else:
                    ref.add(name)
            solved[lang] = solved.get(lang, 0) + 1
            table = counts.setdefault(lang, {})
            for name in ref | found:
                tp_fp_fn = table.setdefault(name, [0, 0, 0])
                if name in ref and name in found:
                    tp_fp_fn[0] += 1
                elif name in found:
                    tp_fp_fn[1] += 1
                else:
                    tp_fp_fn[2] += 1
    result = {}
    for lang, table in counts.items():
        per = {}
        for name, (tp, fp, fn) in sorted(table.items()):
            p, r, f = _f1(tp, fp, fn)
            per[name] = {"precision": p, "recall": r, "f1": f, "support": tp + fn}
        micro = _f1(*(sum(v[i] for v in table.values()) for i in range(3)))[2]
        macro_set = [v["f1"] for v in per.values() if v["support"] >= min_support]
        result[lang] = {"micro_f1": micro, "macro_f1": sum(macro_set) / len(macro_set) if macro_set else 0.0,
                        "solutions": solved[lang], "dropped_labels": dropped.get(lang, 0), "per_technique": per}
    return result
