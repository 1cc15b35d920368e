"""Algorithm classes by the operations a program uses, after its style is removed.

The structure measure compares whole syntax trees, so two programs of one algorithm
written differently (a counting loop against ``sum`` over a generator, an ``if`` chain
against a lookup) are far apart, and the hand-labelled pairs show it (docs/metrics.md,
"How much a class is worth").  This measure keeps only what decides the algorithm: the
program is normalised first (normalise.py: input/output, test-case loop, harness and
dead code removed), and its **operation set** is

- ``call:NAME`` for each built-in, library function or method it calls that does work
  on the data (``sorted``/``sort`` as one ``sort``, ``set``, ``max``, ``min``,
  ``index``, ``find``, ``gcd``, ``Counter``, ...); conversions and plumbing (``int``,
  ``list``, ``range``, ``len``, ``append``, ``join``, ``READ``, ``WRITE``) are left out;
- ``sqrt`` for a square root (``sqrt``, ``isqrt``, ``** 0.5``) and ``reverse`` for a
  reversal (``[::-1]``, ``reversed``, ``.reverse``);
- ``in`` for a membership test, ``accumulate`` for a running total (``+=`` in a loop,
  ``sum`` over a generator, or ``.count``: one operation however it is written);
  dunder calls (``a.__len__()``) are plumbing;
- calls of the program's own functions, lambdas and aliases are not operations (their
  bodies' operations are);
- ``depth:D``, the deepest nesting of loops (``for``, ``while`` and comprehensions
  alike), so a quadratic recount and a single scan differ.

Two programs are one class when the Jaccard distance of their operation sets,
1 - |A ∩ B| / |A ∪ B| (Jaccard 1912; 0 for two empty sets), is at most a threshold
chosen on the tuning half of the labelled pairs (validity.py; 0.7 there).  The depth
is one element of the set, so it weighs like one operation: making it a hard condition
(different depths, different classes), or leaving it out, scored lower on the tuning
half (kappa 0.53 and 0.51 against 0.75), since one algorithm is often written at two
depths (a generator inside ``join`` against a loop).  The price: two one-operation
programs that differ only in that operation (``max`` against ``sorted``, same depth)
are 2/3 apart, under the threshold, so one class.  What it cannot tell
apart: two algorithms made of the same operations (two greedy rules over one loop, two
constructions printed by one loop), and what it may split: one algorithm that calls
``max`` in one program and compares by hand in another.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from neocoder.metrics.diversity.normalise import normalise, parse_program

PLUMBING = {"READ", "WRITE", "int", "str", "list", "tuple", "map", "range", "len", "enumerate", "zip", "iter",
            "next", "float", "bool", "append", "join", "split", "strip", "format", "print", "extend", "add",
            "pop", "items", "values", "keys", "filter", "lambda", "ord", "chr", "exit", "setrecursionlimit"}
SAME_AS = {"sorted": "sort", "isqrt": "sqrt", "reversed": "reverse", "defaultdict": "Counter", "dict": "Counter",
           "bisect_left": "bisect", "bisect_right": "bisect", "heappush": "heap", "heappop": "heap",
           "heapify": "heap", "sum": "accumulate", "count": "accumulate"}
_LOOPS = (ast.For, ast.While, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def loop_depth(node: ast.AST, here: int = 0) -> int:
    """The deepest loop nesting below ``node`` (a comprehension's generators count once each)."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
        here += len(node.generators)
    elif isinstance(node, (ast.For, ast.While)):
        here += 1
    return max([here] + [loop_depth(c, here) for c in ast.iter_child_nodes(node)])


def _in_loop(tree: ast.AST) -> set[int]:
    """ids of the nodes inside some loop body."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, _LOOPS):
            for sub in ast.walk(node):
                if sub is not node:
                    inside.add(id(sub))
    return inside


def _own_names(tree: ast.AST) -> set[str]:
    """Names the program binds itself (its functions, lambdas and aliases such as
    ``I = input``): a call of one is not an operation, its body's operations are."""
    names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.Lambda, ast.Name, ast.Attribute)):
            names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return names


@dataclass(frozen=True)
class Operations:
    """A program's operation set (module docstring)."""

    ops: frozenset

    def distance(self, other: "Operations") -> float:
        """Jaccard distance in [0, 1]; 0 for two empty sets."""
        union = self.ops | other.ops
        return 1.0 - len(self.ops & other.ops) / len(union) if union else 0.0


def operations(source: str) -> Operations:
    """The operation set of a Python program (module docstring).  A program that does not
    parse has the empty set (every such program is one class with the others like it)."""
    try:
        tree = parse_program(normalise(source))
    except (SyntaxError, ValueError):
        return Operations(frozenset())
    ops: set[str] = set()
    looped = _in_loop(tree)
    own = _own_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = SAME_AS.get(_name(node), _name(node))
            if name == "accumulate" or name == "sqrt" or name == "reverse":
                ops.add(name)
            elif name and name not in PLUMBING and not name.startswith("__") and \
                    not (isinstance(node.func, ast.Name) and name in own):
                ops.add(f"call:{name}")
        elif isinstance(node, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in node.ops):
            ops.add("in")
        elif isinstance(node, ast.Slice) and isinstance(node.step, ast.UnaryOp):
            ops.add("reverse")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
                and node.right.value == 0.5:
            ops.add("sqrt")
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and id(node) in looped:
            ops.add("accumulate")
    ops.add(f"depth:{loop_depth(tree)}")
    return Operations(frozenset(ops))
