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


def load_states(path: Path) -> list[dict]:
    """Read and validate a problem-state JSONL file.

    Raises DatasetError naming the file, the line number and the field for a line
    that is not JSON, lacks a required field, or has a test without string
    ``input``/``output``.
    """
    path = Path(path)
    if not path.is_file():
        raise DatasetError(path, "-", "-", "file not found")
    records = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = jsonlines.Reader([line]).read()
            except jsonlines.InvalidLineError as exc:
                raise DatasetError(path, f"line {lineno}", "-", f"not valid JSON: {exc}") from exc
            for name, kind in REQUIRED.items():
                if not isinstance(rec.get(name), kind):
                    raise DatasetError(path, f"line {lineno}", name, f"missing or not {kind.__name__}")
            for j, test in enumerate(rec["tests"]):
                if not (isinstance(test, dict) and isinstance(test.get("input"), str)
                        and isinstance(test.get("output"), str)):
                    raise DatasetError(path, f"line {lineno}", f"tests[{j}]",
                                       "expected {'input': str, 'output': str}")
            records.append(rec)
    return records
