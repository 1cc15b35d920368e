"""Audit the release's GPT-4 technique labels with checks independent of our detector.

For the syntactic techniques a label can be shown wrong without any definition
question: a solution containing a plain `while` statement uses a while loop, and one
with no `if`, no conditional expression and no comprehension filter uses no if
statement.  This script finds such cases with CPython's own `ast` module (Python) and
with keyword scanning after removing comments and literals (C/C++) - neither shares
code with the tree-sitter detector - and writes a copy of the labels with only those
cases corrected.

    .venv/bin/python scripts/audit_labels.py --out /tmp/audited_labels.json
    .venv/bin/neocoder detect --agreement /tmp/audited_labels.json

The output is derived from the release: write it outside the repository.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from neocoder.dataset.release import HUMAN_FILE, default_release_dir  # noqa: E402
from neocoder.techniques.detector import guess_language  # noqa: E402
from neocoder.techniques.taxonomy import canonical  # noqa: E402


def python_evidence(source: str) -> tuple[set[str], set[str]]:
    """(surely present, surely absent) syntactic techniques, by CPython's ast."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    kinds = Counter(type(n).__name__ for n in nodes)
    comps = kinds["ListComp"] + kinds["SetComp"] + kinds["DictComp"] + kinds["GeneratorExp"]
    comp_ifs = sum(len(g.ifs) for n in nodes if isinstance(n, ast.comprehension) for g in [n])
    called = {(n.func.id if isinstance(n.func, ast.Name) else n.func.attr if isinstance(n.func, ast.Attribute) else "")
              for n in nodes if isinstance(n, ast.Call)}
    present, absent = set(), set()
    for name, statement, broad in (("for loop", kinds["For"], kinds["For"] + comps),
                                   ("while loop", kinds["While"], kinds["While"]),
                                   ("if statement", kinds["If"], kinds["If"] + kinds["IfExp"] + comp_ifs),
                                   ("break statement", kinds["Break"], kinds["Break"]),
                                   ("continue statement", kinds["Continue"], kinds["Continue"]),
                                   ("pass statement", kinds["Pass"], kinds["Pass"]),
                                   ("tuple", 0, kinds["Tuple"])):
        if statement:
            present.add(name)
        if not broad:
            absent.add(name)
    if "sorted" in called or "sort" in called:
        present.add("sorting")
    if kinds["Set"] or kinds["SetComp"] or "set" in called:
        present.add("set")
    if kinds["Dict"] or kinds["DictComp"] or "dict" in called:
        present.add("dictionary")
    return present, absent


_C_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)


def cpp_evidence(source: str) -> tuple[set[str], set[str]]:
    """(surely present, surely absent) syntactic techniques, by keywords outside comments
    and literals (a keyword followed by its syntax, so identifiers like `format` do not count)."""
    code = _C_NOISE.sub(" ", source)
    code = re.sub(r"^\s*#.*$", " ", code, flags=re.M)
    present, absent = set(), set()
    for name, pattern in (("for loop", r"\bfor\s*\("), ("while loop", r"\bwhile\s*\("),
                          ("break statement", r"\bbreak\s*;"), ("continue statement", r"\bcontinue\s*;")):
        (present if re.search(pattern, code) else absent).add(name)
    if re.search(r"\bif\s*\(", code):
        present.add("if statement")
    elif "?" not in code:
        absent.add("if statement")
    return present, absent


def audit(release_dir: Path, labels_path: Path) -> tuple[dict, dict]:
    """Return (corrected labels, {language: {technique: [missed, invented]}})."""
    solutions = json.loads((release_dir / HUMAN_FILE).read_text(encoding="utf-8"))
    labels = json.loads(labels_path.read_text(encoding="utf-8"))
    corrected, report = {}, {}
    for pid, per_solution in labels.items():
        corrected[pid] = []
        for src, raw in zip(solutions[pid], per_solution):
            names = [str(x) for x in (raw if isinstance(raw, list) else [raw])]
            lang = guess_language(src)
            if lang not in ("python", "cpp"):
                corrected[pid].append(names)
                continue
            present, absent = (python_evidence if lang == "python" else cpp_evidence)(src)
            have = {canonical(x) for x in names}
            stats = report.setdefault(lang, {})
            fixed = [x for x in names if canonical(x) not in absent]
            for x in names:
                if canonical(x) in absent:
                    stats.setdefault(canonical(x), [0, 0])[1] += 1
            for name in sorted(present - have):
                stats.setdefault(name, [0, 0])[0] += 1
                fixed.append(name)
            corrected[pid].append(fixed)
    return corrected, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, default=None)
    parser.add_argument("--labels", type=Path, default=None, help="default: the release's GPT-4 labels")
    parser.add_argument("--out", type=Path, required=True, help="corrected labels (outside the repository)")
    args = parser.parse_args()
    release = args.release or default_release_dir()
    labels = args.labels or release / "human_solution_techniques.json"
    corrected, report = audit(release, labels)
    args.out.write_text(json.dumps(corrected), encoding="utf-8")
    for lang, stats in report.items():
        total = sum(a + b for a, b in stats.values())
        print(f"{lang}: {total} labels shown wrong")
        print(f"  {'technique':20s} {'missed (present)':>17s} {'invented (absent)':>18s}")
        for name, (missed, invented) in sorted(stats.items(), key=lambda kv: -sum(kv[1])):
            print(f"  {name:20s} {missed:17d} {invented:18d}")
    print(f"corrected labels written to {args.out}")


if __name__ == "__main__":
    main()
