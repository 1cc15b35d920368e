"""Deterministic technique detection with tree-sitter (queries kept as data).

``detect(source)`` returns the set of taxonomy names a program uses.  It parses the
program once into a ``ParsedProgram`` (``parsed.py``: the tree, its preorder index,
the recursive functions of its call graph), then runs the syntactic rules, the
``queries/<language>.scm`` files, and the semantic rules listed in ``semantic.RULES``
(recursion, two pointers, BFS, greedy, misc, ...) on that one object.
Definitions are in docs/techniques.md.
"""

from __future__ import annotations

import ast
import re
import warnings
from functools import lru_cache
from importlib import resources

import tree_sitter as ts
import tree_sitter_cpp
import tree_sitter_python

from neocoder.errors import NeocoderError
from neocoder.techniques import semantic
from neocoder.techniques.parsed import ParsedProgram

QUERIES_PACKAGE = "neocoder.techniques.queries"  # the .scm files, package data (pyproject.toml)


class UnsupportedLanguage(NeocoderError, ValueError):
    """The detector has no grammar for this language; nothing is guessed."""


@lru_cache(maxsize=None)
def _language(name: str):
    """(tree-sitter Language, Parser, technique Query) for "python" or "cpp"."""
    if name == "python":
        lang = ts.Language(tree_sitter_python.language())
    elif name == "cpp":
        lang = ts.Language(tree_sitter_cpp.language())
    else:
        raise UnsupportedLanguage(f"technique detection for {name!r} is not supported yet")
    query = ts.Query(lang, resources.files(QUERIES_PACKAGE).joinpath(f"{name}.scm").read_text(encoding="utf-8"))
    return lang, ts.Parser(lang), query


def guess_language(source: str) -> str:
    """Return "python" (parses as Python 3), "cpp" (C or C++ markers), or "unknown"."""
    try:
        with warnings.catch_warnings():  # the program's own text: "invalid decimal literal", "invalid escape"
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.11's category for an invalid escape
            ast.parse(source)
        return "python"
    except (SyntaxError, ValueError):
        pass
    if re.search(r"^\s*#\s*include\b|\bint\s+main\s*\(", source, re.M):
        return "cpp"
    return "unknown"


def parse(source: str, language: str = "python") -> ParsedProgram:
    """``source`` parsed with the grammar of ``language`` ("python" or "cpp"; others
    raise UnsupportedLanguage).  Code that does not parse cleanly (a reply cut at the
    token limit) still gives a tree: tree-sitter recovers around the error."""
    _, parser, _ = _language(language)
    return ParsedProgram(parser.parse(source.encode("utf-8", "replace")), language)


def queried(program: ParsedProgram) -> set[str]:
    """The techniques the ``queries/<language>.scm`` file finds in ``program``."""
    query = _language(program.language)[2]
    return {name.replace("_", " ") for name in ts.QueryCursor(query).captures(program.root)
            if not name.startswith("_")}


def detect(source: str, language: str = "python") -> set[str]:
    """Techniques (canonical taxonomy names) used by ``source``.

    ``language`` is "python" or "cpp" (C and C++); other values raise
    UnsupportedLanguage.  Code that does not parse cleanly is still analysed.
    """
    program = parse(source, language)
    return queried(program) | semantic.techniques(program)
