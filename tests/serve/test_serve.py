"""`neocoder serve` driven over HTTP: the real server in a subprocess on a loopback port,
with its own data directory and tokens, judging in the real Docker sandbox."""

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from servers import OTHER, TOKEN, ServerProcess, free_port, wait_job

from neocoder.cli import main

SECRET = "sk-test-SECRET-5f1e2d3c4b5a"
REPLAY = {"spec": "replay/gpt-4-1106-preview"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, release_dir):
    """One server for the endpoint tests: the release's examples, small limits; its
    SIGTERM at the end must be graceful (exit 0, its containers removed)."""
    root = tmp_path_factory.mktemp("serve")
    srv = ServerProcess(root / "data", release_dir, "--workers", "2", "--dataset", "release",
                        "--max-body-bytes", "200000", "--max-program-bytes", "20000", "--max-tests", "5",
                        "--allow-endpoint", "127.0.0.1",
                        "--signin-attempts", "1000").start()  # the wrong tokens below must not lock loopback out
    yield srv
    assert srv.stop(), srv.log.read_text()
    assert srv.containers() == []


def test_refuses_to_start_without_tokens_or_off_loopback(tmp_path, release_dir):
    base = [sys.executable, "-m", "neocoder.cli", "serve", "--data-dir", str(tmp_path), "--release", str(release_dir),
            "--port", str(free_port())]
    env = {k: v for k, v in os.environ.items() if k != "NEOCODER_SERVE_TOKENS"}
    no_tokens = subprocess.run(base, capture_output=True, text=True, timeout=120, env=env)
    assert no_tokens.returncode != 0 and "no tokens" in no_tokens.stderr
    exposed = subprocess.run(base + ["--no-auth", "--host", "0.0.0.0"], capture_output=True, text=True, timeout=120,
                             env=env)
    assert exposed.returncode != 0 and "loopback" in exposed.stderr
    short = tmp_path / "tokens.txt"
    short.write_text("abc\n")
    weak = subprocess.run(base + ["--tokens-file", str(short)], capture_output=True, text=True, timeout=120, env=env)
    assert weak.returncode != 0 and "16 characters" in weak.stderr


@pytest.mark.docker
def test_auth_on_every_endpoint_but_healthz(server):
    health = server.call("GET", "/healthz", token=None)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert health.json()["sandbox"]["image"]
    for method, path in [("GET", "/v1/problems"), ("GET", "/v1/problems/1901A/states/0"), ("POST", "/v1/run"),
                         ("POST", "/v1/score"), ("POST", "/v1/evals"), ("GET", "/v1/evals"), ("GET", "/metrics"),
                         ("GET", "/v1/evals/" + "0" * 32), ("DELETE", "/v1/evals/" + "0" * 32),
                         ("GET", "/openapi.json"), ("GET", "/no/such/path")]:
        for token in (None, "wrong-token-0123456789abcdef"):
            answer = server.call(method, path, token=token, json={})
            assert answer.status_code == 401, (method, path, token, answer.text)
            assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert server.call("GET", "/v1/problems", headers={"Authorization": TOKEN}, token=None).status_code == 401
    schema = server.call("GET", "/openapi.json").json()
    assert {"/v1/run", "/v1/score", "/v1/evals", "/v1/evals/{job_id}", "/v1/evals/{job_id}/report",
            "/v1/problems", "/v1/problems/{problem_id}/states/{t}", "/healthz", "/metrics"} <= set(schema["paths"])
    assert "ScoreRequest" in schema["components"]["schemas"]


@pytest.mark.docker
def test_problems_and_states(server, release_dir):
    listing = server.call("GET", "/v1/problems").json()
    assert listing["dataset"] == "release"
    first = listing["problems"][0]
    assert first["problem_id"] == "1901A" and first["states"][0] == 0 and len(listing["problems"]) > 100
    state = server.call("GET", "/v1/problems/1901A/states/1").json()
    assert state["problem_id"] == "1901A" and state["state"] == 1 and state["constraints"]
    assert "DO NOT use" in state["statement"] and state["tests"][0]["output"]
    missing = server.call("GET", "/v1/problems/1901A/states/19")
    assert missing.status_code == 404 and missing.json()["field"] == "state"
    assert server.call("GET", "/v1/problems/9999Z/states/0").json()["field"] == "problem_id"
    bad = server.call("GET", "/v1/problems/1901A/states/x")
    assert bad.status_code == 422 and bad.json()["field"] == "path.t"
    assert server.call("GET", "/v1/problems/..%2Fetc/states/0").status_code in (404, 422)


