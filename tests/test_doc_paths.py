"""Every file path and module path the documentation names exists in this checkout.

What is read: the docstrings and comments of every module under ``neocoder/`` (and the
Markdown files there), every file of ``docs/`` and ``README.md``.

What counts as a path, in that text (a bare file name with no ``/``, such as ``pool.py``, is
not checked: it is read in the context of the paragraph that names its folder):

- a **file path**: a word with at least one ``/`` whose last part has a file extension
  (``neocoder/metrics/types.py``, ``judge/verdicts.py``, ``prompts/x.txt``, ``docs/metrics.md``);
  a ``:line`` or ``:function`` after it (``aidanbench/loop.py:run_question``) is left off;
- a **folder**: a word with at least one ``/`` that ends with ``/`` (``tests/support/``);
- any word that starts with a folder at the top of the checkout, even without an extension
  (``data/macgyver``, ``sandbox/Dockerfile``, ``.ci/run``, ``neocoder/report/templates``), except
  two-part ``neocoder/NAME`` words, which are also inspect task and score names
  (``neocoder/aidanbench``, ``neocoder/divergent``), and rates such as ``tests/s``;
- a **glob**: either of those with ``*``, ``?`` or ``{a,b}`` (``neocoder/tasks/*.py``,
  ``templates/*.html``): it must match at least one file, as the shell would;
- a **module path**: a dotted name that starts with ``neocoder.`` (``neocoder.benchmarks.ideas.sources``,
  ``neocoder.judge.image.runner_sha256``): its longest prefix that is a module or package of the
  checkout must be followed by nothing or by a name that module defines at its top level (a
  ``def``, ``class``, assignment, import, or a name in ``__all__``), so ``neocoder.entropy``
  fails once ``entropy`` lives in ``neocoder.metrics``.  ``pyproject.toml``'s ``package-dir``
  maps the data packages to their folders (``neocoder.sandbox_recipe`` is ``sandbox/``,
  ``neocoder.codeforces/published/`` is ``data/codeforces/published/``).

How a relative path resolves: **it is the end, in whole parts, of the path of a file or
folder of the checkout** (the path from the repository root included).  So
``docs/metrics.md`` and ``neocoder/judge/pool.py`` are read from the root, and a path written
from inside a package, the way the docs and docstrings name them, resolves wherever that
package sits: ``metrics/types.py`` (``neocoder/metrics/types.py``), ``sections/base.py``
(``neocoder/report/sections/base.py``), ``runner/watch.py`` (``sandbox/runner/watch.py``),
``support/loopback.py`` (``tests/support/loopback.py``), ``codeforces/published/``
(``data/codeforces/published/``).  A path whose folder no longer exists anywhere
(``neocoder/tasks/ideas.py``, ``tests/test_special.py`` for ``tests/judge/test_special.py``)
does not.  Virtual environments, caches and build output are not part of the checkout.

What is not this repository's path, and skipped: URLs (``://``, ``www.``), absolute paths
(``/opt/neocoder``, ``/v1/runs``), paths outside the checkout or made by the shell
(``../shared/...``, ``~/...``, ``$VAR/...``, ``data/codeforces/$f``), placeholders for the
user's own files (any part in capitals, such as ``DIR/records.jsonl`` and ``OUT/``, or in angle
brackets, such as ``runs/<run>/``), model specs (the first part is a model provider:
``replay/answers.jsonl``), and, when they do not resolve, the paths that start as an entry of
``ELSEWHERE`` (files of the NeoCoder release, of the LiveIdeaBench repository, of other
packages, and of run folders), each with its reason.  Everything else that does not resolve
is a stale path, reported with its file and line.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tomllib
from checkout import CHECKOUT

from neocoder.models import PROVIDERS

EXTENSIONS = {"py", "md", "txt", "json", "jsonl", "toml", "scm", "sh", "html", "css", "js", "yaml", "yml",
              "cfg", "ini", "png", "svg", "csv", "tsv", "parquet", "gz", "whl", "db", "sqlite", "log", "eval"}
# not part of the checkout: virtual environments, caches, build output, version control
NOT_CHECKOUT = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ruff_cache", "build", "dist",
                "node_modules"}
# paths of other repositories, packages and run folders, skipped when they do not resolve here:
# how the path starts -> why
ELSEWHERE: dict[str, str] = {
    "shared/": "../shared beside the checkout: the NeoCoder release, the AidanBench and LiveIdeaBench files",
    "crawled/": "the NeoCoder release's crawl",
    "datasets/CodeForce/": "the NeoCoder release's dataset folder",
    "NeoCoder/": "the NeoCoder release's own folder",
    "src/evaluators/": "the NeoCoder repository's evaluator",
    "utils/prompts.json": "the LiveIdeaBench repository",
    "path/utils/prompts.json": "the LiveIdeaBench repository, given as ``path``",
    "path/config.py": "the LiveIdeaBench repository, given as ``path``",
    "csvs/": "the LiveIdeaBench repository",
    "results/LiveIdeaBench": "the LiveIdeaBench repository",
    "official/": "the LiveIdeaBench clone's default folder beside the shared files",
    "trl/": "the trl package's source",
    "verl/": "the verl package's source",
    "anthropic/": "an inspect_ai model provider (inspect-api/PROVIDER/NAME)",
    "bedrock/": "an inspect_ai model provider",
    "mistral/": "an inspect_ai model provider",
    "vllm/": "an inspect_ai model provider",
    "groq/": "an inspect_ai model provider",
    "runs/": "a run folder (the default output folder, ignored by git)",
    "eval/": "a suite run's sub-folder",
    "report/index.html": "the output of ``neocoder report``",
    "report/{name}": "a server route's page name",
    "leaderboard/index.html": "the output of ``neocoder leaderboard``",
    "data/diversity/": "scripts/human_fingerprints.py's output (ignored by git)",
}
# dotted names that are not module paths
NOT_MODULES = {"neocoder.sandbox": "a Docker label of the sandbox's containers"}
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*$|<|>")
WORD = re.compile(r"[^\s`'\"()|,;]+(?:\{[^}\s]*\}[^\s`'\"()|,;]*)*")
MODULE = re.compile(r"(?<![\w./-])neocoder(?:\.[A-Za-z_]\w*)+(?![\w=/-])")


@dataclass(frozen=True)
class Named:
    """One path or module path as written in ``source`` at ``line``."""
    source: str
    line: int
    text: str


# ---------------------------------------------------------------- what is read
def documentation_files(root: Path = CHECKOUT) -> list[Path]:
    """The files whose text (or, for Python, docstrings and comments) names paths."""
    files = sorted((root / "neocoder").rglob("*.py")) + sorted((root / "neocoder").rglob("*.md"))
    files += sorted((root / "docs").glob("*.md")) + [root / "README.md"]
    return [f for f in files if "__pycache__" not in f.parts]


def python_prose(text: str) -> list[tuple[int, str]]:
    """(first line, text) of every docstring and comment of a Python module."""
    prose = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                prose.append((first.lineno, first.value.value))
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            prose.append((token.start[0], token.string))
    return prose


def prose_of(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each line of ``path`` to look for paths in: a Python module's docstrings
    and comments, the whole of any other file."""
    text = path.read_text()
    pieces = python_prose(text) if path.suffix == ".py" else [(1, text)]
    return [(start + i, line) for start, piece in pieces for i, line in enumerate(piece.splitlines())]


