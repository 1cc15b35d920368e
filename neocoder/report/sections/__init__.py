"""The report's sections, one per benchmark, found by the run's manifest ``kind``.

Why: the report builder never asks which benchmark a run is: ``SECTIONS`` maps each task
name (``neocoder.benchmarks``) to the section that reads and shows its runs; each section names
its kinds (``Section.kinds``).  A new task's report is one new section module (a
``Section``, ``base.py``) and one entry in ``_ORDER`` here.
"""

from __future__ import annotations

from neocoder.errors import NeocoderError
from neocoder.report.sections.aidanbench import AidanBenchSection
from neocoder.report.sections.base import Section
from neocoder.report.sections.framework import FrameworkSection
from neocoder.report.sections.liveideabench import LiveIdeaBenchSection
from neocoder.report.sections.neocoder import NeoCoderSection

_ORDER = (NeoCoderSection(), AidanBenchSection(), LiveIdeaBenchSection(), FrameworkSection())  # as the index shows them

# manifest kind (a task name: neocoder.benchmarks EVAL, HUMAN, AIDANBENCH, IDEAS) -> the section showing it
SECTIONS: dict[str, Section] = {kind: section for section in _ORDER for kind in section.kinds}
KINDS = tuple(SECTIONS)


def section_for(kind: str) -> Section:
    """The section that shows runs of manifest kind ``kind``.  Raises NeocoderError for a
    kind no section shows."""
    try:
        return SECTIONS[kind]
    except KeyError:
        raise NeocoderError(f"no report section for runs of kind {kind!r}; the report covers "
                            f"{', '.join(KINDS)} runs") from None


def ordered_sections() -> list[Section]:
    """Every section once, in the index's order."""
    return list(_ORDER)