@pytest.mark.docker
def test_run_verdicts_limits_and_validation(server):
    program = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"
    got = server.call("POST", "/v1/run", json={"program": program, "tests": [
        {"input": "1 2", "output": "3"}, {"input": "2 2", "output": "5"}]}).json()
    assert [t["verdict"] for t in got["tests"]] == ["AC", "WA"] and got["accepted"] is False
    assert got["entry"] == "solve" and got["tests"][1]["stdout_head"] == "4\n"
    just_run = server.call("POST", "/v1/run", json={"program": "print(6 * 7)"}).json()
    assert just_run["tests"][0]["verdict"] == "OK" and just_run["tests"][0]["stdout"] == "42\n"
    assert just_run["accepted"] is None
    crash = server.call("POST", "/v1/run", json={"program": "def solve(:\n", "tests": [{"input": "", "output": ""}]})
    assert crash.json()["compile_error"] and crash.json()["tests"][0]["verdict"] == "RE"

    invalid = server.call("POST", "/v1/run", json={"program": "", "cpu_seconds": -1, "tets": []})
    assert invalid.status_code == 422
    fields = {d["field"] for d in invalid.json()["detail"]}
    assert fields == {"body.program", "body.cpu_seconds", "body.tets"}
    capped = server.call("POST", "/v1/run", json={"program": "print(1)", "cpu_seconds": 31, "memory_mb": 4096})
    # ProgramLimits' caps
    assert {d["field"] for d in capped.json()["detail"]} == {"body.cpu_seconds", "body.memory_mb"}
    assert server.call("POST", "/v1/run", json={"tests": []}).json()["field"] == "body.program"
    assert server.call("POST", "/v1/run", data="program=1", headers={"content-type": "text/plain"}).status_code == 422

    too_big = server.call("POST", "/v1/run", json={"program": "x = 1\n" * 5000})
    assert too_big.status_code == 413 and too_big.json()["field"] == "program"
    huge = server.call("POST", "/v1/run", json={"program": "print(1)", "tests": [{"input": "1" * 250000}]})
    assert huge.status_code == 413 and "body" in huge.json()["detail"]
    chunked = server.call("POST", "/v1/run", data=iter([b'{"program": "', b"x" * 250000, b'"}']),
                          headers={"content-type": "application/json"})
    assert chunked.status_code == 413
    many = server.call("POST", "/v1/run", json={"program": "print(1)", "tests": [{"input": ""}] * 6})
    assert many.status_code == 413 and many.json()["field"] == "tests"


