"""Headless Chromium (Debian's ``chromium``) run once on a page, for the tests that look at a
built report: the DOM after its scripts ran, or a screenshot.  Driving a page step by step
(clicks, cookies, waiting for a server's job) is cdp.py's DevTools client."""

import shutil
import subprocess
from pathlib import Path


def chromium() -> str:
    """The chromium executable; fails the test (never skips) where it is missing."""
    path = shutil.which("chromium")
    assert path, "chromium not found: run scripts/setup.sh (it installs Debian's chromium for the page tests)"
    return path


def headless(*args: str, profile: Path) -> subprocess.CompletedProcess:
    """Run headless Chromium with ``args`` (flags and a URL) in the profile folder ``profile``;
    fails the test with Chromium's stderr where it exits non-zero."""
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync",
                           f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def dump_dom(url: str, profile: Path, budget_ms: int = 5000) -> str:
    """The DOM of ``url`` after its scripts ran (a virtual-time budget of ``budget_ms`` lets them finish)."""
    return headless(f"--virtual-time-budget={budget_ms}", "--dump-dom", url, profile=profile).stdout


def screenshot(url: str, path: Path, profile: Path, size: str = "1200,1600") -> Path:
    """A PNG of ``url`` at window ``size`` (``W,H``) written to ``path``."""
    headless(f"--screenshot={path}", f"--window-size={size}", url, profile=profile)
    return Path(path)
