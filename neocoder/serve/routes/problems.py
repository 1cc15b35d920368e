"""``/v1/problems``: the server's dataset, its problems and their states."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam

from neocoder.serve.deps import services
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import PROBLEM_ID, ProblemList
from neocoder.serve.services import Services

router = APIRouter(tags=["problems"], **SECURED)


@router.get("/v1/problems", response_model=ProblemList)
def problems(s: Services = Depends(services)):
    """Every problem of the server's dataset with its states t."""
    return ProblemList(dataset=s.judge.dataset_name, problems=s.judge.problems())


@router.get("/v1/problems/{problem_id}/states/{t}")
def problem_state(problem_id: str = PathParam(pattern=PROBLEM_ID), t: int = PathParam(ge=0, le=20),
                  s: Services = Depends(services)) -> dict:
    """One problem state (docs/records.md, ``problem_state``): statement with its constraints,
    tests, extended tests, checker, limits."""
    return s.judge.state(problem_id, t).to_dict()
