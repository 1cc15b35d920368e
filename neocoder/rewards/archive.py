"""Archives: the programs scored so far, per problem, and how novel a new program is
against them.

An archive is named by its owner (the server's caller id; ``""`` in process) and a name;
it holds every program scored into it, in the order they were scored.  A new program for
problem p is measured against every earlier program of p in the archive, **at any state
t** (the states of a problem differ only in the techniques they deny; the task, its input
and output are the same, so a program seen at state 0 is no new idea at state 2):

- ``new_share``: NeoCoder Eq. 3 with the archive in place of the humans,
  |T(s) \\ A(p)| / |T(s)|, where T(s) is the detector's technique set of the program and
  A(p) the union of the archived programs' sets (0.0 for an empty T(s), as Eq. 3);
- ``nearest_distance``: min over archived programs a of 1 - J(G(s), G(a)), J the Jaccard
  similarity of the programs' sets of normalised token 4-grams (``shingles``); 1.0 for an
  empty archive;
- ``archive_size``: how many programs of p the archive held before this one.

The first program of a problem is therefore fully novel on distance (1.0) and as novel on
techniques as it has techniques; a program scored a second time earns 0 on both (its
techniques are all in A(p), its distance to itself is 0).  Then the program joins the
archive.  Measuring and joining are one step under a lock per (owner, archive, problem),
so concurrent scorers of one process never interleave them.

What the distance can and cannot tell apart: tokens come from Python's tokenizer (a
regular-expression split when the source does not tokenize, e.g. C++); comments and
layout are dropped, every identifier that is not a keyword or builtin becomes ``ID``,
every number ``NUM`` and every string ``STR``.  So renaming variables, reformatting,
changing comments or constants gives distance 0 (no new idea), while a different control
structure, library call or data structure changes many 4-grams.  It reads text, not
meaning: two programs computing the same thing with different statements (a loop and a
comprehension, reordered independent lines) are far apart, and a small edit that changes
the algorithm's meaning (``<`` for ``<=``) is close.  It costs one tokenisation per
program (cached) and a set intersection per archived program.

Archives persist in SQLite (or any SQLAlchemy database): a file, or ``:memory:`` for a
process's lifetime.  The server keeps its archives in its job store's database.
"""

from __future__ import annotations

import io
import json
import keyword
import re
import threading
import time
import tokenize
from functools import lru_cache
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.metrics.rates import divergent_ratio

N_GRAM = 4  # tokens per shingle
ARCHIVE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_BUILTINS = frozenset(dir(__import__("builtins")))
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
         tokenize.ENDMARKER}
_FALLBACK = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\S")


def _normal(kind: str, text: str) -> str:
    if kind == "name":
        return text if keyword.iskeyword(text) or text in _BUILTINS else "ID"
    return {"number": "NUM", "string": "STR"}.get(kind, text)


def tokens(code: str) -> list[str]:
    """The normalised tokens of ``code`` (module docstring): identifiers -> ID (keywords
    and builtins kept), numbers -> NUM, strings -> STR, no comments or layout."""
    try:
        out = []
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in _SKIP:
                continue
            kind = {tokenize.NAME: "name", tokenize.NUMBER: "number", tokenize.STRING: "string"}.get(tok.type, "op")
            out.append(_normal(kind, tok.string))
        return out
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found = []
        for text in _FALLBACK.findall(re.sub(r"#.*|//.*", "", code)):
            kind = "name" if text[0].isalpha() or text[0] == "_" else "number" if text[0].isdigit() else \
                "string" if text[0] in "\"'" else "op"
            found.append(_normal(kind, text))
        return found


@lru_cache(maxsize=8192)
def shingles(code: str) -> frozenset:
    """The set of normalised token ``N_GRAM``-grams of ``code`` (one gram of all tokens
    when the program has fewer)."""
    toks = tokens(code)
    n = min(N_GRAM, len(toks))
    return frozenset(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)) if n else frozenset()


def distance(a: str, b: str) -> float:
    """1 - Jaccard similarity of the shingle sets of programs ``a`` and ``b``, in [0, 1]:
    0 for the same normalised text (two empty programs included), 1 for no shared gram."""
    x, y = shingles(a), shingles(b)
    union = len(x | y)
    return 0.0 if not union else 1.0 - len(x & y) / union


def measure(code: str, techniques: set[str], archived: list[tuple[str, set[str]]]) -> dict:
    """Novelty of a program (``code``, its technique set) against the archived programs of
    its problem (``[(code, techniques)]``): ``{"new_share", "nearest_distance",
    "archive_size"}`` as the module docstring defines them."""
    used = set().union(*(t for _, t in archived)) if archived else set()
    nearest = min((distance(code, other) for other, _ in archived), default=1.0)
    return {"new_share": divergent_ratio(set(techniques), used), "nearest_distance": nearest,
            "archive_size": len(archived)}


class ArchiveError(NeocoderError):
    """An archive name that is not allowed, or a database that cannot be opened."""


def check_name(name: str) -> str:
    """``name`` when it is a valid archive name (ARCHIVE_NAME: letters, digits, ``._-``,
    at most 64 characters), else ArchiveError."""
    if not isinstance(name, str) or not re.fullmatch(ARCHIVE_NAME, name):
        raise ArchiveError(f"archive: {name!r} is not an archive name (letters, digits, '.', '_', '-'; "
                           "at most 64 characters)")
    return name


