"""What a benchmark contributes to the HTML report: the ``Section`` interface.

Why: each task's runs are shown by the task's own section (its part of ``index.html`` and
its drill-down pages), so the report's builder never asks which benchmark a run is: it
looks the section up by the run's manifest ``kind`` (``sections.SECTIONS``) and calls the
methods declared here.  A new task's report is one new section module and one registry
line.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.report.runs import Run


class Section:
    """One benchmark's part of the report.  ``name`` is its group (runs of one group are
    drawn together and their labels disambiguated together); ``kinds`` the manifest kinds
    (task names) it shows; ``page_link`` the drill-down link's text (None: no drill-down
    page)."""

    name: str = ""
    kinds: tuple[str, ...] = ()
    page_link: str | None = None

    def read(self, run: Run, folder) -> None:
        """Read the run's records from ``folder`` (a ``store.RunFolder``) into ``run`` and
        set ``run.label`` (the model as the pages name it).  Raises RecordError (a
        NeocoderError) for a record of another format version."""
        raise NotImplementedError

    def has_page(self, run: Run) -> bool:
        """Whether ``run`` gets a drill-down page of its own."""
        return self.page_link is not None

    def size(self, run: Run) -> str:
        """What the run holds, for the index's table of runs ("36 samples")."""
        raise NotImplementedError

    def index_html(self, runs: list[Run]) -> str:
        """This section's part of ``index.html`` for ``runs`` (all of its kinds, in the
        order given)."""
        raise NotImplementedError

    def write_pages(self, runs: list[Run], out: Path) -> None:
        """Write the drill-down page (``out / run.page``) of every run that has one."""
