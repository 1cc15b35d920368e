"""Run folders as the HTML report reads them: the manifest, the metrics and the records.

Why: every section of the report starts from the same thing, a run folder written by one
of the registered benchmarks' tasks.  This module reads the two files every run has (``manifest.json``,
``metrics.json``) through the one reader of the run folder (``store.RunFolder``); the
records each kind holds are read by the kind's section (``sections/``), which knows their
types.  It also names the runs as the pages show them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.config import PYTHON
from neocoder.dataset import build_from_release, load_states, shipped
from neocoder.errors import NeocoderError
from neocoder.records import Manifest, ProblemState, Sample
from neocoder.store import RunFolder


@dataclass
class Run:
    """One run folder as the report reads it (the record lists its section fills)."""

    path: Path
    kind: str  # the manifest's kind: a task name (neocoder.benchmarks)
    manifest: Manifest
    metrics: dict
    label: str = ""  # the model (disambiguated by folder name when two runs share it)
    page: str | None = None  # the drill-down page's file name (runs whose section has one)
    shown: str = ""  # the folder as the pages show it: its absolute path, or only its name on a public board
    samples: list[Sample] = field(default_factory=list)  # NeoCoder's samples (the shared stage record)
    records: list = field(default_factory=list)  # every other record the run's section read
    parts: dict = field(default_factory=dict)  # the section's own lists of records by name ("answers", "ideas", ...)

    def model_label(self) -> str:
        """The model the manifest's config names, else the folder's name."""
        return self.manifest.config.get("model", {}).get("spec", self.path.name)

    @property
    def language(self) -> str | None:
        """The language of the run's programs (``run_language``): "python", "cpp", or None
        for a benchmark whose runs have no language (AidanBench, LiveIdeaBench, ...)."""
        return run_language(self.kind, self.manifest.config)


def takes_language(kind: str) -> bool:
    """Whether runs of the task ``kind`` (a manifest kind) are written in a language: its
    config has a ``language`` field (NeoCoder's eval and human runs).  False for a kind no
    task has."""
    from dataclasses import fields

    from neocoder.benchmarks import get_task
    try:
        return any(f.name == "language" for f in fields(get_task(kind).config_type))
    except (NeocoderError, TypeError):
        return False


def run_language(kind: str, config: dict) -> str | None:
    """The language of a run's programs from its manifest ``kind`` and ``config``: None for a
    kind that takes none (``takes_language``), else the config's ``language``, "python"
    when it names none (runs from before C++, issue 49, were all Python)."""
    if not takes_language(kind):
        return None
    return str(config.get("language") or PYTHON)


def open_run(path: Path, kinds: tuple[str, ...]) -> tuple[Run, RunFolder]:
    """The manifest and metrics of the run folder ``path`` as a ``Run`` (records not read
    yet), and its ``RunFolder`` to read them from.

    Raises NeocoderError naming the folder when it is missing, is not a run folder (no
    ``manifest.json``), is of a kind not in ``kinds`` (a built dataset), has no
    ``metrics.json`` yet, or holds JSON of another shape; RecordError (a NeocoderError)
    for a manifest of another format version.
    """
    path = Path(path)
    if not path.is_dir():
        raise NeocoderError(f"{path}: no such run folder")
    if not (path / RunFolder.MANIFEST).is_file():
        raise NeocoderError(f"{path}: not a run folder (no {RunFolder.MANIFEST}); the report reads folders "
                            "written by a benchmark's task (`neocoder eval`, `neocoder aidanbench`, ...)")
    folder = RunFolder(path, create=False)
    try:
        manifest = folder.read_manifest()
        if manifest.kind not in kinds:
            from neocoder.benchmarks import benchmark_of_kind, task_names, unknown_kind
            if benchmark_of_kind(manifest.kind) is None and manifest.kind not in task_names():
                raise NeocoderError(f"{path}: {unknown_kind(manifest.kind)}")  # a plug-in not installed here
            raise NeocoderError(f"{path}: a {manifest.kind!r} run folder; the report covers "
                                f"{', '.join(kinds)} runs")
        metrics = folder.read_metrics()
    except NeocoderError:
        raise
    except (ValueError, TypeError) as exc:  # a manifest or metrics file that is not JSON of the expected shape
        raise NeocoderError(f"{path}: not a readable run folder ({exc})") from exc
    return Run(path, manifest.kind, manifest, metrics), folder


def display_name(model: str) -> str:
    """A model name as the pages show it: a replayed file or folder by its base name
    (``replay//long/path/answers.jsonl#m`` -> ``replay/answers.jsonl#m``); others as they are."""
    if model.startswith("replay/") and "/" in model[len("replay/"):]:
        path, sep, variant = model[len("replay/"):].partition("#")
        return f"replay/{Path(path).name}{sep}{variant}"
    return model


def disambiguate(runs: list[Run], group_of) -> None:
    """Set the labels shown for ``runs``: ``display_name`` of each, with its language in
    brackets (``language_tag``), then the folder's name added where two runs of one group
    (``group_of(run)``: runs drawn together) still share it."""
    mixed = len({r.language for r in runs if r.language is not None}) > 1
    for r in runs:
        r.label = display_name(r.label) + language_tag(r.language, mixed)
    seen = Counter((group_of(r), r.label) for r in runs)
    for r in runs:
        if seen[(group_of(r), r.label)] > 1:
            r.label = f"{r.label} ({r.path.resolve().name})"


def language_tag(language: str | None, mixed: bool) -> str:
    """What a run's label gets for its language: " [cpp]" for a run in another language than
    Python, as ``neocoder compare`` names it; " [python]" too when ``mixed`` (the runs shown
    together are of more than one language), so no two runs of different languages ever
    share a label; "" for a Python run among Python runs (its pages stay as they were) and
    for a run without a language."""
    if language is None or (language == PYTHON and not mixed):
        return ""
    return f" [{language}]"


def model_names(runs: list[Run]) -> dict[tuple[Path, str], str]:
    """{(run folder, model in its metrics' ``models``): the name shown}: ``display_name``,
    with the folder's name added where two runs' models would show the same name (the
    AidanBench and LiveIdeaBench runs, whose metrics hold several models)."""
    names = {(r.path, m): display_name(m) for r in runs for m in r.metrics.get("models", {})}
    counts = Counter(names.values())
    return {(path, m): (f"{shown} ({path.resolve().name})" if counts[shown] > 1 else shown)
            for (path, m), shown in names.items()}


def run_states(run: Path) -> dict[tuple, ProblemState]:
    """The problem states an eval run folder was judged on, by key (problem_id, state):
    read again from the dataset or release its manifest names.  Raises NeocoderError
    when the folder has no manifest or its dataset is gone."""
    manifest = RunFolder(run, create=False).read_manifest()
    source = manifest.extra.get("dataset_path") or manifest.config.get("dataset")
    if not source and manifest.extra.get("dataset_version") == shipped.version():
        states = shipped.load_states()
    elif source and source != "release":
        states = load_states(Path(source))
    else:
        states = [ProblemState.from_dict(r) for r in build_from_release(Path(manifest.config["release_dir"]))[0]]
    return {s.key: s for s in states}
