"""What the routes of ``neocoder serve`` work with, opened once by the app's lifespan.

``Services`` holds the server's config, the job store, the judge service, the job
runner, the admission to the judge (429), the telemetry and the operator's policy on
what callers' models may reach (policy.py); ``open_services`` opens them (the sandbox on
a worker thread) and installs the endpoint policy for the process (netpolicy.install:
the model layer's HTTP clients obey it), and ``close_services`` stops the jobs after
their items in flight, removes the sandbox's containers and restores the policy.  The routes reach them through the
dependencies of deps.py, never through a closure.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

import anyio
from fastapi.exceptions import RequestValidationError

from neocoder import netpolicy
from neocoder.benchmarks import get_task, task_names
from neocoder.config import SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.judge import Cancelled
from neocoder.serve.abandon import Leaving
from neocoder.serve.config import ServeConfig
from neocoder.serve.derive import to_config
from neocoder.serve.jobs import JobConflict, JobRunner, job_task
from neocoder.serve.judging import JudgeService, Unavailable
from neocoder.serve.limits import Admission
from neocoder.serve.policy import CallerPolicy
from neocoder.serve.schemas import ALIASES, OWN_REQUESTS, EvalJob, Progress, config_request
from neocoder.serve.store import SUCCEEDED, Job, JobStore
from neocoder.serve.telemetry import Telemetry
from neocoder.store import RunFolder

log = logging.getLogger("neocoder.serve")


class Forbidden(NeocoderError):
    """What the operator does not let callers do (HTTP 403); ``field`` names the request field."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


