"""`neocoder eval` and the denial chains against a misbehaving endpoint (issue 46): a reply
that holds no usable program is judged as a failing program; a call that gives no reply
(a malformed 200, a 5xx burst beyond the retries) is a sample in error, kept and counted,
and the run exits 1 with one line unless --max-errors allows it.  A connection dropped on
every retry is such a call too (issue 56, item 3): only an endpoint that cannot be reached at
all stops the run."""

import json
import threading

import pytest
from click.testing import CliRunner
from drifting import DROP, EMPTY, MALFORMED, REFUSAL, DriftingServer, cut, status

from neocoder.cli import main

pytestmark = pytest.mark.docker

WRONG = "```python\ndef solve():\n    a = input()\n    print(-1)\n```"


def by_sample(behaviours):
    """A respond function giving each sample (told apart by its seed, which its retries
    share) the next of ``behaviours``, whatever order the calls come in."""
    assigned, lock, pending = {}, threading.Lock(), list(behaviours)

    def respond(kind, body):
        with lock:
            seed = body.get("seed")
            if seed not in assigned:
                assigned[seed] = pending.pop(0)
            return assigned[seed]
    return respond


def eval_args(server, out, release_dir, samples, *extra):
    return ["eval", "--model", "openai/drifting", "--base-url", server.url, "--api-key", "k", "--max-retries", "1",
            "--limit", "1", "--states", "0", "--samples", str(samples), "--out", str(out),
            "--release", str(release_dir), "--quiet", *extra]


def records(out):
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def test_replies_holding_no_program_are_recorded_wrong_never_errors_and_most_fail_the_run(tmp_path, release_dir,
                                                                                         sandbox):
    """An empty reply, one cut at the token limit and a refusal are read before they are
    judged (issue 56): each is recorded with its reason, wrong, never an error and never
    retried; three of three holding no program fail the run in one line."""
    kinds = [EMPTY, cut("```python\ndef solve():\n    a = int(inp"), REFUSAL]
    server = DriftingServer(by_sample(kinds))
    try:
        result = CliRunner().invoke(main, eval_args(server, tmp_path / "run", release_dir, len(kinds)))
    finally:
        server.close()
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "3 of 3 replies of the model under test held no program (1 x cut off, 1 x empty, 1 x refusal)" \
        in result.output
    assert sorted(server.sent) == sorted(k.kind for k in kinds)  # one call each: nothing retried
    got = records(tmp_path / "run")
    assert len(got) == 3 and all(s["error"] is None for s in got)
    assert sorted(s["no_program"] for s in got) == ["cut off", "empty", "refusal"]
    assert all(s["examples"] is not None and s["examples"]["correct"] is False for s in got)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["outcome"] == {"unit": "sample", "items": 3, "judged": 3, "unreadable": 0, "errors": 0,
                                  "reasons": {}, "answer": "program", "replies": 3, "no_answer": 3,
                                  "no_answer_reasons": {"cut off": 1, "empty": 1, "refusal": 1}}
    assert metrics["states"]["0"]["pass@1"] == 0.0


def test_calls_without_a_reply_are_samples_in_error_and_fail_the_run(tmp_path, release_dir, sandbox):
    kinds = [MALFORMED, status(500), WRONG]
    server = DriftingServer(by_sample(kinds))
    try:
        result = CliRunner().invoke(main, eval_args(server, tmp_path / "run", release_dir, len(kinds)))
    finally:
        server.close()
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "ended in error" in line]
    assert len(lines) == 1 and "2 of 3 samples ended in error" in lines[0], result.output
    assert "Traceback" not in result.output
    assert server.count("http 500") == 2  # the burst outlasted --max-retries 1
    got = records(tmp_path / "run")
    errors = sorted(s["error"] for s in got if s["error"])
    assert len(got) == 3 and len(errors) == 2
    assert any("malformed" in e.lower() or "choices" in e for e in errors), errors
    assert any("500" in e for e in errors), errors
    judged = [s for s in got if not s["error"]]
    assert len(judged) == 1 and judged[0]["examples"]["correct"] is False
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    outcome = metrics["outcome"]
    assert (outcome["items"], outcome["judged"], outcome["errors"]) == (3, 1, 2)
    assert sum(outcome["reasons"].values()) == 2
    assert metrics["states"]["0"]["n"] == 1  # the samples in error are in no rate

    # --max-errors 2 accepts them: the same kinds, a fresh folder, exit 0
    server = DriftingServer(by_sample(kinds))
    try:
        again = CliRunner().invoke(main, eval_args(server, tmp_path / "tolerated", release_dir, len(kinds),
                                                   "--max-errors", "2"))
    finally:
        server.close()
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "tolerated" / "metrics.json").read_text())["outcome"]["errors"] == 2


