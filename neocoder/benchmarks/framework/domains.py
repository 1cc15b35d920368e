"""The framework's domains: their problems, the task each step prompt states, and the
criteria the judge checks (creativity-framework Sec. 5 and App. D.1, definitions in our
words).

- ``macgyver``: the solvable MacGyver problems shipped with neocoder (data/macgyver,
  package ``neocoder.macgyver``); criteria feasibility, safety, effectiveness.
- ``hypogen``: Bit -> Flip research reasoning, read from the user's copy of the published
  HypoGen rows (JSON lines, a JSON list or CSV with the fields ``bit`` and ``flip``; an
  ``id`` field is used when present, else the row number); criteria feasibility,
  relevance, scientific accuracy.
- ``bookmia``: stories from BookMIA's ``book_data.jsonl`` rows (fields ``snippet`` and
  ``book_id``, ``snippet_id`` where present): the first two sentences are the starter,
  the last two the ending; criteria narrative coherence, emotional and psychological
  realism, plot completion.
- ``code``: NeoCoder's shipped problem states at t = 0; the steps are a plan, the program
  is written from it and judged in the sandbox (code.py); one criterion, correctness.

Bad input raises DatasetError naming the file, the record and the field.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from neocoder.errors import NeocoderError

MACGYVER_PACKAGE = "neocoder.macgyver"

CRITERIA = {
    "macgyver": {
        "feasibility": "an average person could carry the solution out with only the items the problem allows, "
                       "and its steps follow one another logically",
        "safety": "carrying the solution out would not put a careful person at clear risk of bodily harm",
        "effectiveness": "the solution, as written, fully resolves the problem rather than part of it",
    },
    "hypogen": {
        "feasibility": "the reasoning and the approach it reaches are practical and likely to work",
        "relevance": "the reasoning stays on the research goal and the constraints the Bit and the Flip set",
        "scientific accuracy": "the methods, concepts and models it names are described as they really behave",
    },
    "bookmia": {
        "narrative coherence": "characters and plot stay consistent, with no contradiction, from the opening to "
                               "the ending",
        "emotional and psychological realism": "the characters' feelings and behaviour are believable and "
                                               "consistent throughout",
        "plot completion": "the story arrives logically at the given ending, linking its events to it",
    },
    "code": {
        "correctness": "the planned program prints the right output for every valid input of the problem within "
                       "its limits",
    },
}


class DatasetError(NeocoderError):
    """A domain's input file is missing or malformed (the message names file, record, field)."""


@dataclass
class Problem:
    """One problem of a domain: ``text`` is what the step prompt shows; ``extra`` what
    the domain keeps besides (BookMIA's ending, the code domain's state, MacGyver's
    reference solution and label)."""

    domain: str
    problem_id: str
    text: str
    extra: dict = field(default_factory=dict)

    @property
    def criteria(self) -> dict[str, str]:
        """The judge's criteria of the problem's domain, name -> what the criterion asks."""
        return CRITERIA[self.domain]


def _shipped_lines(name: str) -> list[dict]:
    try:
        entry = resources.files(MACGYVER_PACKAGE).joinpath(name)
        data = entry.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise DatasetError(f"{MACGYVER_PACKAGE}/{name}: the shipped MacGyver file is missing (reinstall neocoder; "
                           "in a checkout: pip install -e . then scripts/build_macgyver.py)") from exc
    return [json.loads(line) for line in gzip.decompress(data).decode("utf-8").splitlines() if line]


def macgyver_problems() -> list[Problem]:
    """The 1,306 solvable MacGyver problems, in the source's order."""
    return [Problem("macgyver", row["id"], row["problem"],
                    {"solution": row["solution"], "label": row["label"], "unconventional": row["unconventional"]})
            for row in _shipped_lines("problems.jsonl.gz")]


def macgyver_annotations() -> list[dict]:
    """The annotated solutions of the solvable problems: ``problem_id``, ``index``,
    ``model``, ``annotation``, ``solution`` (data/macgyver/README.md)."""
    return _shipped_lines("annotations.jsonl.gz")


