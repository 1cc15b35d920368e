"""What the semantic rules share: the ``Rule`` type, the ``@rule`` mark, and the code shapes
more than one rule recognises (a halving, a midpoint, a declared C++ type, a table that
reads its own earlier entries).

``@rule(name, languages)`` only attaches a ``Rule`` to the function it decorates
(``check.rule``); it registers nothing.  The one registry, ``semantic.RULES``, lists the
marked functions explicitly, so it is complete as soon as ``semantic`` is imported,
whatever else has or has not been imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from neocoder.techniques.parsed import SUBSCRIPTS, ParsedProgram, binary, strip, text

BOTH = ("python", "cpp")


# ----------------------------------------------------------------- the mark

@dataclass(frozen=True)
class Rule:
    """A technique, the languages its rule applies to, and the rule itself."""
    name: str
    languages: tuple[str, ...]
    check: Callable[[ParsedProgram], bool]


def rule(name: str, languages: tuple[str, ...] = BOTH):
    """Mark the decorated function ``(program) -> bool`` as the rule for technique ``name``
    in ``languages``: it gets ``check.rule = Rule(name, languages, check)`` and is
    otherwise returned unchanged (``semantic.RULES`` lists it)."""
    def mark(check: Callable[[ParsedProgram], bool]):
        check.rule = Rule(name, tuple(languages), check)
        return check
    return mark


# ----------------------------------------------------------------- shapes the rules share

def is_halving(node) -> bool:
    """x // 2, x / 2, x >> 1."""
    parts = binary(node)
    return bool(parts) and ((parts[1] in ("//", "/") and text(parts[2]) == "2")
                            or (parts[1] == ">>" and text(parts[2]) == "1"))


def is_midpoint(value, a: str, b: str) -> bool:
    """(a + b) // 2, (a + b) >> 1, a + (b - a) // 2 (either order of a and b)."""
    value = strip(value)
    if is_halving(value):
        inner = binary(strip(binary(value)[0]))
        return bool(inner) and inner[1] == "+" and {text(inner[0]), text(inner[2])} == {a, b}
    parts = binary(value)
    if parts and parts[1] == "+" and text(parts[0]) in (a, b) and is_halving(strip(parts[2])):
        diff = binary(strip(binary(strip(parts[2]))[0]))
        return bool(diff) and diff[1] == "-" and {text(diff[0]), text(diff[2])} == {a, b}
    return False


def computes_midpoint(program: ParsedProgram, node, pairs) -> bool:
    """Some assignment under ``node`` computes the midpoint of one of ``pairs`` of names."""
    return any(is_midpoint(v, a, b) for a, b in pairs for _, _, v in program.assignments(node) if v is not None)


def declared(program: ParsedProgram, types: tuple[str, ...]) -> set[str]:
    """Names of C++ variables whose declared type is one of ``types`` (``map<int, int> m``)."""
    names = set()
    for n in program.nodes:
        if n.type in ("declaration", "field_declaration") and \
                text(n.child_by_field_name("type")).split("<")[0].split("::")[-1].strip() in types:
            for d in n.children_by_field_name("declarator"):
                ids = [m for m in program.walk(d) if m.type in ("identifier", "field_identifier")]
                if ids:
                    names.add(text(ids[0]))
    return names


def priority_queues(program: ParsedProgram) -> set[str]:
    """Names declared as C++ ``priority_queue`` (their top() is the best, not the last)."""
    return declared(program, ("priority_queue",))


def table_writes(program: ParsedProgram, ops: tuple[str, ...]):
    """(target, op, value, reads) for every write ``A[...] op value`` that reads the same
    table at an earlier entry (``reads``: ``ParsedProgram.self_reads``)."""
    for target, op, value in program.assignments(program.root):
        if target is not None and value is not None and target.type in SUBSCRIPTS and op in ops:
            reads = program.self_reads(target, value)
            if reads:
                yield target, op, value, reads
