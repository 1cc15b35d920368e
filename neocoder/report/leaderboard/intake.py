"""What a board reads of a submitted run folder, and the shapes it accepts (``neocoder
board add``; report/leaderboard/submissions.py runs the checks).

Why: a submission is a folder of someone else's files.  Nothing outside it is read (a
suite step's ``folder`` is a name inside the suite, no symlink is followed), no file is
read whole beyond its limit (a 2 GB records file would exhaust memory), every number the
board keeps is a finite real number (JSON's NaN and Infinity are refused: ``abs(inf -
inf) > tol`` is False, so Infinity would pass any comparison and win every column), and
every field of a summary has the type ``board build`` reads, so that no accepted
submission can break the board for everyone.

Refusals are ``SubmissionRefused``, one line naming the check: ``files`` (a symlink, a
file outside the folder, a file over its limit), ``types`` (a field of another type),
``numbers`` (not a finite number, an interval that does not hold its value).
"""

from __future__ import annotations

import math
import os
from pathlib import Path, PurePosixPath

from neocoder.errors import NeocoderError

MiB = 1 << 20
RECORDS_LIMIT = 256 * MiB  # records.jsonl (GPT-4's full run: a few MiB)
FILE_LIMIT = 16 * MiB  # every other file read (manifest.json, metrics.json, a summary)
FOLDER_LIMIT = 1 << 30  # every file of the submitted folder together
FILES_LIMIT = 10000  # files in the submitted folder


class SubmissionRefused(NeocoderError):
    """A run folder ``board add`` refuses: ``check`` names the check that failed."""

    def __init__(self, check: str, message: str):
        super().__init__(f"refused ({check}): {message}")
        self.check = check


