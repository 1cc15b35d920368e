"""A run directory: manifest, append-only samples.jsonl, metrics.json; resume support."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import threading
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path


from .store import append_jsonl, end_line

SAMPLES = "samples.jsonl"
METRICS = "metrics.json"
MANIFEST = "manifest.json"


def sample_key(problem_id: str, state: int, sample: int) -> tuple:
    """The identity of a sample within a run."""
    return (problem_id, int(state), int(sample))


class RunDir:
    """``DIR/samples.jsonl`` (one JSON line per sample, appended and flushed as each
    finishes, so a killed run loses at most the samples in flight), ``DIR/metrics.json``
    and ``DIR/manifest.json``.  ``done()`` gives the keys of finished samples for
    resuming; a truncated last line from a crash is ignored.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.samples_path = self.path / SAMPLES
        self._lock = threading.Lock()
        end_line(self.samples_path)  # a line cut by a crash must not swallow the next record

    def read_samples(self) -> list[dict]:
        """All complete sample lines; the latest line wins for a repeated key."""
        if not self.samples_path.exists():
            return []
        latest: dict[tuple, dict] = {}
        with open(self.samples_path, encoding="utf-8") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut off by a crash
                latest[sample_key(rec["problem_id"], rec["state"], rec["sample"])] = rec
        return list(latest.values())

    def done(self) -> set[tuple]:
        """Keys of finished samples.  Samples with a model error or an INFRA verdict
        (``excluded``) are not finished: a resumed run tries them again."""
        return {sample_key(s["problem_id"], s["state"], s["sample"])
                for s in self.read_samples() if not s.get("error") and not s.get("excluded")}

    def append(self, record: dict) -> None:
        with self._lock:
            append_jsonl(self.samples_path, record, fsync=True)

    def write_json(self, name: str, data: dict) -> None:
        tmp = self.path / (name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        tmp.replace(self.path / name)


def manifest(command: list[str], **fields) -> dict:
    """What a run needs to be reproduced: command, parameters, versions, git commit."""
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    versions = {}
    for pkg in ("neocoder", "openai", "docker", "tree-sitter", "tree-sitter-python", "numpy"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"command": command, "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "git_commit": commit, "python": sys.version.split()[0], "platform": platform.platform(),
            "packages": versions, **fields}
