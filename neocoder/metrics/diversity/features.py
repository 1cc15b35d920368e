"""What the learned diversity measure sees of a pair of programs (issue 48).

Each of the other measures sees one side of a program: ``operations`` the built-ins and
methods it calls, ``technique`` the detector's technique set, ``structure`` the shape of
its syntax tree.  A reader deciding "same algorithm or not" looks at all of them and at a
few things none of them isolates: which data structures the program builds, whether it
recurses, sorts or searches, whether the answer is computed by a closed formula or by
simulating the process step by step, and the shape of its loop nest.  This module turns
a Python program into ``Traits`` (computed once per program, after normalise.py removed
input/output, the test-case loop and dead code) and a pair of ``Traits`` into one row of
``FEATURES``: distances of the existing measures and, for each reader's trait, whether the
two programs differ in it.  Every feature is symmetric in the two programs.

The learned measure (learned.py) combines the row with weights fitted on the tuning
half of the labelled pairs (docs/algorithm-pairs.md).  Execution fingerprints are not a
feature: they exist for about half of the labelled programs (a program must run on grown
inputs in the sandbox), and a measure that needs the sandbox could not be the default of
a run that did not ask for it.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import numpy as np

from neocoder.metrics.diversity import structure
from neocoder.metrics.diversity.normalise import normalise, parse_program
from neocoder.metrics.diversity.operations import Operations, loop_depth, operations

# Reader's traits: True/False per program; a pair's feature is 1 when exactly one of the two has it.
FLAGS = ("sorts", "hashes", "recursion", "binary_search", "closed_form", "nested_loops",
         "builds_list", "builds_grid", "builds_queue", "modular", "division", "power_or_root", "gcd", "min_max",
         "string_ops", "early_exit", "counts")
FEATURES = ("operations", "technique", "structure", "arithmetic", "depth", "loops", "branches", "size") + \
    tuple(f"differ:{f}" for f in FLAGS)


@dataclass(frozen=True)
class Traits:
    """One program as the learned measure sees it: its operation set (operations.py),
    technique set (the detector's), pq-gram profile of its normal form (structure.py),
    arithmetic operators used, loop depth and counts, and the reader's ``flags``."""

    ops: Operations
    techniques: frozenset
    shape: structure.Shape
    arithmetic: frozenset
    depth: int
    loops: int
    branches: int
    size: int
    flags: frozenset


def _calls(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return out


def _recursive(tree: ast.AST) -> bool:
    """A function of the program calls itself (directly)."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == fn.name
                   for n in ast.walk(fn)):
                return True
    return False


def _halving_loop(tree: ast.AST) -> bool:
    """A loop that computes a midpoint (``(lo + hi) // 2`` or ``>> 1``): a hand-written binary search
    (normalise.py writes a ``while`` as a ``for``, so both are looked at)."""
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.While, ast.For)):
            for n in ast.walk(loop):
                if isinstance(n, ast.BinOp) and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, ast.Add) \
                        and ((isinstance(n.op, ast.FloorDiv) and isinstance(n.right, ast.Constant)
                              and n.right.value == 2) or isinstance(n.op, ast.RShift)):
                    return True
    return False


_LOOP_NODES = (ast.For, ast.While, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def traits(source: str, techniques: frozenset | None = None) -> Traits:
    """The ``Traits`` of a Python program (module docstring).  ``techniques`` is its
    detector technique set when already known (a run's samples carry it); None detects
    it here.  A program that does not parse after normalising gets empty traits (like
    operations.operations: such programs are alike to each other and far from the rest)."""
    if techniques is None:
        from neocoder.techniques.detector import detect  # tree-sitter: loaded only when needed
        techniques = frozenset(detect(source, "python"))
    text = normalise(source)
    try:
        tree = parse_program(text)
    except (SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])
    calls = _calls(tree)
    binops = {type(n.op).__name__ for n in ast.walk(tree) if isinstance(n, (ast.BinOp, ast.AugAssign))}
    loops = sum(isinstance(n, _LOOP_NODES) for n in ast.walk(tree))
    depth = loop_depth(tree)
    lists = any(isinstance(n, (ast.List, ast.ListComp)) for n in ast.walk(tree)) or "list" in calls
    grid = any(isinstance(n, (ast.List, ast.ListComp)) and any(
        isinstance(c, (ast.List, ast.ListComp)) for c in ast.iter_child_nodes(n) if c is not n)
        for n in ast.walk(tree)) or any(isinstance(n, ast.ListComp) and isinstance(n.elt, (ast.List, ast.ListComp))
                                        for n in ast.walk(tree))
    flags = {
        "sorts": bool(calls & {"sorted", "sort"}),
        "hashes": bool(calls & {"set", "dict", "Counter", "defaultdict", "frozenset"})
        or any(isinstance(n, (ast.Set, ast.SetComp, ast.Dict, ast.DictComp)) for n in ast.walk(tree)),
        "recursion": _recursive(tree),
        "binary_search": bool(calls & {"bisect", "bisect_left", "bisect_right", "insort"}) or _halving_loop(tree),
        "closed_form": loops == 0,
        "nested_loops": depth >= 2,
        "builds_list": lists,
        "builds_grid": grid,
        "builds_queue": bool(calls & {"deque", "heappush", "heappop", "heapify", "appendleft", "popleft"}),
        "modular": "Mod" in binops,
        "division": bool(binops & {"Div", "FloorDiv"}) or "divmod" in calls or "ceil" in calls,
        "power_or_root": bool(binops & {"Pow"}) or bool(calls & {"sqrt", "isqrt", "pow", "log", "log2"}),
        "gcd": bool(calls & {"gcd", "lcm"}),
        "min_max": bool(calls & {"min", "max"}),
        "string_ops": bool(calls & {"find", "index", "replace", "count", "startswith", "endswith", "rfind"})
        or any(isinstance(n, ast.Slice) for n in ast.walk(tree)),
        "early_exit": any(isinstance(n, ast.Break) for n in ast.walk(tree)),
        "counts": any(isinstance(n, ast.AugAssign) for n in ast.walk(tree)) or "count" in calls,
    }
    return Traits(ops=operations(source), techniques=frozenset(techniques),
                  shape=structure.shape(text, "python"), arithmetic=frozenset(binops), depth=depth, loops=loops,
                  branches=sum(isinstance(n, (ast.If, ast.IfExp)) for n in ast.walk(tree)),
                  size=sum(1 for _ in ast.walk(tree)), flags=frozenset(k for k, v in flags.items() if v))


def _jaccard(a: frozenset, b: frozenset) -> float:
    union = a | b
    return 1.0 - len(a & b) / len(union) if union else 0.0


def pair_features(a: Traits, b: Traits) -> np.ndarray:
    """One row of ``FEATURES`` (float64, shape (len(FEATURES),)) for two programs, the
    same whichever comes first: the Jaccard distances of their operation, technique and
    arithmetic-operator sets (Jaccard 1912), the pq-gram distance of their normal forms
    (structure.py; Augsten et al. 2010), the absolute differences of loop depth, of
    log(1 + loops), log(1 + branches) and log(syntax-tree size), and 1/0 for each flag
    exactly one of the two has."""
    row = [a.ops.distance(b.ops), _jaccard(a.techniques, b.techniques), a.shape.distance(b.shape),
           _jaccard(a.arithmetic, b.arithmetic), abs(a.depth - b.depth),
           abs(math.log1p(a.loops) - math.log1p(b.loops)), abs(math.log1p(a.branches) - math.log1p(b.branches)),
           abs(math.log(max(1, a.size)) - math.log(max(1, b.size)))]
    row += [float((f in a.flags) != (f in b.flags)) for f in FLAGS]
    return np.asarray(row, dtype=np.float64)
