"""The hand-labelled algorithm pairs: the reference every diversity measure is checked against.

``data/codeforces/algorithm_pairs/partitions.jsonl`` (installed as
``neocoder.codeforces/algorithm_pairs/``; the guide is docs/algorithm-pairs.md) holds, per
problem, a partition of a sample of its correct programs into algorithm classes, made by
a person reading each program and the statement, blind to every measure.  A line is

    {"problem": "1760A", "half": "tune" | "held-out",
     "classes": {"S": "sort the three, take the middle", ...},
     "programs": [{"source": "human", "index": 4, "sha": "e118c2df6380", "class": "S",
                   "reason": "sorted by int, index 1"},
                  {"source": "gpt-4-1106-preview", "round": 1, "sha": "...", "class": "M",
                   "reason": "...", "correct": true}, ...]}

A human program is named by its index in the release's ``human_solutions.json`` list of
that problem (the code is read from the release; it is not copied here); a GPT-4 program
by its Denial Prompting round in the shipped replies.  ``sha`` is the first 12 hex digits
of the SHA-256 of the code, so a different release is refused instead of silently
mislabelled.  ``correct`` is the recorded program's verdict on the validated tests
(``neocoder eval --model replay/gpt-4-1106-preview``; null for a round the dataset has
no validated state for): only GPT-4 programs with ``"correct": true`` enter the pairs
(humans are accepted submissions).

A human program with ``"sample": "deliberate"`` was not drawn at random: it was chosen
to be read because its detector technique set was far from the sample's
(scripts/algorithm_pairs_layout.py --deliberate), to find "different" pairs on purpose;
it is labelled like the others but left out of the classes-per-problem count, which
needs a random sample.

Every pair of programs of one problem is a labelled pair: "same" when the two share a
class.  The problems are split into a tuning half and a held-out half (``half``, chosen
once by a seeded shuffle, seed 39): thresholds are chosen on the tuning half only, and
the figures the docs quote are the held-out half's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from neocoder.errors import NeocoderError

PACKAGE = "neocoder.codeforces"
FILE = "algorithm_pairs/partitions.jsonl"
SECOND = "algorithm_pairs/second_reader.jsonl"  # a second reader's partitions of some problems (inter-rater)
SUMMARY = "algorithm_pairs/validity.json"  # neocoder diversity validate --summary: each measure's held-out figures
GPT4 = "gpt-4-1106-preview"
TUNE, HELD_OUT = "tune", "held-out"
HALVES = (TUNE, HELD_OUT)


class LabelledSetError(NeocoderError):
    """The labelled set cannot be read, or does not match the release it points into."""


@dataclass
class LabelledProgram:
    """One labelled program: ``problem``, ``ident`` ("human:4" or "gpt4:1"), its ``code``
    and ``language`` ("python": the set holds Python programs only), its labelled
    ``label`` (class name) and the labeller's ``reason``."""

    problem: str
    ident: str
    code: str
    label: str
    reason: str
    language: str = "python"
    deliberate: bool = False  # chosen to read because it looked different (not part of the random sample)

    @property
    def human(self) -> bool:
        """Whether the program is an accepted human solution (its id starts ``human:``)."""
        return self.ident.startswith("human:")


@dataclass
class LabelledProblem:
    """One problem's partition: ``half`` (TUNE or HELD_OUT), ``classes`` (name ->
    description) and its correct ``programs`` in file order."""

    problem: str
    half: str
    classes: dict
    programs: list[LabelledProgram]

    def pairs(self) -> list[tuple[int, int, bool]]:
        """Every pair (i, j, same) of the problem's programs, i < j; same = one class."""
        p = self.programs
        return [(i, j, p[i].label == p[j].label) for i in range(len(p)) for j in range(i + 1, len(p))]


def sha12(code: str) -> str:
    """The first 12 hex digits of the SHA-256 of ``code`` (UTF-8): a program's identity."""
    return hashlib.sha256(code.encode("utf-8", "replace")).hexdigest()[:12]


def shipped_path(name: str = FILE) -> Path:
    """The shipped ``partitions.jsonl`` (or ``name``, e.g. SECOND) on disk; LabelledSetError when it is
    not installed."""
    entry = resources.files(PACKAGE).joinpath(name)
    if not entry.is_file():
        raise LabelledSetError(f"{PACKAGE}/{name} is missing (reinstall neocoder; in a checkout: pip install -e .)")
    return Path(str(entry))


def read_rows(path: Path | None = None) -> list[dict]:
    """The JSON lines of the labelled set (default: the shipped one), each with ``_line``."""
    path = path or shipped_path()
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise LabelledSetError(f"{path}: line {n}: not JSON ({exc})") from exc
        rows.append({**row, "_line": n})
    return rows


