"""The report's sections, one per benchmark, found by the run's manifest ``kind``.

Why: the report builder never asks which benchmark a run is: ``SECTIONS`` maps each task
name (``neocoder.tasks``) to the section that reads and shows its runs, in the order the
sections appear on the index.  A new task's report is one new section module (a
``Section``, ``base.py``) and one line here.
"""

from __future__ import annotations

from ...errors import NeocoderError
from ...tasks import AIDANBENCH, EVAL, HUMAN, IDEAS
from .aidanbench import AidanBenchSection
from .base import Section
from .liveideabench import LiveIdeaBenchSection
from .neocoder import NeoCoderSection

_NEOCODER, _AIDANBENCH, _IDEAS = NeoCoderSection(), AidanBenchSection(), LiveIdeaBenchSection()

# manifest kind -> its section; the index shows the sections in this order
SECTIONS: dict[str, Section] = {EVAL: _NEOCODER, HUMAN: _NEOCODER, AIDANBENCH: _AIDANBENCH, IDEAS: _IDEAS}
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
    return list(dict.fromkeys(SECTIONS.values()))
