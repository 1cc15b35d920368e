"""The benchmark's default dataset: the release validated by its human solutions, built
on first use and cached.

``neocoder eval`` without ``--dataset`` judges on this dataset: the statement examples
checked by the accepted human Python solutions, the problems' checkers refined on their
evidence, and the extended tests they label (neocoder/oracle.py, docs/dataset.md).  It
is built the first time a problem is asked for, into a cache folder, and reused after:

    cache_root() ($NEOCODER_CACHE, default ~/.cache/neocoder; neocoder/paths.py)/
      release-<release fingerprint>/
        oracle-cache.jsonl           the human solutions' runs (shared by every build)
        dataset-<builder fingerprint>/  a run folder (docs/records.md): records.jsonl
                                     holds the problem states, metrics.json the oracle
                                     report and which problems are built

The release fingerprint is the SHA-256 of the release's files the build reads; the
builder fingerprint is the SHA-256 of the source of the modules that build a dataset
(release import, statement parsing, input mutation, checkers, oracle, the in-container
runner).  A changed release or builder makes a new dataset folder; the human runs are
kept, so a rebuild only re-checks.  Problems are built incrementally: ``--limit 5`` builds
five problems, a later full run adds the rest.  A lock file keeps two processes from
building into one folder at once.
"""

from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from .dataset import build_from_release
from .dataset.release import ANNOTATED_FILE, HUMAN_FILE, NEOCODER_FILE
from .paths import cache_root, fingerprint, package_files
from .records import Manifest, ProblemState
from .store import RunFolder

BUILDER_MODULES = ("dataset/release.py", "dataset/statement.py", "dataset/mutate.py", "judge/checkers.py",
                   "oracle.py")
EXTENDED, LABEL_HUMANS, SEED = 20, 10, 0  # the default build's settings (build-dataset's defaults)


def release_fingerprint(release_dir: Path) -> str:
    """SHA-256 of the release files a build reads (statements, annotated tests, human
    solutions), ``paths.fingerprint``.  Raises OSError for a missing file."""
    return fingerprint(Path(release_dir) / name for name in (NEOCODER_FILE, ANNOTATED_FILE, HUMAN_FILE))


def builder_fingerprint() -> str:
    """SHA-256 (``paths.fingerprint``) of the shipped source of the modules that decide a
    built dataset (``BUILDER_MODULES``), the special checkers and the sandbox runner."""
    files = [resources.files("neocoder").joinpath(*name.split("/")) for name in BUILDER_MODULES]
    files += package_files("neocoder", "judge", "special")
    files += package_files("neocoder.sandbox_recipe", "runner")  # the in-container runner package
    return fingerprint(f for f in files if f.is_file())


def dataset_folder(release_dir: Path) -> Path:
    """Where the default dataset of this release and builder lives."""
    return cache_root() / f"release-{release_fingerprint(release_dir)[:16]}" / f"dataset-{builder_fingerprint()[:16]}"


@contextmanager
def _locked(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def default_states(release_dir: Path, problem_ids: list[str], open_sandbox, workers: int = 2,
                   progress: bool = True) -> list[ProblemState]:
    """The validated problem states of ``problem_ids``, building the ones not built yet.

    ``open_sandbox()`` is a context manager giving a sandbox (called only when something
    must be built).  Problems the oracle leaves out (no test left) are remembered as
    built and give no state.  Raises NeocoderError (DatasetError, no sandbox).
    """
    from .oracle import validate_release_states

    folder_path = dataset_folder(release_dir)
    with _locked(folder_path):
        folder = RunFolder(folder_path)
        metrics = folder.read_metrics() if (folder_path / RunFolder.METRICS).is_file() else \
            {"built": [], "oracle": {"problems": {}, "below_90": []}}
        missing = [p for p in problem_ids if p not in set(metrics["built"])]
        if missing:
            if not (folder_path / RunFolder.MANIFEST).is_file():
                folder.write_manifest(Manifest.capture("dataset", {
                    "release_dir": str(release_dir), "oracle": True, "extended": EXTENDED,
                    "label_humans": LABEL_HUMANS, "seed": SEED, "default": True},
                    release_sha256=release_fingerprint(release_dir), builder_sha256=builder_fingerprint()))
            wanted = set(missing)
            records = [r for r in build_from_release(release_dir)[0] if r["problem_id"] in wanted]
            with open_sandbox() as box:
                records, report = validate_release_states(
                    records, release_dir, box, folder_path.parent / "oracle-cache.jsonl", extended=EXTENDED,
                    label_humans=LABEL_HUMANS, seed=SEED, workers=workers, progress=progress)
            for record in records:
                folder.append(ProblemState.from_dict(record))
            metrics["built"] += missing
            metrics["oracle"]["problems"].update(report["problems"])
            metrics["oracle"]["below_90"] += report["below_90"]
            folder.write_metrics({k: v for k, v in metrics.items() if k != "format_version"})
        order = {pid: i for i, pid in enumerate(problem_ids)}
        return sorted((s for s in folder.read(ProblemState) if s.problem_id in order),
                      key=lambda s: (order[s.problem_id], s.state))


def describe(release_dir: Path) -> str:
    """One line naming the default dataset's folder and how many problems it holds."""
    path = dataset_folder(release_dir) / RunFolder.METRICS
    built = json.loads(path.read_text())["built"] if path.is_file() else []
    return f"validated dataset {path.parent} ({len(built)} problems built)"
