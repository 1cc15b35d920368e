"""Reading and writing problem-state records (records.ProblemState) and tests as JSONL."""

from __future__ import annotations

from pathlib import Path

import jsonlines

from neocoder.dataset.release import DatasetError
from neocoder.records import ProblemState, from_line
from neocoder.store import RunFolder, jsonl_lines


def first_problems(problem_ids: list[str], limit: int | None) -> list[str]:
    """The first ``limit`` distinct problem ids in order (all of them for None)."""
    order = list(dict.fromkeys(problem_ids))
    return order[:limit] if limit else order


def _check_test(path: Path, where: str, field_name: str, test) -> None:
    if not (isinstance(test, dict) and isinstance(test.get("input"), str)
            and isinstance(test.get("output"), str)):
        raise DatasetError(path, where, field_name, "expected {'input': str, 'output': str}")


def load_tests(path: Path) -> list[dict]:
    """Read a tests JSONL file (one ``{"input": str, "output": str}`` per line).

    Raises DatasetError naming the file, line and problem.
    """
    path = Path(path)
    tests = []
    for lineno, test in jsonl_lines(path):
        _check_test(path, f"line {lineno}", "input/output", test)
        tests.append(test)
    return tests


def write_states(states: list[ProblemState], path: Path) -> None:
    """Write problem states to a JSONL file, one record per line, atomically (temp file,
    then rename), so a killed build leaves no half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with jsonlines.open(tmp, mode="w") as w:
        w.write_all(s.to_dict() for s in states)
    tmp.replace(path)


def load_states(path: Path) -> list[ProblemState]:
    """Read and validate problem states: a run folder from ``build-dataset`` (its
    ``records.jsonl``) or a JSONL file of problem-state records.

    Raises DatasetError naming the file, the line number and the field for a line that
    is not JSON, lacks a required field, has a test without string ``input``/``output``,
    or is of another format version.
    """
    path = Path(path)
    file = path / RunFolder.RECORDS if path.is_dir() else path
    states = []
    for lineno, rec in jsonl_lines(file):
        record = from_line(rec, file, lineno)
        if not isinstance(record, ProblemState):
            raise DatasetError(file, f"line {lineno}", "type", f"a {record.TYPE} record, not a problem state")
        states.append(record)
    return states