def test_a_connection_dropped_on_every_retry_is_the_samples_error(tmp_path, release_dir, sandbox):
    server = DriftingServer(lambda kind, body: DROP)
    try:
        result = CliRunner().invoke(main, eval_args(server, tmp_path / "run", release_dir, 1))
    finally:
        server.close()
    assert result.exit_code == 1 and server.count("dropped") == 2  # the call and its one retry
    assert result.output.count("Error") == 1 and "Traceback" not in result.output
    assert "1 of 1 samples ended in error" in result.output and "the connection was dropped" in result.output
    assert "cannot reach" not in result.output
    (sample,) = records(tmp_path / "run")
    assert f"no usable reply from {server.url}/ (the connection was dropped" in sample["error"]


def test_a_strategy_records_a_model_error_midway_on_its_sample(tmp_path, release_dir, sandbox):
    # self-correct: the first attempt is judged (a wrong program), its retry meets a 500 burst
    calls = iter([WRONG, status(500), status(500)])
    server = DriftingServer(lambda kind, body: next(calls))
    try:
        result = CliRunner().invoke(main, eval_args(server, tmp_path / "run", release_dir, 1,
                                                    "--strategy", "self-correct", "--rounds", "1"))
    finally:
        server.close()
    assert result.exit_code == 1 and "1 of 1 samples ended in error" in result.output
    (sample,) = records(tmp_path / "run")
    assert sample["error"].startswith("self-correct: ") and sample["examples"] is None
    assert [a["kind"] for a in sample["attempts"]] == ["attempt", "error"]
    assert sample["attempts"][-1]["call"] == 2 and sample["cost"]["calls"] == 1
    outcome = json.loads((tmp_path / "run" / "metrics.json").read_text())["outcome"]
    assert (outcome["judged"], outcome["errors"]) == (0, 1)


def chain_args(server, out, release_dir, *extra):
    return ["build-dataset", "--model", "openai/drifting", "--base-url", server.url, "--api-key", "k",
            "--max-retries", "0", "--limit", "1", "--rounds", "1", "--out", str(out),
            "--from-release", str(release_dir), "--quiet", *extra]


def test_a_chain_run_against_a_failing_endpoint_reports_its_lost_problem(tmp_path, release_dir, sandbox):
    server = DriftingServer(lambda kind, body: status(500))
    try:
        result = CliRunner().invoke(main, chain_args(server, tmp_path / "run", release_dir))
    finally:
        server.close()
    assert result.exit_code == 1
    assert "1 of 1 problems ended in error" in result.output and "Traceback" not in result.output
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["outcome"]["unit"] == "problem"
    assert (metrics["outcome"]["items"], metrics["outcome"]["judged"], metrics["outcome"]["errors"]) == (1, 0, 1)
    assert len(metrics["failed"]) == 1


def test_a_chain_whose_llm_detector_stays_unreadable_is_unreadable_not_empty(tmp_path, release_dir, sandbox):
    def respond(kind, body):
        asked = "\n".join(str(m.get("content")) for m in body.get("messages") or [])
        return "It loops over the input." if "programming techniques" in asked else WRONG
    server = DriftingServer(respond)
    try:
        result = CliRunner().invoke(main, chain_args(server, tmp_path / "run", release_dir, "--detector", "llm"))
    finally:
        server.close()
    assert result.exit_code == 1 and "no problem of 1 was judged (1 unreadable, 0 in error)" in result.output
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["outcome"]["unreadable"] == 1 and metrics["states"] == 0
    tally = metrics["unreadable"]["technique detector"]
    assert tally["replies"] == tally["unreadable"] == 3 and tally["reasons"] == {"no marker": 3}
    assert list(metrics["unreadable_problems"].values()) == ["no marker"]