def _table(metadata):
    from sqlalchemy import Column, Float, Index, Integer, String, Table, Text
    return Table(
        "archive_programs", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),  # the order programs joined in
        Column("owner", String(64), nullable=False),  # the server's caller id; "" in process
        Column("archive", String(64), nullable=False),
        Column("problem_id", String(16), nullable=False),
        Column("state", Integer, nullable=False),
        Column("code_sha256", String(64), nullable=False),
        Column("techniques", Text, nullable=False),  # JSON list, sorted
        Column("code", Text, nullable=False),
        Column("added", Float, nullable=False),  # seconds since the epoch, UTC
        Index("ix_archive_programs_key", "owner", "archive", "problem_id"))


def _engine(where):
    """A SQLAlchemy engine for ``where``: an Engine (used as is), ``None``/``":memory:"``
    (an in-memory SQLite shared by the process's threads), a URL, or a file path."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import Engine
    from sqlalchemy.pool import StaticPool
    if isinstance(where, Engine):
        return where
    if where in (None, ":memory:"):
        return create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
    url = str(where) if "://" in str(where) else f"sqlite:///{Path(where).resolve()}"
    return create_engine(url, connect_args={"check_same_thread": False} if url.startswith("sqlite") else {})


class ArchiveStore:
    """Every archive of one database: ``add`` (measure a program, then archive it),
    ``list``, ``export``, ``reset``.  Thread-safe.

    ``where``: a SQLAlchemy Engine (the server passes its job store's), None or
    ``":memory:"`` (in-memory SQLite, gone with the process), a database URL or a SQLite
    file path.  Raises ArchiveError when the database cannot be opened (sqlalchemy is
    needed: ``pip install 'neocoder[serve]'``)."""

    def __init__(self, where=None):
        try:
            from sqlalchemy import MetaData
            from sqlalchemy.exc import SQLAlchemyError
        except ImportError as exc:
            raise ArchiveError("archives need sqlalchemy: pip install 'neocoder[serve]'") from exc
        try:
            self.engine = _engine(where)
            self.table = _table(MetaData())
            self.table.metadata.create_all(self.engine)
        except (SQLAlchemyError, OSError) as exc:
            raise ArchiveError(f"cannot open the archive database: {exc}") from exc
        self._owns_engine = self.engine is not where
        self._locks: dict[tuple, threading.Lock] = {}
        self._lock = threading.Lock()
        # one statement at a time: an in-memory database is one connection shared by every thread
        self._db = threading.Lock()

    def _key_lock(self, key: tuple) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())

    def _where(self, owner: str, archive: str):
        return (self.table.c.owner == owner) & (self.table.c.archive == archive)

    def add(self, owner: str, archive: str, problem_id: str, state: int, code: str, techniques) -> dict:
        """Measure the program against ``archive``'s earlier programs of ``problem_id``
        (``measure``), then archive it; returns the novelty ``{"new_share",
        "nearest_distance", "archive_size"}``.  Atomic per (owner, archive, problem)."""
        import hashlib

        from sqlalchemy import insert, select
        t = self.table
        with self._key_lock((owner, archive, problem_id)):
            with self._db, self.engine.connect() as conn:
                rows = conn.execute(select(t.c.code, t.c.techniques).where(
                    self._where(owner, check_name(archive)) & (t.c.problem_id == problem_id)).order_by(t.c.id)).all()
            novelty = measure(code, set(techniques), [(c, set(json.loads(ts))) for c, ts in rows])
            with self._db, self.engine.begin() as conn:
                conn.execute(insert(t).values(owner=owner, archive=archive, problem_id=problem_id, state=int(state),
                                              code_sha256=hashlib.sha256(code.encode()).hexdigest(),
                                              techniques=json.dumps(sorted(techniques)), code=code,
                                              added=time.time()))
        return novelty

    def list(self, owner: str) -> list[dict]:
        """``owner``'s archives by name: ``{"name", "programs", "problems", "first_added",
        "last_added"}`` (times in seconds since the epoch)."""
        from sqlalchemy import distinct, func, select
        t = self.table
        query = select(t.c.archive, func.count(), func.count(distinct(t.c.problem_id)), func.min(t.c.added),
                       func.max(t.c.added)).where(t.c.owner == owner).group_by(t.c.archive).order_by(t.c.archive)
        with self._db, self.engine.connect() as conn:
            return [{"name": name, "programs": int(n), "problems": int(p), "first_added": first, "last_added": last}
                    for name, n, p, first, last in conn.execute(query)]

    def export(self, owner: str, archive: str) -> list[dict]:
        """Every program of ``owner``'s ``archive`` in the order it joined: ``{"archive",
        "seq", "problem_id", "state", "code_sha256", "techniques", "code", "added"}``
        (``seq`` from 0; programs of one problem in the order they were scored, of
        different problems as their judging finished).  An unknown archive is an empty
        list."""
        from sqlalchemy import select
        t = self.table
        query = select(t.c.problem_id, t.c.state, t.c.code_sha256, t.c.techniques, t.c.code, t.c.added).where(
            self._where(owner, check_name(archive))).order_by(t.c.id)
        with self._db, self.engine.connect() as conn:
            return [{"archive": archive, "seq": i, "problem_id": pid, "state": state, "code_sha256": sha,
                     "techniques": json.loads(ts), "code": code, "added": added}
                    for i, (pid, state, sha, ts, code, added) in enumerate(conn.execute(query))]

    def reset(self, owner: str, archive: str) -> int:
        """Empty ``owner``'s ``archive``; returns how many programs it held."""
        from sqlalchemy import delete
        with self._db, self.engine.begin() as conn:
            return conn.execute(delete(self.table).where(self._where(owner, check_name(archive)))).rowcount

    def close(self) -> None:
        """Close the database connections (not an engine given by the caller)."""
        if self._owns_engine:
            self.engine.dispose()
