"""A small Python client of ``neocoder serve`` (docs/serve.md), on requests.

    from neocoder.client import Client
    server = Client("http://127.0.0.1:8000", token="...")
    server.score("1901A", 0, program=open("solution.py").read())["scores"]
    job = server.submit_eval({"model": {"spec": "replay/gpt-4-1106-preview"}, "limit": 3})
    server.wait(job["id"])["metrics"]

``evaluate(EvalConfig)`` runs an ``EvalConfig`` on the server as ``neocoder eval --server``
does.  Every answer that is not a success raises ServerError with the server's message;
a 429 is retried after its ``Retry-After`` (``busy_retries`` times) before it raises.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from neocoder.benchmarks.neocoder.config import EvalConfig, dataset_name
from neocoder.config import Config
from neocoder.errors import NeocoderError
from neocoder.options import names_a_path, sent

TOKEN_ENV = "NEOCODER_TOKEN"
ENDED = ("succeeded", "failed", "cancelled", "paused")


class ServerError(NeocoderError):
    """The server answered with an error (``status``), or could not be reached (status None)."""

    def __init__(self, status: int | None, message: str):
        self.status = status
        super().__init__(message)


@dataclass
class RemoteEval:
    """What ``Client.evaluate`` returns: the job as the server shows it, its metrics
    (metrics.json), the wall time in seconds, and the report's URL."""

    job: dict
    metrics: dict
    seconds: float
    report_url: str