@pytest.mark.docker
def test_score_equals_the_in_process_judge(server, release_dir, sandbox):
    from neocoder.benchmarks.neocoder.pipeline import judge_reply
    from neocoder.benchmarks.neocoder.solve import solve_prompt
    from neocoder.dataset import build_from_release
    from neocoder.models import ReplayKey, get_model
    from neocoder.records import ProblemState, Sample
    from neocoder.techniques.human import human_technique_sets

    state = next(ProblemState.from_dict(r) for r in build_from_release(release_dir)[0]
                 if r["problem_id"] == "1899A" and r["state"] == 1)
    prompt = solve_prompt(state.statement, ReplayKey(state.problem_id, state.state, 0, state.source_index))
    reply = get_model("replay/gpt-4-1106-preview", release_dir=release_dir).generate(prompt)
    local = Sample(problem_id=state.problem_id, state=state.state, sample=0, model="api",
                   constraints=list(state.constraints), prompt_sha256=prompt.sha256())
    judge_reply(local, state, reply, sandbox, human_technique_sets({"1899A"})["1899A"]["techniques"])

    fenced = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 1,
                                                     "reply": f"Here:\n```python\n{reply.text}\n```\n"}).json()
    raw = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 1, "program": reply.text,
                                                  "model": "my-policy"}).json()
    for got in (fenced, raw):
        sample = got["sample"]
        assert sample["type"] == "sample" and sample["prompt_sha256"] == local.prompt_sha256
        assert sample["code"].strip() == local.code.strip()
        assert [t["verdict"] for t in sample["examples"]["tests"]] == local.examples.verdicts
        for key in ("techniques", "violated_constraints", "follows", "human_techniques", "new_techniques",
                    "divergent", "constraints"):
            assert sample[key] == getattr(local, key), key
        scores = got["scores"]
        assert scores["correct"] == local.correct and scores["follows"] == local.follows
        assert scores["convergent"] == float(local.correct and local.follows)
        assert scores["neogauge"] == pytest.approx(scores["convergent"] * local.divergent)
    assert raw["sample"]["model"] == "my-policy"

    wrong = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 0,
                                                    "program": "print('no')"}).json()
    assert wrong["scores"]["correct"] is False and wrong["scores"]["convergent"] == 0.0
    assert {t["verdict"] for t in wrong["sample"]["examples"]["tests"]} == {"WA"}
    fast = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 0, "program": "print('no')",
                                                   "judge_all_tests": False}).json()
    assert fast["scores"] == wrong["scores"]
    assert [t["verdict"] for t in fast["sample"]["examples"]["tests"]][0] == "WA"
    both = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 0, "program": "x", "reply": "x"})
    assert both.status_code == 422 and "exactly one" in both.text
    assert server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 0}).status_code == 422
    nowhere = server.call("POST", "/v1/score", json={"problem_id": "1234Z", "state": 0, "program": "x"})
    assert nowhere.status_code == 404 and nowhere.json()["field"] == "problem_id"
    assert server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": -1, "program": "x"}
                       ).json()["field"] == "body.state"
    big = server.call("POST", "/v1/score", json={"problem_id": "1899A", "state": 0, "reply": "y = 2\n" * 4000})
    assert big.status_code == 413 and big.json()["field"] == "reply"

    metrics = server.call("GET", "/metrics").text
    assert re.search(r'neocoder_verdicts_total\{endpoint="score",verdict="WA"\} [1-9]', metrics)
    assert 'neocoder_judge_seconds_bucket{endpoint="score"' in metrics
    assert re.search(r'neocoder_http_requests_total\{method="POST",route="/v1/score",status="200"\} [1-9]', metrics)
    assert "neocoder_judge_queue_depth 0.0" in metrics and 'neocoder_eval_jobs{status="queued"}' in metrics


@pytest.mark.docker
def test_full_queue_and_per_token_limit_answer_429(tmp_path, release_dir):
    srv = ServerProcess(tmp_path / "data", release_dir, "--workers", "1", "--queue", "0",
                        "--per-token-concurrency", "1", "--dataset", "release").start()
    try:
        slow = {"program": "while True:\n    pass\n", "cpu_seconds": 2, "tests": [{"input": "", "output": ""}]}
        first = {}
        thread = threading.Thread(target=lambda: first.update(answer=srv.call("POST", "/v1/run", json=slow)))
        thread.start()
        deadline = time.monotonic() + 60
        while "neocoder_judge_in_flight 1.0" not in srv.call("GET", "/metrics").text:
            assert time.monotonic() < deadline and thread.is_alive(), "the slow request never started judging"
            time.sleep(0.05)
        mine = srv.call("POST", "/v1/run", json={"program": "print(1)"})
        assert mine.status_code == 429 and "token" in mine.json()["detail"]
        assert int(mine.headers["Retry-After"]) >= 1
        others = srv.call("POST", "/v1/run", json={"program": "print(1)"}, token=OTHER)
        assert others.status_code == 429 and "queue is full" in others.json()["detail"]
        assert int(others.headers["Retry-After"]) >= 1
        thread.join(120)
        assert first["answer"].status_code == 200 and first["answer"].json()["tests"][0]["verdict"] == "TLE"
        assert srv.call("POST", "/v1/run", json={"program": "print(1)"}, token=OTHER).status_code == 200
        assert 'neocoder_rejected_requests_total{reason="busy"} 2.0' in srv.call("GET", "/metrics").text
    finally:
        assert srv.stop(), srv.log.read_text()


def _records(run: Path) -> list[str]:
    path = run / "records.jsonl"
    return path.read_text().splitlines() if path.is_file() else []


