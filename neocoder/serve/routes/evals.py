"""``/v1/evals``: NeoCoder's own routes (its descriptor's ``routes``), `neocoder eval` as
jobs: ``POST /v1/evals`` takes EvalConfig's options as the body and queues the ``eval`` task
(``POST /v1/runs`` with that task, under its own request model: the dataset is named,
"validated" or "release", never a path on the server, and the states are a set); the job's
other routes are ``/v1/runs``' handlers under this prefix (routes/runs.py)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Response
from pydantic import Field, field_validator

from neocoder.benchmarks.neocoder.config import EvalConfig, dataset_arg
from neocoder.benchmarks.neocoder.descriptor import EVAL
from neocoder.serve.deps import caller, job_slot, services
from neocoder.serve.derive import request_model
from neocoder.serve.jobs import job_task
from neocoder.serve.routes import SECURED, runs
from neocoder.serve.schemas import EvalJob, EvalList, ModelSpec, OwnRequest, Strict, register_request
from neocoder.serve.services import Services

PREFIX = "/v1/evals"


class EvalChecks(Strict):
    """What an eval request adds to EvalConfig's declarations: its states are a set."""

    @field_validator("states", check_fields=False)
    @classmethod
    def _distinct(cls, states: list[int]) -> list[int]:
        return sorted(set(states))

    def public(self) -> dict:
        """The request as stored: plain JSON, without the API key."""
        return self.model_dump(mode="json", exclude={"model": {"api_key"}})


EvalRequest = request_model(EvalConfig, "EvalRequest", EvalChecks, "POST /v1/evals: `neocoder eval` as a job "
                            "(every option EvalConfig declares).", model_schema=ModelSpec, overrides={
    "dataset": (Literal["validated", "release"] | None, Field(None, description="None: the server's dataset.")),
})


def server_fields(serve_config, request) -> dict:
    """The dataset an eval job judges on: the one it names, else the server's."""
    return {"dataset": dataset_arg(serve_config.dataset if request.dataset is None else request.dataset)}


register_request(EvalConfig, EVAL, OwnRequest(EvalRequest, server_fields, alias=PREFIX))
router = APIRouter(tags=["evals"], **SECURED)


@router.post(PREFIX, response_model=EvalJob, status_code=202)
def submit(body: EvalRequest, response: Response, who: str = Depends(job_slot), s: Services = Depends(services)):
    """Queue `neocoder eval` as a job (``POST /v1/runs`` with the ``eval`` task, the request
    being EvalConfig's options); its run folder is written on the server."""
    key = body.model.api_key.get_secret_value() if body.model.api_key else None
    s.check_models(body.public())  # the operator's providers and endpoints (422 naming the field)
    job = s.runner.submit(who, {"task": EVAL, "config": body.public()}, key)
    response.headers["Location"] = f"{PREFIX}/{job.id}"
    return s.view(job)


@router.get(PREFIX, response_model=EvalList)
def list_jobs(who: str = Depends(caller), s: Services = Depends(services)):
    """The caller's eval jobs, newest first, without their metrics."""
    return EvalList(jobs=[s.view(j, metrics=False) for j in reversed(s.store.list(who))
                          if job_task(j.request)[0] == EVAL])


# a job's own routes: /v1/runs' handlers under this prefix
for path, handler, method, status in (
        ("/{job_id}", runs.get_run, "GET", 200), ("/{job_id}", runs.cancel_run, "DELETE", 202),
        ("/{job_id}/resume", runs.resume_run, "POST", 202)):
    router.add_api_route(PREFIX + path, handler, methods=[method], response_model=EvalJob, status_code=status,
                         summary=handler.__doc__.splitlines()[0] if handler.__doc__ else None)
router.add_api_route(PREFIX + "/{job_id}/report", runs.report, methods=["GET"], response_class=runs.HTMLResponse)
router.add_api_route(PREFIX + "/{job_id}/report/{name}", runs.report_file, methods=["GET"])
