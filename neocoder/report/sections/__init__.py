"""The report's sections, one per benchmark, found by the run's manifest ``kind``.

Why: the report builder never asks which benchmark a run is: each registered benchmark
names its section in its descriptor (``Benchmark.section``, neocoder/benchmarks/descriptor.py),
and the section names the manifest kinds it shows (``Section.kinds``; by default the
benchmark's result kinds).  A new benchmark's report is one new section module and the
reference in its descriptor; nothing here changes.  A benchmark that names no section
(a plug-in's) is shown by ``generic.GenericSection``, from its declared measures.
"""

from __future__ import annotations

from neocoder.benchmarks import benchmarks
from neocoder.benchmarks.descriptor import resolve
from neocoder.errors import NeocoderError
from neocoder.report.sections.base import Section
from neocoder.report.sections.generic import GenericSection

_made: dict[int, tuple] = {}  # id(descriptor) -> (the descriptor, its section), made once


def ordered_sections() -> list[Section]:
    """Every registered benchmark's section once, in the registry's order (as the index
    shows them); a benchmark that names none gets ``GenericSection`` (its measures)."""
    out = []
    for bench in benchmarks():
        made = _made.get(id(bench))
        if made is None or made[0] is not bench:  # a new descriptor may reuse a dropped one's id
            if bench.section is None:  # no section of its own: its declared measures (generic.py)
                section = GenericSection(bench)
            else:
                found = resolve(bench.section)
                section = found() if isinstance(found, type) else found
            if not section.kinds:
                section.kinds = bench.kinds
            if not section.name:
                section.name = bench.name
            _made[id(bench)] = (bench, section)
        out.append(_made[id(bench)][1])
    return out


def sections() -> dict[str, Section]:
    """Manifest kind (a task name) -> the section showing its runs."""
    return {kind: section for section in ordered_sections() for kind in section.kinds}


def section_for(kind: str) -> Section:
    """The section that shows runs of manifest kind ``kind``.  Raises NeocoderError for a
    kind no section shows."""
    found = sections()
    try:
        return found[kind]
    except KeyError:
        raise NeocoderError(f"no report section for runs of kind {kind!r}; the report covers "
                            f"{', '.join(found)} runs") from None


def kinds() -> tuple[str, ...]:
    """Every manifest kind the report shows."""
    return tuple(sections())
