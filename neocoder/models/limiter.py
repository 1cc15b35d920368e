"""How many calls one model endpoint has in flight: at most ``--max-connections``, fewer
while the endpoint says it is overloaded.

An API model answers in seconds while the sandbox judges in milliseconds, so the runner
keeps many items in flight (runner.py) and this limiter, one per model (shared by its
``with_temperature`` copies), decides how many of them may be waiting on the endpoint.
After inspect_ai's ``--max-connections`` and lm-eval's ``num_concurrent``, which also
bound calls apart from everything else a run does.

The limit adapts, AIMD style (additive increase, multiplicative decrease, as TCP's
congestion window):

- each answered call adds ``1 / limit`` (about one more connection per ``limit`` calls
  answered), up to ``most``, the configured maximum;
- each 429 or 5xx halves the limit (``DECREASE``), down to 1: a burst of 28 refusals
  from an endpoint that takes 4 calls at once brings 32 down to 1 in one round, instead
  of sending the refused calls back all at once to be refused again; the limit then
  climbs back and probes the endpoint's capacity about once per dozen calls answered
  (measured in perf/max_connections.py: 1% of calls refused twice);
- a ``Retry-After`` the endpoint gives pauses every call of the model (not only the
  refused one) until it has passed.

The retries themselves (how often, how long to wait) are tenacity's, in
``openai_compat.py``; the limiter only counts them, for the progress bar.
"""

from __future__ import annotations

import email.utils
import threading
import time
from contextlib import contextmanager
from typing import Iterator, Mapping

DECREASE = 0.5  # the limit is multiplied by this at each 429 or 5xx
INCREASE = 1.0  # each answered call adds INCREASE / limit
MAX_RETRY_AFTER = 60.0  # seconds: a longer Retry-After is not honoured (as the openai SDK)


class Slot:
    """One call holding a connection; ``overloaded`` says the endpoint refused it."""

    def __init__(self):
        self.refused = False
        self.retry_after: float | None = None

    def overloaded(self, retry_after: float | None = None) -> None:
        """The endpoint answered 429 or 5xx; ``retry_after`` is its Retry-After in seconds
        (None: it gave none)."""
        self.refused, self.retry_after = True, retry_after


class ConnectionLimiter:
    """At most ``limit`` calls in flight (see the module): ``most`` (>= 1) is the
    configured maximum, ``limit`` the current one (a float, at least 1).  ``in_flight``,
    ``retries`` (attempts that were retries) and ``refusals`` (429s and 5xx seen) are
    counts for the progress bar.  Thread-safe."""

    def __init__(self, most: int):
        if most < 1:
            raise ValueError(f"max connections must be at least 1, got {most}")
        self.most = most
        self.limit = float(most)
        self.in_flight = self.retries = self.refusals = 0
        self._resume_at = 0.0  # time.monotonic() before which no call starts (a Retry-After)
        self._cond = threading.Condition()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        """Hold one connection for a call: waits while ``limit`` calls are in flight or a
        Retry-After runs.  On leaving, a call the endpoint refused (``Slot.overloaded``)
        lowers the limit; one that returned raises it; one that raised otherwise (a
        timeout, a bad request) leaves it."""
        with self._cond:
            while True:
                pause = self._resume_at - time.monotonic()
                if pause <= 0 and self.in_flight < int(self.limit):
                    break
                self._cond.wait(pause if pause > 0 else None)
            self.in_flight += 1
        slot, answered = Slot(), False
        try:
            yield slot
            answered = not slot.refused
        finally:
            with self._cond:
                self.in_flight -= 1
                if slot.refused:
                    self._slow_down(slot.retry_after)
                elif answered:
                    self.limit = min(float(self.most), self.limit + INCREASE / self.limit)
                self._cond.notify_all()

    def _slow_down(self, retry_after: float | None) -> None:
        self.refusals += 1
        self.limit = max(1.0, self.limit * DECREASE)
        if retry_after:
            self._resume_at = max(self._resume_at, time.monotonic() + retry_after)

    def retried(self) -> None:
        """Count one retry (a call about to be sent again)."""
        with self._cond:
            self.retries += 1


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the endpoint asks to wait, from ``retry-after-ms`` or ``retry-after``
    (seconds, or an HTTP date); None when there is none, it cannot be read, or it is
    over MAX_RETRY_AFTER."""
    if not headers:
        return None
    seconds = None
    try:
        if headers.get("retry-after-ms") is not None:
            seconds = float(headers["retry-after-ms"]) / 1000
        elif headers.get("retry-after") is not None:
            text = headers["retry-after"]
            try:
                seconds = float(text)
            except ValueError:
                seconds = email.utils.parsedate_to_datetime(text).timestamp() - time.time()
    except (TypeError, ValueError):
        return None
    if seconds is None or seconds > MAX_RETRY_AFTER:
        return None
    return max(0.0, seconds)  # a date already past: retry now


class RefusalGate:
    """Until an endpoint has answered one call, the model's other calls wait for that
    first one (``turn``); once it has answered they all go, and once a call was refused
    as a request the endpoint will never accept (``refuse``, a RequestRefused) every call
    waiting or to come raises that same error without being sent.  So a run of a model
    the endpoint refuses stops after one call, not after ``--max-connections`` of them.
    Shared by a model's ``with_temperature`` copies.  Thread-safe."""

    def __init__(self):
        self.answered = False
        self.refused: BaseException | None = None
        self._probing = False
        self._cond = threading.Condition()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Make one call: raises the stored refusal, or waits while the first call is in
        flight; the call is first when no call has been answered yet."""
        with self._cond:
            while self.refused is None and not self.answered and self._probing:
                self._cond.wait()
            if self.refused is not None:
                raise self.refused
            first = not self.answered
            self._probing = self._probing or first
        try:
            yield
            with self._cond:
                self.answered = True
        finally:
            if first:
                with self._cond:
                    self._probing = False  # answered, refused, or failed otherwise: the next one may go
                    self._cond.notify_all()

    def refuse(self, error: BaseException) -> None:
        """Every call from now on raises ``error`` (and the calls waiting)."""
        with self._cond:
            self.refused = error
            self._cond.notify_all()
