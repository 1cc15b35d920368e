"""The runner's end of the wire: JSON lines in on fd 0, JSON lines out on stdout.

Every message and field is documented with the host side, in
``neocoder/judge/protocol.py``: "ready" once; then per {"op": "run", ...} request a
header, one test message per input, and "done".  A {"op": "stop", "id": ...} may
arrive at any time and is seen at once, even while a test runs.
"""

import collections
import json
import os
import select
import selectors
import sys


class HostInput:
    """JSON lines from the host on fd 0, read without blocking between and during tests,
    so a "stop" for the running submission is seen at once."""

    def __init__(self, fd=0):
        self.fd, self.buf, self.messages, self.eof = fd, bytearray(), collections.deque(), False

    def pump(self):
        """Read what the host has sent (call when fd 0 is readable)."""
        data = os.read(self.fd, 1 << 20)
        if not data:
            self.eof = True
            return
        self.buf += data
        while True:
            newline = self.buf.find(b"\n")
            if newline < 0:
                return
            line = bytes(self.buf[:newline]).strip()
            del self.buf[:newline + 1]
            if line:
                try:
                    self.messages.append(json.loads(line))
                except ValueError:
                    continue

    def next_message(self):
        """The next message, waiting for it; None at end of input."""
        with selectors.DefaultSelector() as sel:
            sel.register(self.fd, selectors.EVENT_READ)
            while not self.messages and not self.eof:
                sel.select()
                self.pump()
        return self.messages.popleft() if self.messages else None

    def stop_requested(self, jid, readable=False):
        """True if the host asked to stop submission ``jid`` (reads first if ``readable``
        or if input is waiting)."""
        if readable or (not self.eof and _readable(self.fd)):
            self.pump()
        stops = [m for m in self.messages if m.get("op") == "stop"]
        for m in stops:
            self.messages.remove(m)
        return self.eof or any(m.get("id") == jid for m in stops)


def _readable(fd):
    return bool(select.select([fd], [], [], 0)[0])


def emit(record):
    """Write ``record`` (a dict) to the host as one JSON line, at once."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()

