"""A cancelled job stops the programs it is judging, not only the samples not yet started.

A real eval job (the server's JobRunner, the one runner, the real Docker sandbox) whose
model, a scripted endpoint on loopback, answers a program that sleeps: every test of the
state then runs to its wall limit (2 x 1 s CPU + 1 s), 21 tests, about a minute.  The job
is cancelled while the sleeper is judged: it ends as cancelled long before that minute,
with no record (the sample is done again on a resume) and no container left.  A graceful
stop (the server's SIGTERM) instead lets the sample in flight finish and be recorded.
"""

import gzip
import json
import time
from pathlib import Path

import docker
import pytest
from loopback import RespondingServer
from waiting import wait_until

from neocoder.api import run
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.evaluation import EvalTask
from neocoder.config import ModelConfig, SandboxConfig
from neocoder.serve.jobs import JobRunner
from neocoder.serve.store import CANCELLED, QUEUED, JobStore

pytestmark = pytest.mark.docker

SLEEPER = "```python\nimport time\ntime.sleep(60)\n```"
PRINTER = "```python\nprint(0)\n```"
SHIPPED = Path(__file__).resolve().parents[2] / "data" / "codeforces" / "problem_states.jsonl.gz"
PROBLEM = "1899A"  # 1 example and 20 extended tests, 1 s time limit


def one_state(path: Path) -> Path:
    """The shipped dataset's state 0 of PROBLEM, as a JSONL file at ``path``."""
    with gzip.open(SHIPPED, "rt", encoding="utf-8") as rows:
        row = next(r for r in map(json.loads, rows) if r["problem_id"] == PROBLEM and r["state"] == 0)
    assert len(row["tests"]) + len(row["extended_tests"]) >= 20 and row["time_limit_s"] == 1.0
    path.write_text(json.dumps(row) + "\n")
    return path


def sandbox_containers() -> set[str]:
    """Ids of the sandbox containers this process labelled (running or not)."""
    import os
    client = docker.from_env()
    try:
        return {c.id for c in client.containers.list(all=True, filters={"label": f"neocoder.pid={os.getpid()}"})}
    finally:
        client.close()


def job_runner(tmp_path, release_dir, url: str) -> tuple[JobRunner, JobStore]:
    """A JobRunner whose jobs are evals of the state above against ``url`` (every test judged)."""
    states = one_state(tmp_path / "states.jsonl")

    def execute(job, key, run_dir, stop, cancel):
        config = EvalConfig(model=ModelConfig("openai/scripted", base_url=url, api_key="k", max_retries=0),
                            out=run_dir, release_dir=release_dir, dataset=states, states=[0],
                            sandbox=SandboxConfig(workers=1), judge_all_tests=True, progress=False,
                            bootstrap=50)
        run(EvalTask(config), stop=stop, cancel=cancel)

    store = JobStore(f"sqlite:///{tmp_path / 'jobs.sqlite'}")
    return JobRunner(store, tmp_path / "runs", execute), store


def records(runner: JobRunner, job_id: str) -> list[str]:
    path = runner.run_dir(job_id) / "records.jsonl"
    return path.read_text().splitlines() if path.is_file() else []


def test_a_cancelled_job_stops_the_program_it_is_judging(tmp_path, release_dir):
    with RespondingServer(lambda kind, body: (SLEEPER, None)) as endpoint:
        runner, store = job_runner(tmp_path, release_dir, endpoint.url)
        before = sandbox_containers()
        runner.start()
        try:
            job = runner.submit("me", {"task": "eval"}, None)
            assert wait_until(lambda: endpoint.requests, 120), "the model was never asked"
            time.sleep(5)  # the example test (3 s) is judged, the extended tier has begun
            assert store.get(job.id).status == "running" and not records(runner, job.id)
            cancelled_at = time.monotonic()
            runner.cancel(job.id)
            assert wait_until(lambda: store.get(job.id).status == CANCELLED, 50), store.get(job.id)
            # judging the 20 extended tests to their wall limit takes 60 s or more; stopped, far less
            assert time.monotonic() - cancelled_at < 30
            assert records(runner, job.id) == [], "a stopped sample must not be recorded"
            assert wait_until(lambda: sandbox_containers() <= before, 30), "the stopped container was left"
        finally:
            assert runner.shutdown(60)


def test_a_graceful_stop_lets_the_sample_in_flight_finish(tmp_path, release_dir):
    """The other direction: a pause (stop alone, no cancel) set once the sample has started
    judges it to its end and records it."""
    stops: list = []

    def respond(kind, body):
        for stop in stops:
            stop.set()  # the sample is in flight: its model call is being answered
        return PRINTER, None

    with RespondingServer(respond) as endpoint:
        runner, store = job_runner(tmp_path, release_dir, endpoint.url)
        inner = runner.execute

        def execute(job, key, run_dir, stop, cancel):
            stops.append(stop)
            inner(job, key, run_dir, stop, cancel)

        runner.execute = execute
        runner.start()
        try:
            job = runner.submit("me", {"task": "eval"}, None)
            assert wait_until(lambda: store.get(job.id).status in (QUEUED, "succeeded") and stops
                            and stops[0].is_set(), 300), store.get(job.id)
            assert len(records(runner, job.id)) == 1, "the sample in flight was lost"
            assert store.get(job.id).status != CANCELLED
        finally:
            assert runner.shutdown(60)