def check_files(folder: Path) -> None:
    """Refuse (``files``) a submitted folder that is or holds a symlink, or whose files
    exceed their limits (records.jsonl ``RECORDS_LIMIT``, any other ``FILE_LIMIT``; all
    together ``FOLDER_LIMIT``, at most ``FILES_LIMIT`` files).  Only sizes are read."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        raise SubmissionRefused("files", f"{folder}: not a folder (a symlink is not followed)")
    total, count = 0, 0
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            path = Path(root) / name
            if path.is_symlink():
                raise SubmissionRefused("files", f"{path}: a symlink (nothing outside the run folder is read)")
        for name in files:
            path = Path(root) / name
            size = path.lstat().st_size
            limit = RECORDS_LIMIT if name.endswith(".jsonl") else FILE_LIMIT
            if size > limit:
                raise SubmissionRefused("files", f"{path}: {size} bytes, over the limit of {limit}")
            total, count = total + size, count + 1
    if total > FOLDER_LIMIT or count > FILES_LIMIT:
        raise SubmissionRefused("files", f"{folder}: {count} files, {total} bytes, over the limits of {FILES_LIMIT} "
                                         f"files and {FOLDER_LIMIT} bytes")


def inside(folder: Path, name) -> Path:
    """The sub-folder ``name`` of ``folder`` (a suite step's ``folder``): a relative name
    with no ``..`` that stays inside ``folder``.  Raises SubmissionRefused (``files``)."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise SubmissionRefused("files", f"{folder}: a suite step's folder {name!r} is not a name")
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if PurePosixPath(name).is_absolute() or Path(name).is_absolute() or ".." in parts:
        raise SubmissionRefused("files", f"{folder}: a suite step's folder {name!r} points outside the run folder")
    path = Path(folder) / name
    root = Path(folder).resolve()
    if root not in path.resolve().parents:
        raise SubmissionRefused("files", f"{folder}: a suite step's folder {name!r} points outside the run folder")
    return path


def number(value, where: str, none: bool = True) -> None:
    """Refuse ``value`` unless it is a finite real number (an int or a float, never a
    bool or a string), or None where ``none``: ``types`` for another type, ``numbers``
    for NaN or an infinity."""
    if value is None and none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SubmissionRefused("types", f"{where} is {value!r}, not a number")
    if not math.isfinite(value):
        raise SubmissionRefused("numbers", f"{where} is {value!r}, not a finite number")


def check_cell(cell, where: str, holds: bool = True) -> None:
    """A cell's ``value``, ``low`` and ``high``: finite numbers or None, an interval with
    both ends (``holds``: that holds its value; a claimed cell is compared with the
    recomputed one instead, which names the number that differs)."""
    if not isinstance(cell, dict):
        raise SubmissionRefused("types", f"{where} is {cell!r}, not an object")
    for k in ("value", "low", "high"):
        number(cell.get(k), f"{where} {k}")
    low, high, value = cell.get("low"), cell.get("high"), cell.get("value")
    if (low is None) != (high is None):
        raise SubmissionRefused("numbers", f"{where}: an interval with one end")
    if holds and low is not None and not (low <= high and (value is None or low - 1e-9 <= value <= high + 1e-9)):
        raise SubmissionRefused("numbers", f"{where}: the interval [{low}, {high}] does not hold {value}")


def _text(value, where: str, none: bool = False) -> None:
    if value is None and none:
        return
    if not isinstance(value, str):
        raise SubmissionRefused("types", f"{where} is {value!r}, not a string")


def _scalars(mapping, where: str) -> None:
    """A dict of strings to strings, finite numbers, bools, None, or lists of those."""
    if not isinstance(mapping, dict):
        raise SubmissionRefused("types", f"{where} is {mapping!r}, not an object")
    for k, v in mapping.items():
        for item in v if isinstance(v, list) else [v]:
            if not (item is None or isinstance(item, (str, bool))):
                number(item, f"{where}.{k}")


def _counts(block, where: str) -> None:
    """An outcome- or unreadable-style block: its counts non-negative integers, its
    reasons ``{text: integer}``, an unreadable block's ``share`` a number in [0, 1] (the
    share of its replies that could not be read, replies.unreadable_summary)."""
    if block is None:
        return
    if not isinstance(block, dict):
        raise SubmissionRefused("types", f"{where} is {block!r}, not an object")
    for k, v in block.items():
        if k == "share":
            number(v, f"{where}.{k}", none=False)
            if not 0 <= v <= 1:
                raise SubmissionRefused("numbers", f"{where}.{k} is {v!r}, not a share")
        elif isinstance(v, dict):
            for why, n in v.items():
                _text(why, f"{where}.{k} key")
                if type(n) is not int or n < 0:
                    raise SubmissionRefused("types", f"{where}.{k}.{why} is {n!r}, not a count")
        elif not (isinstance(v, str) or v is None or (type(v) is int and v >= 0)):
            raise SubmissionRefused("types", f"{where}.{k} is {v!r}, not a count")


def check_summary(data, where: str = "summary") -> None:
    """Every field of a board summary (submissions.py ``summary``) has the type ``board
    build`` reads: strings, lists of strings, finite numbers, the cells, ratios and
    counting blocks of their shapes.  Raises SubmissionRefused (``types`` or ``numbers``)
    naming the field."""
    if not isinstance(data, dict):
        raise SubmissionRefused("types", f"{where} is not an object")
    for k in ("benchmark", "model", "row_model", "run", "started"):
        _text(data.get(k), f"{where} {k}")
    if type(data.get("format")) is not int or not isinstance(data.get("suite"), bool):
        raise SubmissionRefused("types", f"{where}: format must be an integer and suite a boolean")
    items = data.get("items")
    if items is not None and not (isinstance(items, list) and all(isinstance(i, str) for i in items)):
        raise SubmissionRefused("types", f"{where} items is not a list of strings")
    if data.get("default") is not None and type(data.get("default")) is not int:
        raise SubmissionRefused("types", f"{where} default is {data.get('default')!r}, not an integer")
    for k in ("settings", "facts"):
        _scalars(data.get(k), f"{where} {k}")
    for k in ("outcome", "unreadable"):
        _counts(data.get(k), f"{where} {k}")
    _values(data.get("values"), where)
    _ratios(data.get("ratios"), where)
    for k in ("sha256", "verified", "submission"):
        _scalars(data.get(k) or {}, f"{where} {k}")


def _values(values, where: str) -> None:
    if not isinstance(values, dict):
        raise SubmissionRefused("types", f"{where} values is not an object")
    for key, cell in values.items():
        check_cell(cell, f"{where} {key}")
        for k in ("n", "of"):
            if cell.get(k) is not None and type(cell.get(k)) is not int:
                raise SubmissionRefused("types", f"{where} {key} {k} is {cell.get(k)!r}, not an integer")
        for k in ("subset", "unreadable"):
            if not isinstance(cell.get(k, False), bool):
                raise SubmissionRefused("types", f"{where} {key} {k} is not a boolean")
        _text(cell.get("verified"), f"{where} {key} verified", none=True)


def _ratios(ratios, where: str) -> None:
    if not isinstance(ratios, dict):
        raise SubmissionRefused("types", f"{where} ratios is not an object")
    for key, got in ratios.items():
        if not isinstance(got, list):
            raise SubmissionRefused("types", f"{where} ratios.{key} is not a list")
        for r in got:
            if not isinstance(r, dict) or not isinstance(r.get("num"), dict) or not (
                    r.get("den") is None or isinstance(r.get("den"), dict)):
                raise SubmissionRefused("types", f"{where} ratios.{key}: each needs num (and den) objects")
            for part in (r["num"], r.get("den") or {}):
                for unit, v in part.items():
                    number(v, f"{where} ratios.{key}[{unit}]", none=False)
