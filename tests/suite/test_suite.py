"""``neocoder suite``: every benchmark for one model in one run folder, its creativity
profile, and a kill -9 mid-way that resumes without a model call answered twice.

NeoCoder is answered by GPT-4's recorded codes (replay/gpt-4-1106-preview) in the real
Docker sandbox; AidanBench and LiveIdeaBench, which have no recordings of it, by a
scripted OpenAI-style stand-in on loopback (tests/support/suite_model.py), with judges and
embeddings from the same endpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from checkout import CHECKOUT
from suite_model import SuiteModel
from suite_runs import liveideabench_dir

from neocoder.benchmarks.descriptor import COMPOSITE, CONVERGENT, DIVERGENT
from neocoder.suite.registry import names, suite_benchmarks

THREE = ("eval", "aidanbench", "ideas")  # the benchmarks this test scripts answers for


def suite_command(server: SuiteModel, out: Path) -> list[str]:
    return [sys.executable, "-m", "neocoder.cli", "suite", "--model", "replay/gpt-4-1106-preview",
            "--stand-in", "openai/stand-in", "--base-url", server.url, "--api-key", "k",
            "--judge", "openai/j1", "--judge", "openai/j22", "--judge", "openai/j333",
            "--embedder", "openai/embed", "--benchmarks", ",".join(THREE), "--bootstrap", "300", "--workers", "2",
            "--out", str(out), "--quiet"]


def environment() -> dict:
    return dict(os.environ, PYTHONPATH=str(CHECKOUT), LIVEIDEABENCH_DIR=liveideabench_dir())


def wait_for(predicate, proc: subprocess.Popen, what: str, limit: float = 600) -> None:
    """Wait until ``predicate()`` holds (the state the test waits on), failing when the
    process ended first or after ``limit`` seconds (a hang, not a timing assumption)."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert proc.poll() is None, f"the suite ended before {what}: {proc.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, f"no {what} after {limit}s"
        time.sleep(0.2)


def test_every_measure_is_convergent_divergent_or_a_benchmarks_own_composite():
    benches = suite_benchmarks()
    assert [b.name for b in benches] == names() and len(set(names())) == len(benches)  # one entry per name
    assert tuple(names()[:3]) == THREE
    kinds = {(b.name, m.key): m.kind for b in benches for m in b.measures}
    assert set(kinds.values()) == {CONVERGENT, DIVERGENT, COMPOSITE}
    assert [k for k, kind in kinds.items() if kind == COMPOSITE] == [("eval", "neogauge_cum_t5")]
    for b in benches:
        assert {m.kind for m in b.measures} & {CONVERGENT, DIVERGENT}, b.name


def test_the_suite_is_a_task_every_surface_derives():
    from neocoder.benchmarks import SUITE, get_task
    from neocoder.serve.schemas import config_request
    from neocoder.suite.config import SuiteConfig
    assert get_task(SUITE).config_type is SuiteConfig
    request = config_request(SuiteConfig).model_validate({"model": {"spec": "replay/gpt-4-1106-preview"},
                                                          "preset": "quick", "benchmarks": ["eval"]})
    assert request.benchmarks == ["eval"]
    with pytest.raises(Exception, match="preset"):
        config_request(SuiteConfig).model_validate({"model": {"spec": "x/y"}, "preset": "huge"})
    done = subprocess.run([sys.executable, "-m", "neocoder.cli", "run", "suite", "--help"], capture_output=True,
                          text=True, env=environment(), timeout=120)
    assert done.returncode == 0 and "--preset [quick|full]" in done.stdout


@pytest.mark.docker
def test_suite_profiles_a_model_and_resumes_after_kill_without_a_call_answered_twice(tmp_path):
    out = tmp_path / "suite"
    server = SuiteModel(hold_after=60)  # past NeoCoder (no calls), in AidanBench or LiveIdeaBench
    try:
        first = subprocess.Popen(suite_command(server, out), cwd=tmp_path, env=environment(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: server.waiting >= 1, first, "call held at the gate")
        first.send_signal(signal.SIGKILL)
        first.wait(60)
        answered_before = server.calls()
        assert answered_before == 60 and not (out / "profile.json").exists()
        server.release()

        second = subprocess.run(suite_command(server, out), cwd=tmp_path, env=environment(), capture_output=True,
                                text=True, timeout=1200)
        assert second.returncode == 0, second.stderr[-3000:]
    finally:
        server.close()

    repeated = {k: n for k, n in server.answered.items() if n > 1}
    assert not repeated, f"{len(repeated)} model calls answered twice"
    assert server.calls() > answered_before  # the rest was asked after the resume

    profile = json.loads((out / "profile.json").read_text())
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["benchmarks"] == profile["benchmarks"] and metrics["model"] == "replay/gpt-4-1106-preview"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "suite" and manifest["extra"]["benchmarks"] == list(THREE)
    # one run folder: a sub-folder per benchmark, one call cache at the top
    for name in THREE:
        assert (out / name / "metrics.json").is_file(), name
        assert not (out / name / "calls.jsonl").exists(), name
    assert (out / "calls.jsonl").is_file() and (out / "profile.svg").read_text().lstrip().startswith("<?xml")
    benches = profile["benchmarks"]
    assert benches["eval"]["model"] == "replay/gpt-4-1106-preview" and not benches["eval"]["stand_in"]
    assert benches["aidanbench"]["stand_in"] and benches["ideas"]["model"] == "openai/stand-in"
    for name in THREE:
        measures = benches[name]["measures"]
        assert measures and all(m["value"] is not None for m in measures), (name, measures)
        assert all(m["low"] is not None and m["low"] <= m["value"] <= m["high"] for m in measures
                   if m["key"] != "fluency"), (name, measures)
    assert set(profile["kinds"]) == {CONVERGENT, DIVERGENT, COMPOSITE}
    assert "score" not in profile and "composite" not in profile  # no suite-wide composite
    print(f"suite: {server.calls()} chat calls answered ({answered_before} before the kill), none twice; "
          f"{server.embedded} embedding requests")
