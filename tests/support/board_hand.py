"""What the board's by-hand tests share (tests/report/test_board_checks_by_hand.py,
test_board_summary_by_hand.py): a small AidanBench run made against a scripted loopback
endpoint in the test's process (two shipped questions, two answers each, every answer
judged coherent), hand-made manifests and suite folders, and a refusal's one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from board_runs import invoke
from drifting import DriftingServer, prompt_text

from neocoder.report.leaderboard.intake import SubmissionRefused

MODEL = "openai/gen"
QUESTIONS = ("Provide an explanation for Japan's Lost Decades.", "What is a cause of World War 1?")


def _respond(kind, body):
    """Distinct answers, each judged 80 of 100, hashed embeddings."""
    text = prompt_text(kind, body)
    if kind == "embeddings":
        return "embedding"
    if body.get("model") == "judge":
        return "<score>80</score>"
    return f"An answer numbered {hashlib.sha256(text.encode()).hexdigest()[:12]}."


def aidan_run(out: Path) -> Path:
    """An AidanBench run of ``MODEL`` on the first two shipped questions (two answers
    each, 20 bootstrap resamples) written to ``out``."""
    with DriftingServer(_respond) as server:
        got = invoke("aidanbench", "--model", MODEL, "--judge", "openai/judge", "--embedder", "openai/e",
                     "--base-url", server.url, "--api-key", "k", "--max-retries", "0", "--limit", "2",
                     "--max-answers", "2", "--judge-retries", "0", "--bootstrap", "20", "--out", str(out),
                     "--quiet")
    assert got.exit_code == 0, got.output
    return out


def refused(check: str, call, *args, **kw) -> str:
    """``call(*args, **kw)`` refused naming ``check``; its one line."""
    with pytest.raises(SubmissionRefused) as got:
        call(*args, **kw)
    assert got.value.check == check and str(got.value).startswith(f"refused ({check}): "), str(got.value)
    assert "\n" not in str(got.value)
    return str(got.value)


def read_json(folder: Path, name: str) -> dict:
    """The JSON file ``name`` of ``folder``."""
    return json.loads((folder / name).read_text(encoding="utf-8"))


def edit_json(folder: Path, name: str, change) -> None:
    """The JSON file ``name`` of ``folder`` read, changed in place by ``change(data)``, written back."""
    data = read_json(folder, name)
    change(data)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def manifest(**change) -> dict:
    """A complete manifest.json of an AidanBench run (what the board reads of one)."""
    data = {"kind": "aidanbench", "config": {"model": {"spec": MODEL}}, "format_version": 2,
            "started": "2024-05-01T10:00:00+00:00", "packages": {"neocoder": "0.1.0"}, "extra": {}}
    return {**data, **change}


def write_manifest(folder: Path, data: dict) -> Path:
    """``data`` as ``folder``'s manifest.json (the folder made); the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def suite_of(folder: Path, steps: list[dict], model: str = MODEL) -> Path:
    """A suite run folder at ``folder``: its manifest, a metrics.json, and one
    ``suite_step`` record per step (``benchmark``, ``folder``, ``model``, ``skipped``)."""
    write_manifest(folder, manifest(kind="suite", config={"model": {"spec": model}, "preset": "quick"}))
    (folder / "metrics.json").write_text(json.dumps({"format_version": 2, "benchmark": "suite"}), encoding="utf-8")
    lines = [json.dumps({"type": "suite_step", "format_version": 2, "model": model, **s}) + "\n" for s in steps]
    (folder / "records.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder
