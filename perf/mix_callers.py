"""The callers of perf/hostile_mix.py: well-behaved ones that count every answer (reward
batches, single programs, eval jobs) and hostile ones that only press on the server
(abandoned slow programs, huge outputs, oversized bodies, wrong bearer tokens).

Every well-behaved call is tallied in a ``Tally``: its latency (from the first attempt to
the last byte of the answer, 429 retries included, as the caller lives it), the units it
got (batch items, requests, jobs), and what went wrong: ``lost`` (answered, but without a
result it asked for: a batch item missing from the stream, an error status, a job that did
not succeed), ``duplicated`` (a result given twice: a batch index seen twice, a job id
handed out twice), ``unanswered`` (no answer within the caller's patience, or the
connection broke).  An unanswered call's latency is counted as its patience (a lower
bound), so starving a caller shows in its p99.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import Counter

import numpy as np
import requests

SLEEPER = "import time\ntime.sleep(10000)\n"  # no CPU: only the wall backstop stops it
COMPILE_HANG = '#include "/dev/stdout"\nint main() { return 0; }\n'  # g++ waits on its own stdout
PRINT_ONE = {"program": "print(1)", "tests": [{"input": "", "output": "1"}]}
TERMINAL = ("succeeded", "failed", "cancelled", "paused")


def auth(token: str) -> dict:
    """The bearer header of ``token``."""
    return {"Authorization": f"Bearer {token}"}


class Tally:
    """What one class of well-behaved callers got in one phase (see the module docstring)."""

    def __init__(self, name: str, unit: str):
        self.name, self.unit = name, unit
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.units = self.calls = self.lost = self.duplicated = self.unanswered = self.retried = 0
        self.errors: list[str] = []
        self.started = time.monotonic()
        self.ended = self.started

    def record(self, latency: float, units: int, lost: int = 0, duplicated: int = 0, error: str = "") -> None:
        """One call answered: ``units`` results got, ``lost`` and ``duplicated`` of them wrong."""
        with self.lock:
            self.calls += 1
            self.latencies.append(latency)
            self.units += units
            self.lost += lost
            self.duplicated += duplicated
            self.ended = max(self.ended, time.monotonic())
            if error and len(self.errors) < 5:
                self.errors.append(error)

    def unanswer(self, latency: float, error: str) -> None:
        """One call with no answer (timed out or broken) after ``latency`` seconds."""
        with self.lock:
            self.calls += 1
            self.unanswered += 1
            self.latencies.append(latency)
            self.ended = max(self.ended, time.monotonic())
            if len(self.errors) < 5:
                self.errors.append(error)

    def summary(self) -> dict:
        """Units, units/s over the phase's wall (start to the last answer), p50/p99 latency (s)."""
        wall = max(1e-9, self.ended - self.started)
        lat = np.array(self.latencies) if self.latencies else np.array([float("nan")])
        return {"units": self.units, "calls": self.calls, "wall": wall, "rate": self.units / wall,
                "p50": float(np.percentile(lat, 50)), "p99": float(np.percentile(lat, 99)),
                "lost": self.lost, "duplicated": self.duplicated, "unanswered": self.unanswered,
                "retried": self.retried}


def post_admitted(session: requests.Session, url: str, token: str, body: dict, tally: Tally, patience: float,
                  **kwargs) -> requests.Response:
    """POST ``body`` until it is not a 429 (waiting each answer's Retry-After, as
    neocoder.client does); raises requests' errors."""
    while True:
        answer = session.post(url, json=body, headers=auth(token), timeout=(10, patience), **kwargs)
        if answer.status_code != 429:
            return answer
        with tally.lock:
            tally.retried += 1
        answer.close()
        time.sleep(min(5.0, float(answer.headers.get("Retry-After", "1"))))


def trainer_batch(session: requests.Session, url: str, token: str, items: list[dict], tally: Tally,
                  patience: float) -> None:
    """One reward batch (``/v1/score`` ``items``, an NDJSON stream): every index must come
    exactly once."""
    started = time.monotonic()
    try:
        answer = post_admitted(session, url + "/v1/score", token, {"items": items, "judge_all_tests": False},
                               tally, patience, stream=True)
        if answer.status_code != 200:
            tally.record(time.monotonic() - started, 0, lost=len(items),
                         error=f"batch: HTTP {answer.status_code} {answer.text[:200]}")
            return
        seen = Counter(json.loads(line)["index"] for line in answer.iter_lines() if line)
    except (requests.RequestException, ValueError) as exc:
        tally.unanswer(time.monotonic() - started, f"batch: {type(exc).__name__}: {exc}")
        return
    got = sum(1 for i in range(len(items)) if seen[i])
    extra = sum(n - 1 for n in seen.values() if n > 1) + sum(n for i, n in seen.items() if not 0 <= i < len(items))
    tally.record(time.monotonic() - started, got, lost=len(items) - got, duplicated=extra,
                 error=f"batch: indexes {sorted(seen.elements())} of {len(items)}" if got < len(items) or extra else "")


def probe_run(session: requests.Session, url: str, token: str, tally: Tally, patience: float) -> None:
    """One ``print(1)`` on ``/v1/run``: must be answered 200 with AC."""
    started = time.monotonic()
    try:
        answer = post_admitted(session, url + "/v1/run", token, PRINT_ONE, tally, patience)
        verdicts = [t["verdict"] for t in answer.json()["tests"]] if answer.status_code == 200 else []
    except (requests.RequestException, ValueError, KeyError) as exc:
        tally.unanswer(time.monotonic() - started, f"run: {type(exc).__name__}: {exc}")
        return
    ok = verdicts == ["AC"]
    tally.record(time.monotonic() - started, int(ok), lost=int(not ok),
                 error="" if ok else f"run: HTTP {answer.status_code} {verdicts or answer.text[:200]}")


def eval_job(session: requests.Session, url: str, token: str, body: dict, tally: Tally, patience: float,
             ids: set) -> None:
    """One eval job, submitted and polled until it ends: it must succeed with every sample
    done (at least one), under an id never handed out before."""
    started = time.monotonic()
    try:
        answer = post_admitted(session, url + "/v1/evals", token, body, tally, patience)
        if answer.status_code != 202:
            tally.record(time.monotonic() - started, 0, lost=1, error=f"eval: HTTP {answer.status_code} "
                                                                      f"{answer.text[:200]}")
            return
        job = answer.json()
        with tally.lock:
            duplicated = int(job["id"] in ids)
            ids.add(job["id"])
        while job["status"] not in TERMINAL:
            if time.monotonic() - started > patience:
                raise requests.Timeout(f"job {job['id']} still {job['status']} after {patience:.0f} s")
            time.sleep(1.0)
            job = session.get(f"{url}/v1/evals/{job['id']}", headers=auth(token), timeout=(10, patience)).json()
    except (requests.RequestException, ValueError, KeyError) as exc:
        tally.unanswer(time.monotonic() - started, f"eval: {type(exc).__name__}: {exc}")
        return
    progress = job.get("progress") or {}
    ok = job["status"] == "succeeded" and progress.get("total", 0) >= 1 and progress.get("done") == progress["total"]
    tally.record(time.monotonic() - started, int(ok), lost=int(not ok), duplicated=duplicated,
                 error="" if ok else f"eval: {job['status']} {progress} {job.get('error')}")


class Hostile:
    """The hostile callers' outcomes: ``counts[kind][outcome]`` (an HTTP status, or what the
    client did), plus the bytes the huge outputs sent back."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts: dict[str, Counter] = {}
        self.bytes = 0

    def count(self, kind: str, outcome) -> None:
        """One hostile call of ``kind`` ended in ``outcome``."""
        with self.lock:
            self.counts.setdefault(kind, Counter())[str(outcome)] += 1


def abandon(url: str, token: str, body: dict, leave_after: float, hostile: Hostile, kind: str,
            path: str = "/v1/run") -> None:
    """Send ``body`` to ``path`` and hang up after ``leave_after`` seconds (the connection
    is closed with the session)."""
    with requests.Session() as session:
        try:
            answer = session.post(url + path, json=body, headers=auth(token), timeout=(10, leave_after))
            hostile.count(kind, answer.status_code)  # answered before the client left
        except requests.RequestException as exc:  # a timeout while the body streams is a ConnectionError
            left = isinstance(exc, requests.Timeout) or "timed out" in str(exc)
            hostile.count(kind, "left" if left else type(exc).__name__)


def huge_output(url: str, token: str, tests: int, mib: int, hostile: Hostile) -> None:
    """A program printing ``mib`` MiB on each of ``tests`` tests without expected output
    (its whole stdout comes back); the answer is read and thrown away."""
    body = {"program": f"import sys\nsys.stdout.write('x' * ({mib} << 20))\n", "tests": [{"input": ""}] * tests}
    with requests.Session() as session:
        try:
            answer = session.post(url + "/v1/run", json=body, headers=auth(token), timeout=(10, 300), stream=True)
            size = sum(len(chunk) for chunk in answer.iter_content(1 << 20))
            with hostile.lock:
                hostile.bytes += size
            hostile.count("huge output", answer.status_code)
        except requests.RequestException as exc:
            hostile.count("huge output", type(exc).__name__)


def oversized(url: str, token: str, mib: int, hostile: Hostile) -> None:
    """A ``/v1/run`` body of ``mib`` MiB (past --max-body-bytes): 413 expected."""
    body = json.dumps({"program": "#" * (mib << 20), "tests": []})
    try:
        answer = requests.post(url + "/v1/run", data=body, timeout=(10, 60),
                               headers={**auth(token), "content-type": "application/json"})
        hostile.count("oversized body", answer.status_code)
    except requests.RequestException as exc:  # the server may close before the body is sent
        hostile.count("oversized body", type(exc).__name__)


def wrong_token(session: requests.Session, url: str, hostile: Hostile) -> None:
    """``GET /v1/problems`` with a bearer token the server never issued."""
    try:
        answer = session.get(url + "/v1/problems", headers=auth(secrets.token_hex(24)), timeout=(10, 60))
        hostile.count("wrong token", answer.status_code)
    except requests.RequestException as exc:
        hostile.count("wrong token", type(exc).__name__)
