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
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.cli import main
from neocoder.config import ModelConfig, SandboxConfig
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


def test_the_parts_split_the_items_whole_and_without_overlap():
    """For any N, the parts' items are disjoint, together every item, and each problem
    whole in one part (no Docker: ``EvalTask.items`` on a run's states)."""
    from types import SimpleNamespace

    from neocoder.benchmarks.neocoder.evaluation import EvalTask
    problems = [f"p{i}" for i in range(5)]
    states = [SimpleNamespace(problem_id=p, state=t) for p in problems for t in (0, 1)]
    run = SimpleNamespace(inputs=SimpleNamespace(states=states, problems=problems))  # what EvalTask.open returns

    def items(shard):
        task = EvalTask(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out="x", release_dir="r",
                                   samples=2, shard=shard))
        return [(s.problem_id, s.state, i) for s, i in task.items(run)]

    every = items(None)
    assert len(every) == 20
    for n in (1, 2, 3, 5, 7):
        parts = [items(f"{k}/{n}") for k in range(1, n + 1)]
        assert sorted(x for p in parts for x in p) == sorted(every)  # each item once
        for p in parts:
            owned = {x[0] for x in p}
            assert all(x[0] not in owned for q in parts if q is not p for x in q)  # a problem in one part only


def test_part_locks_keep_the_drivers_of_one_run_apart(tmp_path):
    """A second driver for a running part, a split into another N, a part with other items
    and the whole-run pass while a part runs are all refused; once the parts end, the
    whole-run pass goes ahead and clears their lock files."""
    from neocoder.benchmarks.neocoder.shards import part
    config = {"dataset": None, "limit": 5, "states": [0, 1], "samples": 1, "model": {"spec": "replay/x"}}
    with part(tmp_path, "1/2", None, config):
        with pytest.raises(NeocoderError, match="already being judged"):
            with part(tmp_path, "1/2", config, config):
                pass
        with pytest.raises(NeocoderError, match="in 2 parts"):
            with part(tmp_path, "1/3", config, config):
                pass
        with pytest.raises(NeocoderError, match="--limit 6"):
            with part(tmp_path, "2/2", config, {**config, "limit": 6}):
                pass
        with pytest.raises(NeocoderError, match="part 1/2 of this run is still running"):
            with part(tmp_path, None, config, config):
                pass
        with part(tmp_path, "2/2", config, config):  # the other part runs alongside
            pass
    assert sorted(p.name for p in tmp_path.glob("*.lock")) == ["part-1-of-2.lock", "part-2-of-2.lock"]
    with part(tmp_path, None, config, config):
        pass
    assert not list(tmp_path.glob("*.lock"))


def _append_many(path, tag, count, size):
    from neocoder.store import append_jsonl
    for i in range(count):
        append_jsonl(path, {"tag": tag, "i": i, "pad": "é" * size})


def test_processes_appending_to_one_file_never_mix_their_lines(tmp_path):
    """Four processes append 200 records of about 150 KB each (many pages per write) to one
    file, after a line cut by a crash: every record reads back whole, and the cut line is
    skipped instead of swallowing the next record."""
    import multiprocessing

    from neocoder.store import jsonl_lines
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"tag": "cut", "pad": "\xc3')  # a crash inside a two-byte character
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(path, t, 50, 75_000)) for t in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    rows = [row for _, row in jsonl_lines(path, skip_bad=True)]
    assert sorted((r["tag"], r["i"]) for r in rows) == sorted((t, i) for t in range(4) for i in range(50))
    assert all(r["pad"] == "é" * 75_000 for r in rows)
