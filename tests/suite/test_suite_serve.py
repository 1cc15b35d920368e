"""A suite as a job of ``neocoder serve`` (``POST /v1/runs {"task": "suite"}``): its
stand-in and judges go through the operator's endpoint policy like any model, it writes
one run folder on the server, and its owner's browser session sees its benchmarks'
downloads; plus the browser sessions' own rules (expiry, sign-out, CSRF comparison)."""

from __future__ import annotations

import pytest
from servers import TOKEN, Served
from suite_model import SuiteModel
from suite_runs import liveideabench_dir

from neocoder.client import Client, ServerError
from neocoder.serve.web.sessions import Sessions, same


def test_a_session_expires_ends_at_sign_out_and_csrf_values_must_match():
    sessions = Sessions(seconds=3600)
    sid, session = sessions.create("t-abc")
    assert sessions.get(sid) is session and session.caller == "t-abc"
    assert sessions.get("forged") is None and sessions.get(None) is None
    sessions.drop(sid)
    assert sessions.get(sid) is None
    expired = Sessions(seconds=0)  # every session is past its expiry at once
    sid, _ = expired.create("t-abc")
    assert expired.get(sid) is None
    assert same(session.csrf, session.csrf) and not same("", session.csrf) and not same(None, session.csrf)
    assert not same(session.csrf[:-1] + "x", session.csrf)


@pytest.fixture
def served(tmp_path, release_dir, monkeypatch):
    """The real app on uvicorn in this process (servers.Served), loopback endpoints allowed (the stand-in)."""
    monkeypatch.setenv("LIVEIDEABENCH_DIR", liveideabench_dir())
    server = Served(tmp_path, release_dir, dataset=None, allow_endpoint=["127.0.0.1"])
    yield Client(server.url, TOKEN), tmp_path / "data"
    server.stop()


def test_a_suite_job_with_a_stand_in_and_judges_through_the_api(served):
    client, data = served
    model = SuiteModel()
    try:
        def spec(name: str) -> dict:
            return {"spec": name, "base_url": model.url}
        config = {"model": spec("openai/writer"), "judges": [spec("openai/j1"), spec("openai/j22")],
                  "benchmarks": ["aidanbench", "ideas"], "embedder": "openai/embed", "bootstrap": 200}
        with pytest.raises(ServerError) as refused:
            client.submit_run("suite", {**config, "stand_in": {"spec": "openai/x", "base_url": "http://10.1.2.3/v1"}})
        assert refused.value.status == 422 and "config.stand_in.base_url" in str(refused.value)
        with pytest.raises(ServerError) as provider:
            client.submit_run("suite", {**config, "judges": [{"spec": "local/gemma-3-270m"}]})
        assert provider.value.status == 422 and "config.judges.0.spec" in str(provider.value)

        job = client.submit_run("suite", config)
        ended = client.wait(job["id"], poll=0.2, run=True)
    finally:
        model.close()
    assert ended["status"] == "succeeded", ended
    assert ended["progress"]["done"] == 2  # one step per benchmark
    profile = ended["metrics"]
    assert profile["model"] == "openai/writer" and set(profile["benchmarks"]) == {"aidanbench", "ideas"}
    assert all(m["value"] is not None for m in profile["measures"])
    run = data / "runs" / job["id"]
    assert (run / "calls.jsonl").is_file() and (run / "aidanbench" / "metrics.json").is_file()
    assert model.calls() > 0 and max(model.answered.values()) == 1


def browser_session(base: str, token: str):
    """An HTTP client with a cookie jar, signed in through the form (CSRF value read from
    the page, as a browser would post it)."""
    import http.cookiejar
    import re
    import urllib.parse
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(base + "/web/signin").read().decode()
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    body = urllib.parse.urlencode({"csrf": csrf, "token": token}).encode()
    home = opener.open(base + "/web/signin", data=body).read().decode()
    assert "signed in as" in home
    return opener


def test_a_suite_jobs_page_offers_its_report_and_each_benchmarks_parquet(served):
    import io

    import pyarrow.parquet as pq
    client, _ = served
    model = SuiteModel()
    try:
        def spec(name: str) -> dict:
            return {"spec": name, "base_url": model.url}
        job = client.submit_run("suite", {"model": spec("openai/writer"),
                                          "judges": [spec("openai/j1"), spec("openai/j22")],
                                          "benchmarks": ["aidanbench", "ideas"], "embedder": "openai/embed",
                                          "bootstrap": 200})
        assert client.wait(job["id"], poll=0.2, run=True)["status"] == "succeeded"
    finally:
        model.close()
    browser = browser_session(client.url, client.token)
    page = browser.open(f"{client.url}/web/jobs/{job['id']}").read().decode()
    assert "aidanbench.parquet" in page and "ideas.parquet" in page and "report/index.html" in page
    report = browser.open(f"{client.url}/web/jobs/{job['id']}/report/index.html").read().decode()
    assert "AidanBench" in report and "LiveIdeaBench" in report
    data = browser.open(f"{client.url}/web/jobs/{job['id']}/data/ideas.parquet").read()
    table = pq.read_table(io.BytesIO(data))
    assert {"idea", "idea_judgement"} <= set(table.column("type").to_pylist())
