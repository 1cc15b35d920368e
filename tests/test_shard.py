"""``neocoder eval --shard K/N``: several driver processes share one run folder.

Real processes (the CLI, twice at once), the real Docker sandbox and the recorded GPT-4
replies of the release: the parts judge disjoint problems, append to one records file
without cutting each other's lines, and the command without ``--shard`` then scores the
whole run exactly as one driver would have (nothing judged again)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from neocoder.api import evaluate
from neocoder.cli import main
from neocoder.config import EvalConfig, ModelConfig, SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.options import parse_shard

pytestmark = pytest.mark.docker

ARGS = ["--model", "replay/gpt-4-1106-preview", "--dataset", "release", "--limit", "5", "--states", "0-2",
        "--workers", "2", "--quiet"]


def cli(release_dir, out, *extra) -> list[str]:
    return [sys.executable, "-m", "neocoder.cli", "eval", *ARGS, "--release", str(release_dir), "--out", str(out),
            *extra]


def records(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()]


def test_two_drivers_on_one_folder_score_as_one(release_dir, tmp_path):
    whole = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "one",
                                release_dir=release_dir, dataset="release", limit=5, states=[0, 1, 2],
                                sandbox=SandboxConfig(workers=2), progress=False))
    shared = tmp_path / "shared"
    parts = [subprocess.Popen(cli(release_dir, shared, "--shard", f"{k}/2"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in (1, 2)]
    outs = [p.communicate(timeout=600) for p in parts]
    for p, (out, err) in zip(parts, outs):
        assert p.returncode == 0, err
        assert "once every part is done" in out
    assert not (shared / "metrics.json").exists()  # a part does not score the run
    lines = records(shared)
    keys = [(r["problem_id"], r["state"], r["sample"]) for r in lines]
    assert len(keys) == len(set(keys)) == len(records(whole.run)) == 15  # 5 problems x 3 states, each once
    states_of = {}
    for r in lines:
        states_of.setdefault(r["problem_id"], set()).add(r["state"])
    assert len(states_of) == 5 and all(states == {0, 1, 2} for states in states_of.values())

    done = subprocess.run(cli(release_dir, shared), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert len(records(shared)) == 15  # nothing judged again
    metrics = json.loads((shared / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["states"] == whole.metrics["states"]  # rates, NeoGauge@t, cumulative and intervals alike


@pytest.mark.parametrize("text", ["3/2", "0/2", "2", "a/b", "1/0"])
def test_a_shard_that_is_not_k_of_n_is_refused(text):
    with pytest.raises(ValueError, match="K/N"):
        parse_shard(text)
    result = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--shard", text])
    assert result.exit_code == 2 and "--shard" in result.output and "K/N" in result.output


def test_shard_is_refused_where_it_cannot_split_anything(release_dir, tmp_path):
    result = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--shard", "1/2",
                                       "--server", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "a server runs its jobs whole" in result.output
    with pytest.raises(NeocoderError, match="without --shard"):
        evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "h", release_dir=release_dir,
                            dataset="release", limit=1, shard="1/2", progress=False))
    with pytest.raises(NeocoderError, match="EvalConfig.shard"):
        evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "x",
                            release_dir=release_dir, dataset="release", limit=1, shard="5/2", progress=False))
