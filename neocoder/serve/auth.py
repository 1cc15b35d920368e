"""Bearer-token auth for every endpoint but /healthz, as plain ASGI middleware.

The middleware runs before any route, so no endpoint can forget it and nothing of a
request is read before its token is checked.  A token is compared with each accepted
token in constant time (``hmac.compare_digest``).  The rest of the server knows a caller
only by its token's id, ``t-`` and the first 12 hex digits of the token's SHA-256: that
id owns jobs, counts against the per-token limits and appears in logs; the token itself
is never stored or logged.
"""

from __future__ import annotations

import hashlib
import hmac

from neocoder.serve.limits import send_error

OPEN_PATHS = frozenset({"/healthz"})  # answered without a token
BROWSER_PREFIX = "/web/"  # the browser UI (serve/web/): it checks its own session cookie, not a bearer token


def is_browser_path(path: str) -> bool:
    """Whether ``path`` is the browser UI's (``/`` and ``/web/...``), which takes no bearer
    token: its pages check their session cookie and CSRF token (serve/web/sessions.py)."""
    return path == "/" or path.startswith(BROWSER_PREFIX)


ANONYMOUS = "anonymous"  # the caller's id on a --no-auth server


def token_id(token: str) -> str:
    """The id a token is known by (jobs' owner, per-token limits, logs)."""
    return "t-" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:12]


class BearerAuth:
    """ASGI middleware: a request to any path but OPEN_PATHS needs ``Authorization: Bearer
    <token>`` with an accepted token, else 401 with ``WWW-Authenticate``.  The caller's id
    goes into ``scope["state"]["caller"]`` (``request.state.caller`` in a route).  With
    no tokens (``--no-auth``, loopback only) every caller is ``anonymous``."""

    def __init__(self, app, tokens: list[str]):
        self.app = app
        self.tokens = [(t.encode("utf-8"), token_id(t)) for t in tokens]

    def identify(self, header: bytes | None) -> str | None:
        """The caller's id for an Authorization header value, or None."""
        if not self.tokens:
            return ANONYMOUS
        if not header or not header[:7].lower() == b"bearer ":
            return None
        given = header[7:].strip()
        found = None
        for token, ident in self.tokens:
            if hmac.compare_digest(given, token):
                found = ident
        return found

    async def __call__(self, scope, receive, send):
        """Check an HTTP request's bearer token: answer 401 (with ``WWW-Authenticate``) for a
        missing or unknown one, except on OPEN_PATHS and the browser UI's paths; else hand the
        request to the app with the caller's id (None on those paths without a token) in
        ``scope["state"]["caller"]``.  Other scopes (lifespan, websocket) pass through."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        header = dict(scope.get("headers") or []).get(b"authorization")
        caller = self.identify(header)
        if caller is None and scope.get("path") not in OPEN_PATHS and not is_browser_path(scope.get("path", "")):
            why = "missing bearer token" if not header else "invalid bearer token"
            return await send_error(send, 401, f"{why}: send 'Authorization: Bearer <token>'",
                                    headers=[(b"www-authenticate", b'Bearer realm="neocoder"')])
        scope.setdefault("state", {})["caller"] = caller
        return await self.app(scope, receive, send)
