"""Reading and writing canonical problem-state records as JSONL."""

from __future__ import annotations

from pathlib import Path

import jsonlines

from .release import DatasetError

REQUIRED = {"problem_id": str, "state": int, "constraints": list, "statement": str, "tests": list}


def write_states(records: list[dict], path: Path) -> None:
    """Write records, one JSON object per line, atomically (temp file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with jsonlines.open(tmp, mode="w") as w:
        w.write_all(records)
    tmp.replace(path)


def jsonl_lines(path: Path):
    """(line number, parsed object) for each non-blank line of a JSONL file; DatasetError
    naming the file and line when it is missing or a line is not JSON."""
    if not path.is_file():
        raise DatasetError(path, "-", "-", "file not found")
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield lineno, jsonlines.Reader([line]).read()
            except jsonlines.InvalidLineError as exc:
                raise DatasetError(path, f"line {lineno}", "-", f"not valid JSON: {exc}") from exc


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


def load_states(path: Path) -> list[dict]:
    """Read and validate a problem-state JSONL file.

    Raises DatasetError naming the file, the line number and the field for a line
    that is not JSON, lacks a required field, or has a test without string
    ``input``/``output``.
    """
    path = Path(path)
    records = []
    for lineno, rec in jsonl_lines(path):
        for name, kind in REQUIRED.items():
            if not isinstance(rec.get(name), kind):
                raise DatasetError(path, f"line {lineno}", name, f"missing or not {kind.__name__}")
        for j, test in enumerate(rec["tests"]):
            _check_test(path, f"line {lineno}", f"tests[{j}]", test)
        records.append(rec)
    return records