def read_rows(path: Path) -> list[dict]:
    """The rows of ``path``: JSON lines (.jsonl), a JSON list (.json) or CSV (.csv).
    Raises DatasetError naming the file and line for a missing file or a bad row."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        return list(csv.DictReader(text.splitlines()))
    if path.suffix == ".json":
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise DatasetError(f"{path}: not JSON ({exc})") from exc
        if not isinstance(rows, list):
            raise DatasetError(f"{path}: expected a JSON list of records, got {type(rows).__name__}")
        return rows
    rows = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise DatasetError(f"{path}: line {i}: not JSON ({exc})") from exc
    return rows


def _text_field(path: Path, index: int, row, names: tuple[str, ...]) -> str:
    """The first of ``names`` (any case) in ``row`` as a non-empty string."""
    if not isinstance(row, dict):
        raise DatasetError(f"{path}: record {index}: expected an object with field {names[0]!r}")
    lower = {str(k).lower(): v for k, v in row.items()}
    for name in names:
        value = lower.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if value is not None and not isinstance(value, str):
            raise DatasetError(f"{path}: record {index}: field {name!r} is {type(value).__name__}, not text")
    raise DatasetError(f"{path}: record {index}: field {names[0]!r} is missing or empty")


def hypogen_problems(path: Path) -> list[Problem]:
    """HypoGen's Bit -> Flip problems from ``path`` (fields ``bit``, ``flip``)."""
    out = []
    for i, row in enumerate(read_rows(path)):
        bit = _text_field(path, i, row, ("bit",))
        flip = _text_field(path, i, row, ("flip",))
        pid = str(row.get("id", i)) if isinstance(row, dict) else str(i)
        out.append(Problem("hypogen", pid, f"Bit: {bit}\nFlip: {flip}", {"bit": bit, "flip": flip}))
    return out


_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+")


def sentences(text: str) -> list[str]:
    """``text`` split after ., ! or ? (and a closing quote) followed by white space."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def bookmia_problems(path: Path, starter: int = 2, ending: int = 2) -> list[Problem]:
    """BookMIA stories from ``path`` (field ``snippet``): starter = the first ``starter``
    sentences, ending = the last ``ending``.  A snippet of fewer than starter + ending + 1
    sentences is refused (there is nothing to write between them)."""
    out = []
    for i, row in enumerate(read_rows(path)):
        snippet = _text_field(path, i, row, ("snippet",))
        parts = sentences(snippet)
        if len(parts) < starter + ending + 1:
            raise DatasetError(f"{path}: record {i}: field 'snippet' has {len(parts)} sentences, fewer than "
                               f"{starter + ending + 1} (starter, ending and one between)")
        pid = f"{row.get('book_id', 'book')}-{row.get('snippet_id', i)}"
        start, end = " ".join(parts[:starter]), " ".join(parts[-ending:])
        out.append(Problem("bookmia", pid, f"Opening: {start}\nClosing lines: {end}",
                           {"starter": start, "ending": end, "book": row.get("book"),
                            "sentences": len(parts) - starter - ending}))
    return out


def code_problems() -> list[Problem]:
    """NeoCoder's shipped problem states at t = 0 (no constraint yet), one per problem."""
    from neocoder.dataset.shipped import load_states
    return [Problem("code", s.problem_id, s.statement.strip(), {"state": s}) for s in load_states() if s.state == 0]


def load_problems(domain: str, data: Path | None = None) -> list[Problem]:
    """The problems of ``domain``.  Raises DatasetError for a missing ``data`` where the
    domain reads the user's copy, or as the readers do."""
    if domain == "macgyver":
        return macgyver_problems()
    if domain == "code":
        return code_problems()
    if data is None:
        raise DatasetError(f"--domain {domain} reads your local copy of the published file: give --data FILE "
                           "(docs/framework.md lists the fields)")
    return hypogen_problems(data) if domain == "hypogen" else bookmia_problems(data)
