"""What each technique of the taxonomy means in C++: the one table the C++ prompts show.

The taxonomy's names were written for Python (``tuple``, ``pass statement``, ``match
statement``); a C++ program needs their C++ meaning, the one the detector applies
(``queries/cpp.scm`` and the rules).  The table is the prompt text file
``prompts/solve_cpp_glossary.txt``: a heading line, then one line per technique of the
taxonomy, ``- <technique>: <its C++ meaning>``, in our own words.  A technique with no
C++ form has a meaning starting with ``no C++ form`` (today only ``pass statement``): no C++
program uses it, so a state denying it asks nothing of a C++ program; the prompt says so on
that technique's line.

The C++ solve and follow-up prompts (``benchmarks/neocoder/solve.py``, ``denial.py``) show
the lines of the techniques the statement's constraints block denies, in its order, under
the heading; a statement without constraints gets nothing, so its prompt is the same as
before the glossary.  docs/techniques.md shows the same lines (a test compares them).

Not part of the detector's fingerprint (``human._NOT_THE_DETECTOR``): it explains the
rules, it does not apply them.
"""

from __future__ import annotations

from functools import lru_cache

from neocoder.dataset.statement import CONSTRAINTS_HEADING
from neocoder.errors import NeocoderError
from neocoder.resources import prompt_text
from neocoder.techniques.taxonomy import TAXONOMY, canonical

GLOSSARY_FILE = "solve_cpp_glossary.txt"
NO_CPP_FORM = "no C++ form"  # how a meaning says the technique has none


class GlossaryError(NeocoderError, ValueError):
    """The glossary file is malformed; the message names the file, line and fault."""


def parse_glossary(text: str, source: str = f"prompts/{GLOSSARY_FILE}") -> tuple[str, dict[str, str]]:
    """(heading, {technique: C++ meaning}) from a glossary text: a first line that is the
    heading (not an entry), then ``- <technique>: <meaning>`` lines (blank lines skipped).

    Raises GlossaryError naming ``source``, the line and the fault for a missing heading,
    a line of another shape, a name outside the taxonomy (spelled as TAXONOMY spells it),
    a technique given twice, an empty meaning, or a technique of the taxonomy left out.
    """
    lines = text.splitlines()
    if not lines or not lines[0].strip() or lines[0].startswith("- "):
        raise GlossaryError(f"{source}, line 1: expected a heading line before the '- technique: meaning' lines")
    entries: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        name, colon, meaning = line[2:].partition(": ") if line.startswith("- ") else ("", "", "")
        if not colon:
            raise GlossaryError(f"{source}, line {number}: expected '- <technique>: <C++ meaning>', got {line!r}")
        if name not in TAXONOMY:
            raise GlossaryError(f"{source}, line {number}: {name!r} is not a technique of the taxonomy "
                                "(write it as neocoder.techniques.TAXONOMY spells it)")
        if name in entries:
            raise GlossaryError(f"{source}, line {number}: {name!r} is given twice")
        if not meaning.strip():
            raise GlossaryError(f"{source}, line {number}: {name!r} has no meaning")
        entries[name] = meaning.strip()
    missing = [t for t in TAXONOMY if t not in entries]
    if missing:
        raise GlossaryError(f"{source}: no line for {', '.join(missing)}")
    return lines[0].strip(), entries


@lru_cache(maxsize=1)
def cpp_glossary() -> tuple[str, dict[str, str]]:
    """The shipped glossary, ``parse_glossary`` of ``prompts/solve_cpp_glossary.txt``
    (read once).  Raises GlossaryError for a malformed file, ResourceMissing if absent."""
    return parse_glossary(prompt_text(GLOSSARY_FILE))


def glossary_lines() -> list[str]:
    """Every entry as the file writes it, ``- <technique>: <meaning>``, in taxonomy order."""
    return [f"- {name}: {meaning}" for name, meaning in cpp_glossary()[1].items()]


def without_cpp_form(constraints: list[str]) -> list[str]:
    """The constraints (technique names, aliases allowed) whose technique has no C++ form,
    in the order given: a C++ program meets them whatever it does."""
    meanings = cpp_glossary()[1]
    return [c for c in constraints if meanings.get(canonical(c) or "", "").startswith(NO_CPP_FORM)]


def denied_techniques(statement: str) -> list[str]:
    """The techniques a statement's constraints block denies (the ``- technique`` lines
    under ``CONSTRAINTS_HEADING``, as ``dataset.statement.with_constraints`` writes them),
    in its order, as canonical taxonomy names; names outside the taxonomy are left out.
    A statement without the block gives []."""
    lines = statement.splitlines()
    if CONSTRAINTS_HEADING not in (line.strip() for line in lines):
        return []
    start = [line.strip() for line in lines].index(CONSTRAINTS_HEADING) + 1
    denied = []
    for line in lines[start:]:
        if not line.startswith("- "):
            break
        name = canonical(line[2:])
        if name is not None and name not in denied:
            denied.append(name)
    return denied


def cpp_glossary_block(statement: str, prefix: str = "") -> str:
    """The glossary for the techniques ``statement`` denies, to put after a prompt's
    sentence about the constraints: a newline, the heading, and one line per denied
    technique, each line starting with ``prefix`` (``"// "`` in a C++ comment); "" when the
    statement denies nothing, so a prompt without constraints is unchanged."""
    denied = denied_techniques(statement)
    if not denied:
        return ""
    heading, meanings = cpp_glossary()
    lines = [heading] + [f"- {name}: {meanings[name]}" for name in denied]
    return "".join(f"\n{prefix}{line}" for line in lines)
