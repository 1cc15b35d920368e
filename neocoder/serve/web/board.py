"""The public leaderboard ``neocoder serve`` shows at ``/``: the runs its operator marks
public (``--public-run DIR``, run folders or folders of them), as the static site
``neocoder leaderboard`` writes (neocoder/report/leaderboard/), built into
``<data dir>/leaderboard`` and rebuilt when a public run's metrics change.  Callers'
jobs are never on it: a job is private to its token (the home page lists a signed-in
caller's own jobs apart)."""

from __future__ import annotations

import threading
from pathlib import Path

from markupsafe import Markup

from neocoder.report.leaderboard.collect import run_folders

BASE = "/web/board/"  # where the site's files are served


class PublicBoard:
    """The built site of ``runs`` in ``out``, and the table for ``/``."""

    def __init__(self, runs: list[Path], out: Path):
        self.runs, self.out = [Path(r) for r in runs], Path(out)
        self._lock = threading.Lock()
        self._signature = None
        self._table: Markup | None = None

    def signature(self) -> tuple:
        """What the site depends on: each public run's metrics files and their times."""
        found = []
        for folder in run_folders(self.runs):
            for metrics in sorted(folder.glob("**/metrics.json")):
                found.append((str(metrics), metrics.stat().st_mtime_ns))
        return tuple(found)

    def table(self) -> Markup | None:
        """The leaderboard table (None without public runs, or before any has finished),
        the site rebuilt first when a run changed.  Raises NeocoderError for a public run
        whose records or metrics cannot be read."""
        if not self.runs:
            return None
        from neocoder.report.leaderboard.collect import collect, published_rows
        from neocoder.report.leaderboard.site import board_html, build_leaderboard
        with self._lock:
            signature = self.signature()
            if signature != self._signature:
                rows = collect(self.runs)
                if not rows:
                    return None  # not finished yet: no metrics.json to rank
                build_leaderboard(self.runs, self.out)
                pages = {r.id: f"models/{r.id}.html" for r in rows}
                self._table = board_html(rows + published_rows(), BASE, pages)
                self._signature = signature
            return self._table

    def file(self, name: str) -> Path | None:
        """The built site's file ``name`` (a relative path), or None outside the site or
        for a name no file system accepts (a NUL byte)."""
        if "\x00" in name:
            return None
        root = self.out.resolve()
        try:
            path = (root / name).resolve()
            if root not in path.parents or not path.is_file():
                return None
        except (OSError, ValueError):
            return None
        return path
