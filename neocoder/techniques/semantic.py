"""Semantic techniques: documented rules over a parsed program (Python and C/C++).

The syntactic techniques (loops, branches, containers, library calls) are tree-sitter
queries in ``queries/<language>.scm``.  The techniques below are about how code is
organised, which a single query cannot express (they relate a loop's condition to the
variables its body moves, or a recursive call to what happens before and after it).

Each rule is one function ``(program: ParsedProgram) -> bool`` marked with its
taxonomy name by ``@rule(name, languages=...)`` (``shapes.py``: the mark only attaches
a ``Rule``).  The rules live by concept in ``loop_rules.py`` (loops and arrays) and
``graph_rules.py`` (recursion, search, graphs); this module is their one registry:
``RULES`` lists the marked functions explicitly, so it is complete once this module is
imported, and ``techniques(program)`` runs those for the program's language.  A rule
reads only its argument (the parse tree, its index, the recursive functions:
``parsed.py``), written once for both languages; docs/techniques.md states every rule
in words.

These are heuristics: they name a recognisable shape of code, not every program that
some reader would call "greedy" or "two pointers".  A rule fires on the shape and on
nothing else, so a constraint means the same thing in every run.
"""

from __future__ import annotations

from neocoder.techniques import graph_rules, loop_rules
from neocoder.techniques.graph_rules import (
    back_tracking,
    depth_first_search,
    divide_and_conquer,
    graph,
    graph_traversal,
    minimax,
    recursion,
    topological_sort,
    tree_shapes,
    width_first_search,
)
from neocoder.techniques.loop_rules import (
    binary_search,
    cpp_hashmap,
    dynamic_programming,
    greedy,
    kadane,
    linked_list,
    misc,
    sliding_window,
    two_pointers,
)
from neocoder.techniques.parsed import ParsedProgram
from neocoder.techniques.shapes import Rule

# every rule, in the order the technique names have always had in RULES
CHECKS = (recursion, two_pointers, sliding_window, kadane, back_tracking, divide_and_conquer,
          depth_first_search, width_first_search, graph_traversal, graph, tree_shapes, topological_sort,
          minimax, greedy, dynamic_programming, misc, cpp_hashmap, linked_list, binary_search)


def _registry(checks, modules) -> dict[str, Rule]:
    """Technique name -> ``Rule`` of each marked function of ``checks``, in their order.
    ValueError if two functions claim the same technique, or if a function marked in
    ``modules`` is missing from ``checks`` (a rule written but never run)."""
    marked = {f for m in modules for f in vars(m).values()
              if isinstance(getattr(f, "rule", None), Rule) and f.__module__ == m.__name__}
    unlisted = sorted(f.__name__ for f in marked - set(checks))
    if unlisted:
        raise ValueError(f"rules marked but not listed in semantic.CHECKS: {', '.join(unlisted)}")
    rules: dict[str, Rule] = {}
    for check in checks:
        r = check.rule
        if r.name in rules:
            raise ValueError(f"technique {r.name!r} already has a rule: {rules[r.name].check.__name__}")
        rules[r.name] = r
    return rules


RULES: dict[str, Rule] = _registry(CHECKS, (loop_rules, graph_rules))


def techniques(program: ParsedProgram) -> set[str]:
    """Names of the techniques in ``RULES`` whose rule holds for ``program``."""
    return {name for name, r in RULES.items() if program.language in r.languages and program.fact(r.check)}
