"""The benchmark in the box: the versioned NeoCoder dataset that ships with neocoder.

``data/codeforces/`` (installed as the package ``neocoder.codeforces``) holds what an
evaluation needs, so ``neocoder eval`` works with no release on the machine:

    problem_states.jsonl.gz          the validated dataset: one ProblemState per line
                                     (examples, extended tests, checker, limits), in the
                                     release's problem order, then by state t
    human_techniques.json.gz         {problem_id: [[technique, ...], ...]}: the detector's
                                     technique set of every accepted human solution in
                                     Python or C/C++ (H(p) is their union; Eq. 3, 5, 6)
    replies-gpt-4-1106-preview.jsonl.gz  {"problem_id", "codes"}: the release's recorded
                                     GPT-4 solution of every Denial Prompting round
                                     (``replay/gpt-4-1106-preview``)
    manifest.json                    the dataset version, the SHA-256 of each file, the
                                     release's and the builder's fingerprints
    NOTICE                           the release's attribution (Apache-2.0)

``neocoder build-dataset`` (the validated build, default settings) writes the same files
into ``<out>/package/``; ``scripts/ship_dataset.sh`` rebuilds and copies them here.  The
files are written deterministically (sorted keys, gzip without a name or time stamp), and
hold no measurement of the machine that built them (the humans' CPU seconds stay in the
build's own records.jsonl and metrics.json), so a build from the same release with the same
builder is byte-identical on any machine whose zlib compresses alike (zlib-ng, used by some
Python builds, may give other compressed bytes of the same text: compare the decompressed
files before bumping the version).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

from neocoder.dataset.release import ANNOTATED_FILE, NEOCODER_FILE, release_file
from neocoder.dataset.release import HUMAN_FILE as RELEASE_HUMAN_FILE
from neocoder.errors import NeocoderError
from neocoder.paths import fingerprint, package_files
from neocoder.records import ProblemState

PACKAGE = "neocoder.codeforces"
NAME = "codeforces"
VERSION = "1.0"  # bump when a rebuild changes any data file (the manifest then names the new version)
STATES_FILE = "problem_states.jsonl.gz"
HUMAN_FILE = "human_techniques.json.gz"
REPLY_FILES = {"gpt-4-1106-preview": "replies-gpt-4-1106-preview.jsonl.gz"}
MANIFEST_FILE = "manifest.json"
NOTICE_FILE = "NOTICE"
NOTICE = """\
NeoCoder dataset shipped with neocoder

The files beside this notice (problem_states.jsonl.gz, human_techniques.json.gz,
replies-gpt-4-1106-preview.jsonl.gz) are derived from the public release of the NeoCoder
benchmark:

  Lu et al., "Benchmarking Language Model Creativity: A Case Study on Code Generation",
  NAACL 2025. https://github.com/JHU-CLSP/NeoCoder

