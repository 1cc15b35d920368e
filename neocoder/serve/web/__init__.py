"""The browser UI of ``neocoder serve`` (docs/leaderboard.md): the public leaderboard at
``/``, sign-in with a session cookie, a caller's jobs with live progress, reports and
downloads.

- sessions.py: sessions and CSRF tokens;
- board.py: the public runs' leaderboard site;
- routes.py: the pages (one ``APIRouter``);
- ``WebState`` here: what the pages share, kept on ``app.state.web``.

``install(app, config)`` is the one call app.py makes.
"""

from __future__ import annotations

import threading
from pathlib import Path

from neocoder.serve.auth import CredentialGuard
from neocoder.serve.web.board import PublicBoard
from neocoder.serve.web.sessions import LoginValues, Sessions


class WebState:
    """The sessions, the sign-in forms' CSRF values and the wrong-token counts per
    address, the public board, and the job reports and downloads built so far."""

    def __init__(self, config, guard: CredentialGuard):
        data = Path(config.data_dir)
        self.sessions = Sessions(60.0 * config.session_minutes)
        self.login_values = LoginValues(config.signin_form_seconds)
        self.signin_guard = guard  # shared with the /v1 bearer tokens (auth.py)
        self.board = PublicBoard(list(config.public_runs), data / "leaderboard")
        self.data = data
        self._lock = threading.Lock()

    def report(self, s, job) -> Path:
        """The folder of a succeeded job's HTML report: an eval's as the API builds it; a
        suite's over its benchmarks' sub-runs; another task's over its run folder."""
        if "task" not in job.request:
            return s.report(job)
        from neocoder.report.html import build_report
        run = s.runner.run_dir(job.id)
        out = self.data / "reports" / job.id
        with self._lock:
            if not (out / "index.html").is_file():
                folders = [p.parent for p in sorted(run.glob("*/metrics.json"))] \
                    if job.request.get("task") == "suite" else [run]
                build_report(folders, out, full_paths=False)  # callers see folder names, not the server's paths
        return out

    def parquet(self, s, job, name: str) -> Path:
        """The Parquet file of a succeeded job's records (``samples``: the run folder; a
        benchmark's name: that sub-run of a suite), written on first request."""
        from neocoder.report.leaderboard.export import write_parquet
        run = s.runner.run_dir(job.id)
        folder = run if name == "samples" else run / name
        out = self.data / "downloads" / job.id / f"{name}.parquet"
        with self._lock:
            if not out.is_file():
                out.parent.mkdir(parents=True, exist_ok=True)
                write_parquet(folder, out)
        return out


def install(app, config, guard: CredentialGuard) -> None:
    """Add the browser UI to the app of ``neocoder serve``: its routes and its state
    (``guard``: the wrong-token counts per address, shared with the bearer tokens).
    Raises NeocoderError naming a ``--public-run`` path that is neither a run folder nor a
    folder of them (before the server starts)."""
    from neocoder.report.leaderboard.collect import run_folders
    from neocoder.serve.web.routes import router
    if config.public_runs:
        run_folders(config.public_runs)
    app.state.web = WebState(config, guard)
    app.include_router(router)
