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
Prevention Cheat Sheet).  The sign-in form, before any session exists, carries a value
this server issued (``LoginValues``: kept here, single use, short-lived) that must also be
the value of the ``neocoder_login`` cookie: a cookie planted by someone who can set
cookies for the host, with a value the server never issued, signs nobody in.

Sign-in is limited (``SignInGuard``): after ``attempts`` wrong tokens from one address,
that address is refused (429 with Retry-After) for ``lockout`` seconds, doubled at each
further lockout, so a token cannot be guessed at request speed.  A restarted server has
no sessions: its callers sign in again.
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


class LoginValues:
    """The sign-in forms' CSRF values this server issued and not yet used, each valid for
    ``seconds`` (``issue``, then ``consume`` exactly once)."""

    def __init__(self, seconds: float = LOGIN_SECONDS, limit: int = 10000):
        self.seconds, self.limit = seconds, limit
        self._issued: dict[str, float] = {}
        self._lock = threading.Lock()

    def issue(self) -> str:
        """A new random value, remembered until used or expired (at most ``limit`` kept:
        the oldest are forgotten first)."""
        value = secrets.token_urlsafe(32)
        with self._lock:
            now = time.time()
            self._issued = {k: v for k, v in self._issued.items() if v > now}
            while len(self._issued) >= self.limit:
                self._issued.pop(next(iter(self._issued)))
            self._issued[value] = now + self.seconds
        return value

    def consume(self, value: str | None) -> bool:
        """True, once, for a value ``issue`` gave that has not expired."""
        if not value:
            return False
        with self._lock:
            expires = self._issued.pop(value, None)
        return expires is not None and expires > time.time()


class SignInGuard:
    """Wrong tokens per client address: after ``attempts`` failures in a row an address is
    locked for ``lockout`` seconds, twice as long at each further lockout (at most a day);
    a sign-in that succeeds clears its address.  ``time.monotonic()`` seconds."""

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


def same(given: str | None, expected: str | None) -> bool:
    """Whether a submitted CSRF value equals the expected one (constant time; False when
    either is missing)."""
    return bool(given) and bool(expected) and hmac.compare_digest(given.encode(), expected.encode())
