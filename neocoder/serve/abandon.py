"""Stopping the work of a caller who has gone (issue 57: abandoned requests must not hold
the judge).

A /v1/run or /v1/score request is judged on a judge thread; while it runs, ``Leaving``
reads the request's ASGI messages, and an ``http.disconnect`` (the client closed its
connection) sets the submission's ``neocoder.judge.Cancel``: the sandbox destroys the
worker judging it and the judge thread raises ``Cancelled`` at once.  A request still
waiting for its share of the workers or for a judge slot stops waiting and never starts.
The same happens when the request's task is cancelled: a batch's NDJSON stream abandoned
by its client (Starlette cancels the stream, and with it every item's task), so every item
in flight is stopped and none starts later.

The route answers a request whose caller left with 499 (nobody reads it; it is counted
under that status in the request metrics).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import anyio

from neocoder.judge import Cancel, Cancelled

CLIENT_CLOSED = 499  # the status a request whose client left is counted under (nginx's "client closed request")


class Leaving:
    """One submission's caller, watched: ``cancel`` is set when it leaves; ``left_at``
    (``time.monotonic()``) says when, so the time to the submission's stop can be measured."""

    def __init__(self):
        self.cancel = Cancel()
        self.left_at: float | None = None
        self.finished = False

    def leave(self) -> None:
        """The caller has gone: note when and stop its submission (nothing once it has
        finished).  The stop (the worker destroyed: a Docker call) runs on a thread of its
        own, never on the event loop, so other requests and other callers' leaving are seen
        meanwhile."""
        if self.left_at is None and not self.finished:
            self.left_at = time.monotonic()
            threading.Thread(target=self.cancel.set, name="neocoder-cancel", daemon=True).start()

    def seconds(self) -> float:
        """Seconds since the caller left (0 if it has not)."""
        return 0.0 if self.left_at is None else time.monotonic() - self.left_at

    async def _watch(self, receive, scope: anyio.CancelScope) -> None:
        try:
            if receive is None:
                await anyio.sleep_forever()
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    self.leave()
                    scope.cancel()  # a request still waiting for a slot stops waiting
                    return
        except anyio.get_cancelled_exc_class():
            self.leave()  # the request's own task was cancelled (a stream abandoned); nothing once finished
            raise

    async def run(self, work: Callable[[], object], receive, *limiters: anyio.CapacityLimiter):
        """``work()`` on a judge thread once each of ``limiters`` (in order) lets it start,
        while ``receive`` (the request's ASGI receive; None: only the task's cancellation is
        watched) is read for the client's disconnect.  Raises Cancelled when the caller left
        before the work ended (the work itself raises it once ``cancel`` is set)."""
        out: list = []
        failure: Exception | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch, receive, group.cancel_scope)
            try:
                await _run_limited(work, out, list(limiters))
            except Exception as exc:  # noqa: BLE001 - raised as it is below, never wrapped in a group
                failure = exc
            self.finished = True
            group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        if not out:
            raise Cancelled("the caller has gone")
        return out[0]


async def _run_limited(work, out: list, limiters: list) -> None:
    if len(limiters) > 1:
        async with limiters[0]:
            return await _run_limited(work, out, limiters[1:])
    out.append(await anyio.to_thread.run_sync(work, limiter=limiters[0] if limiters else None))
