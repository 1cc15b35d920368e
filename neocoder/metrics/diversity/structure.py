"""Algorithm classes by structure: a normalised distance between syntax trees.

A program is parsed with tree-sitter (the detector's grammars: Python, C/C++) and
reduced to a **labelled tree**: every named node keeps its type (``for_statement``,
``call``, ``subscript``, ...), comments are dropped, literals keep only their kind
(``integer``, ``string``), and an identifier keeps its name only where the name says
what the program does rather than what its author called something:

- the callee of a call that the program does not define itself (``sorted``, ``min``,
  ``bisect_left``, ``heappush``), and
- an attribute or field name (``.sort``, ``.count``, ``.push_back``);

every other identifier (variables, parameters, the program's own functions) becomes
``identifier``.  A renamed copy therefore has the same labelled tree.

The distance between two labelled trees is the **pq-gram distance** (Augsten, Boehlen and
Gamper, "The pq-Gram Distance between Ordered Labeled Trees", ACM TODS 35(1), 2010,
Def. 3.6), with p = 2 and q = 3: a tree's pq-gram profile is the bag of every node's
ancestor stem of p labels joined with each window of q consecutive children (padded
with ``*``); the distance is

    d(T1, T2) = 1 - 2 |P(T1) ∩ P(T2)| / (|P(T1)| + |P(T2)|)      (bag intersection)

in [0, 1]: 0 for trees with equal profiles, 1 for trees sharing no pq-gram.  It is a
lower-bound approximation of tree edit distance that costs O(n log n) instead of
O(n^3), so every pair of a problem's 30 solutions is cheap.

What it tells apart, and what not (docs/metrics.md, "Diversity"):
- it separates programs built differently (a loop against a formula; a sort against a
  counting array; two nested loops against one), and it ignores names, spacing,
  comments and literal values;
- it does **not** know semantics: one algorithm written two ways (a ``for`` loop
  against a ``while`` loop, ``sorted(a)`` against ``a.sort()`` with extra lines) can
  exceed the threshold, and two algorithms with the same shape (a sum against a
  maximum over the same loop, when only the callee differs) fall under it only if the
  callee is the only difference.  Golfed human solutions (the release keeps the
  shortest accepted submissions) differ in shape more than in algorithm.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from neocoder.techniques.detector import UnsupportedLanguage, guess_language, parse

P, Q = 2, 3
THRESHOLD = 0.3  # programs at most this far apart are one class (the constructed cases in docs/metrics.md)
_PAD = "*"
_DROP = {"comment", "line_continuation"}
_LITERALS = {"integer", "float", "string", "true", "false", "none", "number_literal", "string_literal",
             "char_literal", "raw_string_literal", "concatenated_string", "string_content"}
_CALLS = {"call", "call_expression"}
_FIELDS = {"attribute", "field_expression"}
_DEFINITIONS = {"function_definition", "function_declarator"}


@dataclass(frozen=True)
class Shape:
    """A program's pq-gram profile (a bag of label tuples) and its size."""

    profile: Counter
    size: int

    def distance(self, other: "Shape") -> float:
        """The pq-gram distance to ``other`` in [0, 1] (module docstring; Augsten et al.
        2010, Def. 3.6).  Two empty profiles are at distance 0."""
        total = self.size + other.size
        if total == 0:
            return 0.0
        common = sum((self.profile & other.profile).values())
        return 1.0 - 2.0 * common / total


def _own_functions(root) -> set[str]:
    """Names of the functions the program defines (their calls are anonymised)."""
    names, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node.type in _DEFINITIONS:
            name = node.child_by_field_name("name") or node.child_by_field_name("declarator")
            if name is not None and name.type == "identifier":
                names.add(name.text.decode("utf-8", "replace"))
        stack.extend(node.children)
    return names


def _label(node, own: set[str]) -> str:
    kind = node.type
    if kind in _LITERALS:
        return kind
    if kind not in ("identifier", "field_identifier"):
        return kind
    parent = node.parent
    text = node.text.decode("utf-8", "replace")
    if parent is not None and parent.type in _FIELDS and node.prev_sibling is not None:
        return f"{kind}:{text}"  # the attribute of x.attr / x->field
    if parent is not None and parent.type in _CALLS and parent.child_by_field_name("function") == node:
        return "identifier" if text in own else f"call:{text}"
    return "identifier"


def _children(node) -> list:
    return [c for c in node.children if c.is_named and c.type not in _DROP]


def shape(source: str, language: str | None = None) -> Shape:
    """The pq-gram profile of ``source`` (module docstring).

    ``language`` is "python" or "cpp"; None guesses it (``detector.guess_language``).
    Raises ``UnsupportedLanguage`` for another language.  Code that does not parse
    cleanly (a reply cut at its token limit) still gives a profile: tree-sitter
    recovers around the error, and ``ERROR`` nodes are labels like any other."""
    language = language or guess_language(source)
    if language not in ("python", "cpp"):
        raise UnsupportedLanguage(f"no grammar for language {language!r}")
    root = parse(source, language).root
    own = _own_functions(root)
    profile: Counter = Counter()
    stack = [(root, (_PAD,) * P)]
    while stack:
        node, stem = stack.pop()
        stem = stem[1:] + (_label(node, own),)
        kids = _children(node)
        if not kids:
            profile[stem + (_PAD,) * Q] += 1
            continue
        labels = [_PAD] * (Q - 1) + [_label(k, own) for k in kids] + [_PAD] * (Q - 1)
        for i in range(len(labels) - Q + 1):
            profile[stem + tuple(labels[i:i + Q])] += 1
        stack.extend((k, stem) for k in kids)
    return Shape(profile, sum(profile.values()))


def same_structure(a: Shape, b: Shape, threshold: float = THRESHOLD) -> bool:
    """True when ``a`` and ``b`` are at most ``threshold`` apart (one structure class)."""
    return a.distance(b) <= threshold
