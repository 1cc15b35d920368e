"""Browser sessions of ``neocoder serve``: a bearer token traded for a session cookie.

Why: a browser cannot send ``Authorization: Bearer`` with a link it follows, and a token
pasted into every page would leak into history and logs.  Signing in (``POST
/web/signin`` with the token) makes a session here, in the server's memory, and sets its
random id as a cookie that is ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no
other site's page sends it: the first defence against cross-site request forgery),
``Path=/`` and ``Secure`` behind HTTPS, and that expires after ``--session-minutes``.  The
session knows its caller only by the token's id (auth.py ``token_id``), never the token.

Every form that changes state also carries the session's CSRF token, a second random
value compared in constant time (the synchronizer-token pattern, OWASP's CSRF
Prevention Cheat Sheet); the sign-in form, before any session exists, carries the value
of a short-lived ``neocoder_login`` cookie (the double-submit pattern).  A restarted server
has no sessions: its callers sign in again.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass

SESSION_COOKIE = "neocoder_session"
LOGIN_COOKIE = "neocoder_login"  # the sign-in form's CSRF value, before a session exists
LOGIN_SECONDS = 600


@dataclass
class Session:
    """One signed-in browser: the caller's id, the CSRF token of its forms, its expiry
    (``time.time()`` seconds)."""

    caller: str
    csrf: str
    expires: float


class Sessions:
    """The server's sessions by id (in memory), each valid for ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, caller: str) -> tuple[str, Session]:
        """A new session of ``caller``: ``(id for the cookie, Session)``."""
        sid = secrets.token_urlsafe(32)
        session = Session(caller, secrets.token_urlsafe(32), time.time() + self.seconds)
        with self._lock:
            now = time.time()
            self._by_id = {k: v for k, v in self._by_id.items() if v.expires > now}  # forget expired ones
            self._by_id[sid] = session
        return sid, session

    def get(self, sid: str | None) -> Session | None:
        """The live session of cookie value ``sid`` (None: none, unknown or expired)."""
        if not sid:
            return None
        with self._lock:
            session = self._by_id.get(sid)
            if session is not None and session.expires <= time.time():
                del self._by_id[sid]
                return None
            return session

    def drop(self, sid: str | None) -> None:
        """End the session ``sid`` (sign-out)."""
        with self._lock:
            self._by_id.pop(sid or "", None)


def same(given: str | None, expected: str | None) -> bool:
    """Whether a submitted CSRF value equals the expected one (constant time; False when
    either is missing)."""
    return bool(given) and bool(expected) and hmac.compare_digest(given.encode(), expected.encode())
