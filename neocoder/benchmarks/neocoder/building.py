"""Dataset building as a task: problem states from the release, validated in the sandbox.

``DatasetTask`` (``neocoder build-dataset``): the release converted into problem states
and, with the oracle (default), validated by the accepted human Python solutions with
extended tests added (neocoder/oracle.py, with its own resumable run cache).  It is one
item: the oracle keeps its own pool of sandbox workers.  The runner
(neocoder/runner.py) writes the manifest and metrics.json.

A validated build also writes ``<out>/package/``: the files neocoder ships in
``data/codeforces/`` (neocoder/dataset/shipped.py), made from these states, the human
solutions' technique sets and the recorded GPT-4 codes.  A full build with the default
settings reproduces the shipped files byte for byte (scripts/ship_dataset.sh).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neocoder.benchmarks.neocoder.config import DatasetConfig
from neocoder.benchmarks.neocoder.descriptor import DATASET
from neocoder.dataset import BuildReport, build_from_release, first_problems, load_release_problems, shipped
from neocoder.records import ProblemState
from neocoder.runner import Run, Task


@dataclass
class DatasetResult:
    """What dataset building returns: the run folder, the problem states written, the
    import report, the oracle report (with the oracle), the problems that failed (chains:
    problem id -> model error), the call-cache stats (chains) and the wall time in
    seconds."""

    run: Path
    states: list[ProblemState]
    report: BuildReport | None = None
    oracle: dict | None = None
    failed: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


@dataclass
class BuildInputs:
    """What the dataset build works with (``DatasetTask.open``): the release's converted
    ``records`` and import ``report``; then the oracle's report (``oracle``) and the
    final problem ``states``."""

    records: list
    report: Any
    oracle: dict | None = None
    states: list = field(default_factory=list)


class DatasetTask(Task, name=DATASET, config_type=DatasetConfig, unit="build"):
    """Problem states from the release, validated by the oracle (see the module)."""

    def open(self, run: Run) -> BuildInputs:
        """Convert the release into problem-state records (its first ``--limit`` problems) with
        the import report.  Raises DatasetError for malformed release files."""
        config = self.config
        records, report = build_from_release(config.release_dir)
        keep = set(first_problems([r["problem_id"] for r in records], config.limit))
        records = [r for r in records if r["problem_id"] in keep]
        return BuildInputs(records=records, report=report)

    def items(self, run: Run) -> list:
        """One item, "oracle", with the oracle; none without it (the states are written as imported)."""
        return ["oracle"] if self.config.oracle else []

    def solve(self, item, run: Run):
        """Validate the states in the sandbox with the accepted human Python solutions and add
        the extended tests (``oracle.validate_release_states``, cached in
        ``oracle-cache.jsonl``); the states replace ``run.inputs.records``.  Yields no record."""
        from neocoder.oracle import validate_release_states
        config = self.config
        box = run.open_sandbox(config.sandbox)
        run.inputs.records, run.inputs.oracle = validate_release_states(
            run.inputs.records, config.release_dir, box, run.folder.path / "oracle-cache.jsonl",
            extended=config.extended, label_humans=config.label_humans, seed=config.seed,
            workers=config.sandbox.workers, progress=config.progress)
        return ()

    def score(self, run: Run) -> dict:
        """Write the problem states (and, with the oracle, the shipped package in the
        run folder's ``package`` folder); return the import report and the oracle's report."""
        run.inputs.states = states = [ProblemState.from_dict(r) for r in run.inputs.records]
        run.folder.write_all(states)
        if self.config.oracle:
            write_package(run.folder.path / "package", states, self.config)
        return {"import": run.inputs.report.__dict__, "oracle": run.inputs.oracle}

    def result(self, run: Run, metrics: dict) -> DatasetResult:
        """A DatasetResult: the run folder, the states, the import and oracle reports, wall seconds."""
        return DatasetResult(run.folder.path, run.inputs.states, report=run.inputs.report,
                             oracle=run.inputs.oracle, seconds=run.seconds())


def write_package(folder: Path, states: list[ProblemState], config: DatasetConfig) -> dict:
    """Write the files neocoder ships (``shipped.write_package``) for the validated
    ``states`` into ``folder``: with the technique sets of the accepted human solutions
    of their problems (``detected_solution_sets``) and the release's recorded GPT-4 codes.
    Returns the package manifest.  Raises DatasetError for a malformed release."""
    from neocoder.techniques.human import detected_solution_sets, detector_fingerprint
    problems = list(dict.fromkeys(s.problem_id for s in states))
    wanted = set(problems)
    codes = {p["problem_id"]: p["codes"] for p in load_release_problems(config.release_dir)
             if p["problem_id"] in wanted}
    human = detected_solution_sets(config.release_dir, problems)
    provenance = {"release_sha256": shipped.release_fingerprint(config.release_dir),
                  "builder_sha256": shipped.builder_fingerprint(), "detector_sha256": detector_fingerprint(),
                  "build": {"extended": config.extended, "label_humans": config.label_humans, "seed": config.seed,
                            "limit": config.limit}}
    return shipped.write_package(folder, states, {p: human[p] for p in problems if p in human}, codes, provenance)
