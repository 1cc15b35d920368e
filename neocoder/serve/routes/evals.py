"""``/v1/evals``: `neocoder eval` as jobs (queued, run into run folders on the server,
cancelled, resumed), their metrics and their HTML reports."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Response
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, HTMLResponse

from neocoder.benchmarks import EVAL
from neocoder.serve.deps import caller, job_slot, owned_job, services
from neocoder.serve.jobs import job_task
from neocoder.serve.judging import NotFound
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import JOB_ID, EvalJob, EvalList, EvalRequest, ResumeRequest
from neocoder.serve.services import Services
from neocoder.serve.store import Job

REPORT_FILE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$"  # a file of a built report: no path separators

router = APIRouter(tags=["evals"], **SECURED)


@router.post("/v1/evals", response_model=EvalJob, status_code=202)
def submit(body: EvalRequest, response: Response, who: str = Depends(job_slot), s: Services = Depends(services)):
    """Queue `neocoder eval` as a job (``POST /v1/runs`` with the ``eval`` task, the request
    being EvalConfig's options); its run folder is written on the server."""
    key = body.model.api_key.get_secret_value() if body.model.api_key else None
    s.check_models(body.public())  # the operator's providers and endpoints (422 naming the field)
    job = s.runner.submit(who, {"task": EVAL, "config": body.public()}, key)
    response.headers["Location"] = f"/v1/evals/{job.id}"
    return s.view(job)


@router.get("/v1/evals", response_model=EvalList)
def list_jobs(who: str = Depends(caller), s: Services = Depends(services)):
    """The caller's jobs, newest first, without their metrics."""
    return EvalList(jobs=[s.view(j, metrics=False) for j in reversed(s.store.list(who))
                          if job_task(j.request)[0] == EVAL])


@router.get("/v1/evals/{job_id}", response_model=EvalJob)
def get_job(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """A job's status, progress and (once it has succeeded) metrics with 95% intervals."""
    return s.view(job)


@router.delete("/v1/evals/{job_id}", response_model=EvalJob, status_code=202)
def cancel(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """Cancel a queued or running job (a running one after its samples in flight); 409 once it has ended."""
    s.runner.cancel(job.id)
    return s.view(s.store.get(job.id))


@router.post("/v1/evals/{job_id}/resume", response_model=EvalJob, status_code=202)
def resume(body: ResumeRequest, job: Job = Depends(owned_job), s: Services = Depends(services)):
    """Queue a paused, failed or cancelled job again; it resumes its run folder."""
    s.runner.resume(job.id, body.api_key.get_secret_value() if body.api_key else None)
    return s.view(s.store.get(job.id))


@router.get("/v1/evals/{job_id}/report", response_class=HTMLResponse)
def report(job: Job = Depends(owned_job), s: Services = Depends(services)):
    """The job's HTML report (`neocoder report`); its other pages are under report/."""
    return FileResponse(s.report(job) / "index.html", media_type="text/html")


@router.get("/v1/evals/{job_id}/report/{name}")
def report_file(job_id: str = PathParam(pattern=JOB_ID), name: str = PathParam(pattern=REPORT_FILE),
                job: Job = Depends(owned_job), s: Services = Depends(services)):
    """A file of the job's report: a sample page, report.css or filter.js."""  # job_id: listed first
    path = s.report(job) / name
    if not path.is_file():
        raise NotFound("name", f"the report has no file {name}")
    return FileResponse(path)
