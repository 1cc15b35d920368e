"""``neocoder eval --shard K/N``: the parts of one run folder, and the locks that keep them apart.

N driver processes judge one run, each the problems ``problems[K-1::N]`` (``EvalTask.items``),
appending to the same records file (store.py appends each line whole under ``flock``).
While part K runs it holds an exclusive ``flock`` of ``part-K-of-N.lock`` in the run
folder, so:

- a second driver started for the same part, or for a split into another number of
  parts, is refused instead of judging the same samples twice;
- the command without ``--shard`` (which scores the whole run) is refused while any part
  still runs, since it would judge that part's remaining samples a second time; once none
  runs it removes the lock files and judges whatever is left (nothing, when every part
  ended), then scores;
- a part whose problems, states, samples or model differ from the part that started the
  folder is refused (the parts would overlap, or leave gaps).

``flock`` is reliable on one machine's local file systems, not over NFS: the drivers of
one run share a host (docs/scale-out.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.options import shard_of

LOCK = re.compile(r"part-([0-9]+)-of-([0-9]+)\.lock")
ITEMS = ("dataset", "limit", "states", "samples")  # the config fields that decide a run's items


def _held(path: Path) -> bool:
    """Whether another process holds ``path``'s flock now."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _parts(folder: Path) -> list[tuple[int, int, Path]]:
    """(K, N, path) of every part lock file in ``folder``."""
    found = []
    for path in folder.glob("part-*-of-*.lock"):
        m = LOCK.fullmatch(path.name)
        if m:
            found.append((int(m.group(1)), int(m.group(2)), path))
    return sorted(found)


def same_items(before: dict, now: dict) -> str | None:
    """Why a part's config (``now``, ``Config.public()``) would not split the same items as
    the folder's manifest config (``before``); None when it would."""
    for name in ITEMS:
        if before.get(name) != now.get(name):
            return f"--{name.replace('_', '-')} {now.get(name)!r}, not {before.get(name)!r}"
    spec = (before.get("model") or {}).get("spec")
    if spec != (now.get("model") or {}).get("spec"):
        return f"--model {(now.get('model') or {}).get('spec')}, not {spec}"
    return None


@contextlib.contextmanager
def part(folder: Path, shard: str | None, before: dict | None, now: dict):
    """Hold this driver's part of the run in ``folder`` (``shard`` "K/N", or None for the
    whole run) for the ``with`` block.  ``before`` is the config of the folder's manifest
    (None: a new folder) and ``now`` this run's, both ``public()``.  Raises
    NeocoderError when another driver holds the same part, the folder is split into
    another number of parts, a part's items differ, or (without ``shard``) a part still
    runs."""
    folder = Path(folder)
    existing = _parts(folder)
    if shard is None:
        running = [f"{k}/{n}" for k, n, path in existing if _held(path)]
        if running:
            raise NeocoderError(f"{folder}: part {', '.join(running)} of this run is still running; score the whole "
                                "run once every part has ended (running it now would judge their samples again)")
        for _, _, path in existing:
            path.unlink(missing_ok=True)
        yield
        return
    k, n = shard_of(shard)
    other = sorted({m for _, m, path in existing if m != n and _held(path)})
    if other:
        raise NeocoderError(f"{folder} is being judged in {other[0]} parts by other drivers: use --shard K/{other[0]}")
    differs = same_items(before, now) if before is not None else None
    if differs:
        raise NeocoderError(f"{folder}: this part has {differs} (the folder's manifest): every part of a run needs "
                            "the same problems, states, samples and model")
    path = folder / f"part-{k}-of-{n}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise NeocoderError(f"{folder}: part {k}/{n} is already being judged by another driver") from None
    try:
        yield
    finally:
        os.close(fd)  # lets the flock go; the file stays until the whole run is scored
