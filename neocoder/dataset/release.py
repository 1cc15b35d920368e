"""Import the NeoCoder release into canonical problem-state records.

One record per (problem, state t), where state t is the problem's constraint list
with t distinct techniques (Lu et al., NAACL 2025, Sec. 3 and Table 1):

    {"problem_id": "1901A", "state": 2, "constraints": ["for loop", "while loop"],
     "statement": "...", "tests": [{"input": "...", "output": "...", "source": "statement"}],
     "tests_source": "statement", "checker": "tokens", "source_index": 3,
     "time_limit_s": 2.0, "memory_limit_mb": 256}

``source_index`` is the index into the release's per-problem lists (statements,
constraint lists, recorded codes) that this state was taken from: when a Denial
Prompting round found no new technique the list repeats, and the state keeps the
*first* index that holds it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.dataset.statement import choose_checker, parse_examples, parse_limits, restore_blank_lines
from neocoder.errors import RecordError
from neocoder.paths import RELEASE, pointer, shared_dir

STATE0_MARKER = "this is the og problem"
NEOCODER_FILE = "NeoCoder.json"
ANNOTATED_FILE = "test_cases_annotated.json"
HUMAN_FILE = "human_solutions.json"
DEFAULT_TIME_LIMIT_S = 2.0
DEFAULT_MEMORY_LIMIT_MB = 256


DatasetError = RecordError  # the name the dataset stage and its callers know it by


RELEASE_DATASET = "release examples (plain checkers)"  # the dataset name of a `--dataset release` eval

# Where a release's files may sit below the folder given as --release: the release folder
# itself (NeoCoder.json, human_solutions.json, ... and crawled/ side by side), or a clone of
# the NeoCoder repository as published, which keeps them under datasets/CodeForce/ (the
# benchmark files in NeoCoder/, the crawl in crawled/).
RELEASE_LAYOUTS = (Path("."), Path("datasets") / "CodeForce" / "NeoCoder", Path("datasets") / "CodeForce")


def release_file(release_dir: Path, name: str | Path) -> Path:
    """The path of the release file ``name`` (e.g. ``"NeoCoder.json"`` or
    ``"crawled/codeforces_problems.jsonl"``) below ``release_dir``, in either layout
    (``RELEASE_LAYOUTS``: a release folder, or a clone of the NeoCoder repository).

    Returns the first candidate that exists, else the path in the release-folder layout
    (so a "file not found" error names where it was looked for first).
    """
    root = Path(release_dir)
    for layout in RELEASE_LAYOUTS:
        candidate = root / layout / name
        if candidate.is_file():
            return candidate
    return root / name


def has_release(release_dir: Path | None) -> bool:
    """Whether ``release_dir`` holds a NeoCoder release (its NeoCoder.json, in either layout)."""
    return release_dir is not None and release_file(release_dir, NEOCODER_FILE).is_file()


def default_release_dir() -> Path:
    """The release folder, absolute and never from the current folder: $NEOCODER_RELEASE,
    else ``$NEOCODER_SHARED/neocoder``, else ``shared/neocoder`` beside the checkout
    neocoder runs from (``paths.shared_place``)."""
    return shared_dir(RELEASE)


def load_json(path: Path):
    """Read a JSON file, raising DatasetError (with the file name) if absent or invalid."""
    if not path.is_file():
        raise DatasetError(path, "-", "-", f"file not found (is --release right? {pointer(RELEASE)}.  A release is "
                           "needed only to rebuild the dataset: docs/dataset.md says where one comes from)")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise DatasetError(path, "-", "-", f"not valid JSON: {exc}") from exc


def load_release_problems(release_dir: Path) -> list[dict]:
    """Load and validate ``NeoCoder.json``: a list of problem records.

    Each record must have ``problem_id`` (str) and the equal-length lists
    ``problem_statements`` (str), ``constraints_list`` (list of str) and ``codes``
    (str).  Raises DatasetError naming file, record index and field otherwise.
    """
    path = release_file(release_dir, NEOCODER_FILE)
    data = load_json(path)
    if not isinstance(data, list):
        raise DatasetError(path, "-", "-", "expected a list of problem records")
    for i, rec in enumerate(data):
        where = f"#{i}" + (f" ({rec.get('problem_id')})" if isinstance(rec, dict) else "")
        if not isinstance(rec, dict):
            raise DatasetError(path, where, "-", "expected an object")
        if not isinstance(rec.get("problem_id"), str) or not rec["problem_id"]:
            raise DatasetError(path, where, "problem_id", "missing or not a string")
        lengths = set()
        for name, kind in (("problem_statements", str), ("constraints_list", list), ("codes", str)):
            value = rec.get(name)
            if not isinstance(value, list) or not value:
                raise DatasetError(path, where, name, "missing or not a non-empty list")
            for j, item in enumerate(value):
                if not isinstance(item, kind):
                    raise DatasetError(path, where, f"{name}[{j}]", f"expected {kind.__name__}")
                if kind is list and not all(isinstance(x, str) for x in item):
                    raise DatasetError(path, where, f"{name}[{j}]", "technique names must be strings")
            lengths.add(len(value))
        if len(lengths) != 1:
            raise DatasetError(path, where, "problem_statements/constraints_list/codes",
                               f"lists differ in length {sorted(lengths)}")
    return data


def _annotated_tests(entry: dict, statement: str) -> list[dict]:
    """Rebuild tests from the annotated file (the fallback; see the release README).

    The annotated file splits a multi-test input into cases without the leading
    count; when there are several cases and the statement announces a number of
    test cases, they are joined back behind that count into one test.
    """
    cases, outs = entry.get("input"), entry.get("output")
    if not isinstance(cases, list) or not isinstance(outs, list) or len(cases) != len(outs) or not cases:
        return []

    def rows(value):
        if isinstance(value, list):
            return [" ".join(map(str, r)) if isinstance(r, list) else str(r) for r in value]
        return [str(value)]

    inputs = ["\n".join(rows(c)) + "\n" for c in cases]
    outputs = ["\n".join(rows(o)) + "\n" for o in outs]
    if len(cases) > 1 and "number of test cases" in statement.lower():
        return [{"input": f"{len(cases)}\n" + "".join(inputs), "output": "".join(outputs)}]
    return [{"input": i, "output": o} for i, o in zip(inputs, outputs)]


def clean_statement(statement: str) -> str:
    """Drop the empty ``- `` bullets that rounds without a new technique left in the
    constraints block (release README); the rest of the text is kept as is."""
    lines = statement.split("\n")
    out, in_block = [], False
    for line in lines:
        if line.startswith("Programming constraints:"):
            in_block = True
        elif in_block and line.startswith("-"):
            if not line[1:].strip():
                continue
        else:
            in_block = False
        out.append(line)
    return "\n".join(out)


@dataclass
class BuildReport:
    """What an import did: states per t, tests taken from where, and recorded skips."""

    states_per_t: dict = field(default_factory=dict)
    tests_from: dict = field(default_factory=dict)
    skips: list = field(default_factory=list)
    problems: int = 0


def load_annotated(release_dir: Path) -> dict[str, dict]:
    """The release's annotated problems (its test cases and statements) by problem id.
    Raises DatasetError naming the file and entry for a malformed one."""
    annotated_path = release_file(release_dir, ANNOTATED_FILE)
    annotated_raw = load_json(annotated_path)
    if not isinstance(annotated_raw, list):
        raise DatasetError(annotated_path, "-", "-", "expected a list")
    annotated = {}
    for i, entry in enumerate(annotated_raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("problem_id"), str):
            raise DatasetError(annotated_path, f"#{i}", "problem_id", "missing or not a string")
        annotated[entry["problem_id"]] = entry
    return annotated


def build_from_release(release_dir: Path) -> tuple[list[dict], BuildReport]:
    """Turn the release into canonical problem-state records (see module docstring).

    Returns (records ordered by problem then state, report).  Raises DatasetError for
    malformed input files; a problem whose tests cannot be built from either source is
    recorded in ``report.skips`` with the reason, never silently dropped.
    """
    release_dir = Path(release_dir)
    problems = load_release_problems(release_dir)
    annotated = load_annotated(release_dir)
    report = BuildReport(problems=len(problems))
    records: list[dict] = []
    for rec in problems:
        pid = rec["problem_id"]
        limits = parse_limits(annotated.get(pid, {}).get("problem_statement", "") or "")
        seen: set[tuple] = set()
        for index, raw in enumerate(rec["constraints_list"]):
            techniques = list(dict.fromkeys(c.strip() for c in raw if c.strip() and c.strip() != STATE0_MARKER))
            key = tuple(techniques)
            if key in seen:
                continue  # a round that added nothing: keep the first index holding the list
            seen.add(key)
            state = len(techniques)
            if any(r["problem_id"] == pid and r["state"] == state for r in records[-6:]):
                report.skips.append({"problem_id": pid, "source_index": index,
                                     "reason": f"a second, different list with {state} techniques"})
                continue
            cleaned = clean_statement(rec["problem_statements"][index])
            statement = restore_blank_lines(cleaned)
            tests = parse_examples(statement)
            source = "statement"
            if not tests:
                source = "annotated"
                entry = annotated.get(pid)
                tests = _annotated_tests(entry, statement) if entry else []
            if not tests:
                report.skips.append({"problem_id": pid, "source_index": index, "state": state,
                                     "reason": "no Example block in the statement and no usable annotated tests"})
                continue
            report.tests_from[source] = report.tests_from.get(source, 0) + 1
            report.states_per_t[state] = report.states_per_t.get(state, 0) + 1
            records.append({
                "problem_id": pid,
                "state": state,
                "constraints": techniques,
                "statement": statement,
                "tests": [dict(t, source=source) for t in tests],
                "tests_source": source,
                "checker": choose_checker(statement),
                "source_index": index,
                "time_limit_s": limits[0] or DEFAULT_TIME_LIMIT_S,
                "memory_limit_mb": limits[1] or DEFAULT_MEMORY_LIMIT_MB,
                **({"repaired": "blank line restored before each test case of the example (the Input section "
                                "says each test case starts with an empty line)"} if statement != cleaned else {}),
            })
    return records, report
