"""The server's limits: request body size (413), and admission to the judge (429).

``BodyLimit`` reads a request body up to the limit before the app sees it, so a body
past it (announced by Content-Length or streamed in chunks) is a 413 and never parsed.

``Admission`` decides whether a /v1/run or /v1/score request may wait for a judge slot:
at most ``per_token`` requests of one token are admitted at once, and at most ``slots +
queue`` of all tokens together (``slots`` being judged, the rest waiting).  A refused
request gets 429 with ``Retry-After``, the seconds the admitted requests ahead of it are
expected to take (from the recent judging time).  ``Admission`` also keeps each token's
quota of programs a minute (``per_minute``, over the last 60 seconds): past it the answer
is 429 with ``Retry-After`` the seconds until the oldest program counted leaves the window.
A 429 names what was hit (``Busy.reason``: the option's name) in its detail and in the
``X-NeoCoder-Quota`` header.

``JudgeTime`` charges each token the seconds its submissions hold a judge worker (its
quota ``--judge-seconds-per-minute``, over the last 60 seconds, the running submissions'
time so far included): past it a new request is 429 with ``Retry-After`` the seconds until
enough of the charged time leaves the window.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from contextlib import contextmanager

WINDOW = 60.0  # seconds over which programs_per_minute counts


class Busy(Exception):
    """A request refused by a limit: ``reason``, the limit's option name
    ("per-token-concurrency", "queue", "programs-per-minute", "max-jobs", "jobs-per-token"),
    and the suggested ``retry_after`` in whole seconds."""

    def __init__(self, reason: str, message: str, retry_after: int):
        super().__init__(message)
        self.reason, self.retry_after = reason, retry_after


class JudgeTime:
    """Worker-seconds charged per token over the last ``WINDOW`` seconds: each submission's
    time on a judge worker (``holding``), the running ones' time so far included, against a
    budget of ``per_minute`` seconds (None: no budget).  Thread-safe."""

    def __init__(self, per_minute: float | None, clock=time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self.done: dict[str, deque] = {}  # caller -> (end time, seconds) of finished submissions
        self.running: dict[str, list] = {}  # caller -> start times of the submissions on a worker now
        self._lock = threading.Lock()

    def spent(self, caller: str) -> float:
        """Worker-seconds ``caller`` used in the window (running submissions' time so far included)."""
        now = self.clock()
        with self._lock:
            done = self.done.get(caller, deque())
            while done and done[0][0] <= now - WINDOW:
                done.popleft()
            return sum(s for _, s in done) + sum(now - t for t in self.running.get(caller, ()))

    def wait(self, caller: str) -> float:
        """Seconds until ``caller`` is under its budget again (0: it is now)."""
        if self.per_minute is None:
            return 0.0
        over = self.spent(caller) - self.per_minute
        if over < 0:
            return 0.0
        now, freed = self.clock(), 0.0
        with self._lock:
            for end, seconds in self.done.get(caller, ()):
                freed += seconds
                if freed > over:
                    return max(0.0, end + WINDOW - now)
        return WINDOW  # the time is held by running submissions: at least their end, then a minute

    def check(self, caller: str) -> None:
        """Busy ("judge-seconds-per-minute") when ``caller`` has used its budget."""
        wait = self.wait(caller)
        if wait > 0:
            raise Busy("judge-seconds-per-minute", f"quota --judge-seconds-per-minute reached: this token may "
                       f"hold judge workers {self.per_minute:g} seconds a minute", max(1, math.ceil(wait)))

    @contextmanager
    def holding(self, caller: str):
        """Charge the ``with`` block's time (a submission on a worker) to ``caller``."""
        started = self.clock()
        with self._lock:
            self.running.setdefault(caller, []).append(started)
        try:
            yield
        finally:
            now = self.clock()
            with self._lock:
                self.running[caller].remove(started)
                if not self.running[caller]:
                    del self.running[caller]
                self.done.setdefault(caller, deque()).append((now, now - started))


class Admission:
    """Per-token concurrency, per-token programs a minute (``per_minute``; None: no quota)
    and a bounded queue in front of ``slots`` judge slots.  Thread-safe; ``ticket(caller)``
    is the one way in (a context manager)."""

    def __init__(self, slots: int, queue: int, per_token: int, per_minute: int | None = None,
                 clock=time.monotonic, seconds_per_minute: float | None = None):
        self.slots, self.queue, self.per_token, self.per_minute = slots, queue, per_token, per_minute
        self.clock = clock
        self.time = JudgeTime(seconds_per_minute, clock)
        self.programs: dict[str, deque] = {}  # caller -> times (clock seconds) of the programs in the window
        self.admitted = 0
        self.judging = 0
        self.by_caller: dict[str, int] = {}
        self.mean_seconds = 1.0  # moving average of a request's judging time
        self._lock = threading.Lock()

    @property
    def waiting(self) -> int:
        """Requests admitted and waiting for a judge slot (the queue depth)."""
        return max(0, self.admitted - self.judging)

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the admitted requests' expected judging time."""
        return max(1, math.ceil(self.mean_seconds * max(1, self.admitted - self.slots + 1) / self.slots))

    def _spend(self, caller: str, programs: int) -> None:
        """Count ``programs`` against ``caller``'s quota of the last minute (under the lock);
        Busy when they do not fit."""
        if self.per_minute is None:
            return
        now = self.clock()
        times = self.programs.setdefault(caller, deque())
        while times and times[0] <= now - WINDOW:
            times.popleft()
        over = len(times) + programs - self.per_minute  # programs that must leave the window first
        if over > 0:
            wait = times[over - 1] + WINDOW - now if over <= len(times) else WINDOW
            raise Busy("programs-per-minute", f"quota --programs-per-minute reached: this token may judge "
                       f"{self.per_minute} programs a minute", max(1, math.ceil(wait)))
        times.extend([now] * programs)

    @contextmanager
    def ticket(self, caller: str, programs: int = 1):
        """Admit one request of ``caller`` judging ``programs`` programs for the ``with``
        block; raises Busy when the caller has ``per_token`` requests in already, the queue
        is full, the programs would pass the caller's quota of the minute, or the caller
        has used its judge seconds of the minute (``JudgeTime``)."""
        self.time.check(caller)
        with self._lock:
            mine = self.by_caller.get(caller, 0)
            if mine >= self.per_token:
                raise Busy("per-token-concurrency", f"quota --per-token-concurrency reached: this token already "
                           f"has {mine} requests in flight (the limit)", self.retry_after())
            if self.admitted >= self.slots + self.queue:
                raise Busy("queue", f"the judge queue is full ({self.queue} waiting)", self.retry_after())
            self._spend(caller, programs)
            self.admitted += 1
            self.by_caller[caller] = mine + 1
        try:
            yield self
        finally:
            with self._lock:
                self.admitted -= 1
                self.by_caller[caller] -= 1
                if not self.by_caller[caller]:
                    del self.by_caller[caller]

    @contextmanager
    def judging_slot(self):
        """Count the ``with`` block as judging (a thread holds a slot); records its time."""
        with self._lock:
            self.judging += 1
        started = time.monotonic()
        try:
            yield
        finally:
            seconds = time.monotonic() - started
            with self._lock:
                self.judging -= 1
                self.mean_seconds = 0.8 * self.mean_seconds + 0.2 * seconds


async def send_error(send, status: int, detail: str, field: str | None = None, headers=()) -> None:
    """Send a JSON error answer ``{"detail", "field"}`` from ASGI middleware."""
    body = json.dumps({"detail": detail, "field": field}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` is answered 413 before the app
    reads any of it; a body within it is handed to the app whole."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        """Answer 413 for an HTTP request whose declared or received body is over
        ``max_bytes``; else read the body whole and hand it to the app in one message (a client
        that disconnects first gets no answer).  Other scopes pass through."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            return await send_error(send, 413, f"request body of {int(declared)} bytes is over the limit of "
                                               f"{self.max_bytes} bytes")
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await send_error(send, 413, f"request body is over the limit of {self.max_bytes} bytes")
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body, delivered = b"".join(chunks), False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)