def _field(row: dict, name: str, where: str):
    if name not in row:
        raise LabelledSetError(f"{where}: field {name!r} is missing")
    return row[name]


def _program(pid: str, entry: dict, where: str, humans: dict, gpt4: dict) -> LabelledProgram | None:
    source = _field(entry, "source", where)
    if source == "human":
        index = _field(entry, "index", where)
        codes, ident = humans.get(pid), f"human:{index}"
    elif source == GPT4:
        if entry.get("correct") is not True:  # wrong on the validated tests, or never judged
            return None
        index = _field(entry, "round", where)
        codes, ident = gpt4.get(pid), f"gpt4:{index}"
    else:
        raise LabelledSetError(f"{where}: field 'source' is {source!r}, not 'human' or {GPT4!r}")
    if codes is None or not 0 <= index < len(codes):
        raise LabelledSetError(f"{where} ({ident}): no such program of problem {pid} in the {source} programs")
    code = codes[index]
    if sha12(code) != _field(entry, "sha", where):
        raise LabelledSetError(f"{where} ({ident}): field 'sha' is {entry['sha']}, the code's is {sha12(code)}: "
                               "not the release this set was labelled on")
    return LabelledProgram(pid, ident, code, _field(entry, "class", where), entry.get("reason", ""),
                           deliberate=entry.get("sample") == "deliberate")


def load(humans: dict[str, list[str]], gpt4: dict[str, list[str]], path: Path | None = None,
         half: str | None = None) -> list[LabelledProblem]:
    """The labelled problems (of one ``half``, or all), with their programs' code.

    ``humans`` is the release's ``human_solutions.json`` (problem -> list of sources, all
    languages, release order); ``gpt4`` the shipped GPT-4 codes (problem -> codes per
    round; ``dataset.shipped.recorded_codes``).  GPT-4 programs not marked ``"correct":
    true`` are left out.  Raises LabelledSetError naming the file, line and field of a
    malformed entry or of a program whose code does not match its ``sha``."""
    path = path or shipped_path()
    out = []
    for row in read_rows(path):
        where = f"{path}: line {row['_line']}"
        pid = _field(row, "problem", where)
        got_half = _field(row, "half", where)
        if got_half not in HALVES:
            raise LabelledSetError(f"{where}: field 'half' is {got_half!r}, not one of {HALVES}")
        classes = _field(row, "classes", where)
        programs = []
        for k, entry in enumerate(_field(row, "programs", where)):
            got = _program(pid, entry, f"{where}, program {k}", humans, gpt4)
            if got is not None and got.label not in classes:
                raise LabelledSetError(f"{where}, program {k}: class {got.label!r} is not in 'classes'")
            if got is not None:
                programs.append(got)
        if half is None or got_half == half:
            out.append(LabelledProblem(pid, got_half, classes, programs))
    return out


def release_humans(release_dir: Path) -> dict[str, list[str]]:
    """The release's ``human_solutions.json`` (problem -> sources); LabelledSetError when
    the release has none (the set names human programs by their place in it)."""
    from neocoder.dataset.release import release_file  # the release layout is the dataset stage's
    try:
        path = release_file(release_dir, "human_solutions.json")
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, NeocoderError) as exc:
        raise LabelledSetError(f"{release_dir}: cannot read the release's human_solutions.json, which the "
                               f"labelled set's human programs point into ({exc}); pass --release") from exc


def shipped_summary() -> dict:
    """The shipped validity summary (``validity.json`` beside the labelled set, written by
    ``neocoder diversity validate --summary``): ``{"default": measure, "measures":
    {measure: {"kappa", "low", "high", "agreement", "pairs", "different", "classed",
    "programs"}}}`` (held-out half); {} when
    it is not installed or not readable (the report then names no figure)."""
    try:
        entry = resources.files(PACKAGE).joinpath(SUMMARY)
        return json.loads(entry.read_text(encoding="utf-8")) if entry.is_file() else {}
    except (OSError, ValueError, ModuleNotFoundError):
        return {}


def validity_note(measure: str, summary: dict | None = None) -> str:
    """What a class by ``measure`` is worth, for the report: "kappa 0.38 [-0.04, 0.66] vs
    hand labels" (held-out half of the labelled pairs), or "not checked against hand
    labels" for a measure the summary does not hold."""
    got = (shipped_summary() if summary is None else summary).get("measures", {}).get(measure)
    if not got or got.get("kappa") is None:
        return "not checked against hand labels"
    ci = f" [{got['low']:.2f}, {got['high']:.2f}]" if got.get("low") is not None else ""
    part = ""
    if got.get("classed") is not None and got.get("programs") and got["classed"] < got["programs"]:
        part = f", on the {got['classed']} of {got['programs']} labelled programs it classes"
    return f"kappa {got['kappa']:.2f}{ci} vs hand labels{part}"

