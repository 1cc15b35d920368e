"""Bearer-token auth for every endpoint but /healthz, as plain ASGI middleware.

The middleware runs before any route, so no endpoint can forget it and nothing of a
request is read before its token is checked.  A token is compared with each accepted
token in constant time (``hmac.compare_digest``).  The rest of the server knows a caller
only by its token's id, ``t-`` and the first 12 hex digits of the token's SHA-256: that
id owns jobs, counts against the per-token limits and appears in logs; the token itself
is never stored or logged.

Wrong tokens are throttled per client address by one ``CredentialGuard`` shared by every
credential path (a ``/v1`` bearer token and the browser's sign-in form count together):
after ``--signin-attempts`` wrong tokens in a row an address is refused with 429 and
``Retry-After`` for ``--signin-lockout`` seconds, doubled at each further lockout, whatever
token it sends meanwhile.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time

from neocoder.serve.limits import send_error

OPEN_PATHS = frozenset({"/healthz"})  # answered without a token
BROWSER_PREFIX = "/web/"  # the browser UI (serve/web/): it checks its own session cookie, not a bearer token


def is_browser_path(path: str) -> bool:
    """Whether ``path`` is the browser UI's (``/`` and ``/web/...``), which takes no bearer
    token: its pages check their session cookie and CSRF token (serve/web/sessions.py)."""
    return path == "/" or path.startswith(BROWSER_PREFIX)


class CredentialGuard:
    """Wrong tokens per client address: after ``attempts`` failures in a row an address is
    locked for ``lockout`` seconds, twice as long at each further lockout (at most a day);
    an accepted token clears its address.  ``time.monotonic()`` seconds."""

    MAX_LOCKOUT = 86400.0

    def __init__(self, attempts: int, lockout: float):
        self.attempts, self.lockout = attempts, lockout
        self._state: dict[str, list] = {}  # address -> [failures, lockouts, locked until]
        self._lock = threading.Lock()

    def wait(self, address: str) -> float:
        """Seconds ``address`` must wait before it may try again (0: it may try now)."""
        with self._lock:
            state = self._state.get(address)
            return max(0.0, state[2] - time.monotonic()) if state else 0.0

    def failed(self, address: str) -> float:
        """Count a wrong token from ``address``; the seconds it is now locked (0: not)."""
        with self._lock:
            state = self._state.setdefault(address, [0, 0, 0.0])
            state[0] += 1
            if state[0] < self.attempts:
                return 0.0
            seconds = min(self.lockout * 2 ** state[1], self.MAX_LOCKOUT)
            state[0], state[1], state[2] = 0, state[1] + 1, time.monotonic() + seconds
            return seconds

    def succeeded(self, address: str) -> None:
        """Forget ``address``'s failures and lockouts."""
        with self._lock:
            self._state.pop(address, None)


def locked_answer(seconds: float) -> tuple[int, str, list]:
    """``(Retry-After seconds, detail, headers)`` of the 429 for an address locked ``seconds``."""
    wait = max(1, int(seconds + 0.999))
    return wait, f"too many wrong tokens from this address: try again in {wait} s", \
        [(b"retry-after", str(wait).encode()), (b"x-neocoder-quota", b"signin-attempts")]


ANONYMOUS = "anonymous"  # the caller's id on a --no-auth server


def token_id(token: str) -> str:
    """The id a token is known by (jobs' owner, per-token limits, logs)."""
    return "t-" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:12]


class BearerAuth:
    """ASGI middleware: a request to any path but OPEN_PATHS needs ``Authorization: Bearer
    <token>`` with an accepted token, else 401 with ``WWW-Authenticate``.  The caller's id
    goes into ``scope["state"]["caller"]`` (``request.state.caller`` in a route).  With
    no tokens (``--no-auth``, loopback only) every caller is ``anonymous``."""

    def __init__(self, app, tokens: list[str], guard: CredentialGuard | None = None):
        self.app, self.guard = app, guard
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
        guarded = scope.get("path") not in OPEN_PATHS and not is_browser_path(scope.get("path", ""))
        address = (scope.get("client") or ("unknown",))[0]
        caller = self.identify(header)
        if caller is None and guarded:
            if header and self.guard is not None:
                # a wrong token from a locked address is refused unchecked; a right one always
                # passes, so callers behind an address another caller floods (NAT, one proxy,
                # loopback) keep their service, and never clear that caller's count either
                locked = self.guard.wait(address) or self.guard.failed(address)
                if locked:
                    _, detail, headers = locked_answer(locked)
                    return await send_error(send, 429, detail, headers=headers)
            why = "missing bearer token" if not header else "invalid bearer token"
            return await send_error(send, 401, f"{why}: send 'Authorization: Bearer <token>'",
                                    headers=[(b"www-authenticate", b'Bearer realm="neocoder"')])
        scope.setdefault("state", {})["caller"] = caller
        return await self.app(scope, receive, send)
