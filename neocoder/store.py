"""Files on disk: append-only JSONL, the key-value cache files, and the run folder.

Every command writes the same run folder (``RunFolder``); the call cache and the
oracle's run cache are append-only key-value files (``JsonlStore``).  A killed run loses
at most the line it was writing.  Several processes may append to one file (the
drivers of ``neocoder eval --shard``): each line is written whole under an exclusive
``flock`` of the file, after ending a line a crash cut.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from pathlib import Path

import jsonlines

from neocoder.errors import NeocoderError, RecordError
from neocoder.records import FORMAT_VERSION, Manifest, Record, from_line


@contextlib.contextmanager
def _locked(f):
    """Hold an exclusive ``flock`` of the open file ``f`` (other processes appending to it wait)."""
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)
    try:
        yield f
    finally:
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def jsonl_lines(path: Path, skip_bad: bool = False):
    """(line number, parsed value) for each non-blank line of a JSONL file.

    The project's one JSONL line reader.  A line that is not JSON raises RecordError
    naming the file and line, or is skipped with ``skip_bad`` (a file this project
    appends to, whose last line a crash may have cut).  A missing file raises
    RecordError, or yields nothing with ``skip_bad``.
    """
    path = Path(path)
    if not path.is_file():
        if skip_bad:
            return
        raise RecordError(path, "-", "-", "file not found")
    # a file this project appends to may end in a line cut by a crash, or one another
    # process is writing: possibly inside a character, so that line decodes with
    # replacements (and is skipped as not JSON) rather than failing the whole read
    with open(path, encoding="utf-8", errors="replace" if skip_bad else "strict") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield lineno, jsonlines.Reader([line]).read()
            except jsonlines.InvalidLineError as exc:
                if not skip_bad:
                    raise RecordError(path, f"line {lineno}", "-", f"not valid JSON: {exc}") from exc


def append_jsonl(path: Path, record: dict, fsync: bool = False) -> None:
    """Append ``record`` as one JSON line, whole, and flush it (``fsync``: to the disk too).
    A file that ends in the middle of a line (a crash, in this process or another, while
    writing it) gets that line ended first, so the record starts on a line of its own."""
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    with Path(path).open("a+b") as f, _locked(f):
        size = os.fstat(f.fileno()).st_size
        if size and os.pread(f.fileno(), 1, size - 1) != b"\n":  # a line another process was cut in
            line = b"\n" + line
        f.write(line)
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
        for _, row in jsonl_lines(self.path, skip_bad=True):
            if isinstance(row, dict) and "key" in row and field in row:
                self.entries[row["key"]] = row[field]

    def get(self, key: str):
        """The value stored for ``key`` (None when there is none), counted in ``hits`` when found."""
        with self.lock:
            got = self.entries.get(key)
            if got is not None:
                self.hits += 1
            return got

    def put(self, key: str, value) -> None:
        """Store ``value`` for ``key`` and append its line to the file, flushed."""
        with self.lock:
            self.entries[key] = value
            append_jsonl(self.path, {"key": key, self.field: value})


class RunFolder:
    """A run folder, the same for every command:

    - ``manifest.json``: the ``Manifest`` (written when the run starts);
    - ``records.jsonl``: typed records (records.py), appended and fsynced one line at a
      time, so a killed run loses at most the records in flight;
    - ``calls.jsonl``: the model-call cache (models/cache.py), where models are called;
    - ``metrics.json``: the scores, rewritten when the run ends.

    The resume rule is the same everywhere: a record whose ``finished`` is true is kept
    and its key is not redone; the last line for a key wins; a line cut by a crash is
    skipped.  A folder written by an older neocoder (``samples.jsonl`` or
    ``answers.jsonl``, no format version) is refused with a NeocoderError that says how
    to convert it.
    """

    MANIFEST, RECORDS, CALLS, METRICS = "manifest.json", "records.jsonl", "calls.jsonl", "metrics.json"

    def __init__(self, path: Path, create: bool = True):
        self.path = Path(path)
        for old in ("samples.jsonl", "answers.jsonl"):
            if (self.path / old).exists() and not (self.path / self.RECORDS).exists():
                raise NeocoderError(
                    f"{self.path}: a run folder written before format {FORMAT_VERSION} ({old}); convert it with "
                    f"`neocoder upgrade-run {self.path}`")
        if create:
            self.path.mkdir(parents=True, exist_ok=True)
        elif not self.path.is_dir():
            raise NeocoderError(f"{self.path}: no such run folder")
        self.records_path = self.path / self.RECORDS
        self.calls_path = self.path / self.CALLS
        self._lock = threading.Lock()

    def read(self, kind: type[Record] | None = None) -> list[Record]:
        """Every complete record (of type ``kind`` if given); the last line for a key wins.

        Raises RecordError (file, line, field) for a line of another format version or shape.
        """
        latest: dict[tuple, Record] = {}
        for number, data in jsonl_lines(self.records_path, skip_bad=True):  # skips a line cut by a crash
            record = from_line(data, self.records_path, number)
            if kind is None or isinstance(record, kind):
                latest[(record.TYPE,) + tuple(record.key)] = record
        return list(latest.values())

    def done(self, kind: type[Record]) -> set[tuple]:
        """Keys of the finished records of type ``kind`` (the resume rule)."""
        return {r.key for r in self.read(kind) if r.finished}

    def append(self, record: Record) -> None:
        """Append one record and fsync it."""
        with self._lock:
            append_jsonl(self.records_path, record.to_dict(), fsync=True)

    def write_all(self, records: list[Record]) -> None:
        """Replace the records file with ``records``, atomically (a temp file, then rename):
        for outputs written once at the end, such as a built dataset."""
        tmp = self.records_path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
        tmp.replace(self.records_path)

    def write_manifest(self, manifest: Manifest) -> None:
        """Write ``manifest.json`` atomically (a temp file, then rename)."""
        self._write_json(self.MANIFEST, manifest.to_dict())

    def read_manifest(self) -> Manifest:
        """Raises NeocoderError when missing, RecordError for another format version."""
        path = self.path / self.MANIFEST
        if not path.is_file():
            raise NeocoderError(f"{path}: not found (is {self.path} a run folder?)")
        return Manifest.from_dict(json.loads(path.read_text(encoding="utf-8")), path)

    def write_metrics(self, metrics: dict) -> None:
        """Write ``metrics.json`` atomically, with the format version first."""
        self._write_json(self.METRICS, {"format_version": FORMAT_VERSION, **metrics})

    def read_metrics(self) -> dict:
        """The content of ``metrics.json``.  Raises NeocoderError when it is missing (the run has not ended)."""
        path = self.path / self.METRICS
        if not path.is_file():
            raise NeocoderError(f"{path}: not found (the run has not ended yet?)")
        return json.loads(path.read_text(encoding="utf-8"))

    def _write_json(self, name: str, data: dict) -> None:
        """Write atomically: a temp file of this process's own, then rename."""
        tmp = self.path / f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(self.path / name)
