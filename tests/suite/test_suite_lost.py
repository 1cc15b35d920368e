"""``neocoder suite`` when its benchmarks lose their items (issue 56, item 7): an endpoint
that answers every call with 500 or 429 leaves every item of every benchmark in error;
each benchmark's run records them and the suite goes on, writes its profile, then exits
non-zero with one line naming the benchmarks that lost items (``Outcome("benchmark")`` in
neocoder/suite/task.py).  A rerun once the endpoint answers retries those benchmarks and
exits 0; so does a suite whose calls all succeed.

AidanBench and LiveIdeaBench at the quick preset against the scripted endpoint on loopback
(tests/support/scripted_models.py): no sandbox, a few seconds a run."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from scripted_models import ScriptedModels
from suite_runs import liveideabench_dir

from neocoder.cli import main

BENCHES = ("aidanbench", "ideas")


def suite(url: str, out: Path) -> SimpleNamespace:
    """``neocoder suite`` in this process (so a mutation run's coverage sees the suite's
    outcome: scripts/mutation.sh, set "lostitems"), as a finished process: returncode,
    stdout, stderr (a traceback, which the one line may never be, makes it 2)."""
    args = ["suite", "--model", "openai/stand", "--judge", "openai/j1", "--judge", "openai/j22", "--judge",
            "openai/j333", "--embedder", "openai/embed", "--benchmarks", ",".join(BENCHES), "--preset", "quick",
            "--base-url", url, "--api-key", "k", "--max-retries", "0", "--bootstrap", "100", "--out", str(out),
            "--quiet"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LIVEIDEABENCH_DIR", liveideabench_dir())
        patch.chdir(out.parent)
        done = CliRunner().invoke(main, args)
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        return SimpleNamespace(returncode=2, stdout=done.stdout,
                               stderr=done.stderr + "".join(traceback.format_exception(done.exception)))
    return SimpleNamespace(returncode=done.exit_code, stdout=done.stdout, stderr=done.stderr)


def errors(done: SimpleNamespace) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("Error:")]


def lost(out: Path) -> dict:
    profile = json.loads((out / "profile.json").read_text())
    return {name: entry.get("lost") for name, entry in profile["benchmarks"].items()}


def assert_succeeded(done: SimpleNamespace, out: Path) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    assert not errors(done) and "LOST ITEMS" not in done.stdout, done.stdout[-3000:]
    assert lost(out) == {name: None for name in BENCHES}
    metrics = json.loads((out / "metrics.json").read_text())
    outcome = metrics["outcome"]
    assert outcome["items"] == outcome["judged"] == len(BENCHES) and outcome["errors"] == 0, outcome
    # the profile the suite writes beside metrics.json is the same content, its figure beside it
    profile = json.loads((out / "profile.json").read_text())
    assert profile == {k: v for k, v in metrics.items() if k != "format_version"}
    assert profile["model"] == "openai/stand" and profile["calls"]["calls_made"] > 0
    assert (out / "profile.svg").read_text().lstrip().startswith(("<?xml", "<svg"))


@pytest.mark.parametrize("status", [500, 429])
def test_a_suite_that_lost_items_exits_non_zero_naming_them_and_a_rerun_retries(tmp_path, status):
    out = tmp_path / "suite"
    with ScriptedModels(fail=status) as server:
        first = suite(server.url, out)
        assert first.returncode != 0, f"every call answered {status}, yet the suite exited 0:\n{first.stdout[-2000:]}"
        [line] = errors(first)  # one line, naming every benchmark that lost items
        assert f"{len(BENCHES)} of {len(BENCHES)} benchmarks ended in error" in line, line
        assert all(f"{name}: " in line for name in BENCHES), line
        assert all(lost(out).values()), lost(out)  # each benchmark's lost items, in the profile
        outcome = json.loads((out / "metrics.json").read_text())["outcome"]
        assert outcome["errors"] == len(BENCHES), outcome
        asked = server.requests

        server.fail = None  # the endpoint answers again: the rerun retries the lost benchmarks' items
        second = suite(server.url, out)
        assert server.requests > asked
        assert_succeeded(second, out)
        for name in BENCHES:  # each sub-run resumed its own folder, its lost items retried
            sub = json.loads((out / name / "metrics.json").read_text())["outcome"]
            assert sub["errors"] == 0 and sub["judged"] > 0, (name, sub)


def test_a_suite_whose_calls_all_succeed_exits_zero(tmp_path):
    out = tmp_path / "suite"
    with ScriptedModels() as server:
        assert_succeeded(suite(server.url, out), out)
