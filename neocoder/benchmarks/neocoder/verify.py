"""A board's checks of a submitted NeoCoder run (``neocoder board add``; the descriptor's
``recompute`` and ``verify``, report/leaderboard/submissions.py).

Why: a run's ``records.jsonl`` is the submitter's file.  Recomputing metrics.json from it
catches a hand-edited number, not a hand-edited record (a wrong program marked AC, its
metrics recomputed with this project's own code).  So the board judges the run again:
``rejudge`` replays the programs the run recorded (``replay/<run folder>``,
neocoder/models/replay.py) through the project's own eval, in the board's sandbox, on the
shipped dataset with the shipped detector, and compares every sample's judged fields with
the record's; the first that differs is named.  No second judge: the eval task and
``pipeline.judge_reply`` are the ones every run uses.
"""

from __future__ import annotations

import math
from pathlib import Path

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.measures import bootstrap_settings
from neocoder.errors import NeocoderError

# what a re-judged sample must agree on: every field a headline rate reads, and what decides them (a
# test's verdict beyond correctness, e.g. WA or TLE on a failing program, may differ between two
# judgings on a loaded machine and changes no rate, so it is not compared)
JUDGED = ("code_sha256", "correct", "correct_plus", "follows", "techniques", "violated_constraints", "divergent",
          "excluded")
REJUDGED_OPTIONS = {"strategy": "direct", "language": "python", "paper": []}  # what a replay can re-judge


def _samples(folder: Path):
    from neocoder.records import Sample
    from neocoder.store import RunFolder
    return sorted(RunFolder(Path(folder), create=False).read(Sample), key=lambda s: s.key)


def recompute(folder: Path, model: str, config: dict, metrics: dict) -> dict:
    """The run's metrics (metrics.json's layout: ``states`` with their rates and
    intervals) recomputed from its Sample records with the project's own scoring
    (metrics/rates.py ``score_samples``), in key order, the intervals redrawn with the run's
    bootstrap settings.  Raises NeocoderError for bootstrap settings out of bounds."""
    from neocoder.metrics.rates import score_samples
    resamples, seed = bootstrap_settings(metrics)
    return score_samples(model, _samples(folder), resamples, seed).to_dict()


def judged_view(sample) -> dict:
    """What re-judging must reproduce of a ``Sample`` (``JUDGED``): the program's digest,
    its correctness on both tiers, the detected techniques and violated constraints,
    Eq. 3, and whether it is left out of the rates."""
    return {name: getattr(sample, name) for name in JUDGED}


def _differs(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a != b


def compare(recorded: list, rejudged: list) -> int:
    """How many samples agree between the run's ``recorded`` Samples and the ``rejudged``
    ones (all of them, or a RecordsDisagree naming the first sample, in key order, that is
    missing on either side or differs in a ``JUDGED`` field)."""
    mine = {s.key: s for s in recorded}
    theirs = {s.key: s for s in rejudged}
    for key in sorted(set(mine) | set(theirs)):
        where = f"problem {key[0]} state {key[1]} sample {key[2]}"
        if key not in theirs:
            raise RecordsDisagree(f"{where}: in records.jsonl, but not a sample the run's settings hold")
        if key not in mine:
            raise RecordsDisagree(f"{where}: missing from records.jsonl")
        a, b = judged_view(mine[key]), judged_view(theirs[key])
        for name in JUDGED:
            if _differs(a[name], b[name]):
                raise RecordsDisagree(f"{where}: {name} is {a[name]!r} in records.jsonl, {b[name]!r} re-judged")
    return len(mine)


def rejudge(folder: Path, model: str, config: dict, scratch: Path) -> str:
    """Judge the run in ``folder`` again from the programs it recorded: the eval task with
    ``replay/<folder>`` on the shipped dataset, the problems its records hold and the
    states and samples of its ``config`` (manifest.json's), in the board's sandbox
    (Docker, this machine's workers) into ``scratch``; then ``compare``.  Returns "re-judged:
    N of N samples agree".  Raises RecordsDisagree (the first sample that differs), or
    NeocoderError for a run whose settings a replay cannot re-judge (another strategy,
    language or paper mode)."""
    from neocoder.benchmarks.neocoder.config import EvalConfig
    from neocoder.benchmarks.neocoder.evaluation import EvalTask
    from neocoder.config import ModelConfig
    from neocoder.dataset import default_release_dir
    for name, wanted in REJUDGED_OPTIONS.items():
        if (config.get(name) or wanted) != wanted:
            raise NeocoderError(f"--{name} {config.get(name)!r}: only runs with {name} {wanted or 'none'} are "
                                "re-judged from their records")
    recorded = _samples(folder)
    problems = sorted({s.problem_id for s in recorded})
    if not problems:
        raise RecordsDisagree("records.jsonl holds no sample")
    states = config.get("states") or [0]
    rerun = EvalConfig(model=ModelConfig(spec=f"replay/{Path(folder).resolve()}"), out=Path(scratch) / "rejudge",
                       release_dir=default_release_dir(),
                       states=[int(t) for t in states], problems=problems, samples=int(config.get("samples") or 1),
                       cpu_scale=float(config.get("cpu_scale") or 1.0),
                       judge_all_tests=bool(config.get("judge_all_tests")), max_errors=len(recorded) + 1,
                       progress=False)
    from neocoder.runner import run
    run(EvalTask(rerun))  # the eval the run itself went through (runner.run), no second judge
    agree = compare(recorded, _samples(rerun.out))
    return f"re-judged: {agree} of {agree} samples agree"


def dataset_ids(manifest) -> set[str] | None:
    """The problem ids of the shipped dataset when the run names it: by its name and
    version, with no file of its own, and with the fingerprint (``dataset_sha256``) that
    is computed here from the shipped files (a version alone is not enough); None
    otherwise."""
    from neocoder.dataset import shipped
    extra = manifest.extra
    if extra.get("dataset_version") != shipped.version() or extra.get("dataset_path"):
        return None
    if str(extra.get("dataset", "")) != f"validated (shipped {shipped.version()})":
        return None
    if extra.get("dataset_sha256") != shipped.data_fingerprint():
        return None
    return set(shipped.problem_ids())
