"""Stopping a submission whose caller has gone.

Whoever stands for a submission's caller (the server for an HTTP client that disconnected or a
batch abandoned, the job runner for a cancelled job) holds a ``Cancel`` and sets it when the
caller leaves; ``Sandbox.run(..., cancel=...)`` then stops the submission and raises
``Cancelled``.  The local pool stops it at once: setting the ``Cancel`` destroys the worker
judging it (its container or process, and so the program): the callbacks registered with
``watching`` run in the thread that sets it, nothing polls.  A submission still waiting for a
slot looks every ``pool.CANCEL_WAIT_SECONDS`` and never takes one.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

log = logging.getLogger("neocoder.judge")


class Cancelled(Exception):
    """The submission's caller has gone: its judging was stopped and it has no result."""


class Cancel:
    """Set once when the caller of one or more submissions has gone (thread-safe).

    ``set()`` marks it and runs the callbacks registered with ``watching`` (each once, in
    the setting thread; a callback's exception is logged, never raised to the setter);
    ``is_set()`` and ``wait(timeout)`` read it like a ``threading.Event``.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._callbacks: dict[int, object] = {}
        self._next = 0

    def set(self) -> None:
        """Mark the caller gone and run the registered callbacks (once; later calls do nothing)."""
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()  # before the callbacks are taken: a watcher leaving after this sees it set
            callbacks, self._callbacks = list(self._callbacks.values()), {}
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - one failed stop must not keep the others from running
                log.exception("stopping a cancelled submission failed")

    def is_set(self) -> bool:
        """True once ``set()`` was called."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set or ``timeout`` seconds pass; True when set."""
        return self._event.wait(timeout)

    @contextmanager
    def watching(self, callback):
        """Run ``callback()`` if the ``Cancel`` is set while the ``with`` block runs (at once
        when it is set already).  After the block, ``is_set()`` is True whenever the callback
        ran or may still be running, so the caller can tell whether what it guarded was stopped."""
        with self._lock:
            if self._event.is_set():
                already = True
            else:
                already = False
                key, self._next = self._next, self._next + 1
                self._callbacks[key] = callback
        if already:
            callback()
        try:
            yield self
        finally:
            if not already:
                with self._lock:
                    self._callbacks.pop(key, None)


class CancelledBy:
    """A sandbox whose every submission is stopped once ``cancel`` is set: ``run`` passes
    ``cancel`` along unless its caller gives its own; everything else (``capacity``,
    ``image``, ``close``, ...) is the wrapped sandbox's.  The runner wraps a run's sandboxes
    in it, so a cancelled job stops the programs it is judging, not only the samples not
    yet started (serve/jobs.py)."""

    def __init__(self, sandbox, cancel: Cancel):
        self._sandbox, self._cancel = sandbox, cancel

    def run(self, *args, **kwargs):
        """``sandbox.run(*args, **kwargs)`` with ``cancel`` set to this wrapper's when the
        caller gave none.  Raises Cancelled once it is set."""
        if kwargs.get("cancel") is None:
            kwargs["cancel"] = self._cancel
        return self._sandbox.run(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._sandbox, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._sandbox.close()