@dataclass
class Services:
    """What the routes work with, opened by the lifespan."""

    config: ServeConfig
    store: JobStore
    judge: JudgeService
    runner: JobRunner
    admission: Admission
    limiter: anyio.CapacityLimiter
    telemetry: Telemetry
    policy: CallerPolicy
    draining: bool = False
    report_lock: threading.Lock = field(default_factory=threading.Lock)
    replaced_policy: netpolicy.EndpointPolicy | None = None  # the process's policy before this server's
    shares: dict = field(default_factory=dict)  # caller -> its CapacityLimiter of token_workers

    def refused_models(self, stored: dict) -> list[tuple[tuple, str]]:
        """``(loc, message)`` for a task the operator does not let callers start
        (``allow_task``) and for each model of a stored job request (an eval's, or a task's
        ``{"task", "config"}``) that the operator's policy refuses (policy.py)."""
        task = job_task(stored)[0]
        try:
            self.check_task(task)
        except Forbidden as exc:
            return [(("body", "task"), str(exc))]
        return self.policy.problems(stored, get_task(task).config_type)

    def check_task(self, task: str) -> None:
        """Forbidden (403 naming ``body.task``) for a known task outside the operator's
        ``allow_task``; an unknown one is left to the request's validation (422 naming ``task``)."""
        if task not in self.config.allow_task and task in task_names():
            raise Forbidden("body.task", f"task {task!r} is not one this server lets callers start (its "
                                         f"--allow-task: {', '.join(self.config.allow_task)})")

    def check_models(self, stored: dict) -> None:
        """Refuse a job request of a task the operator does not allow (Forbidden, 403 naming
        ``body.task``) or whose models' provider or endpoint it does not allow:
        RequestValidationError (422) naming each field, e.g. ``body.model.base_url``."""
        refused = self.refused_models(stored)
        if refused and refused[0][0] == ("body", "task"):
            raise Forbidden("body.task", refused[0][1])
        if refused:
            raise RequestValidationError([{"loc": loc, "msg": msg, "type": "value_error"} for loc, msg in refused])

    def view(self, job: Job, metrics: bool = True) -> EvalJob:
        """A job as the API shows it (with its run's metrics once it has succeeded); a job of
        a task with an alias route (``schemas.ALIASES``: ``/v1/evals``) shows itself there,
        with its config as the request and a link to its report."""
        found = None
        if metrics and job.status == SUCCEEDED:
            try:
                found = RunFolder(self.runner.run_dir(job.id), create=False).read_metrics()
            except (NeocoderError, ValueError):
                found = None
        task, config = job_task(job.request)
        alias = ALIASES.get(task)
        base = f"{alias or '/v1/runs'}/{job.id}"
        return EvalJob(id=job.id, status=job.status, created=_iso(job.created), started=_iso(job.started),
                       finished=_iso(job.finished), attempts=job.attempts,
                       request=config if alias else job.request,
                       progress=Progress(**self.runner.progress(job)), error=job.error, metrics=found,
                       links={"self": base, "report": f"{base}/report"} if alias else {"self": base})

    def sandbox(self) -> SandboxConfig:
        """The sandbox every job of this server judges in (the server's own, never a caller's)."""
        return self.config.sandbox

    def execute(self, job: Job, api_key: str | None, run_dir: Path, stop: threading.Event, cancel=None) -> None:
        """Run a stored job into ``run_dir`` through the one runner: the task it names (as
        its ``for_config`` chooses: an eval of ``--model human`` runs the human baselines).
        ``cancel`` (a judge.cancel.Cancel): set when the job is cancelled, it stops the programs
        being judged too.  Raises Stopped when ``stop`` is set first, NeocoderError for what the library
        refuses, or for a model this server's policy refuses (it may have changed since the
        job was queued)."""
        refused = self.refused_models(job.request)
        if refused:
            raise NeocoderError("refused by this server's policy: " + "; ".join(
                f"{'.'.join(map(str, loc))}: {message}" for loc, message in refused))
        from neocoder import api
        task, config = job_task(job.request)
        api.run(self.task_of(task, config, api_key, run_dir), stop=stop, cancel=cancel)

    def task_of(self, name: str, stored: dict, api_key: str | None, run_dir: Path):
        """The Task ``name`` (as its ``for_config`` chooses) with the config of a stored
        request plus the server's own fields: the run folder, the release, the sandbox, no
        progress bar, and what the benchmark's own request adds (``OwnRequest.server_fields``)."""
        task = get_task(name)
        request = config_request(task.config_type).model_validate(stored)
        own = {"out": run_dir, "release_dir": self.config.release_dir, "sandbox": self.sandbox(), "progress": False}
        registered = OWN_REQUESTS.get(task.config_type)
        if registered is not None and registered.server_fields is not None:
            own.update(registered.server_fields(self.config, request))
        names = {f.name for f in fields(task.config_type)}
        config = to_config(task.config_type, request, api_key=api_key,
                           **{k: v for k, v in own.items() if k in names})
        return task.for_config(config)(config)

    async def judge_call(self, caller: str, endpoint: str, work, programs: int = 1, receive=None):
        """Run ``work(cancel)``, which judges ``programs`` programs, on a judge thread once
        ``caller`` is admitted (Busy otherwise: concurrency, queue, programs and judge
        seconds a minute); ``receive``: the request's, watched for the client leaving."""
        self.refuse_when_draining()  # before a ticket is taken
        with self.admission.ticket(caller, programs):
            return await self.judge_admitted(caller, endpoint, work, receive)

    async def judge_admitted(self, caller: str, endpoint: str, work, receive=None):
        """Run ``work(cancel)`` on a judge thread for ``caller``, already holding a ticket (a
        batch's lane holds one across its programs), within the caller's share of the
        workers (``token_workers``) and charging its judge seconds; Unavailable while
        draining.  Once the caller leaves (``receive`` gives ``http.disconnect``, or this
        task is cancelled) ``cancel`` is set and Cancelled raised (abandon.py)."""
        leaving = Leaving()

        def timed():
            if leaving.cancel.is_set():
                raise Cancelled("the caller has gone before the submission started")
            with self.admission.judging_slot(), self.admission.time.holding(caller), \
                    self.telemetry.judge_seconds.labels(endpoint).time():
                try:
                    return work(leaving.cancel)
                except Cancelled:
                    self.telemetry.stopped(endpoint, leaving.seconds())
                    raise

        self.refuse_when_draining()  # a batch's lane took its ticket before the drain began
        return await leaving.run(timed, receive, self.share(caller), self.limiter)

    def refuse_when_draining(self) -> None:
        """Raise Unavailable (503) once the server has begun shutting down."""
        if self.draining:
            raise Unavailable("the server is shutting down")

    def share(self, caller: str) -> anyio.CapacityLimiter:
        """The caller's share of the judge workers: ``token_workers`` of its submissions at once."""
        if caller not in self.shares:
            self.shares[caller] = anyio.CapacityLimiter(self.config.token_workers)
        return self.shares[caller]

    def report(self, job: Job) -> Path:
        """The folder of the job's HTML report, built (or rebuilt after its run changed) now."""
        if job.status != SUCCEEDED:
            raise JobConflict(f"job {job.id} is {job.status}: its report is made once it has succeeded")
        from neocoder.report.html import build_report
        run = self.runner.run_dir(job.id)
        out = Path(self.config.data_dir) / "reports" / job.id
        with self.report_lock:
            index = out / "index.html"
            if not index.is_file() or index.stat().st_mtime < (run / RunFolder.METRICS).stat().st_mtime:
                build_report([run], out, full_paths=False)  # callers see folder names, not the server's paths
        return out