def named_paths(path: Path, root: Path = CHECKOUT) -> list[Named]:
    """Every word of ``path``'s prose that has a ``/`` or is a ``neocoder.`` module path."""
    source = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    found = []
    for line, text in prose_of(path):
        found += [Named(source, line, w.strip("[]").rstrip(".:")) for w in WORD.findall(text) if "/" in w]
        found += [Named(source, line, m.group(0)) for m in MODULE.finditer(text)]
    return found


# ---------------------------------------------------------------- the checkout
@lru_cache(maxsize=None)
def checkout_tails(root: Path = CHECKOUT) -> frozenset[str]:
    """Every end, in whole parts, of the path of a file or folder of the checkout (folders with
    a trailing ``/``): ``neocoder/judge/pool.py`` gives that, ``judge/pool.py`` and ``pool.py``."""
    tails = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_CHECKOUT and not d.endswith(".egg-info")]
        here = Path(folder).relative_to(root).parts
        for name, end in [(d, "/") for d in dirs] + [(f, "") for f in files]:
            parts = (*here, name)
            tails |= {"/".join(parts[i:]) + end for i in range(len(parts))}
    return frozenset(tails)


def glob_pattern(pattern: str) -> re.Pattern:
    """A shell glob as a regular expression over paths (``*`` and ``?`` stay within one part)."""
    out = ""
    for piece in re.split(r"(\*\*/?|\*|\?)", pattern):
        out += {"**": ".*", "**/": "(?:.*/)?", "*": "[^/]*", "?": "[^/]"}.get(piece, re.escape(piece))
    return re.compile(out)