@pytest.mark.docker
def test_eval_job_survives_kill_9_and_matches_an_uninterrupted_job(tmp_path, release_dir):
    data = tmp_path / "data"
    request = {"model": REPLAY, "limit": 3, "states": [0, 1], "dataset": "release"}
    first = ServerProcess(data, release_dir, "--workers", "1").start()
    job = first.call("POST", "/v1/evals", json=request)
    assert job.status_code == 202 and job.headers["Location"] == f"/v1/evals/{job.json()['id']}"
    job_id = job.json()["id"]
    assert re.fullmatch(r"[0-9a-f]{32}", job_id) and job.json()["status"] in ("queued", "running")
    run = data / "runs" / job_id
    deadline = time.monotonic() + 300
    while not _records(run):
        assert time.monotonic() < deadline, first.log.read_text()
        time.sleep(0.02)
    first.kill()
    before = _records(run)
    assert not (run / "metrics.json").exists(), "the job ended before the kill: nothing was interrupted"
    assert 1 <= len(before) < 6
    with sqlite3.connect(data / "jobs.sqlite") as db:
        assert db.execute("select status from jobs where id = ?", (job_id,)).fetchone() == ("running",)

    second = ServerProcess(data, release_dir, "--workers", "1").start()
    try:
        assert job_id in [j["id"] for j in second.call("GET", "/v1/evals").json()["jobs"]]
        assert second.call("GET", "/v1/evals", token=OTHER).json()["jobs"] == []  # a job is its token's
        assert second.call("GET", f"/v1/evals/{job_id}", token=OTHER).status_code == 404
        resumed = wait_job(second, job_id)
        assert resumed["status"] == "succeeded" and resumed["attempts"] == 2, resumed
        after = _records(run)
        keys = [(r["problem_id"], r["state"], r["sample"]) for r in map(json.loads, after)]
        assert len(after) == 6 and len(set(keys)) == 6, "a sample was judged twice or lost"
        assert after[:len(before)] == before
        assert resumed["progress"] == {"done": 6, "total": 6}

        again = wait_job(second, second.call("POST", "/v1/evals", json=request).json()["id"])
        assert again["status"] == "succeeded" and again["attempts"] == 1
        assert resumed["metrics"] == again["metrics"]
        assert set(resumed["metrics"]["states"]) == {"0", "1"} and "intervals" in resumed["metrics"]["states"]["0"]

        page = second.call("GET", f"/v1/evals/{job_id}/report")
        assert page.status_code == 200 and "NeoCoder report" in page.text
        sample_page = re.search(r'href="(run1-[^"]+\.html)"', page.text).group(1)
        assert second.call("GET", f"/v1/evals/{job_id}/report/{sample_page}").status_code == 200
        assert second.call("GET", f"/v1/evals/{job_id}/report/..%2Fjobs.sqlite").status_code in (404, 422)
        assert second.call("DELETE", f"/v1/evals/{job_id}").status_code == 409
        assert second.call("GET", "/v1/evals/../../etc").status_code in (404, 422)
        assert second.call("GET", "/v1/evals/NOT-AN-ID").json()["field"] == "path.job_id"

        doomed = second.call("POST", "/v1/evals", json={**request, "limit": 50}).json()["id"]
        assert second.call("DELETE", f"/v1/evals/{doomed}").status_code == 202
        cancelled = wait_job(second, doomed)
        assert cancelled["status"] == "cancelled" and not (data / "runs" / doomed / "metrics.json").exists()
        assert second.call("POST", f"/v1/evals/{doomed}/resume", json={}).status_code == 202
        assert second.call("DELETE", f"/v1/evals/{doomed}").status_code == 202
        assert wait_job(second, doomed)["status"] == "cancelled"
    finally:
        assert second.stop(), second.log.read_text()


@pytest.mark.docker
def test_eval_requests_validated_and_api_keys_never_stored(server):
    refused = server.call("POST", "/v1/evals", json={"model": {"spec": "replay/" + str(server.data_dir)}})
    assert refused.status_code == 422 and refused.json()["field"] == "body.model.spec"
    no_endpoint = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/gpt-4o", "api_key": SECRET}})
    assert no_endpoint.status_code == 422 and SECRET not in no_endpoint.text
    for bad, field in [({"model": REPLAY, "states": [99]}, "body.states.0"), ({"model": REPLAY, "limit": 0},
                       "body.limit"), ({"model": REPLAY, "strategy": "beam-search"}, "body.strategy"),
                       ({"model": REPLAY, "dataset": "/etc"}, "body.dataset"), ({"modle": REPLAY}, "body.model")]:
        answer = server.call("POST", "/v1/evals", json=bad)
        assert answer.status_code == 422 and field in {d["field"] for d in answer.json()["detail"]}, (bad, answer.text)

    dead = f"http://127.0.0.1:{free_port()}/v1"
    job = server.call("POST", "/v1/evals", json={
        "model": {"spec": "openai/some-model", "base_url": dead, "api_key": SECRET, "max_retries": 0, "timeout": 5},
        "limit": 1, "states": [0], "dataset": "release"}).json()
    assert "api_key" not in json.dumps(job["request"]) and SECRET not in json.dumps(job)
    ended = wait_job(server, job["id"])
    assert ended["status"] == "failed" and ended["error"], ended
    resume = server.call("POST", f"/v1/evals/{job['id']}/resume", json={})
    assert resume.status_code == 409 and "API key" in resume.json()["detail"]
    again = server.call("POST", f"/v1/evals/{job['id']}/resume", json={"api_key": SECRET})
    assert again.status_code == 202 and SECRET not in again.text
    assert wait_job(server, job["id"])["attempts"] == 2
    for path in Path(server.data_dir).rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in server.log.read_text()


