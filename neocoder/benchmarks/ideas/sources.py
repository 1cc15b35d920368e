"""LiveIdeaBench's files, read at run time from their folder (never copied into the
project): the 1180 keywords and the published December 2024 leaderboard.

The folder is ``$LIVEIDEABENCH_DIR``, else ``$NEOCODER_SHARED/liveideabench``, else
``shared/liveideabench`` beside the checkout neocoder runs from (as for the NeoCoder
release; ``neocoder.paths.shared_place``), never the current folder; a missing file is
named with where it was looked for and how to point at it.  ``--keywords FILE`` takes
other keywords: a CSV file (``.csv``) with a ``keyword`` column (and optionally
``category``), or a text file with one keyword per line.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from neocoder.errors import NeocoderError, RecordError
from neocoder.paths import LIVEIDEABENCH, missing, shared_dir

KEYWORDS_FILE = "keywords.csv"
LEADERBOARD_FILE = "leaderboard-202412.csv"
LEADERBOARD_COLUMNS = ("Fluency", "Feasibility", "Originality", "Flexibility", "Average")


def liveideabench_dir() -> Path:
    """LiveIdeaBench's folder, absolute: ``$LIVEIDEABENCH_DIR``, else
    ``$NEOCODER_SHARED/liveideabench``, else ``shared/liveideabench`` beside the checkout
    (``neocoder.paths.shared_place``); never from the current folder."""
    return shared_dir(LIVEIDEABENCH)


@dataclass(frozen=True)
class Keyword:
    """One keyword prompt and its discipline ("" when the file has none)."""

    text: str
    category: str = ""


def load_keywords(path: Path | None = None) -> list[Keyword]:
    """The keywords of ``path`` in file order (default: LiveIdeaBench's ``keywords.csv``).

    CSV (suffix ``.csv``): a header with a ``keyword`` column, optional ``category``.
    Otherwise one keyword per non-blank line.  Raises NeocoderError when the default file
    is missing (saying where it was looked for), RecordError naming the file, line and
    field for a CSV without a ``keyword`` column, an empty keyword, or a keyword given
    twice (the run keys ideas by keyword position, and a repeat would be judged twice).
    """
    if path is None:
        path = liveideabench_dir() / KEYWORDS_FILE
        if not path.is_file():
            raise NeocoderError(f"{missing(LIVEIDEABENCH, path)}; or pass --keywords FILE")
    path = Path(path)
    if not path.is_file():
        raise NeocoderError(f"{path}: keywords file not found")
    out: list[Keyword] = []
    first_line: dict[str, int] = {}

    def add(text: str, category: str, line: int) -> None:
        text = " ".join(text.split())
        if not text:
            raise RecordError(path, f"line {line}", "keyword", "empty keyword")
        if text.lower() in first_line:
            raise RecordError(path, f"line {line}", "keyword",
                              f"{text!r} appears twice (first on line {first_line[text.lower()]})")
        first_line[text.lower()] = line
        out.append(Keyword(text, category.strip()))

    with path.open(encoding="utf-8", newline="") as f:
        if path.suffix.lower() == ".csv":
            reader = csv.DictReader(f)
            fields = [h.strip() for h in reader.fieldnames or []]
            if "keyword" not in fields:
                raise RecordError(path, "line 1", "keyword", f"the header {fields} has no 'keyword' column")
            reader.fieldnames = fields
            for row in reader:
                add(row.get("keyword") or "", row.get("category") or "", reader.line_num)
        else:
            for line, text in enumerate(f, 1):
                if text.strip():
                    add(text, "", line)
    if not out:
        raise RecordError(path, "-", "keyword", "no keywords")
    return out


def load_leaderboard(path: Path | None = None) -> list[dict]:
    """The published leaderboard's rows, in rank order: ``{"rank": int, "model": str,
    "short": str, "open_source": bool | None, "Fluency", "Feasibility", "Originality",
    "Flexibility", "Average": float}`` (the 1-10 scale).

    Default: ``leaderboard-202412.csv`` in ``liveideabench_dir()``.  Raises NeocoderError
    when the file is missing, RecordError naming the file, line and field for a missing
    column or a value that is not a number.
    """
    given = path
    path = Path(path) if path is not None else liveideabench_dir() / LEADERBOARD_FILE
    if not path.is_file():
        raise NeocoderError(missing(LIVEIDEABENCH, path) if given is None else f"{path}: leaderboard file not found")
    rows = []
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        for column in ("Rank", "Model") + LEADERBOARD_COLUMNS:
            if column not in (reader.fieldnames or []):
                raise RecordError(path, "line 1", column, "column missing from the header")
        for row in reader:
            entry = {"model": row["Model"], "short": row.get("Model_Short") or row["Model"],
                     "open_source": {"True": True, "False": False}.get(row.get("Is_Open_Source") or "")}
            for column in ("Rank",) + LEADERBOARD_COLUMNS:
                try:
                    entry[column] = float(row[column])
                except (TypeError, ValueError):
                    raise RecordError(path, f"line {reader.line_num}", column,
                                      f"{row[column]!r} is not a number") from None
            entry["rank"] = int(entry.pop("Rank"))
            rows.append(entry)
    return sorted(rows, key=lambda r: r["rank"])
