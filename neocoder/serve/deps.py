"""The routes' dependencies (FastAPI ``Depends``): what a route needs, declared in its
signature instead of reached through a closure.

- ``services``: the server's Services (opened by the lifespan, services.py);
- ``caller``: the caller's id, set by the bearer-token middleware (auth.py);
- ``owned_job``: the caller's job named by the ``job_id`` path parameter (404 for any
  other, another token's too);
- ``job_slot``: admission of a new job (503 while draining, 429 past ``max_jobs`` or
  ``jobs_per_token``).
"""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi import Path as PathParam

from neocoder.serve.judging import NotFound
from neocoder.serve.limits import Busy
from neocoder.serve.schemas import JOB_ID
from neocoder.serve.services import Services
from neocoder.serve.store import QUEUED, RUNNING, Job


def services(request: Request) -> Services:
    """The app's Services (opened by the lifespan)."""
    return request.app.state.services


def caller(request: Request) -> str:
    """The caller's id (a token's id, or ``anonymous`` on a --no-auth server)."""
    return request.state.caller


def owned_job(job_id: str = PathParam(pattern=JOB_ID), who: str = Depends(caller),
              s: Services = Depends(services)) -> Job:
    """The caller's job ``job_id``; NotFound (404) for any other, another token's too."""
    job = s.store.get(job_id)
    if job is None or job.owner != who:
        raise NotFound("job_id", f"no job {job_id}")
    return job


def job_slot(who: str = Depends(caller), s: Services = Depends(services)) -> str:
    """Admit one more job of ``who`` (returned): Unavailable while the server drains, Busy
    (429) when ``max_jobs`` jobs, or ``jobs_per_token`` of this caller's, are queued or running."""
    s.refuse_when_draining()
    counts, mine = s.store.counts(), s.store.counts(who)
    if counts[QUEUED] + counts[RUNNING] >= s.config.max_jobs:
        raise Busy("max-jobs", f"limit --max-jobs reached: {s.config.max_jobs} jobs are queued or running", 60)
    if mine[QUEUED] + mine[RUNNING] >= s.config.jobs_per_token:
        raise Busy("jobs-per-token", f"quota --jobs-per-token reached: this token has {s.config.jobs_per_token} "
                   "jobs queued or running", 60)
    return who
