"""Deterministic technique detection with tree-sitter (queries kept as data).

``detect(source)`` returns the set of taxonomy names a program uses.  The syntactic
rules are the ``queries/<language>.scm`` files; recursion needs the call graph (a
cycle: a function calling itself, or f -> g -> f); the semantic techniques (two
pointers, BFS, greedy, misc, ...) are the AST rules of ``semantic.py``.  Definitions
are in docs/techniques.md.
"""

from __future__ import annotations

import ast
import re
import warnings
from functools import lru_cache
from pathlib import Path

import tree_sitter as ts
import tree_sitter_cpp
import tree_sitter_python

from . import semantic

QUERIES_DIR = Path(__file__).resolve().parent / "queries"


class UnsupportedLanguage(ValueError):
    """The detector has no grammar for this language; nothing is guessed."""


@lru_cache(maxsize=None)
def _language(name: str):
    if name == "python":
        lang = ts.Language(tree_sitter_python.language())
    elif name == "cpp":
        lang = ts.Language(tree_sitter_cpp.language())
    else:
        raise UnsupportedLanguage(f"technique detection for {name!r} is not supported yet")
    query = ts.Query(lang, (QUERIES_DIR / f"{name}.scm").read_text(encoding="utf-8"))
    return lang, ts.Parser(lang), query


def guess_language(source: str) -> str:
    """Return "python" (parses as Python 3), "cpp" (C or C++ markers), or "unknown"."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(source)
        return "python"
    except (SyntaxError, ValueError):
        pass
    if re.search(r"^\s*#\s*include\b|\bint\s+main\s*\(", source, re.M):
        return "cpp"
    return "unknown"


def _function_name(fn) -> str | None:
    """Name of a Python or C/C++ function_definition node."""
    name = fn.child_by_field_name("name")
    if name is not None:  # Python
        return name.text.decode("utf-8", "replace")
    decl = fn.child_by_field_name("declarator")  # C/C++: walk to the innermost declarator
    while decl is not None and decl.type not in ("identifier", "field_identifier", "qualified_identifier",
                                                 "destructor_name", "operator_name"):
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return None
    if decl.type == "qualified_identifier":
        decl = decl.child_by_field_name("name") or decl
    return decl.text.decode("utf-8", "replace")


def _callee(call) -> str | None:
    """The called name of a call node: f(...), self.f(...) / this->f(...), ns::f(...)."""
    f = call.child_by_field_name("function")
    if f is None:
        return None
    if f.type == "identifier":
        return f.text.decode("utf-8", "replace")
    if f.type == "attribute":  # Python self.f()
        obj, attr = f.child_by_field_name("object"), f.child_by_field_name("attribute")
        if obj is not None and obj.text == b"self" and attr is not None:
            return attr.text.decode("utf-8", "replace")
    if f.type == "field_expression":  # C++ this->f()
        arg, field = f.child_by_field_name("argument"), f.child_by_field_name("field")
        if arg is not None and arg.type == "this" and field is not None:
            return field.text.decode("utf-8", "replace")
    if f.type == "qualified_identifier":
        name = f.child_by_field_name("name")
        return name.text.decode("utf-8", "replace") if name is not None else None
    return None


def recursive_functions(root) -> dict[str, list]:
    """Functions defined in ``root`` that lie on a cycle of the call graph (f calls f,
    or f -> g -> f): ``{name: [definition nodes]}``."""
    calls: dict[str, set[str]] = {}
    defs: dict[str, list] = {}
    for node in semantic.walk(root):
        if node.type != "function_definition":
            continue
        name = _function_name(node)
        if name is None:
            continue
        defs.setdefault(name, []).append(node)
        called = calls.setdefault(name, set())
        body = node.child_by_field_name("body")
        if body is not None:
            called.update(c for c in (_callee(n) for n in semantic.calls(body)) if c)
    recursive = {}
    for start in calls:  # start is recursive iff it reaches itself
        seen, todo = set(), list(calls[start] & calls.keys())
        while todo:
            f = todo.pop()
            if f == start:
                recursive[start] = defs[start]
                break
            if f not in seen:
                seen.add(f)
                todo.extend(calls.get(f, set()) & calls.keys())
    return recursive


def _semantic(root, language: str) -> set[str]:
    """The heuristic techniques of ``semantic.py`` (definitions in docs/techniques.md)."""
    recursive = recursive_functions(root)
    out = set()
    if recursive:
        out.add("recursion")
    rules = {
        "two pointers": lambda: semantic.two_pointers(root),
        "sliding window": lambda: semantic.sliding_window(root),
        "Kadanes algorithm": lambda: semantic.kadane(root),
        "back tracking": lambda: semantic.back_tracking(root, recursive),
        "dived & conquer": lambda: semantic.divide_and_conquer(root, recursive),
        "depth first search": lambda: semantic.depth_first_search(root, recursive),
        "width first search": lambda: semantic.width_first_search(root),
        "topological sort": lambda: semantic.topological_sort(root),
        "minimax": lambda: semantic.minimax(root, recursive),
        "greedy algorithm": lambda: semantic.greedy(root),
        "tree": lambda: semantic.tree(root),
        "misc": lambda: semantic.misc(root, language),
        "linked list": lambda: semantic.linked_list(root),
        "binary search": lambda: semantic.binary_search(root, recursive),
        "graph": lambda: semantic.graph(root),
    }
    if language == "cpp":
        rules["hashmap"] = lambda: semantic.cpp_hashmap(root)
    out |= {name for name, rule in rules.items() if rule()}
    if semantic.dynamic_programming(root):
        out.add("dynamic programming")
    if out & {"depth first search", "width first search"}:
        out.add("graph traversal")
    return out


def detect(source: str, language: str = "python") -> set[str]:
    """Techniques (canonical taxonomy names) used by ``source``.

    ``language`` is "python" or "cpp" (C and C++); other values raise
    UnsupportedLanguage.  Code that does not parse cleanly (a reply cut at the
    token limit) is still analysed: tree-sitter recovers around the error.
    """
    _, parser, query = _language(language)
    tree = parser.parse(source.encode("utf-8", "replace"))
    found = {name.replace("_", " ") for name in ts.QueryCursor(query).captures(tree.root_node)
             if not name.startswith("_")}
    with semantic.TreeIndex(tree.root_node):
        return found | _semantic(tree.root_node, language)
