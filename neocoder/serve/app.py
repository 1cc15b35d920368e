"""The ASGI app of ``neocoder serve``: the routers of routes/ over the services the
lifespan opens (services.py: the judge service, the job runner, the job store).

Middleware, outermost first: ``TrustedHostMiddleware`` (Starlette's, with ``--allowed-host``:
400 for another Host header), ``RequestCounter`` (telemetry.py), ``NoSniff`` (every answer
says ``X-Content-Type-Options: nosniff``; scripts and files also get the pages' Content
Security Policy), ``BearerAuth`` (auth.py: nothing but /healthz without a token),
``BodyLimit`` (limits.py: 413 before parsing).
Routes validate their input with the models of schemas.py (422 naming the field), take
what they need through the dependencies of deps.py, and the library's errors become
answers in one place (``install_error_handlers``); a job's models are checked against the
operator's endpoint and provider policy before it is queued (services.py ``check_models``).
Judging runs on worker threads, at most ``workers`` at once, behind ``Admission`` (429
with Retry-After and the limit's name).  The lifespan
opens the job store, the sandbox and the job threads, and on shutdown (SIGTERM: uvicorn
first stops accepting and lets requests in flight end) stops the jobs after their items
in flight and removes the sandbox's containers.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from neocoder.errors import NeocoderError
from neocoder.judge import Cancelled
from neocoder.serve import web
from neocoder.serve.abandon import CLIENT_CLOSED
from neocoder.serve.auth import BearerAuth, CredentialGuard
from neocoder.serve.config import ServeConfig
from neocoder.serve.jobs import JobConflict
from neocoder.serve.judging import NotFound, TooLarge, Unavailable
from neocoder.serve.limits import BodyLimit, Busy
from neocoder.serve.routes import archives, judge, problems, runs, service
from neocoder.serve.schemas import load_routes
from neocoder.serve.services import Forbidden, close_services, open_services
from neocoder.serve.telemetry import RequestCounter, Telemetry
from neocoder.serve.web.routes import CSP

log = logging.getLogger("neocoder.serve")


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
        return answer(429, str(exc), headers={"Retry-After": str(exc.retry_after), "X-NeoCoder-Quota": exc.reason})

    @app.exception_handler(Cancelled)
    async def gone(_request, exc: Cancelled):  # nobody reads it: the client has left (abandon.py)
        return answer(CLIENT_CLOSED, str(exc) or "the caller has gone")

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
        if isinstance(exc, Forbidden):
            return answer(403, str(exc), exc.field)
        log.error("request failed: %s", exc)
        return answer(500, str(exc))


def create_app(config: ServeConfig) -> FastAPI:
    """The ASGI app for ``config`` (checked: ``config.check()`` has read the tokens)."""
    telemetry = Telemetry()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.services = await open_services(config, telemetry)
        try:
            yield
        finally:
            await close_services(app.state.services)

    # /openapi.json stays (behind the token like every path but /healthz); the docs pages are
    # left out: they load their scripts from a CDN.
    app = FastAPI(title="NeoCoder", version=_version(), lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="NeoCoder as a service: judge programs, score replies per problem state, run "
                              "evaluations as jobs (docs/serve.md).")
    install_error_handlers(app)
    guard = CredentialGuard(config.signin_attempts, config.signin_lockout)  # every credential path's
    web.install(app, config, guard)  # the browser UI at / and /web/ (serve/web/; issue 40)
    # the shared routes, then each registered benchmark's own (its descriptor's ``routes``: /v1/evals)
    for router in (judge.router, archives.router, problems.router, *load_routes(), runs.router, service.router,
                   service.open_router):
        app.include_router(router)
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(BearerAuth, tokens=config.tokens, guard=guard)
    if config.allowed_host:  # inside NoSniff: its 400 for a forged Host says nosniff too
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(config.allowed_host))
    app.add_middleware(NoSniff)
    app.add_middleware(RequestCounter, telemetry=telemetry)
    return app


class NoSniff:
    """ASGI middleware: ``X-Content-Type-Options: nosniff`` on every answer, so no browser
    runs a download or a JSON answer as a script or a page; answers without a Content
    Security Policy of their own (the UI's scripts and files) get the pages' one."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        """Pass the request on; add the headers to its answer's start."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def sending(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-content-type-options"]
                headers.append((b"x-content-type-options", b"nosniff"))
                if not any(k.lower() == b"content-security-policy" for k, _ in headers):
                    headers.append((b"content-security-policy", CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("neocoder")
    except metadata.PackageNotFoundError:
        return "0"
