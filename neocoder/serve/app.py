"""The ASGI app of ``neocoder serve``: the HTTP API's routes over the judge service
(judging.py), the eval jobs (jobs.py) and the job store (store.py).

Middleware, outermost first: ``RequestCounter`` (telemetry.py), ``BearerAuth`` (auth.py:
nothing but /healthz without a token), ``BodyLimit`` (limits.py: 413 before parsing).
Routes validate their input with the models of schemas.py (422 naming the field), and
map the library's errors to answers in one place (``install_error_handlers``).  Judging
runs on worker threads, at most ``workers`` at once, behind ``Admission`` (429 with
Retry-After).  The lifespan opens the job store, the sandbox and the job threads, and on
shutdown (SIGTERM: uvicorn first stops accepting and lets requests in flight end) stops
the jobs after their samples in flight and removes the sandbox's containers.
"""

from __future__ import annotations

import logging
import threading
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import anyio
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPBearer

from ..config import EvalConfig, SandboxConfig
from ..errors import NeocoderError
from ..store import RunFolder
from .auth import BearerAuth
from .config import ServeConfig
from .derive import to_config
from .jobs import JobConflict, JobRunner
from .judging import JudgeService, NotFound, TooLarge, Unavailable
from .limits import Admission, BodyLimit, Busy
from .schemas import (JOB_ID, PROBLEM_ID, EvalJob, EvalList, EvalRequest, Health, Problem, ProblemList, Progress,
                      ResumeRequest, RunRequest, RunResponse, ScoreRequest, ScoreResponse, Verdict)
from .store import QUEUED, RUNNING, SUCCEEDED, Job, JobStore
from .telemetry import CONTENT_TYPE, RequestCounter, Telemetry

log = logging.getLogger("neocoder.serve")
REPORT_FILE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$"  # a file of a built report: no path separators
ERRORS = {401: {"model": Problem}, 404: {"model": Problem}, 409: {"model": Problem}, 413: {"model": Problem},
          422: {"model": Problem}, 429: {"model": Problem}, 503: {"model": Problem}}


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
    draining: bool = False
    report_lock: threading.Lock = field(default_factory=threading.Lock)

    def job_for(self, request: Request, job_id: str) -> Job:
        """The caller's job ``job_id``; raises NotFound (404) for any other, another token's too."""
        job = self.store.get(job_id)
        if job is None or job.owner != request.state.caller:
            raise NotFound("job_id", f"no job {job_id}")
        return job

    def view(self, job: Job, metrics: bool = True) -> EvalJob:
        """A job as the API shows it (with its run's metrics once it has succeeded)."""
        found = None
        if metrics and job.status == SUCCEEDED:
            try:
                found = RunFolder(self.runner.run_dir(job.id), create=False).read_metrics()
            except (NeocoderError, ValueError):
                found = None
        return EvalJob(id=job.id, status=job.status, created=_iso(job.created), started=_iso(job.started),
                       finished=_iso(job.finished), attempts=job.attempts, request=job.request,
                       progress=Progress(**self.runner.progress(job)), error=job.error, metrics=found,
                       links={"self": f"/v1/evals/{job.id}", "report": f"/v1/evals/{job.id}/report"})

    def eval_config(self, job: Job, api_key: str | None, run_dir: Path) -> EvalConfig:
        """The EvalConfig of a stored job request (the key from memory, never from the store);
        a request stored before an option existed gets the option's declared default."""
        req = EvalRequest.model_validate(job.request)
        chosen = req.dataset
        dataset = self.config.dataset if chosen is None else (None if chosen == "validated" else "release")
        if dataset not in (None, "release"):
            dataset = Path(dataset)
        if api_key is None and req.model.spec.startswith("openai/"):
            api_key = "none"  # never the server's own $OPENAI_API_KEY
        sandbox = SandboxConfig(self.config.sandbox, workers=self.config.workers, executor=self.config.executor,
                                ray_address=self.config.ray_address)
        return to_config(EvalConfig, req, api_key=api_key, out=run_dir, release_dir=self.config.release_dir,
                         dataset=dataset, sandbox=sandbox, progress=False)

    async def judge_call(self, request: Request, endpoint: str, work):
        """Run ``work()`` on a judge thread once the caller is admitted (Busy otherwise)."""
        def timed():
            with self.admission.judging_slot(), self.telemetry.judge_seconds.labels(endpoint).time():
                return work()

        if self.draining:
            raise Unavailable("the server is shutting down")
        with self.admission.ticket(request.state.caller):
            return await anyio.to_thread.run_sync(timed, limiter=self.limiter)

    def report(self, job: Job) -> Path:
        """The folder of the job's HTML report, built (or rebuilt after its run changed) now."""
        if job.status != SUCCEEDED:
            raise JobConflict(f"job {job.id} is {job.status}: its report is made once it has succeeded")
        from ..report.html import build_report
        run = self.runner.run_dir(job.id)
        out = Path(self.config.data_dir) / "reports" / job.id
        with self.report_lock:
            index = out / "index.html"
            if not index.is_file() or index.stat().st_mtime < (run / RunFolder.METRICS).stat().st_mtime:
                build_report([run], out)
        return out


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def services(request: Request) -> Services:
    """The app's Services (opened by the lifespan)."""
    return request.app.state.services


