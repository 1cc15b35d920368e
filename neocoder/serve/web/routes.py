"""The browser UI of ``neocoder serve``: the public leaderboard at ``/``, sign-in, a
caller's jobs with live progress, their reports and downloads.

Pages are Jinja2 templates (``templates/``, autoescaped) and two small scripts (the
leaderboard's, shipped in neocoder/report/leaderboard/, and ``static/job.js``); nothing
loads from another site.  The JSON API (``/v1/...``) is unchanged: these routes sit under
``/`` and ``/web/``, which the bearer-token middleware lets through (auth.py
``is_browser_path``), and they check their own session cookie instead (sessions.py):
a page of a job answers 404 unless the session's caller owns the job, as the API does
for another token's job.  Every POST carries the CSRF token; one without it, or with a
wrong one, is refused (403) before anything changes.  Answers carry a Content Security
Policy allowing only this server's scripts, and refuse framing.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from importlib import resources
from urllib.parse import parse_qs

import anyio
from fastapi import APIRouter, Depends, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response, StreamingResponse
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from pydantic import ValidationError

from neocoder.serve.auth import token_id
from neocoder.serve.deps import job_slot, services
from neocoder.serve.schemas import JOB_ID, TaskRunRequest
from neocoder.serve.services import Forbidden, Services
from neocoder.serve.store import CANCELLED, FAILED, PAUSED, SUCCEEDED, Job
from neocoder.serve.web.sessions import LOGIN_COOKIE, SESSION_COOKIE, Session, same

router = APIRouter(include_in_schema=False)
ENV = Environment(loader=PackageLoader("neocoder.serve.web", "templates"), autoescape=True,
                  undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
ENDED = (SUCCEEDED, FAILED, CANCELLED, PAUSED)
# same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
# pages' own forms, and sign-in refuses any origin but this server's (another site can send null)
CSP = ("default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; "
       "form-action 'self'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
           "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
DATA_NAME = r"^[a-z]{2,20}$"  # a download's name: a benchmark, or "samples"


def web(request: Request):
    """The browser UI's state (``web.py`` ``WebState``), opened with the app."""
    return request.app.state.web


def session_of(request: Request) -> Session | None:
    """The request's live session (None when not signed in)."""
    return web(request).sessions.get(request.cookies.get(SESSION_COOKIE))


def page(title: str, template: str, request: Request, status: int = 200, scripts=(), **context) -> HTMLResponse:
    """A whole page: ``template`` inside ``base.html`` with the navigation."""
    session = context.pop("session", session_of(request))
    body = Markup(ENV.get_template(template).render(session=session, **context))
    html = ENV.get_template("base.html").render(title=title, body=body, session=session, scripts=list(scripts))
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def refuse(request: Request, status: int, heading: str, message: str) -> HTMLResponse:
    """The ``message.html`` page with ``heading`` and ``message``, answered with ``status``."""
    return page(heading, "message.html", request, status, heading=heading, message=message)


async def form_of(request: Request) -> dict[str, str]:
    """The urlencoded form of a POST (first value per field)."""
    data = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in data.items()}


def signed_in(request: Request, form: dict) -> Session | HTMLResponse:
    """The session of a state-changing POST whose CSRF token matches, else the refusal
    page: 401 without a session, 403 without the right CSRF token."""
    session = session_of(request)
    if session is None:
        return refuse(request, 401, "Not signed in", "Sign in first.")
    if not same(form.get("csrf"), session.csrf):
        return refuse(request, 403, "Refused", "The form's CSRF token is missing or wrong: reload the page.")
    return session


def owned(request: Request, s: Services, job_id: str) -> Job | None:
    """The signed-in caller's job ``job_id`` (None for another's, or none: both 404)."""
    session = session_of(request)
    job = s.store.get(job_id)
    if session is None or job is None or job.owner != session.caller:
        return None
    return job


def describe(job: Job) -> tuple[str, str]:
    """``(what, model)`` of a stored job request."""
    if "task" in job.request:
        return job.request["task"], job.request["config"].get("model", {}).get("spec", "")
    return "eval", job.request.get("model", {}).get("spec", "")


# ------------------------------------------------------------------ the leaderboard and sign-in

@router.get("/", response_class=HTMLResponse)
def home(request: Request, s: Services = Depends(services)):
    """The public leaderboard; a signed-in caller's jobs and the submit form above it."""
    session = session_of(request)
    jobs = []
    if session is not None:
        for job in reversed(s.store.list(session.caller)):
            what, model = describe(job)
            progress = s.runner.progress(job)
            jobs.append({"id": job.id, "what": what, "model": model, "status": job.status, **progress,
                         "created": datetime.fromtimestamp(job.created, timezone.utc).strftime("%Y-%m-%d %H:%M")})
    return page("NeoCoder leaderboard", "home.html", request, session=session, jobs=jobs,
                board=web(request).board.table(), scripts=["/web/board/static/leaderboard.js"])


