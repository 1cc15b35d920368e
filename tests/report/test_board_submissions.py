"""``neocoder board add`` checks a run before it joins a board, and ``neocoder board build``
rebuilds the board from the accepted summaries alone, byte for byte (issue 47, item 6)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from checkout import CHECKOUT
from click.testing import CliRunner

from neocoder.cli import main

GPT4 = "replay/gpt-4-1106-preview"


def neocoder(*args: str):
    """The CLI in a process of its own (no cache of another run's records carries over)."""
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *args], capture_output=True, text=True,
                          cwd=CHECKOUT, timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """GPT-4's recorded replies on the shipped dataset's first 8 problems at t=0."""
    out = tmp_path_factory.mktemp("runs") / "gpt4"
    done = CliRunner().invoke(main, ["eval", "--model", GPT4, "--states", "0", "--limit", "8", "--quiet", "--out",
                                     str(out)])
    assert done.exit_code == 0, done.output
    return out


def copy(run, tmp_path, name):
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


@pytest.mark.docker
def test_a_checked_run_joins_and_the_board_rebuilds_byte_identical(run, tmp_path):
    board = tmp_path / "board"
    added = neocoder("board", "add", str(run), "--board", str(board))
    assert added.returncode == 0, added.stderr
    (summary,) = (board / "submissions").glob("*.json")
    data = json.loads(summary.read_text())
    assert data["items"] and len(data["items"]) == 8 and data["default"] == 199
    assert data["ratios"]["eval.pass@1_t0"]  # kept for paired comparison without the run folder
    first = neocoder("board", "build", str(board), "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    again = neocoder("board", "build", str(board), "--out", str(tmp_path / "b"))
    assert again.returncode == 0, again.stderr
    one, two = (tmp_path / "a" / "index.html").read_bytes(), (tmp_path / "b" / "index.html").read_bytes()
    assert one == two
    html = one.decode()
    assert GPT4 in html and "n=8" in html and "&#8834;" in html  # its n, and marked a subset of 199


@pytest.mark.docker
def test_a_hand_edited_metrics_file_is_refused_naming_the_check(run, tmp_path):
    edited = copy(run, tmp_path, "edited")
    metrics = json.loads((edited / "metrics.json").read_text())
    metrics["states"]["0"]["pass@1"] = 0.9
    (edited / "metrics.json").write_text(json.dumps(metrics))
    got = neocoder("board", "add", str(edited), "--board", str(tmp_path / "board"))
    assert got.returncode == 1
    lines = [line for line in got.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "refused (metrics)" in lines[0] and "pass@1_t0 is 0.9" in lines[0], got.stderr
    assert not (tmp_path / "board" / "submissions").exists() or not list((tmp_path / "board" / "submissions").iterdir())


@pytest.mark.docker
def test_truncated_records_are_refused_naming_the_check(run, tmp_path):
    cut = copy(run, tmp_path, "cut")
    records = (cut / "records.jsonl").read_text().splitlines(keepends=True)
    (cut / "records.jsonl").write_text("".join(records[:-2]))
    got = neocoder("board", "add", str(cut), "--board", str(tmp_path / "board"))
    assert got.returncode == 1
    lines = [line for line in got.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "refused (items)" in lines[0], got.stderr


@pytest.mark.docker
def test_a_run_on_a_dataset_of_its_own_is_refused(run, tmp_path):
    other = copy(run, tmp_path, "other")
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["extra"]["dataset_version"], manifest["extra"]["dataset"] = None, "problem states from my-file.jsonl"
    (other / "manifest.json").write_text(json.dumps(manifest))
    got = neocoder("board", "add", str(other), "--board", str(tmp_path / "board"))
    assert got.returncode == 1 and "refused (dataset)" in got.stderr, got.stderr
