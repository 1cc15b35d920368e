"""``/v1/run`` and ``/v1/score``: a program judged in the sandbox, a reply scored as a
NeoCoder sample (or a batch of them streamed as NDJSON, batching.py), on judge threads
behind the admission (429 with Retry-After)."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from neocoder.rewards.batch import ScoreResult
from neocoder.serve.batching import NDJSON, admit_batch, count_verdicts, stream_batch
from neocoder.serve.deps import caller, services
from neocoder.serve.judging import TooLarge
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import (
    SCORE_TAGS,
    BatchScoreRequest,
    RunRequest,
    RunResponse,
    ScoreBody,
    ScoreResponse,
    Verdict,
)
from neocoder.serve.services import Services

router = APIRouter(tags=["judge"], **SECURED)


@router.post("/v1/run", response_model=RunResponse)
async def run(body: RunRequest, request: Request, who: str = Depends(caller), s: Services = Depends(services)):
    """Judge a program on tests in the sandbox, as `neocoder sandbox run`; stopped when the client leaves."""
    if len(body.tests) > s.config.max_tests:
        raise TooLarge("tests", len(body.tests), s.config.max_tests, unit="tests")
    tests = [t.model_dump() for t in body.tests]
    result = await s.judge_call(who, "run", lambda cancel: s.judge.run(
        body.program, tests, body.cpu_seconds, body.memory_mb, body.language, cancel=cancel,
        max_output=s.config.max_output_bytes), receive=request.receive)
    s.telemetry.count_verdicts("run", result.verdicts)
    checked = all(t.get("output") is not None for t in tests) and bool(tests)
    return RunResponse(accepted=result.accepted if checked else None, entry=result.entry,
                       compile_error=result.compile_error, seconds=round(result.seconds, 4),
                       output_cut=result.output_cut,
                       tests=[Verdict(**asdict(t))
                              for t in result.tests])


class UntaggedBody(APIRoute):
    """A route whose body is ``ScoreBody`` (a single request or a batch): a validation
    error's location drops the union's tag, so ``body.state`` reads as it always has
    (not ``body.single.state``)."""

    def get_route_handler(self):
        """FastAPI's handler for this route, with a validation error's ``loc`` rid of the
        body union's tag (``_untag``)."""
        handler = super().get_route_handler()

        async def route(request):
            try:
                return await handler(request)
            except RequestValidationError as exc:
                raise RequestValidationError([_untag(e) for e in exc.errors()], body=exc.body) from None
        return route


def _untag(error: dict) -> dict:
    loc = tuple(error.get("loc", ()))
    if len(loc) >= 2 and loc[0] == "body" and loc[1] in SCORE_TAGS:
        error = dict(error, loc=("body", *loc[2:]))
    return error


score_router = APIRouter(route_class=UntaggedBody)
STREAM_DOC = {"description": "A single request: its sample and scores.  A batch (`items`): an NDJSON stream "
                             "(application/x-ndjson), one ScoreResult per line as each program is judged.",
              "content": {NDJSON: {"schema": TypeAdapter(ScoreResult).json_schema()}}}


@score_router.post("/v1/score", response_model=None, responses={200: {"model": ScoreResponse, **STREAM_DOC}})
async def score(body: ScoreBody, request: Request, who: str = Depends(caller), s: Services = Depends(services)):
    """The full NeoCoder sample record of a reply or program for one problem state: verdicts on
    the examples and extended tests, techniques, violated constraints, new techniques,
    divergent, convergent (the per-sample reward).  With ``items``, a batch: each program's
    ScoreResult (reward, scores, novelty against ``archive``, sample) streamed as NDJSON
    (docs/rewards.md)."""
    if isinstance(body, BatchScoreRequest):
        admit_batch(s, who, body)
        return StreamingResponse(stream_batch(s, who, body), media_type=NDJSON)
    record, scores = await s.judge_call(who, "score", lambda cancel: s.judge.score(
        body.problem_id, body.state, body.text, body.model, judge_all_tests=body.judge_all_tests,
        language=body.language, cancel=cancel), receive=request.receive)
    count_verdicts(s, record)
    return ScoreResponse(sample=record.to_dict(), scores=scores)


router.include_router(score_router)
