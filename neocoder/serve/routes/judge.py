"""``/v1/run`` and ``/v1/score``: a program judged in the sandbox, a reply scored as a
NeoCoder sample, on judge threads behind the admission (429 with Retry-After)."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Depends

from ..deps import caller, services
from ..judging import TooLarge
from ..schemas import RunRequest, RunResponse, ScoreRequest, ScoreResponse, Verdict
from ..services import Services
from . import SECURED

router = APIRouter(tags=["judge"], **SECURED)


@router.post("/v1/run", response_model=RunResponse)
async def run(body: RunRequest, who: str = Depends(caller), s: Services = Depends(services)):
    """Judge a program on tests in the sandbox, as `neocoder sandbox run`."""
    if len(body.tests) > s.config.max_tests:
        raise TooLarge("tests", len(body.tests), s.config.max_tests)  # reported as a count of tests
    tests = [t.model_dump() for t in body.tests]
    result = await s.judge_call(who, "run", lambda: s.judge.run(body.program, tests, body.cpu_seconds,
                                                                body.memory_mb))
    s.telemetry.count_verdicts("run", result.verdicts)
    checked = all(t.get("output") is not None for t in tests) and bool(tests)
    return RunResponse(accepted=result.accepted if checked else None, entry=result.entry,
                       compile_error=result.compile_error, seconds=round(result.seconds, 4),
                       tests=[Verdict(**asdict(t)) for t in result.tests])


@router.post("/v1/score", response_model=ScoreResponse)
async def score(body: ScoreRequest, who: str = Depends(caller), s: Services = Depends(services)):
    """The full NeoCoder sample record of a reply or program for one problem state: verdicts on
    the examples and extended tests, techniques, violated constraints, new techniques,
    divergent, convergent (the per-sample reward)."""
    text = body.reply if body.reply is not None else body.program
    record, scores = await s.judge_call(who, "score", lambda: s.judge.score(
        body.problem_id, body.state, text, body.model, judge_all_tests=body.judge_all_tests))
    for tier in (record.examples, record.plus):
        if tier is not None:
            s.telemetry.count_verdicts("score", tier.verdicts)
    return ScoreResponse(sample=record.to_dict(), scores=scores)
