"""``/metrics`` (Prometheus text, behind the token) and ``/healthz`` (no token: can
programs be judged now?)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response

from neocoder.serve.deps import services
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import Health
from neocoder.serve.services import Services
from neocoder.serve.telemetry import CONTENT_TYPE

router = APIRouter(tags=["service"], **SECURED)
open_router = APIRouter(tags=["service"])  # /healthz: the one path without a token (auth.py OPEN_PATHS)


@router.get("/metrics", response_class=Response)
def metrics(s: Services = Depends(services)):
    """Prometheus text: requests, refusals, queue depth, verdicts, judge latency, jobs."""
    text = s.telemetry.render(s.store.counts(), s.admission.waiting, s.admission.judging)
    return Response(text, media_type=CONTENT_TYPE)


@open_router.get("/healthz", response_model=Health, responses={503: {"model": Health}})
def healthz(s: Services = Depends(services)):
    """Can programs be judged now? The Docker engine is pinged and the image checked. No token needed."""
    sandbox = s.judge.health()
    status = "draining" if s.draining else ("ok" if sandbox["ok"] else "unavailable")
    body = Health(status=status, sandbox=sandbox, jobs=s.store.counts())
    return JSONResponse(body.model_dump(), status_code=200 if status == "ok" else 503)
