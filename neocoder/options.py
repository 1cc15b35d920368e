"""One declaration per option: its default, its check and its help, written once.

A config field (config.py) or a strategy's option (strategies/options.py) is declared as

    samples: int = Option(1, "Samples per problem state.", ge=1, cap=100).field()

and every surface reads that one declaration: the command line builds its click option
from it (cli/declared.py: name, type, range, choices, default, help), the HTTP service
derives its request schema from it (serve/derive.py: the same range, the help as the
field's description), and ``check`` refuses a value outside it in the Python API.  After
``llm``'s per-model ``Options`` class, which its CLI, API and plugins all read.

``ge``/``le``/``gt`` bound a number (each item of a list); ``choices`` are the allowed
values; ``cap`` is an upper bound only a shared server enforces (one caller must not ask
it for a million samples; a local run may).  ``flag`` renames the command-line option;
``parse`` turns its text into the value (``--states 0-5``); ``metavar`` and ``text``
(the default as typed) show it.  ``local`` marks how and where this process works (the
progress bar, the sandbox): a client never sends it to a server, whose own it is; a field
declared without an Option (the run folder ``out``, ``release_dir``, ``sandbox``) is the
server's own too.  ``manifest=False`` keeps a field out of the run's manifest: how this
process shows or splits its work (the progress bar, ``--shard``, the Ray address), never what
the run is.  ``envvar`` is an environment variable the command line also reads; ``multiple`` a
command-line option given once per item of a list (``--allow-endpoint A --allow-endpoint B``).
``required`` declares a field without a default (``model``); ``file`` a path that must
name an existing file.  ``secret=True`` marks a key, token or password: never written to a
run (the manifest's config leaves it out, its recorded command shows ``--api-key
<redacted>``) nor shown; ``secret="url"`` a URL whose ``user:password@`` part or ``?key=``
query is one, recorded with it replaced (neocoder/redaction.py holds the rule).

This module imports nothing heavy: config.py and strategies/options.py both use it.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from neocoder.errors import NeocoderError
from neocoder.redaction import redact_url


@dataclass(frozen=True)
class Option:
    """One option's declaration (see the module docstring)."""

    default: Any = None
    help: str = ""
    ge: float | None = None
    le: float | None = None
    gt: float | None = None
    choices: tuple | None = None
    cap: float | None = None
    flag: str | None = None
    parse: Callable[[str], Any] | None = None
    text: str | None = None
    local: bool = False
    factory: Callable[[], Any] | None = None
    required: bool = False
    file: bool = False
    manifest: bool = True
    envvar: str | None = None
    metavar: str | None = None
    multiple: bool = False
    secret: bool | str = False  # True: a key, token or password; "url": a URL that may carry one

    def field(self):
        """The dataclass field of this option (its default, and itself as metadata)."""
        if self.required:
            return dataclasses.field(metadata={"option": self})
        if self.factory is not None:
            return dataclasses.field(default_factory=self.factory, metadata={"option": self})
        return dataclasses.field(default=self.default, metadata={"option": self})

    def refusal(self, value) -> str | None:
        """Why ``value`` breaks this declaration (None when it does not): a range, the
        choices, or text its ``parse`` refuses; a list is checked item by item.  ``cap``
        is not checked here."""
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            if item is None or isinstance(item, bool):
                continue
            if self.choices is not None and item not in self.choices:
                return f"{item!r} is not one of {', '.join(map(str, self.choices))}"
            if self.parse is not None and isinstance(item, str):  # text the option's parser must accept
                try:
                    self.parse(item)
                except ValueError as exc:
                    return str(exc)
            if not isinstance(item, (int, float)):
                continue
            if self.ge is not None and item < self.ge:
                return f"{item} is below {self.ge:g}"
            if self.gt is not None and item <= self.gt:
                return f"{item} is not above {self.gt:g}"
            if self.le is not None and item > self.le:
                return f"{item} is above {self.le:g}"
        return None


def option(default: Any = None, help: str = "", **checks) -> Any:
    """A dataclass field declared with its default, help and checks (``Option``'s fields)."""
    return Option(default, help, **checks).field()


def option_of(field: dataclasses.Field) -> Option | None:
    """The Option a dataclass field was declared with (None: a field without one)."""
    return field.metadata.get("option")


def in_manifest(field: dataclasses.Field) -> bool:
    """Whether a config field goes into the run's manifest (all but those declared
    ``manifest=False`` or ``secret=True``)."""
    opt = option_of(field)
    return opt is None or (opt.manifest and opt.secret is not True)