The release is licensed under the Apache License, Version 2.0
(http://www.apache.org/licenses/LICENSE-2.0). Its problem statements come from Codeforces
(https://codeforces.com). Changes made here: the example tests were rebuilt from the
statements and validated by the release's accepted human solutions, checkers and extended
tests were added, the human solutions were reduced to the technique sets neocoder's
detector finds in them, and the recorded GPT-4 solutions were kept per problem.
"""


class ShippedDataError(NeocoderError):
    """The shipped dataset is missing or does not match its manifest (a broken install)."""


def _root():
    return resources.files(PACKAGE)


def _read(name: str) -> bytes:
    """The bytes of shipped file ``name``, checked against the manifest's SHA-256."""
    entry = _root().joinpath(name)
    if not entry.is_file():
        raise ShippedDataError(f"{PACKAGE}/{name}: the shipped dataset file is missing (reinstall neocoder, or in "
                               "a checkout run scripts/ship_dataset.sh)")
    data = entry.read_bytes()
    want = manifest()["files"].get(name)
    if want != hashlib.sha256(data).hexdigest():
        raise ShippedDataError(f"{PACKAGE}/{name}: SHA-256 differs from {MANIFEST_FILE} (a changed or partly "
                               "written file: reinstall neocoder, or rebuild with scripts/ship_dataset.sh)")
    return data


@lru_cache(maxsize=1)
def manifest() -> dict:
    """The shipped ``manifest.json``: ``{"name", "version", "files": {name: sha256},
    "release_sha256", "builder_sha256", "detector_sha256", "build", "counts"}``.
    Raises ShippedDataError when it is missing or not JSON."""
    entry = _root().joinpath(MANIFEST_FILE)
    try:
        return json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ShippedDataError(f"{PACKAGE}/{MANIFEST_FILE}: cannot read the shipped dataset's manifest: {exc}") \
            from exc


def version() -> str:
    """The shipped dataset's version as run manifests name it, e.g. ``"codeforces-1.0"``."""
    data = manifest()
    return f"{data['name']}-{data['version']}"


@lru_cache(maxsize=1)
def data_fingerprint() -> str:
    """The shipped dataset's fingerprint computed from its files as they are here: the
    SHA-256 of each file's name, a NUL byte, its bytes and a NUL byte, in name order,
    every file read through the manifest's SHA-256 check.  A run's manifest records it
    (``dataset_sha256``) and a board compares it with its own.  Raises ShippedDataError
    for a broken install."""
    digest = hashlib.sha256()
    for name in sorted(manifest()["files"]):
        digest.update(name.encode() + b"\0" + _read(name) + b"\0")
    return digest.hexdigest()


def problem_ids() -> list[str]:
    """The ids of the shipped dataset's problems, in its order."""
    return list(dict.fromkeys(s.problem_id for s in _all_states()))


def _lines(name: str) -> list[dict]:
    text = gzip.decompress(_read(name)).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


@lru_cache(maxsize=1)
def _all_states() -> tuple[ProblemState, ...]:
    return tuple(ProblemState.from_dict(row) for row in _lines(STATES_FILE))


def load_states() -> list[ProblemState]:
    """Every problem state of the shipped dataset, in the release's problem order and by
    state t within a problem.  Raises ShippedDataError for a broken install."""
    return list(_all_states())


@lru_cache(maxsize=1)
def _human() -> dict:
    return json.loads(gzip.decompress(_read(HUMAN_FILE)))


def human_solution_sets(problem_ids) -> dict[str, list[set[str]]]:
    """The shipped technique set of every accepted human solution (Python and C/C++) of
    each problem of ``problem_ids`` the dataset holds: ``{problem_id: [set, ...]}`` (an
    empty list for a problem with no such solution, e.g. 1773F)."""
    known = _human()
    return {pid: [set(s) for s in known[pid]] for pid in sorted(set(problem_ids)) if pid in known}


def recorded_codes(model: str) -> dict[str, list[str]]:
    """``{problem_id: codes}``: the release's recorded solutions of ``model`` for every
    Denial Prompting round (index = the state's ``source_index``).  Raises KeyError for
    a model with no shipped replies (``REPLY_FILES`` lists them)."""
    return {row["problem_id"]: row["codes"] for row in _lines(REPLY_FILES[model])}


# -- provenance and writing (neocoder build-dataset) ------------------------------------

# The modules whose source decides a validated build (with the special checkers and the
# in-container runner): the manifest names their fingerprint, the builder's version.
BUILDER_MODULES = ("dataset/release.py", "dataset/statement.py", "dataset/mutate.py", "judge/checkers.py",
                   "oracle.py")


def release_fingerprint(release_dir: Path) -> str:
    """SHA-256 (``paths.fingerprint``) of the release files a build reads (statements,
    annotated tests, human solutions), in either release layout.  Raises OSError for a
    missing file."""
    return fingerprint(release_file(release_dir, name) for name in (NEOCODER_FILE, ANNOTATED_FILE,
                                                                      RELEASE_HUMAN_FILE))


def is_shipped_release(release_dir: Path) -> bool:
    """Whether ``release_dir`` holds the release neocoder ships (its ``release_fingerprint``
    equals the manifest's): then its human solutions line up with the shipped technique
    sets.  False for another release or one missing a file the shipped release has.  The
    release's files (about 6.8 MB) are hashed once per folder and process."""
    return _is_shipped_release(str(Path(release_dir).resolve()))


@lru_cache(maxsize=8)
def _is_shipped_release(release_dir: str) -> bool:
    try:
        return release_fingerprint(Path(release_dir)) == manifest()["release_sha256"]
    except OSError:
        return False


def builder_fingerprint() -> str:
    """SHA-256 (``paths.fingerprint``) of the shipped source of the modules that decide a
    built dataset (``BUILDER_MODULES``), the special checkers and the sandbox runner."""
    files = [resources.files("neocoder").joinpath(*name.split("/")) for name in BUILDER_MODULES]
    files += package_files("neocoder", "judge", "special")
    files += package_files("neocoder.sandbox_recipe", "runner")  # the in-container runner package
    return fingerprint(f for f in files if f.is_file())



def _gzip(text: str) -> bytes:
    """``text`` gzip-compressed with no file name and time stamp 0: the same text gives the
    same bytes on every run."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer, mtime=0) as out:
        out.write(text.encode("utf-8"))
    return buffer.getvalue()


MEASURED = ("human_cpu_max_s",)  # keys of a state's ``oracle`` provenance that vary from machine to machine


def shipped_state(state: ProblemState) -> dict:
    """``state`` as a line of the shipped file: its record without the measured keys of
    its ``oracle`` provenance (``MEASURED``)."""
    row = state.to_dict()
    if isinstance(row.get("oracle"), dict):
        row["oracle"] = {k: v for k, v in row["oracle"].items() if k not in MEASURED}
    return row


def _jsonl(rows) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def write_package(folder: Path, states: list[ProblemState], human: dict[str, list[set[str]]],
                  codes: dict[str, list[str]], provenance: dict) -> dict:
    """Write the shipped files into ``folder`` (created) and return the manifest written.

    ``states`` in the order they are to ship; ``human`` per-solution technique sets per
    problem; ``codes`` the recorded GPT-4 solutions per problem; ``provenance`` the
    ``release_sha256``, ``builder_sha256``, ``detector_sha256`` and ``build`` settings
    for the manifest.  Deterministic: the same inputs give byte-identical files.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        STATES_FILE: _gzip(_jsonl(shipped_state(s) for s in states)),
        HUMAN_FILE: _gzip(json.dumps({pid: [sorted(s) for s in sets] for pid, sets in human.items()},
                                     ensure_ascii=False, sort_keys=True)),
        REPLY_FILES["gpt-4-1106-preview"]: _gzip(_jsonl({"problem_id": pid, "codes": c} for pid, c in codes.items())),
        NOTICE_FILE: NOTICE.encode("utf-8"),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    problems = list(dict.fromkeys(s.problem_id for s in states))
    data = {"name": NAME, "version": VERSION, **provenance,
            "counts": {"problems": len(problems), "problem_states": len(states),
                       "human_problems": len(human), "recorded_problems": len(codes)},
            "files": {name: hashlib.sha256(blob).hexdigest() for name, blob in sorted(files.items())}}
    (folder / MANIFEST_FILE).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return data