def server_paths(config: ServeConfig) -> dict[str, str]:
    """The server's own folders a job's error must not show, each with what it shows
    instead: the data directory, the release, the dataset file, the home folder."""
    paths = {Path(config.data_dir): "<data-dir>", Path(config.release_dir): "<release>", Path.home(): "~"}
    if config.dataset not in (None, "release"):
        paths[Path(config.dataset)] = "<dataset>"
    return {str(p): name for path, name in paths.items() for p in {path, path.resolve(), path.absolute()}
            if str(p) not in ("", ".", "/")}


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


async def open_services(config: ServeConfig, telemetry: Telemetry) -> Services:
    """Open the job store, the sandbox (on a worker thread: it may pull or ping Docker) and
    the job threads; the unfinished jobs of an earlier server are queued again."""
    data_dir = Path(config.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    policy = CallerPolicy(config.endpoint_policy(), tuple(config.allow_provider))
    store = JobStore(config.db_url)
    judge = await anyio.to_thread.run_sync(lambda: JudgeService(
        config.release_dir, config.dataset, config.sandbox, config.max_program_bytes))
    if judge.box.unavailable:
        log.warning("the sandbox cannot run: %s", judge.box.unavailable)
    holder: dict = {}
    runner = JobRunner(store, data_dir / "runs", lambda *job: holder["s"].execute(*job),
                       config.jobs, hidden=server_paths(config))
    admission = Admission(config.workers, config.queue, config.per_token, config.programs_per_minute,
                          seconds_per_minute=config.judge_seconds_per_minute)
    s = holder["s"] = Services(config, store, judge, runner, admission, anyio.CapacityLimiter(config.workers),
                               telemetry, policy)
    s.replaced_policy = netpolicy.install(policy.endpoints)
    runner.start()
    log.info("serving the %s dataset with %d sandbox workers; job store %s; data in %s", judge.dataset_name,
             config.workers, JobStore.safe_url(config.db_url), data_dir)
    log.info("callers' models: providers %s; endpoints on public addresses%s", ", ".join(policy.providers) or "none",
             "".join(f", {e}" for e in config.allow_endpoint))
    return s


async def close_services(s: Services) -> None:
    """Stop taking work, stop the jobs after their items in flight (they are queued again
    for the next start), remove the sandbox's containers, close the store."""
    s.draining = True
    log.info("shutting down: stopping jobs after their samples in flight")
    ended = await anyio.to_thread.run_sync(s.runner.shutdown, s.config.shutdown_timeout)
    if not ended:
        log.warning("a job did not stop within %ss; it is resumed at the next start", s.config.shutdown_timeout)
    s.judge.close()
    s.store.close()
    netpolicy.install(s.replaced_policy)
    log.info("sandbox containers removed; bye")
