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
this server issued (``LoginValues``: HMAC-signed with its issuing time, so nothing is kept
until it is used; single use, expiring after ``--signin-form-seconds``) that must also be
the value of the ``neocoder_login`` cookie: a cookie planted by someone who can set
cookies for the host, with a value the server never issued, signs nobody in.

Sign-in is limited (auth.py ``CredentialGuard``, the one the ``/v1`` bearer tokens share):
after ``attempts`` wrong tokens from one address, that address is refused (429 with
Retry-After) for ``lockout`` seconds, doubled at each further lockout, so a token cannot be
guessed at request speed.  A restarted server has
no sessions: its callers sign in again.
"""

from __future__ import annotations

import hashlib
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
    """The sign-in forms' CSRF values, kept nowhere until used: a value is ``TIME.NONCE.MAC``,
    the MAC an HMAC-SHA256 of the issuing time and a random nonce under this server's
    random key, valid for ``seconds`` after it was issued.  Anonymous traffic cannot evict
    a pending sign-in's value, since nothing of an unused value is stored.  A used value is
    remembered until it expires, so each works once (``consume``)."""

    def __init__(self, seconds: float = LOGIN_SECONDS, key: bytes | None = None, clock=time.time):
        self.seconds, self.clock = seconds, clock
        self._key = key or secrets.token_bytes(32)
        self._used: dict[str, float] = {}  # consumed values -> their expiry: only signed values get here
        self._lock = threading.Lock()

    def _mac(self, issued: str, nonce: str) -> str:
        return hmac.new(self._key, f"{issued}.{nonce}".encode(), hashlib.sha256).hexdigest()

    def issue(self) -> str:
        """A new value (nothing is stored)."""
        issued, nonce = str(int(self.clock())), secrets.token_urlsafe(16)
        return f"{issued}.{nonce}.{self._mac(issued, nonce)}"

    def valid(self, value: str | None) -> bool:
        """Whether ``value`` is one this server issued (its MAC checks) that has not expired."""
        parts = (value or "").split(".")
        if len(parts) != 3 or not parts[0].isdigit():
            return False
        issued, nonce, mac = parts
        if not hmac.compare_digest(mac.encode(), self._mac(issued, nonce).encode()):
            return False
        return 0 <= self.clock() - int(issued) < self.seconds

    def consume(self, value: str | None) -> bool:
        """True, once, for a value ``issue`` gave that has not expired."""
        if not self.valid(value):
            return False
        now = self.clock()
        with self._lock:
            self._used = {k: v for k, v in self._used.items() if v > now}  # expired ones are refused anyway
            if value in self._used:
                return False
            self._used[value] = int(value.split(".")[0]) + self.seconds
        return True


def same(given: str | None, expected: str | None) -> bool:
    """Whether a submitted CSRF value equals the expected one (constant time; False when
    either is missing)."""
    return bool(given) and bool(expected) and hmac.compare_digest(given.encode(), expected.encode())