class Client:
    """Calls to one server.  ``token`` defaults to ``$NEOCODER_TOKEN``; ``timeout`` is
    seconds per HTTP request.  One client per thread (a requests session each)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 300.0, busy_retries: int = 3):
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get(TOKEN_ENV)
        self.timeout, self.busy_retries = timeout, busy_retries
        self.session = requests.Session()
        if self.token:
            self.session.headers["Authorization"] = f"Bearer {self.token}"

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        """One HTTP request; raises ServerError for an error answer or an unreachable server."""
        for attempt in range(self.busy_retries + 1):
            try:
                answer = self.session.request(method, self.url + path, timeout=self.timeout, **kwargs)
            except requests.RequestException as exc:
                raise ServerError(None, f"cannot reach the server at {self.url}: {exc}") from exc
            if answer.status_code == 429 and attempt < self.busy_retries:
                time.sleep(float(answer.headers.get("Retry-After", "1")))
                continue
            if answer.status_code >= 400:
                raise ServerError(answer.status_code, f"{method} {path}: {answer.status_code} {_message(answer)}")
            return answer
        raise AssertionError("unreachable")

    def _json(self, method: str, path: str, **kwargs):
        return self.request(method, path, **kwargs).json()

    # -- the endpoints -------------------------------------------------------------

    def health(self) -> dict:
        """GET /healthz (its body also when the server answers 503)."""
        try:
            return self._json("GET", "/healthz")
        except ServerError as exc:
            if exc.status == 503:
                return self.session.get(self.url + "/healthz", timeout=self.timeout).json()
            raise

    def run(self, program: str, tests: list[dict] = (), cpu_seconds: float | None = None,
            memory_mb: int | None = None) -> dict:
        """POST /v1/run: ``program`` on ``tests`` (``{"input", "output"?}``); a limit left
        None is the server's declared default (config.ProgramLimits)."""
        limits = {k: v for k, v in (("cpu_seconds", cpu_seconds), ("memory_mb", memory_mb)) if v is not None}
        return self._json("POST", "/v1/run", json={"program": program, "tests": list(tests), **limits})

    def score(self, problem_id: str, state: int, reply: str | None = None, program: str | None = None,
              model: str = "api", judge_all_tests: bool = True) -> dict:
        """POST /v1/score: ``{"sample": <Sample record>, "scores": {...}}``."""
        body = {"problem_id": problem_id, "state": state, "model": model, "judge_all_tests": judge_all_tests}
        body.update({k: v for k, v in (("reply", reply), ("program", program)) if v is not None})
        return self._json("POST", "/v1/score", json=body)

    def problems(self) -> dict:
        """GET /v1/problems: ``{"dataset", "problems": [{"problem_id", "states", ...}]}``."""
        return self._json("GET", "/v1/problems")

    def problem_state(self, problem_id: str, state: int) -> dict:
        """GET /v1/problems/{id}/states/{t}: the problem-state record."""
        return self._json("GET", f"/v1/problems/{problem_id}/states/{int(state)}")

    def submit_eval(self, request: dict) -> dict:
        """POST /v1/evals: the new job."""
        return self._json("POST", "/v1/evals", json=request)

    def submit_run(self, task: str, config) -> dict:
        """POST /v1/runs: a job of the registered task ``task``; ``config`` is its config
        object (sent as declared, ``request_body``) or a plain dict.  Returns the new job."""
        body = config if isinstance(config, dict) else request_body(config)
        return self._json("POST", "/v1/runs", json={"task": task, "config": body})

    def run_job(self, job_id: str) -> dict:
        """GET /v1/runs/{id}: a task run's status, progress and metrics."""
        return self._json("GET", f"/v1/runs/{_job_id(job_id)}")

    def jobs(self) -> list[dict]:
        """GET /v1/evals: this token's jobs, newest first."""
        return self._json("GET", "/v1/evals")["jobs"]

    def job(self, job_id: str) -> dict:
        """GET /v1/evals/{id}."""
        return self._json("GET", f"/v1/evals/{_job_id(job_id)}")

    def cancel(self, job_id: str) -> dict:
        """DELETE /v1/evals/{id}."""
        return self._json("DELETE", f"/v1/evals/{_job_id(job_id)}")

    def resume(self, job_id: str, api_key: str | None = None) -> dict:
        """POST /v1/evals/{id}/resume (with the job's API key again, when it had one)."""
        return self._json("POST", f"/v1/evals/{_job_id(job_id)}/resume", json={"api_key": api_key})

    def metrics(self) -> str:
        """GET /metrics: the Prometheus text."""
        return self.request("GET", "/metrics").text

    def report(self, job_id: str, out: Path) -> Path:
        """Download the job's HTML report (index.html and the files it links) into ``out``;
        returns the path of index.html."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        base = f"/v1/evals/{_job_id(job_id)}/report"
        index = self.request("GET", base).text
        (out / "index.html").write_text(index, encoding="utf-8")
        pending, seen = _linked(index), set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            content = self.request("GET", f"{base}/{name}").content
            (out / name).write_bytes(content)
            if name.endswith(".html"):
                pending |= _linked(content.decode("utf-8", "replace"))
        return out / "index.html"

    # -- an eval, start to end -----------------------------------------------------

    def wait(self, job_id: str, poll: float = 1.0, progress=None, run: bool = False) -> dict:
        """Poll a job (an eval job, or a task run with ``run``) until it ends;
        ``progress(job)`` is called after every poll."""
        while True:
            job = self.run_job(job_id) if run else self.job(job_id)
            if progress is not None:
                progress(job)
            if job["status"] in ENDED:
                return job
            time.sleep(poll)

    def evaluate(self, config: EvalConfig, poll: float = 1.0) -> RemoteEval:
        """Run ``config`` as a job on the server and wait for it (a progress bar with
        ``config.progress``); Ctrl-C cancels the job.  Raises ServerError when the job
        does not succeed."""
        from tqdm import tqdm

        started = time.monotonic()
        job = self.submit_eval(eval_request(config))
        bar = tqdm(desc=f"eval {config.model.spec} on {self.url}", unit="sample", disable=not config.progress)

        def show(current):
            done, total = current["progress"]["done"], current["progress"]["total"]
            if total is not None and bar.total != total:
                bar.total = total
            bar.n = done
            bar.refresh()

        try:
            job = self.wait(job["id"], poll, show)
        except KeyboardInterrupt:
            self.cancel(job["id"])
            raise
        finally:
            bar.close()
        if job["status"] != "succeeded":
            raise ServerError(None, f"job {job['id']} {job['status']}: {job.get('error') or 'no metrics'}")
        return RemoteEval(job, job["metrics"], time.monotonic() - started,
                          f"{self.url}/v1/evals/{job['id']}/report")


def eval_request(config: EvalConfig) -> dict:
    """The POST /v1/evals body for an EvalConfig: every option it declares as sent to a
    server (``request_body``), with the dataset named (no dataset means the validated one,
    as for a local eval).  Raises NeocoderError for a dataset given as a path (a server
    judges only the datasets it has) or for ``shard`` (a server runs a job whole)."""
    if config.dataset not in (None, "release"):
        raise NeocoderError(f"--dataset {config.dataset}: with --server, the dataset is the server's own "
                            "(the default) or 'release'")
    if config.shard:
        raise NeocoderError("--shard splits a run over this machine's driver processes: a server runs its eval "
                            "jobs whole")
    return {**request_body(config), "dataset": dataset_name(config.dataset)}


def request_body(config) -> dict:
    """A config as a server takes it: each field ``options.sent`` names (declared, not
    local: never the run folder, the sandbox or the progress bar), as plain JSON; a model
    with its API key (the server holds it in memory only, never in its store)."""
    body = {}
    for f, _ in sent(type(config)):
        if names_a_path(type(config), f):
            continue  # the server refuses a path on its disk (an eval's dataset is named by request_body's caller)
        value = getattr(config, f.name)
        if isinstance(value, list):
            body[f.name] = [request_body(v) if isinstance(v, Config) else _json(v) for v in value]
        else:
            body[f.name] = request_body(value) if isinstance(value, Config) else _json(value)
    return body


def _json(value):
    return str(value) if isinstance(value, Path) else value


def _message(answer: requests.Response) -> str:
    try:
        detail = answer.json().get("detail")
    except ValueError:
        return answer.text[:500]
    if isinstance(detail, list):
        return "; ".join(f"{d.get('field')}: {d.get('msg')}" for d in detail)
    return str(detail)


def _job_id(job_id: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{32}", str(job_id)):
        raise NeocoderError(f"{job_id!r} is not a job id")
    return job_id


def _linked(html: str) -> set[str]:
    """The report's own files a page links to (plain names, no paths or URLs)."""
    return {m for m in re.findall(r'(?:href|src)="([A-Za-z0-9][A-Za-z0-9._-]*)"', html)}