@router.get("/web/signin", response_class=HTMLResponse)
def signin_form(request: Request):
    """The sign-in form, with a fresh CSRF value this server issued, also in a short-lived cookie."""
    csrf = web(request).login_values.issue()
    response = page("Sign in", "signin.html", request, csrf=csrf, error=None,
                    minutes=int(web(request).sessions.seconds // 60))
    _cookie(request, response, LOGIN_COOKIE, csrf, int(web(request).login_values.seconds), path="/web/signin")
    return response


@router.post("/web/signin")
async def signin(request: Request, s: Services = Depends(services)):
    """Trade a token for a session cookie (303 to ``/``).  Refused: 403 for a form from
    another origin or without a CSRF value this server issued (and the same value in the
    login cookie), 429 with Retry-After while the client's address is locked after too
    many wrong tokens (auth.py ``CredentialGuard``, shared with the bearer tokens), 401 (the form again) for a token the
    server does not accept."""
    state, address = web(request), request.client.host if request.client else "unknown"
    form = await form_of(request)
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return refuse(request, 403, "Refused", "The sign-in form was sent from another site.")
    wait = state.signin_guard.wait(address)
    if wait > 0:
        return _locked(request, wait)
    csrf = form.get("csrf")
    if not (same(csrf, request.cookies.get(LOGIN_COOKIE)) and state.login_values.consume(csrf)):
        return refuse(request, 403, "Refused", "The sign-in form's CSRF token is missing, used or not this "
                                               "server's: reload the page.")
    caller = _caller_of(s, form.get("token", "").strip())
    if caller is None:
        locked = state.signin_guard.failed(address)
        if locked:
            return _locked(request, locked)
        csrf = state.login_values.issue()
        response = page("Sign in", "signin.html", request, 401, csrf=csrf, error="That token is not accepted.",
                        minutes=int(state.sessions.seconds // 60))
        _cookie(request, response, LOGIN_COOKIE, csrf, int(web(request).login_values.seconds), path="/web/signin")
        return response
    state.signin_guard.succeeded(address)
    sid, _ = web(request).sessions.create(caller)
    response = RedirectResponse("/", status_code=303, headers=HEADERS)
    _cookie(request, response, SESSION_COOKIE, sid, int(web(request).sessions.seconds))
    response.delete_cookie(LOGIN_COOKIE, path="/web/signin")
    return response


def _locked(request: Request, seconds: float) -> HTMLResponse:
    """The 429 page of an address locked out of sign-in for ``seconds``."""
    wait = max(1, int(seconds + 0.999))
    response = refuse(request, 429, "Too many attempts",
                      f"Too many wrong tokens from your address: try again in {wait} s.")
    response.headers["Retry-After"] = str(wait)
    return response


@router.post("/web/signout")
async def signout(request: Request):
    """End the session (CSRF-checked) and clear its cookie; 303 to ``/``."""
    got = signed_in(request, await form_of(request))
    if isinstance(got, HTMLResponse):
        return got
    web(request).sessions.drop(request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/", status_code=303, headers=HEADERS)
    response.delete_cookie(SESSION_COOKIE, path="/", secure=request.url.scheme == "https", httponly=True,
                           samesite="strict")
    return response


def _caller_of(s: Services, token: str) -> str | None:
    """The caller id of ``token`` when the server accepts it (constant-time compare);
    on a --no-auth server, everyone is ``anonymous``."""
    import hmac
    if not s.config.tokens:
        return "anonymous"
    found = None
    for accepted in s.config.tokens:
        if hmac.compare_digest(token.encode(), accepted.encode()):
            found = token_id(accepted)
    return found


def _cookie(request: Request, response: Response, name: str, value: str, seconds: int, path: str = "/") -> None:
    response.set_cookie(name, value, max_age=seconds, path=path, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


# ------------------------------------------------------------------ jobs

@router.post("/web/jobs")
async def submit(request: Request, s: Services = Depends(services)):
    """Queue an eval or a suite job from the form (CSRF-checked); 303 to its page, or a
    422 page naming what the server refused."""
    form = await form_of(request)
    got = signed_in(request, form)
    if isinstance(got, HTMLResponse):
        return got
    job_slot(got.caller, s)  # 429 past the job limits, 503 while draining (the API's answers)
    model = {"spec": form.get("model", "").strip()}
    try:
        from neocoder.serve.routes.runs import stored_request
        if form.get("kind") == "suite":
            stored, key = stored_request(TaskRunRequest(task="suite", config={
                "model": model, "preset": form.get("preset") or "quick"}))
        else:
            stored, key = stored_request(TaskRunRequest(task="eval", config={
                "model": model, "limit": int(form.get("limit") or 3)}))
        s.check_models(stored)
    except (RequestValidationError, ValidationError, ValueError) as exc:
        return refuse(request, 422, "Not submitted", _problems(exc))
    except Forbidden as exc:  # a task the operator does not let callers start
        return refuse(request, 403, "Not submitted", str(exc))
    job = s.runner.submit(got.caller, stored, key)
    return RedirectResponse(f"/web/jobs/{job.id}", status_code=303, headers=HEADERS)


def _problems(exc) -> str:
    errors = exc.errors() if hasattr(exc, "errors") else [{"loc": (), "msg": str(exc)}]
    return "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}" for e in errors)


@router.get("/web/jobs/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, job_id: str = PathParam(pattern=JOB_ID), s: Services = Depends(services)):
    """A job's page: status, live progress, and once it has succeeded its report and downloads."""
    job = owned(request, s, job_id)
    if job is None:
        return refuse(request, 404, "Not found", f"no job {job_id} of yours")
    what, model = describe(job)
    return page(f"job {job.id[:8]}", "job.html", request, job=job, what=what, model=model,
                progress=s.runner.progress(job), downloads=_downloads(s, job), scripts=["/web/static/job.js"])


@router.post("/web/jobs/{job_id}/cancel")
async def cancel(request: Request, job_id: str = PathParam(pattern=JOB_ID), s: Services = Depends(services)):
    """Cancel the caller's job (CSRF-checked); 303 back to its page."""
    got = signed_in(request, await form_of(request))
    if isinstance(got, HTMLResponse):
        return got
    if owned(request, s, job_id) is None:
        return refuse(request, 404, "Not found", f"no job {job_id} of yours")
    s.runner.cancel(job_id)
    return RedirectResponse(f"/web/jobs/{job_id}", status_code=303, headers=HEADERS)


@router.get("/web/jobs/{job_id}/events")
async def events(request: Request, job_id: str = PathParam(pattern=JOB_ID), s: Services = Depends(services)):
    """Server-sent events: ``{"status", "done", "total", "error"}`` each time the job's
    state changes (checked twice a second), until it has ended."""
    if owned(request, s, job_id) is None:
        return refuse(request, 404, "Not found", f"no job {job_id} of yours")

    def state() -> dict:
        job = s.store.get(job_id)
        return {"status": job.status, **s.runner.progress(job), "error": job.error}

    async def stream():
        last = None
        while not await request.is_disconnected():
            now = await anyio.to_thread.run_sync(state)
            if now != last:
                yield f"data: {json.dumps(now)}\n\n"
                last = now
            if now["status"] in ENDED:
                return
            await anyio.sleep(0.5)

    return StreamingResponse(stream(), media_type="text/event-stream", headers=HEADERS)


@router.get("/web/jobs/{job_id}/report/{name}")
def report(request: Request, job_id: str = PathParam(pattern=JOB_ID),
           name: str = PathParam(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$"), s: Services = Depends(services)):
    """A file of the job's HTML report (built on first request once it has succeeded)."""
    job = owned(request, s, job_id)
    if job is None:
        return refuse(request, 404, "Not found", f"no job {job_id} of yours")
    if job.status != SUCCEEDED:
        return refuse(request, 409, "Not yet", f"job {job_id} is {job.status}: its report is made once it succeeds")
    path = web(request).report(s, job) / name
    if not path.is_file():
        return refuse(request, 404, "Not found", f"the report has no file {name}")
    return FileResponse(path, headers=HEADERS)


@router.get("/web/jobs/{job_id}/data/{name}.parquet")
def download(request: Request, job_id: str = PathParam(pattern=JOB_ID), name: str = PathParam(pattern=DATA_NAME),
             s: Services = Depends(services)):
    """The job's records as Parquet: ``samples`` for an eval, a benchmark's name for a suite."""
    job = owned(request, s, job_id)
    if job is None or job.status != SUCCEEDED or name not in _downloads(s, job):
        return refuse(request, 404, "Not found", f"no download {name} of job {job_id} of yours")
    path = web(request).parquet(s, job, name)
    return FileResponse(path, media_type="application/vnd.apache.parquet", filename=f"{job.id[:8]}-{name}.parquet",
                        headers=HEADERS)


def _downloads(s: Services, job: Job) -> list[str]:
    if job.request.get("task") == "suite":
        run = s.runner.run_dir(job.id)
        return [p.parent.name for p in sorted(run.glob("*/metrics.json"))]
    return ["samples"]


# ------------------------------------------------------------------ files

@router.get("/web/static/{name}")
def static(name: str = PathParam(pattern=r"^[a-z]+\.js$")):
    """The UI's own script (``static/``)."""
    return _package_file("neocoder.serve.web", "static", name, "text/javascript")


@router.get("/web/board/static/{name}")
def board_static(name: str = PathParam(pattern=r"^leaderboard\.(js|css)$")):
    """The leaderboard's script and style sheet (shipped in neocoder/report/leaderboard/)."""
    return _package_file("neocoder.report.leaderboard", "static", name,
                         "text/css" if name.endswith(".css") else "text/javascript")


@router.get("/web/board/{name:path}")
def board_file(request: Request, name: str):
    """A file of the public leaderboard's site (a model's page, a run's report, a download)."""
    path = web(request).board.file(name)
    if path is None:
        return refuse(request, 404, "Not found", f"the leaderboard has no file {name}")
    return FileResponse(path, headers=HEADERS)


def _package_file(package: str, folder: str, name: str, media_type: str) -> Response:
    try:
        data = resources.files(package).joinpath(folder, name).read_bytes()
    except FileNotFoundError:
        return Response(status_code=404)
    return Response(data, media_type=media_type, headers={"Cache-Control": "no-cache"})