@pytest.mark.docker
def test_eval_through_server_equals_local(server, tmp_path, release_dir):
    args = ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "2", "--states", "0-1", "--release",
            str(release_dir), "--quiet"]
    local = CliRunner().invoke(main, args + ["--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    remote = CliRunner().invoke(main, args + ["--server", server.url, "--token", TOKEN])
    assert remote.exit_code == 0, remote.output
    table = local.output.rsplit("wall time", 1)[0]
    assert "NeoGauge" in table and remote.output.rsplit("wall time", 1)[0] == table
    assert f"on {server.url}; report {server.url}/v1/evals/" in remote.output
    job_id = re.search(r"job ([0-9a-f]{32})", remote.output).group(1)
    served = json.loads((server.data_dir / "runs" / job_id / "metrics.json").read_text())
    assert served["states"] == json.loads((tmp_path / "local" / "metrics.json").read_text())["states"]

    from neocoder.client import Client
    out = Client(server.url, TOKEN).report(job_id, tmp_path / "report")
    assert out.is_file() and (tmp_path / "report" / "report.css").is_file()
    assert any(p.name.startswith("run1-") for p in (tmp_path / "report").iterdir())
    wrong = CliRunner().invoke(main, args + ["--server", server.url, "--token", "wrong-token-0123456789abcdef"])
    assert wrong.exit_code != 0 and "401" in wrong.output


@pytest.mark.docker
def test_cpp_through_run_and_score_and_the_in_process_scorer(server, release_dir):
    """Issue 49: /v1/run and /v1/score judge C++ with ``language: cpp`` (compiled, CE on a
    compile failure, detected with the C++ grammar), and the RL Scorer gives the same scores."""
    from neocoder.rewards.batch import Scorer
    from neocoder.techniques import detect
    from neocoder.techniques.human import solutions_by_language
    ab = "#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a + b); }\n"
    got = server.call("POST", "/v1/run", json={"program": ab, "language": "cpp", "tests": [
        {"input": "1 2", "output": "3"}, {"input": "2 2", "output": "5"}]}).json()
    assert [t["verdict"] for t in got["tests"]] == ["AC", "WA"] and got["compile_error"] is None
    broken = server.call("POST", "/v1/run", json={"program": "int main( {", "language": "cpp", "tests": [
        {"input": "", "output": ""}, {"input": "1", "output": "1"}]}).json()
    assert [t["verdict"] for t in broken["tests"]] == ["CE", "CE"] and broken["compile_error"]
    as_python = server.call("POST", "/v1/run", json={"program": ab, "tests": [{"input": "1 2", "output": "3"}]})
    assert as_python.json()["tests"][0]["verdict"] == "RE"  # the default language is Python
    bad = server.call("POST", "/v1/run", json={"program": ab, "language": "ruby"})
    assert bad.status_code == 422 and {d["field"] for d in bad.json()["detail"]} == {"body.language"}

    code = next(src for lang, src in solutions_by_language(release_dir, ["1701A"])["1701A"] if lang == "cpp")
    scored = server.call("POST", "/v1/score", json={"problem_id": "1701A", "state": 0, "language": "cpp",
                                                     "reply": f"Mine:\n```cpp\n{code}\n```\n"}).json()
    sample = scored["sample"]
    assert scored["scores"]["correct"] is True and sample["techniques"] == sorted(detect(code, "cpp"))
    assert sample["code"].strip() == code.strip()
    with Scorer(language="cpp") as scorer:
        (result,) = list(scorer.score([{"problem_id": "1701A", "state": 0, "program": code}]))
    assert result.scores["correct"] is True and result.sample["techniques"] == sample["techniques"]
