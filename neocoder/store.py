"""An append-only JSONL key-value file: what the call cache and the oracle's run cache
keep, so a killed run loses at most the line it was writing."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path


def end_line(path: Path) -> None:
    """If ``path`` ends in the middle of a line (a crash while writing it), end that line,
    so the next appended record starts on a line of its own."""
    if path.exists() and path.stat().st_size:
        with path.open("rb+") as f:
            f.seek(-1, 2)
            if f.read(1) != b"\n":
                f.write(b"\n")


def append_jsonl(path: Path, record: dict, fsync: bool = False) -> None:
    """Append ``record`` as one JSON line and flush it (``fsync``: to the disk too)."""
    with Path(path).open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
        f.flush()
        if fsync:
            os.fsync(f.fileno())


class JsonlStore:
    """Lines ``{"key": ..., <field>: value}``; the last line for a key wins; a line cut
    by a crash is skipped (that entry is simply made again).  ``hits`` counts the gets
    that found their key.  Thread-safe."""

    def __init__(self, path: Path, field: str):
        self.path, self.field = Path(path), field
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.entries: dict[str, object] = {}
        self.hits = 0
        if self.path.exists():
            with self.path.open(encoding="utf-8") as f:
                for line in f:
                    try:
                        row = json.loads(line)
                        self.entries[row["key"]] = row[field]
                    except (json.JSONDecodeError, KeyError, TypeError):
                        continue
        end_line(self.path)

    def get(self, key: str):
        with self.lock:
            got = self.entries.get(key)
            if got is not None:
                self.hits += 1
            return got

    def put(self, key: str, value) -> None:
        with self.lock:
            self.entries[key] = value
            append_jsonl(self.path, {"key": key, self.field: value})
