"""Raw problems for Denial Prompting: the release's crawl, or any JSONL of statements.

Each line is an object with ``problem_id`` and ``problem_statement`` (a crawled
Codeforces statement with its header) or ``statement`` (already without it), and
optionally ``tests`` (``[{"input", "output"}]``), ``time_limit_s`` and
``memory_limit_mb``.  Without ``tests`` the statement's Example blocks are used.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.dataset.records import jsonl_lines
from neocoder.dataset.release import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIME_LIMIT_S, DatasetError
from neocoder.dataset.statement import choose_checker, parse_examples, parse_limits, strip_header

CRAWL_FILE = Path("crawled") / "codeforces_problems.jsonl"


def load_raw_problems(path: Path) -> list[dict]:
    """State-0 records (the ``--from-release`` format, without constraints) from ``path``.

    Raises DatasetError naming the file, the line and the field for a line that is not
    JSON, lacks an id or a statement, or has no tests and no parsable Example block.
    """
    path = Path(path)
    problems, seen = [], set()
    for number, row in jsonl_lines(path):
        where = f"line {number}"
        pid = row.get("problem_id") if isinstance(row, dict) else None
        if not isinstance(pid, str) or not pid:
            raise DatasetError(path, where, "problem_id", "missing or not a string")
        full = row.get("problem_statement")
        statement = row.get("statement") or (strip_header(full) if isinstance(full, str) else None)
        if not isinstance(statement, str) or not statement.strip():
            raise DatasetError(path, f"{where} ({pid})", "problem_statement", "missing or not a string")
        if pid in seen:
            raise DatasetError(path, f"{where} ({pid})", "problem_id", "appears twice")
        seen.add(pid)
        tests = row.get("tests") or parse_examples(statement)
        if not isinstance(tests, list) or not tests or not all(
                isinstance(t, dict) and isinstance(t.get("input"), str) and isinstance(t.get("output"), str)
                for t in tests):
            raise DatasetError(path, f"{where} ({pid})", "tests",
                               "no tests given and no Example block with Input/Output in the statement")
        time_limit, memory = parse_limits(full if isinstance(full, str) else "")
        problems.append({
            "problem_id": pid, "state": 0, "constraints": [], "statement": statement,
            "tests": [dict(t, source=t.get("source", "statement")) for t in tests],
            "tests_source": "given" if row.get("tests") else "statement",
            "checker": choose_checker(statement), "source_index": 0,
            "time_limit_s": float(row.get("time_limit_s") or time_limit or DEFAULT_TIME_LIMIT_S),
            "memory_limit_mb": int(row.get("memory_limit_mb") or memory or DEFAULT_MEMORY_LIMIT_MB),
        })
    return problems
