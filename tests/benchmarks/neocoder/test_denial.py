"""Denial Prompting (issue 6): the sampling rule, the statement format, and model access
(retries, timeouts, the call cache) against real HTTP servers and the real local model."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from loopback import FlakyServer

from neocoder.benchmarks.neocoder.denial import chain_rng, next_constraint
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.dataset.raw import CRAWL_FILE, load_raw_problems
from neocoder.dataset.release import DatasetError, clean_statement
from neocoder.dataset.statement import strip_header, with_constraints
from neocoder.models import ModelError
from neocoder.models.cache import CachedModel, CallCache
from neocoder.models.openai_compat import OpenAICompatModel

# ----------------------------------------------------------------- the sampling rule


def test_draw_is_seeded_sorted_and_never_repeats():
    techniques = {"for loop", "if statement", "tuple", "set", "while loop"}
    draws = [next_constraint(set(sorted(techniques, reverse=r)), [], chain_rng(0, "1742A")) for r in (0, 1)]
    assert draws[0] == draws[1]  # insertion order of the set does not matter
    assert len({next_constraint(techniques, [], chain_rng(s, "1742A")) for s in range(20)}) > 1  # seed matters
    rng, forbidden = chain_rng(3, "1742A"), []
    for _ in range(len(techniques)):
        forbidden.insert(0, next_constraint(techniques, forbidden, rng))
    assert sorted(forbidden) == sorted(techniques)  # each technique once
    assert next_constraint(techniques, forbidden, rng) is None  # the empty round: nothing new
    assert next_constraint({"vector", "cin statement"}, [], rng) is None  # names outside the taxonomy


def test_draw_is_the_same_in_another_process():
    """Python's hash() of strings is salted per process; the chain RNG must not be."""
    code = ("from neocoder.benchmarks.neocoder.denial import chain_rng, next_constraint;"
            "print(next_constraint({'for loop','if statement','tuple','set'}, [], chain_rng(7, '1900A')))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(h))).stdout for h in (1, 2, 3)}
    assert len(outs) == 1


# ----------------------------------------------------------------- the statement format


def test_constraints_block_reproduces_every_release_statement(release_dir):
    release = json.loads((release_dir / "NeoCoder.json").read_text())
    crawl = {p["problem_id"]: p for p in load_raw_problems(release_dir / CRAWL_FILE)}
    checked = 0
    for p in release:
        assert crawl[p["problem_id"]]["statement"] == p["problem_statements"][0]  # header stripped exactly
        for constraints, statement in zip(p["constraints_list"][1:], p["problem_statements"][1:]):
            # a repeated round left an empty "- " bullet in the release; clean_statement drops it
            newest_first = list(reversed(constraints))
            assert with_constraints(p["problem_statements"][0], newest_first) == clean_statement(statement)
            checked += 1
    assert checked > 600


def test_raw_problems_errors_name_file_line_and_field(tmp_path):
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"problem_id": "X1", "statement": "T\\nno examples here"}\n')
    with pytest.raises(DatasetError, match=r"p.jsonl: record line 1 \(X1\): field 'tests'"):
        load_raw_problems(bad)
    bad.write_text('{"statement": "x"}\n')
    with pytest.raises(DatasetError, match="field 'problem_id'"):
        load_raw_problems(bad)
    assert strip_header("A. T\ntime limit per test\n1 second\nmemory limit per test\n256 megabytes\n"
                        "input\nstandard input\noutput\nstandard output\nBody") == "A. T\nBody"


# ----------------------------------------------------------------- retries, timeouts, cache: a real HTTP server


@pytest.fixture
def prompt():
    return solve_prompt("A. Print one\nPrint 1.")


def test_429_is_retried_then_answered(prompt):
    server = FlakyServer(fail_first=2)
    try:
        model = OpenAICompatModel("openai/m", "m", base_url=server.url, api_key="k", max_retries=3, timeout=5)
        reply = model.generate(prompt)
        assert "print(1)" in reply.text and reply.completion_tokens == 7
        assert server.requests == 3  # two 429s, then the answer
    finally:
        server.close()


def test_retries_are_bounded(prompt):
    server = FlakyServer(fail_first=100)
    try:
        model = OpenAICompatModel("openai/m", "m", base_url=server.url, api_key="k", max_retries=2, timeout=5)
        with pytest.raises(ModelError, match="RateLimitError"):
            model.generate(prompt)
        assert server.requests == 3  # the first try and two retries, never forever
    finally:
        server.close()


