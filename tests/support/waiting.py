"""Waiting on an observable state in tests (never on a fixed sleep)."""

import time


def wait_until(condition, seconds: float = 120, every: float = 0.1) -> bool:
    """Poll ``condition()`` every ``every`` seconds until it is true or ``seconds`` have
    passed; returns its last value (True as soon as it held)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return condition()
