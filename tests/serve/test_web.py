"""The browser UI of ``neocoder serve``, driven in headless Chromium over the DevTools
protocol against a real server on loopback: the public leaderboard at ``/``, sign-in (an
HttpOnly, SameSite=Strict session cookie), a replay job submitted from the form with its
progress advancing live (server-sent events), its report, sorting, sign-out; a second
token's browser sees none of the first's job (404); forms without the CSRF token are
refused (403); the JSON API is unchanged.

The job is held in the queue by another token's job whose model (a scripted endpoint on
loopback, tests/support/suite_model.py) answers only when the test says: the page is open while
the job is still queued, so it must show the progress advance from 0 to the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cdp import Chromium
from checkout import CHECKOUT
from suite_model import SuiteModel
from suite_runs import liveideabench_dir, make_runs

from neocoder.models.local import free_port

TOKEN_A, TOKEN_B = "a" * 20 + "-first-caller", "b" * 20 + "-second-caller"


def api(base: str, path: str, token: str | None = None, body: dict | None = None) -> tuple[int, dict | str]:
    """``(status, JSON or text)`` of one JSON API call."""
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              **({"authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            raw, status = r.read().decode(), r.status
    except urllib.error.HTTPError as exc:
        raw, status = exc.read().decode(), exc.code
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw


@pytest.fixture
def server(tmp_path, release_dir):
    """A real ``neocoder serve`` on loopback with two tokens and two public suite runs."""
    gpt4, _ = make_runs(tmp_path / "public", release_dir)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"{TOKEN_A}\n{TOKEN_B}\n")
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT), LIVEIDEABENCH_DIR=liveideabench_dir())
    proc = subprocess.Popen([sys.executable, "-m", "neocoder.cli", "serve", "--tokens-file", str(tokens), "--port",
                             str(port), "--data-dir", str(tmp_path / "data"), "--public-run", str(gpt4.parent),
                             "--allow-endpoint", "127.0.0.1", "--jobs", "1", "--workers", "2", "--log-level",
                             "warning"], env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "serve.log", "w"))
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while not (_up(base) and api(base, "/healthz")[0] == 200):
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.3)
    yield base
    proc.send_signal(signal.SIGTERM)
    proc.wait(120)


def _up(base: str) -> bool:
    try:
        urllib.request.urlopen(base + "/healthz", timeout=2)
        return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def sign_in(page, base: str, token: str) -> None:
    page.goto(base + "/web/signin")
    page.evaluate(f"document.getElementById('token').value = {json.dumps(token)}; "
                  "document.getElementById('signin-button').click()")
    page.wait_for("location.pathname === '/' && document.getElementById('who') !== null", what="signed in")


def status_of(page, path: str, method: str = "GET", body: str | None = None) -> int:
    """The HTTP status a same-origin fetch from ``page`` gets (the page's cookies sent)."""
    options = {"method": method, "redirect": "manual"}
    if body is not None:
        options.update(body=body, headers={"content-type": "application/x-www-form-urlencoded"})
    return page.evaluate(f"fetch({json.dumps(path)}, {json.dumps(options)}).then(r => r.status)", awaited=True)


def hold_the_queue(base: str, gate: SuiteModel) -> None:
    """Queue the second token's job whose model (``gate``) answers nothing until released,
    and wait until it is running and waiting on it: the server's one job thread is busy."""
    status, held = api(base, "/v1/evals", TOKEN_B, {"model": {"spec": "openai/gate", "base_url": gate.url,
                                                               "api_key": "k", "max_retries": 0, "timeout": 900},
                                                     "limit": 1, "states": [0]})
    assert status == 202, held
    deadline = time.monotonic() + 300
    while gate.waiting < 1:
        assert time.monotonic() < deadline, "the gate job never called its model"
        time.sleep(0.2)


def submit_and_watch(page, base: str, gate: SuiteModel) -> str:
    """Sign in, submit a replay eval from the form, and watch its page from queued to
    succeeded; returns the job's id."""
    page.goto(base + "/")
    assert page.evaluate("document.getElementById('signin-link') !== null")
    assert page.evaluate("document.querySelectorAll('#board tbody tr[data-published=\"0\"]').length") == 2
    sign_in(page, base, TOKEN_A)
    cookie = next(c for c in page.cookies() if c["name"] == "neocoder_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["expires"] > time.time()
    assert TOKEN_A not in json.dumps(page.cookies())

    page.evaluate("document.getElementById('kind').value = 'eval';"
                  "document.getElementById('model').value = 'replay/gpt-4-1106-preview';"
                  "document.getElementById('limit').value = '2';"
                  "document.getElementById('submit-button').click()")
    page.wait_for("location.pathname.startsWith('/web/jobs/') && document.getElementById('status') !== null",
                  what="the job's page")
    job_id = page.evaluate("location.pathname.split('/')[3]")
    assert page.evaluate("document.getElementById('status').textContent") == "queued"
    gate.release()  # the held job ends; ours runs, and its page follows it live
    page.wait_for("document.getElementById('status').textContent === 'succeeded'", what="the job succeed")
    seen = [int(v) for v in page.evaluate("document.getElementById('progress').dataset.seen").split(",")]
    total = api(base, f"/v1/evals/{job_id}", TOKEN_A)[1]["progress"]["total"]
    assert seen[0] == 0 and seen[-1] == total and total >= 6 and seen == sorted(seen) and len(set(seen)) >= 2, seen
    assert page.evaluate("document.getElementById('cancel-form').hidden") is True
    assert page.evaluate("document.getElementById('finished').hidden") is False
    return job_id


def report_and_sort(page, base: str, job_id: str) -> None:
    """Open the job's Parquet and report, then sort the leaderboard at / by originality."""
    report = page.evaluate("document.getElementById('report-link').href")
    parquet = page.evaluate("document.querySelector('a.download').getAttribute('href')")
    assert status_of(page, parquet) == 200
    page.goto(report)
    page.wait_for("document.body.innerText.includes('NeoGauge')", what="the report")
    page.goto(base + "/")
    assert page.evaluate(f"document.querySelector('#jobs tr[data-job=\"{job_id}\"]') !== null")
    page.evaluate("document.querySelector('th[data-col=\"ideas.originality\"]').click()")
    values = page.evaluate("[...document.querySelectorAll('#board tbody tr')].map(r => "
                           "r.querySelector('td[data-col=\"ideas.originality\"]').dataset.value)")
    numbers = [float(v) for v in values if v != ""]
    assert len(numbers) > 2 and numbers == sorted(numbers, reverse=True)
    assert values[:len(numbers)] == [v for v in values if v != ""]  # unmeasured rows last


def second_caller_is_refused(browser, base: str, job_id: str) -> None:
    """A second token's browser sees none of the first's job; forms without the CSRF token
    (or with a forged one) are refused and change nothing; a sign-in without it too."""
    second = browser.page(isolated=True)
    sign_in(second, base, TOKEN_B)
    for path in (f"/web/jobs/{job_id}", f"/web/jobs/{job_id}/report/index.html", f"/web/jobs/{job_id}/events",
                 f"/web/jobs/{job_id}/data/samples.parquet"):
        assert status_of(second, path) == 404, path
    second.goto(base + "/")
    assert second.evaluate(f"document.querySelector('#jobs tr[data-job=\"{job_id}\"]')") is None
    assert api(base, f"/v1/evals/{job_id}", TOKEN_B)[0] == 404
    assert api(base, f"/v1/evals/{job_id}/report", TOKEN_B)[0] == 404

    jobs_before = len(api(base, "/v1/evals", TOKEN_B)[1]["jobs"])
    form = "kind=eval&model=replay%2Fgpt-4-1106-preview&limit=1"
    assert status_of(second, "/web/jobs", "POST", form) == 403
    assert status_of(second, "/web/jobs", "POST", form + "&csrf=forged") == 403
    assert status_of(second, "/web/signout", "POST", "") == 403
    assert status_of(second, f"/web/jobs/{job_id}/cancel", "POST", "") == 403
    assert len(api(base, "/v1/evals", TOKEN_B)[1]["jobs"]) == jobs_before
    stranger = browser.page(isolated=True)
    stranger.goto(base + "/")
    assert status_of(stranger, "/web/signin", "POST", f"token={TOKEN_A}") == 403
    assert not any(c["name"] == "neocoder_session" for c in stranger.cookies())


@pytest.mark.docker
def test_browser_signs_in_submits_watches_progress_reads_report_sorts_and_signs_out(server, tmp_path):
    base = server
    gate = SuiteModel(hold_after=0)  # answers nothing until released: the second token's job holds the queue
    browser = Chromium(tmp_path / "profile")
    try:
        hold_the_queue(base, gate)
        first = browser.page(isolated=True)
        job_id = submit_and_watch(first, base, gate)
        shots = [first.screenshot(tmp_path / "job.png")]
        report_and_sort(first, base, job_id)
        shots.append(first.screenshot(tmp_path / "home.png"))
        second_caller_is_refused(browser, base, job_id)

        # sign out: the cookie goes, and the job's page with it
        first.evaluate("document.getElementById('signout').click()")
        first.wait_for("document.getElementById('signin-link') !== null", what="signed out")
        assert not any(c["name"] == "neocoder_session" for c in first.cookies())
        assert status_of(first, f"/web/jobs/{job_id}") == 404
        # the JSON API as it was: bearer tokens, no cookies
        assert api(base, f"/v1/evals/{job_id}", TOKEN_A)[1]["status"] == "succeeded"
        assert api(base, "/v1/evals")[0] == 401
    finally:
        browser.close()
        gate.close()
    copy = os.environ.get("NEOCODER_SCREENSHOT_DIR")
    if copy:
        for png in shots:
            (Path(copy) / f"serve-{png.name}").write_bytes(png.read_bytes())