def test_a_call_that_times_out_is_retried_then_reported(prompt):
    server = FlakyServer(fail_first=0, delay=1.5)
    try:
        model = OpenAICompatModel("openai/m", "m", base_url=server.url, api_key="k", max_retries=1, timeout=0.3)
        start = time.monotonic()
        with pytest.raises(ModelError, match="Timeout"):
            model.generate(prompt)
        assert server.requests == 2 and time.monotonic() - start < 5
    finally:
        server.close()


def test_call_cache_answers_repeated_calls_without_the_endpoint(tmp_path, prompt):
    server = FlakyServer(fail_first=0)
    try:
        path = tmp_path / "calls.jsonl"
        inner = OpenAICompatModel("openai/m", "m", base_url=server.url, api_key="k")
        model = CachedModel(inner, CallCache(path))
        first = model.generate(prompt)
        again = CachedModel(inner, CallCache(path)).generate(prompt)  # a new process would reload the file
        assert server.requests == 1 and again.text == first.text and again.extra["cached"] is True
        other = OpenAICompatModel("openai/m", "m", base_url=server.url, api_key="k", temperature=0.5)
        CachedModel(other, CallCache(path)).generate(prompt)  # other parameters: another call
        assert server.requests == 2
        with path.open("a") as f:
            f.write('{"key": "cut')  # a line cut by a crash is ignored, not fatal
        assert CallCache(path).stats()["cache_hits"] == 0 and len(CallCache(path).replies) == 2
    finally:
        server.close()


# ----------------------------------------------------------------- end to end with the real local model


def _build(tmp_path, out, seed=0, wait_for_calls=None):
    cmd = [sys.executable, "-m", "neocoder.cli", "build-dataset", "--model", "local/gemma-3-270m", "--limit", "2",
           "--concurrency", "2", "--rounds", "2", "--seed", str(seed), "--max-tokens", "160", "--quiet",
           "--out", str(out)]
    if wait_for_calls is None:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    calls = out / "calls.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if calls.exists() and len(calls.read_text().splitlines()) >= wait_for_calls:
            os.killpg(proc.pid, signal.SIGKILL)  # killed halfway: the server and the sandbox go too
            break
        time.sleep(0.5)
    proc.wait()
    return proc


@pytest.mark.docker
@pytest.mark.llm
def test_denial_prompting_with_the_local_model_resumes_and_is_reproducible(tmp_path, release_dir):
    """Two problems in flight at once (--concurrency 2) reach the one local server in an
    order that varies from run to run; the chains must not depend on it."""
    whole = _build(tmp_path, tmp_path / "whole", seed=7)
    assert whole.returncode == 0, whole.stderr
    records = [json.loads(line) for line in (tmp_path / "whole" / "records.jsonl").read_text().splitlines()]
    assert [r["problem_id"] for r in records if r["state"] == 0] == ["1901A", "1899A"]
    for r in records:
        first = next(x for x in records if x["problem_id"] == r["problem_id"] and x["state"] == 0)
        assert r["statement"] == with_constraints(first["statement"], r["constraints"])
        assert r["augmentation"]["verdicts"] and r["augmentation"]["model"] == "local/gemma-3-270m"
        assert r["state"] == len(r["constraints"])

    again = _build(tmp_path, tmp_path / "again", seed=7)  # a fresh cache: every call made again
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "records.jsonl").read_bytes() == (tmp_path / "whole" / "records.jsonl").read_bytes()

    killed = _build(tmp_path, tmp_path / "resumed", seed=7, wait_for_calls=1)
    assert killed.returncode != 0
    resumed = _build(tmp_path, tmp_path / "resumed", seed=7)
    assert resumed.returncode == 0, resumed.stderr
    made = int(resumed.stdout.split("model calls: ")[1].split(" made")[0])
    hits = int(resumed.stdout.split(" made, ")[1].split(" cache hits")[0])
    assert hits >= 1 and made + hits >= len(records)
    # the same seed at temperature 0 gives the same chains, byte for byte, killed or not
    assert (tmp_path / "resumed" / "records.jsonl").read_bytes() == (tmp_path / "whole" / "records.jsonl").read_bytes()
