"""Where neocoder keeps what it caches, and the fingerprints that name cached things.

One cache outlives a run: the technique sets of a release's human solutions, detected
when the dataset is built (``techniques/human.py`` ``detected_solution_sets``; the dataset
itself ships with neocoder, ``dataset/shipped.py``).  It lives under one folder,
``cache_root()``, read when it is asked for (never at import), so a test or a service can
point it elsewhere for its own process:

1. ``$NEOCODER_CACHE`` when it is set and not empty;
2. otherwise ``~/.cache/neocoder``.

``$XDG_CACHE_HOME`` is not read: one variable decides, and the default stays where
neocoder's caches have always been, so existing caches stay valid.

The inputs kept beside a checkout rather than shipped (the NeoCoder release,
LiveIdeaBench's files: ``SharedInput``) are found by ``shared_dir``, never from the
current folder: the input's own variable (``$NEOCODER_RELEASE``, ``$LIVEIDEABENCH_DIR``),
else ``$NEOCODER_SHARED/<name>``, else ``shared/<name>`` beside the checkout neocoder is
imported from (``checkout_root``), else, for an installed package, ``~/.local/share/neocoder/<name>``.
``missing`` says which input is missing, where it was looked for and how to point at it.

A cache entry is named after the files it was made from (a release, the sources of the
code that built it), so a changed file makes a new entry instead of a stale hit.
``fingerprint`` is the one hasher of such files; ``package_files`` lists the shipped
sources of a package through ``importlib.resources`` (an installed wheel has no checkout
around it, so no ``Path(__file__)`` arithmetic).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Union

if TYPE_CHECKING:  # importlib.resources.abc exists from Python 3.11 on; only annotations use it
    from importlib.resources.abc import Traversable

CACHE_ENV = "NEOCODER_CACHE"
SHARED_ENV = "NEOCODER_SHARED"  # the folder holding the shared inputs (the release, LiveIdeaBench, ...)

FileLike = Union[Path, "Traversable"]


def cache_root() -> Path:
    """The folder every neocoder cache lives in: ``$NEOCODER_CACHE``, else ``~/.cache/neocoder``.

    Read at call time.  The folder is not created here (the cache that writes creates it).
    """
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "neocoder")


def fingerprint(files: Iterable[FileLike], names: Iterable[str] | None = None) -> str:
    """SHA-256 hex digest of ``files``, in the order given: the one hasher of sources
    (the shipped dataset's builder and release, the sandbox image's runner, the human
    technique cache).

    Each file contributes its name (its base name, or the matching entry of ``names``,
    e.g. a path relative to a package), a NUL byte, its bytes and a NUL byte, so
    renaming a file or moving bytes between two files changes the digest.  ``files``
    are ``pathlib.Path`` or ``importlib.resources`` entries.  Raises OSError
    (FileNotFoundError) for a file that cannot be read: callers leave out the optional
    ones first.
    """
    files = list(files)
    labels = [entry.name for entry in files] if names is None else list(names)
    digest = hashlib.sha256()
    for entry, label in zip(files, labels, strict=True):
        digest.update(label.encode() + b"\0" + entry.read_bytes() + b"\0")
    return digest.hexdigest()


def package_files(package: str, *names: str, suffixes: tuple[str, ...] = (".py",)) -> list[Traversable]:
    """The shipped files of ``package`` (a dotted name, e.g. ``"neocoder.judge.special"``),
    optionally below the subfolder ``names``, whose names end in one of ``suffixes``, at
    any depth, sorted by their path below that folder (the order ``sorted(Path.rglob)``
    gives).  An absent folder gives ``[]``; an uninstalled package raises ModuleNotFoundError.
    """
    root = resources.files(package).joinpath(*names) if names else resources.files(package)
    found: list[tuple[tuple[str, ...], Traversable]] = []
    pending: list[tuple[tuple[str, ...], Traversable]] = [((), root)] if root.is_dir() else []
    while pending:
        parts, node = pending.pop()
        for entry in node.iterdir():
            if entry.is_dir():
                pending.append((parts + (entry.name,), entry))
            elif entry.name.endswith(suffixes):
                found.append((parts + (entry.name,), entry))
    return [entry for _, entry in sorted(found, key=lambda pair: pair[0])]


@dataclass(frozen=True)
class SharedInput:
    """An input read from its own folder at run time, never shipped: ``what`` it is (for
    messages), ``env`` the variable naming its folder, ``name`` the folder's name in the
    shared folder (``$NEOCODER_SHARED``, or ``shared/`` beside the checkout)."""

    what: str
    env: str
    name: str


RELEASE = SharedInput("the NeoCoder release folder", "NEOCODER_RELEASE", "neocoder")
LIVEIDEABENCH = SharedInput("LiveIdeaBench's folder (keywords.csv, leaderboard-202412.csv)", "LIVEIDEABENCH_DIR",
                            "liveideabench")


def checkout_root(package_dir: Path | None = None) -> Path | None:
    """The checkout neocoder is imported from (an editable install, or ``PYTHONPATH``): the
    folder above the package folder ``package_dir`` (default: this package's) when it holds
    a ``pyproject.toml``; None for an installed package, which has no checkout around it."""
    package = Path(package_dir) if package_dir is not None else Path(__file__).resolve().parent
    root = package.resolve().parent
    return root if (root / "pyproject.toml").is_file() else None


def shared_place(item: SharedInput, package_dir: Path | None = None) -> tuple[Path, str]:
    """Where ``item`` is read from, as ``(absolute folder, how it was found)``: ``$<env>``
    when set (even to a missing folder: a variable given is never passed over), else
    ``$NEOCODER_SHARED/<name>`` when set, else ``<checkout>/../shared/<name>`` in a checkout
    (``checkout_root(package_dir)``), else ``~/.local/share/neocoder/<name>``.  Never the
    current folder; the folder need not exist (``missing`` says so)."""
    if os.environ.get(item.env):
        return Path(os.environ[item.env]).expanduser().absolute(), f"${item.env}"
    if os.environ.get(SHARED_ENV):
        return (Path(os.environ[SHARED_ENV]).expanduser() / item.name).absolute(), f"${SHARED_ENV}/{item.name}"
    root = checkout_root(package_dir)
    if root is not None:
        return root.parent / "shared" / item.name, f"shared/{item.name} beside the checkout {root}"
    return Path.home() / ".local" / "share" / "neocoder" / item.name, "the default for an installed neocoder"


def shared_dir(item: SharedInput, package_dir: Path | None = None) -> Path:
    """The absolute folder of ``item`` (``shared_place``)."""
    return shared_place(item, package_dir)[0]


def pointer(item: SharedInput) -> str:
    """Where ``item`` is looked for when no option names it and how to point elsewhere, one
    sentence without its full stop: ``Without an option, <what> is <folder> (from <how>); set
    <ENV> to it, or NEOCODER_SHARED to the folder holding <name>/``."""
    folder, how = shared_place(item)
    return (f"Without an option, {item.what} is {folder} (from {how}); set {item.env} to it, or {SHARED_ENV} "
            f"to the folder holding {item.name}/")


def missing(item: SharedInput, path: Path | None = None) -> str:
    """The message for ``item`` not found at ``path`` (default: its folder): which input is
    missing, where it was looked for, and how to point at it (``pointer``)."""
    return f"{path or shared_dir(item)}: not found.  {pointer(item)}"
