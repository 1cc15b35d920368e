"""Convert a run folder written before record format 2 (``neocoder upgrade-run DIR``).

Format 1 kept an eval's samples in ``samples.jsonl`` with flat tier fields (``correct``,
``verdicts``, ``correct_extended``, ``extended_verdicts``, ``excluded``) and AidanBench's
answers and question lines in ``answers.jsonl``; manifests were flat dicts.  Format 2
(records.py) keeps typed records in ``records.jsonl``.  The old file is kept beside the
new one as ``<name>.v1``, so nothing is lost.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.errors import NeocoderError
from neocoder.records import FORMAT_VERSION, Manifest, Record, Sample, TierResult
from neocoder.store import RunFolder

MANIFEST_KEYS = ("command", "started", "git_commit", "python", "platform", "packages")


def sample_from_v1(row: dict) -> Sample:
    """A format-1 sample line as a Sample: its examples and extended tests become tiers."""
    ext = row.get("extended_verdicts")
    ext_infra = bool(ext) and "INFRA" in ext
    examples = None
    if row.get("verdicts") is not None:
        infra = any(v["verdict"] == "INFRA" for v in row["verdicts"]) or \
            (bool(row.get("excluded")) and not row.get("error") and not ext_infra)
        examples = TierResult(tests=row["verdicts"], correct=bool(row.get("correct")), infra=infra)
    plus = None if ext is None else TierResult(tests=[{"verdict": v} for v in ext],
                                               correct=bool(row.get("correct_extended")), infra=ext_infra)
    keep = {k: row[k] for k in ("problem_id", "state", "sample", "model", "constraints", "prompt_sha256", "reply",
                                "code", "code_sha256", "entry", "compile_error", "techniques",
                                "violated_constraints", "unchecked_constraints", "follows", "human_techniques",
                                "new_techniques", "divergent", "error", "tokens", "timings") if k in row}
    return Sample(**keep, examples=examples, plus=plus)


def _convert(folder: Path, old: str, kind: str, convert) -> str:
    rows = []
    with (folder / old).open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a line cut by a crash: format 1 skipped it too
    records: list[Record] = [convert(r) for r in rows]
    manifest_path = folder / "manifest.json"
    old_manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    manifest = Manifest(kind=kind, config={k: v for k, v in old_manifest.items() if k not in MANIFEST_KEYS},
                        **{k: old_manifest[k] for k in MANIFEST_KEYS if k in old_manifest},
                        extra={"upgraded_from": 1})
    (folder / old).rename(folder / (old + ".v1"))
    new = RunFolder(folder)
    new.write_all(records)
    new.write_manifest(manifest)
    return f"{folder}: {len(records)} records converted to format {FORMAT_VERSION}; the old file is {old}.v1"


def upgrade_run_folder(folder: Path) -> str:
    """Convert ``folder`` in place to the current format; returns a one-line summary.

    Eval folders are scored again from the converted samples (the metrics are unchanged:
    the same samples, read through the typed records).  Raises NeocoderError when the
    folder holds no format-1 file.
    """
    from neocoder.metrics.rates import all_states
    folder = Path(folder)
    if (folder / "samples.jsonl").is_file():
        summary = _convert(folder, "samples.jsonl", "eval", sample_from_v1)
        samples = RunFolder(folder).read(Sample)
        model = samples[0].model if samples else None
        RunFolder(folder).write_metrics({"model": model, "states": all_states(samples)})
        return summary
    if (folder / "answers.jsonl").is_file():
        summary = _convert(folder, "answers.jsonl", "aidanbench",
                           lambda r: (Answer if r["type"] == "answer" else QuestionResult).from_dict(
                               {k: v for k, v in r.items() if k != "type"}))
        metrics_path = folder / "metrics.json"
        if metrics_path.is_file():
            old = json.loads(metrics_path.read_text(encoding="utf-8"))
            totals = {k: v for k, v in old.items() if k not in ("model", "judge", "embedder")}
            RunFolder(folder).write_metrics({"benchmark": "aidanbench", "models": {old.get("model"): totals}})
        return summary
    raise NeocoderError(f"{folder}: no samples.jsonl or answers.jsonl of format 1 to convert")
