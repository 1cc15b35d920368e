"""``/v1/runs``: a job of ANY registered task (``neocoder run TASK`` over HTTP), so a new
task needs no server code.

The body names the task and gives its config; the config is validated against the
request model derived from the task's ``config_type`` (serve/derive.py: every declared
option, with its bounds; a 422 names ``body.config.<field>``).  The job runs through
``runner.run`` into its own run folder on the server, with the same job store, job
threads, auth and limits for every task; GET gives its status, progress and metrics, and
once it has succeeded its HTML report.  A benchmark's alias routes (``/v1/evals``,
serve/routes/evals.py) reuse these handlers.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Response
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import SecretStr, ValidationError

from neocoder.benchmarks import get_task
from neocoder.errors import NeocoderError
from neocoder.serve.deps import caller, job_slot, owned_job, services
from neocoder.serve.derive import unsendable
from neocoder.serve.judging import NotFound
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import JOB_ID, EvalJob, EvalList, ResumeRequest, TaskRunRequest, config_request
from neocoder.serve.services import Services
from neocoder.serve.store import Job

router = APIRouter(tags=["runs"], **SECURED)
REPORT_FILE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$"  # a file of a built report: no path separators


def stored_request(body: TaskRunRequest) -> tuple[dict, str | None]:
    """``({"task", "config"}, api_key)``: the request as stored (plain JSON, no key) and the
    key of its model, if any.  Raises RequestValidationError (422) naming the field."""
    try:
        task = get_task(body.task)
    except NeocoderError as exc:
        raise RequestValidationError([{"loc": ("body", "task"), "msg": str(exc), "type": "value_error"}]) from exc
    missing = unsendable(task.config_type)
    if missing:
        raise RequestValidationError([{"loc": ("body", "task"), "type": "value_error",
                                       "msg": f"task {body.task!r} needs {', '.join(missing)}, which a caller "
                                              "cannot give the server (a path on its disk); run it locally"}])
    try:
        config = config_request(task.config_type).model_validate(body.config)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", "config", *e["loc"])} for e in exc.errors()]) from exc
    keys = {m.api_key.get_secret_value() for m in _models(config) if isinstance(m.api_key, SecretStr)}
    if len(keys) > 1:  # the job keeps one key in memory, for every model of the config
        raise RequestValidationError([{"loc": ("body", "config"), "type": "value_error",
                                       "msg": "give at most one api_key: the job holds one key for all its models"}])
    return {"task": body.task, "config": _without_keys(config.model_dump(mode="json"))}, \
        next(iter(keys)) if keys else None


def _models(config) -> list:
    found = []
    for name in type(config).model_fields:
        value = getattr(config, name)
        for item in value if isinstance(value, list) else [value]:
            if hasattr(type(item), "model_fields") and "api_key" in type(item).model_fields:
                found.append(item)
    return found


def _without_keys(data):
    if isinstance(data, dict):
        return {k: _without_keys(v) for k, v in data.items() if k != "api_key"}
    if isinstance(data, list):
        return [_without_keys(v) for v in data]
    return data


@router.post("/v1/runs", response_model=EvalJob, status_code=202)
def submit_run(body: TaskRunRequest, response: Response, who: str = Depends(job_slot),
               s: Services = Depends(services)):
    """Queue a run of a registered task; its run folder is written on the server."""
    s.check_task(body.task)  # the operator's --allow-task (403 naming body.task), before the config is read
    request, key = stored_request(body)
    s.check_models(request)  # the operator's providers and endpoints (422 naming the field)
    job = s.runner.submit(who, request, key)
    response.headers["Location"] = f"/v1/runs/{job.id}"
    return s.view(job)


@router.get("/v1/runs", response_model=EvalList)
def list_runs(who: str = Depends(caller), s: Services = Depends(services)):
    """The caller's runs of every task (eval jobs included), newest first, without their metrics."""
    return EvalList(jobs=[s.view(j, metrics=False) for j in reversed(s.store.list(who))])


@router.get("/v1/runs/{job_id}", response_model=EvalJob)
def get_run(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """A run's status, progress and (once it has succeeded) metrics.json."""
    return s.view(job)


@router.delete("/v1/runs/{job_id}", response_model=EvalJob, status_code=202)
def cancel_run(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """Cancel a queued or running run (a running one after its items in flight); 409 once it has ended."""
    s.runner.cancel(job.id)
    return s.view(s.store.get(job.id))


@router.post("/v1/runs/{job_id}/resume", response_model=EvalJob, status_code=202)
def resume_run(body: ResumeRequest, job: Job = Depends(owned_job), s: Services = Depends(services)):
    """Queue a paused, failed or cancelled job again; it resumes its run folder."""
    s.runner.resume(job.id, body.api_key.get_secret_value() if body.api_key else None)
    return s.view(s.store.get(job.id))


@router.get("/v1/runs/{job_id}/report", response_class=HTMLResponse)
def report(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """The job's HTML report (`neocoder report`); its other pages are under report/."""
    return FileResponse(s.report(job) / "index.html", media_type="text/html")


@router.get("/v1/runs/{job_id}/report/{name}")
def report_file(job_id: str = PathParam(pattern=JOB_ID), name: str = PathParam(pattern=REPORT_FILE),
                job: Job = Depends(owned_job), s: Services = Depends(services)):
    """A file of the job's report: a sample page, report.css or filter.js."""  # job_id: listed first
    path = s.report(job) / name
    if not path.is_file():
        raise NotFound("name", f"the report has no file {name}")
    return FileResponse(path)