def expand_braces(pattern: str) -> list[str]:
    """``a/{b,c}.py`` -> ``a/b.py``, ``a/c.py``, as the shell expands them."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[:match.start()], pattern[match.end():]
    return [x for alt in match.group(1).split(",") for x in expand_braces(head + alt + tail)]


def resolves(word: str, root: Path = CHECKOUT) -> bool:
    """Whether a file, folder or glob path is the end of a path of the checkout."""
    tails = checkout_tails(root)
    for pattern in expand_braces(word):
        if not any(c in pattern for c in "*?"):
            if pattern in tails or pattern + "/" in tails:
                return True
        elif any(glob_pattern(pattern).fullmatch(t) for t in tails):
            return True
    return False


def package_dirs(root: Path = CHECKOUT) -> dict[str, str]:
    """Package name -> its folder in the checkout: ``neocoder``, and ``pyproject.toml``'s
    ``package-dir`` entries (``neocoder.sandbox_recipe`` -> ``sandbox``)."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    return {"neocoder": "neocoder", **config["tool"]["setuptools"].get("package-dir", {})}


def module_file(name: str, root: Path = CHECKOUT) -> Path | None:
    """The file (a package: its ``__init__.py``, or its folder) of module ``name``, or None."""
    dirs = package_dirs(root)
    for prefix in sorted(dirs, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            base = root.joinpath(dirs[prefix], *name[len(prefix):].split(".")[1:])
            for candidate in (base / "__init__.py", base.with_suffix(".py")):
                if candidate.is_file():
                    return candidate
            return base if base.is_dir() else None
    return None


def defined_names(module: Path) -> set[str]:
    """The names a module defines at its top level (in an ``if`` or ``try`` there too), with
    those its ``__all__`` lists (a package's lazily imported API)."""
    if module.is_dir():
        return set()
    names = set()
    for node in ast.parse(module.read_text()).body:
        for inner in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(inner.name)
            elif isinstance(inner, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in inner.names}
            elif isinstance(inner, (ast.Assign, ast.AnnAssign)):
                targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and inner.value:
                    names |= {e.value for e in getattr(inner.value, "elts", []) if isinstance(e, ast.Constant)}
    return names


def module_exists(dotted: str, root: Path = CHECKOUT) -> bool:
    """Whether ``dotted`` is a module of the checkout, or one followed by a name it defines."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = module_file(".".join(parts[:cut]), root)
        if module is not None:
            return cut == len(parts) or parts[cut] in defined_names(module)
    return False


# ---------------------------------------------------------------- what a word means
def path_of(word: str, root: Path = CHECKOUT) -> str | None:
    """The checkout path a word names (a ``:line`` or ``:name`` after it left off, a data
    package's dotted name made its folder); None when the word names no path of this checkout."""
    if any(c in word for c in ("://", "=", "@", "$")) or word.startswith(("www.", "/", "~", "..")):
        return None
    word = re.sub(r"(\.[A-Za-z]+|/):.*$", r"\1", word)
    head, _, rest = word.partition("/")
    if "." in head and head in package_dirs(root):
        word = package_dirs(root)[head] + "/" + rest
    parts = [p for p in word.split("/") if p not in ("", ".")]
    if not parts or any(PLACEHOLDER.search(p) or not re.search(r"[A-Za-z0-9*]", p) for p in parts):
        return None
    if parts[0] in PROVIDERS:
        return None
    last = parts[-1]
    extension = last.rsplit(".", 1)[1] if "." in last.strip(".") else ""
    rooted = (parts[0] in top_folders(root) and not (parts[0] == "neocoder" and len(parts) < 3)
              and len(parts[-1]) > 1)  # ``tests/s`` is a rate
    if word.endswith("/") or any(c in word for c in "*?{") or extension in EXTENSIONS or rooted:
        return "/".join(parts) + ("/" if word.endswith("/") else "")
    return None


@lru_cache(maxsize=None)
def top_folders(root: Path = CHECKOUT) -> frozenset[str]:
    """The folders at the top of the checkout (``neocoder``, ``docs``, ``.ci``, ...)."""
    return frozenset(p.name for p in root.iterdir() if p.is_dir() and p.name not in NOT_CHECKOUT)


def stale(named: Named, root: Path = CHECKOUT) -> bool:
    """Whether a named path or module path is of this checkout and does not exist there."""
    text = named.text
    if MODULE.fullmatch(text):
        if text in NOT_MODULES or text.rsplit(".", 1)[1] in EXTENSIONS:  # ``neocoder.html``: a file name
            return False
        return not module_exists(text, root)
    word = path_of(text, root)
    if word is None or resolves(word, root):
        return False
    return not any(word.startswith(prefix) for prefix in ELSEWHERE)


def stale_paths(root: Path = CHECKOUT, files: list[Path] | None = None) -> list[Named]:
    """Every stale path named in ``files`` (default: the documentation files of ``root``)."""
    files = documentation_files(root) if files is None else files
    return [n for f in files for n in named_paths(f, root) if stale(n, root)]


# ---------------------------------------------------------------- the tests
def test_every_named_path_exists():
    found = stale_paths()
    assert not found, "stale paths (file:line: path):\n" + "\n".join(
        f"  {n.source}:{n.line}: {n.text}" for n in found)


def test_a_made_up_path_fails(tmp_path):
    """The check on files outside the documentation: made-up paths are found, real ones and
    the skipped kinds are not."""
    module = tmp_path / "example.py"
    module.write_text('''"""Reads neocoder/metrics/types.py, metrics/rates.py and ``neocoder.metrics.entropy``; runs
``neocoder/tasks/*.py`` (gone), ``neocoder/metrics/made_up.py`` and ``neocoder.metrics.no_such_module``;
see docs/metrics.md and docs/no-such-page.md, https://example.org/a/b.py, DIR/records.jsonl,
../shared/neocoder/x.py, replay/answers.jsonl and crawled/codeforces_problems.jsonl.
"""
# a comment naming tests/support/nowhere.py and support/loopback.py
PATH = "neocoder/string_literal_not_prose.py"
''')
    page = tmp_path / "page.md"
    page.write_text("The loop (`aidanbench/loop.py:run_question`) and `neocoder/tasks/ideas.py`; "
                    "`neocoder.benchmarks.ideas.sources` and `neocoder.ideas.sources`.\n")
    found = {(Path(n.source).name, n.line, n.text) for n in stale_paths(files=[module, page])}
    assert found == {("example.py", 2, "neocoder/tasks/*.py"), ("example.py", 2, "neocoder/metrics/made_up.py"),
                     ("example.py", 2, "neocoder.metrics.no_such_module"), ("example.py", 3, "docs/no-such-page.md"),
                     ("example.py", 6, "tests/support/nowhere.py"), ("page.md", 1, "neocoder/tasks/ideas.py"),
                     ("page.md", 1, "neocoder.ideas.sources")}