def install_error_handlers(app: FastAPI) -> None:
    """The one place errors become answers: ``{"detail": ..., "field": ...}`` with the status
    the error calls for (422 naming the field, 404, 409, 413, 429 with Retry-After, 503)."""

    def answer(status: int, detail, field=None, headers=None) -> JSONResponse:
        return JSONResponse({"detail": detail, "field": field}, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request, exc: RequestValidationError):
        problems = [{"field": ".".join(str(p) for p in e["loc"]), "msg": e["msg"], "type": e["type"]}
                    for e in exc.errors()]  # the submitted values are not echoed (they may hold a key)
        return answer(422, problems, problems[0]["field"] if problems else None)

    @app.exception_handler(Busy)
    async def busy(_request, exc: Busy):
        return answer(429, str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(NeocoderError)
    async def library(_request, exc: NeocoderError):
        if isinstance(exc, TooLarge):
            return answer(413, str(exc), exc.field)
        if isinstance(exc, NotFound):
            return answer(404, str(exc), exc.field)
        if isinstance(exc, JobConflict):
            return answer(409, str(exc))
        if isinstance(exc, Unavailable):
            return answer(503, str(exc))
        log.error("request failed: %s", exc)
        return answer(500, str(exc))


def create_app(config: ServeConfig) -> FastAPI:
    """The ASGI app for ``config`` (checked: ``config.check()`` has read the tokens)."""
    telemetry = Telemetry()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        data_dir = Path(config.data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        store = JobStore(config.db_url)
        judge = await anyio.to_thread.run_sync(lambda: JudgeService(
            config.release_dir, config.dataset, config.sandbox, config.workers, config.max_program_bytes,
            executor=config.executor, ray_address=config.ray_address))
        if judge.box.unavailable:
            log.warning("the sandbox cannot run: %s", judge.box.unavailable)
        holder: dict = {}
        runner = JobRunner(store, data_dir / "runs", lambda job, key, run: holder["s"].eval_config(job, key, run),
                           config.jobs)
        s = holder["s"] = Services(config, store, judge, runner, Admission(config.workers, config.queue,
                                                                          config.per_token),
                                   anyio.CapacityLimiter(config.workers), telemetry)
        app.state.services = s
        runner.start()
        log.info("serving the %s dataset with %d sandbox workers; job store %s; data in %s", judge.dataset_name,
                 config.workers, JobStore.safe_url(config.db_url), data_dir)
        try:
            yield
        finally:
            s.draining = True
            log.info("shutting down: stopping jobs after their samples in flight")
            ended = await anyio.to_thread.run_sync(runner.shutdown, config.shutdown_timeout)
            if not ended:
                log.warning("a job did not stop within %ss; it is resumed at the next start", config.shutdown_timeout)
            judge.close()
            store.close()
            log.info("sandbox containers removed; bye")

    # /openapi.json stays (behind the token like every path but /healthz); the docs pages are
    # left out: they load their scripts from a CDN.
    app = FastAPI(title="NeoCoder", version=_version(), lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="NeoCoder as a service: judge programs, score replies per problem state, run "
                              "evaluations as jobs (docs/serve.md).")
    install_error_handlers(app)
    router = APIRouter(dependencies=[Depends(HTTPBearer(auto_error=False))], responses=ERRORS)

    @router.post("/v1/run", response_model=RunResponse, tags=["judge"])
    async def run(body: RunRequest, request: Request):
        """Judge a program on tests in the sandbox, as `neocoder sandbox run`."""
        s = services(request)
        if len(body.tests) > config.max_tests:
            raise TooLarge("tests", len(body.tests), config.max_tests)  # reported as a count of tests
        tests = [t.model_dump() for t in body.tests]
        result = await s.judge_call(request, "run", lambda: s.judge.run(body.program, tests, body.cpu_seconds,
                                                                        body.memory_mb))
        s.telemetry.count_verdicts("run", result.verdicts)
        checked = all(t.get("output") is not None for t in tests) and bool(tests)
        return RunResponse(accepted=result.accepted if checked else None, entry=result.entry,
                           compile_error=result.compile_error, seconds=round(result.seconds, 4),
                           tests=[Verdict(**asdict(t)) for t in result.tests])

    @router.post("/v1/score", response_model=ScoreResponse, tags=["judge"])
    async def score(body: ScoreRequest, request: Request):
        """The full NeoCoder sample record of a reply or program for one problem state: verdicts on
        the examples and extended tests, techniques, violated constraints, new techniques,
        divergent, convergent (the per-sample reward)."""
        s = services(request)
        text = body.reply if body.reply is not None else body.program
        record, scores = await s.judge_call(request, "score", lambda: s.judge.score(
            body.problem_id, body.state, text, body.model, judge_all_tests=body.judge_all_tests))
        for tier in (record.examples, record.plus):
            if tier is not None:
                s.telemetry.count_verdicts("score", tier.verdicts)
        return ScoreResponse(sample=record.to_dict(), scores=scores)

    @router.get("/v1/problems", response_model=ProblemList, tags=["problems"])
    def problems(request: Request):
        """Every problem of the server's dataset with its states t."""
        judge = services(request).judge
        return ProblemList(dataset=judge.dataset_name, problems=judge.problems())

    @router.get("/v1/problems/{problem_id}/states/{t}", tags=["problems"])
    def problem_state(request: Request, problem_id: str = PathParam(pattern=PROBLEM_ID),
                      t: int = PathParam(ge=0, le=20)) -> dict:
        """One problem state (docs/records.md, ``problem_state``): statement with its constraints,
        tests, extended tests, checker, limits."""
        return services(request).judge.state(problem_id, t).to_dict()

    @router.post("/v1/evals", response_model=EvalJob, status_code=202, tags=["evals"])
    def submit(body: EvalRequest, request: Request, response: Response):
        """Queue `neocoder eval` as a job; its run folder is written on the server."""
        s = services(request)
        if s.draining:
            raise Unavailable("the server is shutting down")
        counts, mine = s.store.counts(), s.store.counts(request.state.caller)
        if counts[QUEUED] + counts[RUNNING] >= config.max_jobs:
            raise Busy("jobs", f"{config.max_jobs} jobs are queued or running (the limit)", 60)
        if mine[QUEUED] + mine[RUNNING] >= config.jobs_per_token:
            raise Busy("jobs", f"this token has {config.jobs_per_token} jobs queued or running (the limit)", 60)
        key = body.model.api_key.get_secret_value() if body.model.api_key else None
        job = s.runner.submit(request.state.caller, body.public(), key)
        response.headers["Location"] = f"/v1/evals/{job.id}"
        return s.view(job)

    @router.get("/v1/evals", response_model=EvalList, tags=["evals"])
    def list_jobs(request: Request):
        """The caller's jobs, newest first, without their metrics."""
        s = services(request)
        return EvalList(jobs=[s.view(j, metrics=False) for j in reversed(s.store.list(request.state.caller))])

    @router.get("/v1/evals/{job_id}", response_model=EvalJob, tags=["evals"])
    def get_job(request: Request, job_id: str = PathParam(pattern=JOB_ID)):
        """A job's status, progress and (once it has succeeded) metrics with 95% intervals."""
        s = services(request)
        return s.view(s.job_for(request, job_id))

    @router.delete("/v1/evals/{job_id}", response_model=EvalJob, status_code=202, tags=["evals"])
    def cancel(request: Request, job_id: str = PathParam(pattern=JOB_ID)):
        """Cancel a queued or running job (a running one after its samples in flight); 409 once it has ended."""
        s = services(request)
        s.runner.cancel(s.job_for(request, job_id).id)
        return s.view(s.store.get(job_id))

    @router.post("/v1/evals/{job_id}/resume", response_model=EvalJob, status_code=202, tags=["evals"])
    def resume(body: ResumeRequest, request: Request, job_id: str = PathParam(pattern=JOB_ID)):
        """Queue a paused, failed or cancelled job again; it resumes its run folder."""
        s = services(request)
        s.runner.resume(s.job_for(request, job_id).id, body.api_key.get_secret_value() if body.api_key else None)
        return s.view(s.store.get(job_id))

    @router.get("/v1/evals/{job_id}/report", response_class=HTMLResponse, tags=["evals"])
    def report(request: Request, job_id: str = PathParam(pattern=JOB_ID)):
        """The job's HTML report (`neocoder report`); its other pages are under report/."""
        s = services(request)
        return FileResponse(s.report(s.job_for(request, job_id)) / "index.html", media_type="text/html")

    @router.get("/v1/evals/{job_id}/report/{name}", tags=["evals"])
    def report_file(request: Request, job_id: str = PathParam(pattern=JOB_ID),
                    name: str = PathParam(pattern=REPORT_FILE)):
        """A file of the job's report: a sample page, report.css or filter.js."""
        s = services(request)
        path = s.report(s.job_for(request, job_id)) / name
        if not path.is_file():
            raise NotFound("name", f"the report has no file {name}")
        return FileResponse(path)

    @router.get("/metrics", tags=["service"], response_class=Response)
    def metrics(request: Request):
        """Prometheus text: requests, refusals, queue depth, verdicts, judge latency, jobs."""
        s = services(request)
        text = s.telemetry.render(s.store.counts(), s.admission.waiting, s.admission.judging)
        return Response(text, media_type=CONTENT_TYPE)

    app.include_router(router)

    @app.get("/healthz", response_model=Health, tags=["service"], responses={503: {"model": Health}})
    def healthz(request: Request):
        """Can programs be judged now? The Docker engine is pinged and the image checked. No token needed."""
        s = services(request)
        sandbox = s.judge.health()
        status = "draining" if s.draining else ("ok" if sandbox["ok"] else "unavailable")
        body = Health(status=status, sandbox=sandbox, jobs=s.store.counts())
        return JSONResponse(body.model_dump(), status_code=200 if status == "ok" else 503)

    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(BearerAuth, tokens=config.tokens)
    app.add_middleware(RequestCounter, telemetry=telemetry)
    return app


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("neocoder")
    except metadata.PackageNotFoundError:
        return "0"
