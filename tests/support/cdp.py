"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
JSON messages ending in NUL, commands on fd 3, replies and events on fd 4), for the
browser tests of the leaderboard and of ``neocoder serve``'s pages.

Each ``Page`` lives in its own browser context when asked (``isolated=True``: its own
cookies, as a second person's browser).  Waiting is on what the page shows
(``wait_for(expression)``), with a generous limit that only turns a hang into a failure."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--remote-debugging-pipe"]


def _fds_3_4(read: int, write: int) -> None:
    read, write = os.dup(read), os.dup(write)
    os.dup2(read, 3)
    os.dup2(write, 4)


class Chromium:
    """One headless Chromium process with a fresh profile in ``profile``."""

    def __init__(self, profile: Path, size: str = "1400,1000"):
        r3, w3 = os.pipe()
        r4, w4 = os.pipe()
        self.proc = subprocess.Popen(["/usr/bin/chromium", *FLAGS, f"--user-data-dir={profile}",
                                      f"--window-size={size}", "about:blank"],
                                     pass_fds=(3, 4, r3, w4), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=lambda: _fds_3_4(r3, w4))
        os.close(r3)
        os.close(w4)
        self.commands, self.replies, self.buffer, self.last = w3, r4, b"", 0
        self.events: list[dict] = []

    def call(self, method: str, session: str | None = None, **params) -> dict:
        """Send one command and return its result (events that arrive meanwhile are kept
        in ``events``).  Raises AssertionError for a protocol error."""
        self.last += 1
        message = {"id": self.last, "method": method, "params": params, **({"sessionId": session} if session else {})}
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.replies, 1 << 16)
                assert chunk, "chromium closed its DevTools pipe"
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\0", 1)
            got = json.loads(line)
            if got.get("id") == self.last:
                assert "error" not in got, (method, got["error"])
                return got["result"]
            if "method" in got:
                self.events.append(got)

    def page(self, isolated: bool = False) -> "Page":
        """A new tab (in a new browser context, with its own cookies, when ``isolated``)."""
        extra = {}
        if isolated:
            extra["browserContextId"] = self.call("Target.createBrowserContext")["browserContextId"]
        target = self.call("Target.createTarget", url="about:blank", **extra)["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session)
        self.call("Network.enable", session)
        return Page(self, session)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        os.close(self.commands)
        os.close(self.replies)


class Page:
    """One tab: navigate, evaluate JavaScript, wait for what it shows."""

    def __init__(self, browser: Chromium, session: str):
        self.browser, self.session = browser, session

    def call(self, method: str, **params) -> dict:
        return self.browser.call(method, self.session, **params)

    def evaluate(self, expression: str, awaited: bool = False):
        """The value of ``expression`` in the page (a promise awaited when ``awaited``)."""
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=awaited)
        assert "exceptionDetails" not in got, got["exceptionDetails"]
        return got["result"].get("value")

    def wait_for(self, expression: str, limit: float = 300, what: str = ""):
        """Wait until ``expression`` is truthy in the page, and return its value."""
        deadline = time.monotonic() + limit
        while True:
            try:
                value = self.evaluate(expression)
            except AssertionError:  # the page is between documents
                value = None
            if value:
                return value
            assert time.monotonic() < deadline, f"page never showed {what or expression}: {self.text()[:1500]}"
            time.sleep(0.2)

    def goto(self, url: str) -> None:
        """Open ``url`` and wait until its document has loaded."""
        self.call("Page.navigate", url=url)
        self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}",
                      what=f"{url} loaded")

    def text(self) -> str:
        try:
            return self.evaluate("document.body ? document.body.innerText : ''") or ""
        except AssertionError:
            return ""

    def cookies(self) -> list[dict]:
        return self.call("Network.getCookies")["cookies"]

    def screenshot(self, path: Path) -> Path:
        import base64
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)
