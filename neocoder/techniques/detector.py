"""Deterministic technique detection with tree-sitter (queries kept as data).

``detect(source)`` returns the set of taxonomy names a program uses.  The rules are
the ``queries/<language>.scm`` files plus recursion, which needs the call graph:
a program uses recursion when its functions' calls contain a cycle (a function
calling itself, or f -> g -> f).  Definitions are in docs/techniques.md.
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


def _recursion(root) -> bool:
    """True if the call graph of the functions defined in ``root`` has a cycle."""
    calls: dict[str, set[str]] = {}
    stack = [root]
    defs = []
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            defs.append(node)
        stack.extend(node.children)
    for fn in defs:
        name = _function_name(fn)
        if name is None:
            continue
        called = calls.setdefault(name, set())
        body = [fn.child_by_field_name("body")]
        while body:
            node = body.pop()
            if node is None:
                continue
            if node.type in ("call", "call_expression"):
                callee = _callee(node)
                if callee:
                    called.add(callee)
            body.extend(node.children)
    # a cycle exists iff some function reaches itself
    for start in calls:
        seen, todo = set(), list(calls[start] & calls.keys())
        while todo:
            f = todo.pop()
            if f == start:
                return True
            if f not in seen:
                seen.add(f)
                todo.extend(calls.get(f, set()) & calls.keys())
    return False


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
    if _recursion(tree.root_node):
        found.add("recursion")
    return found