def recorded(field: dataclasses.Field, value):
    """``value`` of config ``field`` as a manifest records it: ``redaction.redact_url``
    for a field declared ``secret="url"``, the value itself otherwise (a ``secret=True``
    field is never recorded: ``in_manifest`` is False for it)."""
    opt = option_of(field)
    return redact_url(value) if opt is not None and opt.secret == "url" else value


def declared(config_type) -> list[tuple[dataclasses.Field, Option]]:
    """The fields of ``config_type`` declared with an Option, in order."""
    return [(f, option_of(f)) for f in dataclasses.fields(config_type) if option_of(f) is not None]


def names_a_path(config_type, f: dataclasses.Field) -> bool:
    """Whether field ``f`` of ``config_type`` may hold a path on disk (its type includes
    ``Path``): a caller never names a file on a server's disk, so neither the client nor
    the server's request schema carries such a field unless a request model overrides
    it with a safe type (an eval's dataset is "validated" or "release" there)."""
    hint = typing.get_type_hints(config_type, include_extras=False)[f.name]
    return hint is Path or Path in typing.get_args(hint)


def sent(config_type) -> list[tuple[dataclasses.Field, Option]]:
    """The fields of ``config_type`` a client sends to a server and a server accepts
    from one (declared and not ``local``): the one rule both sides read, with
    ``names_a_path`` for the fields that hold paths."""
    return [(f, opt) for f, opt in declared(config_type) if not opt.local]


def check(config) -> None:
    """Refuse a value outside its declaration in ``config`` (and the configs it holds):
    NeocoderError naming the field, e.g. ``samples: 0 is below 1``."""
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            check(value)
            continue
        opt = option_of(f)
        why = opt.refusal(value) if opt is not None else None
        if why:
            raise NeocoderError(f"{type(config).__name__}.{f.name}: {why}")


def parse_shard(text: str | None) -> str | None:
    """'2/4' -> '2/4' (the 2nd of 4 parts); None or '' -> None; raises ValueError
    unless it is K/N with 1 <= K <= N."""
    if text is None or not str(text).strip():
        return None
    m = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", str(text))
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"{text!r}: use K/N with 1 <= K <= N, e.g. 1/4 for the first of four parts")
    return f"{int(m.group(1))}/{int(m.group(2))}"


def shard_of(text: str | None) -> tuple[int, int] | None:
    """(K, N) of a valid ``parse_shard`` value; None for None."""
    shard = parse_shard(text)
    if shard is None:
        return None
    k, n = shard.split("/")
    return int(k), int(n)


def parse_states(text: str) -> list[int]:
    """'0-5' -> [0..5]; '0,2,4' -> [0, 2, 4]; raises ValueError otherwise."""
    states: set[int] = set()
    for part in str(text).split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise ValueError(f"{text!r}: use a range like 0-5 or a list like 0,2,4")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise ValueError(f"{text!r}: empty range")
        states.update(range(lo, hi + 1))
    return sorted(states)


_PROBLEM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def parse_problems(text: str | None) -> list[str] | None:
    """``--problems``: '1873C,1875A' -> ['1873C', '1875A'] (in order, each once); '@FILE'
    -> the ids FILE holds, one per line or comma-separated ('#' starts a comment); None or
    '' -> None (every problem).  Raises ValueError for an id that is not letters, digits,
    '_', '.' or '-' (in a file: naming the line, never quoting it), or a file that cannot
    be read."""
    if text is None or not str(text).strip():
        return None
    text = str(text).strip()
    if text.startswith("@"):
        try:
            content = Path(text[1:]).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise ValueError(f"{text}: cannot read the problems file") from None
        ids = []
        for n, line in enumerate(content.splitlines(), 1):
            got = [part.strip() for part in line.split("#", 1)[0].split(",") if part.strip()]
            if any(not _PROBLEM_ID.fullmatch(i) for i in got):
                raise ValueError(f"{text} line {n}: not a problem id (letters, digits, '_', '.', '-')")
            ids += got
    else:
        ids = [part.strip() for part in text.split(",") if part.strip()]
        bad = [i for i in ids if not _PROBLEM_ID.fullmatch(i)]
        if bad:
            raise ValueError(f"{', '.join(map(repr, bad[:5]))}: not a problem id (use ID[,ID...] or @FILE)")
    if not ids:
        raise ValueError(f"{text!r}: no problem id given")
    return list(dict.fromkeys(ids))
