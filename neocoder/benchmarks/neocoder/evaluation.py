"""NeoCoder as tasks: a model on Denial Prompting problem states, and the human baselines.

``EvalTask`` (``neocoder eval``): an item is one sample of one problem state; solving it
is ``pipeline.judge_sample`` (the strategy with the model, then the sandbox, the
detector and Eq. 2-4), which yields the ``Sample`` record; the score is metrics.py's
per-state rates with bootstrap intervals over problems.  ``HumanTask`` (``neocoder eval
--model human``): the human rows (Eq. 5, 6) from the shipped technique sets of the
release's accepted solutions, with no model and no sandbox.  The runner (neocoder/runner.py) does the rest.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.descriptor import EVAL
from neocoder.benchmarks.neocoder.shards import part
from neocoder.config import PYTHON, RAY
from neocoder.dataset import RELEASE_DATASET, build_from_release, first_problems, load_states, shipped
from neocoder.dataset.release import ANNOTATED_FILE, NEOCODER_FILE, has_release, release_file
from neocoder.errors import NeocoderError
from neocoder.metrics.diversity.execution_classes import attach, execution_classes
from neocoder.metrics.diversity.humans import human_programs
from neocoder.metrics.diversity.run import human_diversity, run_diversity
from neocoder.options import parse_problems, shard_of
from neocoder.paths import fingerprint
from neocoder.records import HUMAN, ProblemState, Sample
from neocoder.runner import Outcome, Run, Task
from neocoder.store import RunFolder


@dataclass
class EvalResult:
    """What an eval returns: the run folder, its metrics (as in ``metrics.json``:
    ``{"model", "states": {t: {...}}, ...}``; None for one part of a run, ``--shard``)
    and the wall time in seconds."""

    run: Path
    metrics: dict | None
    seconds: float


def select_states(config: EvalConfig) -> list[ProblemState]:
    """The problem states an eval covers: the problems ``config.problems`` names (all
    when None), of those the first ``limit``, states in ``config.states``, from
    ``config.dataset``: None for the shipped validated dataset
    (neocoder/dataset/shipped.py: no release needed), "release" for the release's
    statement examples with plain checkers, or a path (a build-dataset run folder or a
    problem-states JSONL file).  Raises NeocoderError when no state is left."""
    if config.dataset is None:
        states = shipped.load_states()
    elif str(config.dataset) == "release":
        states = [ProblemState.from_dict(r) for r in build_from_release(config.release_dir)[0]]
    else:
        states = load_states(config.dataset)
    states = [s for s in states if s.problem_id in set(named_problems(config, states))]
    chosen = set(first_problems([s.problem_id for s in states], config.limit))
    states = [s for s in states if s.problem_id in chosen and s.state in config.states]
    if not states:
        raise NeocoderError("no problem states selected (check --states, --problems and --limit)")
    return states


def named_problems(config: EvalConfig, states: list[ProblemState]) -> list[str]:
    """The problem ids ``--problems`` names (a list, or its text: ID[,ID...] or @FILE), all
    of ``states``' when it names none.  Raises NeocoderError naming every id the dataset
    does not hold."""
    wanted = config.problems
    if isinstance(wanted, str):
        try:
            wanted = parse_problems(wanted)
        except ValueError as exc:
            raise NeocoderError(f"--problems {exc}") from None
    held = list(dict.fromkeys(s.problem_id for s in states))
    if not wanted:
        return held
    unknown = [i for i in wanted if i not in set(held)]
    if unknown:
        raise NeocoderError(f"--problems: the dataset holds no problem {', '.join(unknown)} "
                            f"({len(held)} problems, e.g. {', '.join(held[:3])})")
    return list(wanted)


@dataclass(frozen=True)
class DatasetInfo:
    """What an eval judges on, for its manifest, metrics and printed table: ``name``
    (shown), ``path`` (where the states are kept; None for the shipped dataset and the
    release's examples) and ``version`` (what ``compare`` checks before pairing runs:
    the shipped dataset's version, or a digest of the files read)."""

    name: str
    path: Path | None
    version: str
    fingerprint: str | None = None  # the shipped dataset's files' (shipped.data_fingerprint); None for others

    def manifest(self) -> dict:
        """The run manifest's fields naming this dataset: ``dataset``, ``dataset_path``,
        ``dataset_version`` and, for the shipped dataset, ``dataset_sha256`` (its files'
        fingerprint, which a board compares with its own)."""
        fields = dict(dataset=self.name, dataset_path=str(self.path) if self.path else None,
                      dataset_version=self.version)
        if self.fingerprint:
            fields["dataset_sha256"] = self.fingerprint
        return fields


def own_release(config: EvalConfig) -> Path | None:
    """The release whose recorded codes and human solutions an eval on ``--dataset release``
    must use when it is not the release neocoder ships (its fingerprint differs from the
    shipped manifest's); None otherwise (the shipped codes and technique sets serve)."""
    if str(config.dataset) != "release" or shipped.is_shipped_release(config.release_dir):
        return None
    return Path(config.release_dir)


def _check_resumed(folder, strategy: str, version: str, paper: list[str] = ()) -> dict | None:
    """Refuse to resume a run folder whose samples are of another strategy, were judged
    on another dataset version (its manifest's) or with other paper toggles (``--paper``,
    docs/paper.md): they would be scored together.  Returns the manifest's config (None:
    a new folder)."""
    if not (folder.path / folder.MANIFEST).is_file():
        return None
    manifest = folder.read_manifest()
    before = manifest.config.get("strategy", "direct")
    if before != strategy:
        raise NeocoderError(f"{folder.path} holds samples of --strategy {before}, not {strategy}: give another --out")
    recorded = manifest.extra.get("dataset_version")
    if recorded and recorded != version:
        raise NeocoderError(f"{folder.path} holds samples judged on dataset {recorded}, not {version}: give "
                            "another --out (or the --dataset it was started with)")
    judged = list(manifest.config.get("paper") or [])
    if set(judged) != set(paper):  # toggles are a set: the API and the server may give them in any order
        raise NeocoderError(f"{folder.path} holds samples judged with --paper {','.join(judged) or 'none'}, not "
                            f"{','.join(paper) or 'none'}: give another --out (or the --paper it was started with)")
    return manifest.config


def describe_dataset(config: EvalConfig) -> DatasetInfo:
    """``DatasetInfo`` of ``config.dataset`` (see ``select_states``).  Raises OSError
    (DatasetError for the release) when the files named cannot be read."""
    if config.dataset is None:
        return DatasetInfo(f"validated (shipped {shipped.version()})", None, shipped.version(),
                           shipped.data_fingerprint())
    if str(config.dataset) == "release":
        read = [release_file(config.release_dir, name) for name in (NEOCODER_FILE, ANNOTATED_FILE)]
        return DatasetInfo(RELEASE_DATASET, None, f"release-examples-{fingerprint(read)[:12]}")
    path = Path(config.dataset)
    file = path / RunFolder.RECORDS if path.is_dir() else path
    return DatasetInfo(str(path), path, f"file-{hashlib.sha256(file.read_bytes()).hexdigest()[:12]}")


def technique_union(solution_sets: dict[str, list[set[str]]]) -> dict[str, dict]:
    """H(p) from the technique set of every accepted solution (``human_solution_sets``'s
    ``{problem_id: [set, ...]}``), NeoCoder Eq. 3: ``{problem_id: {"techniques": the
    union}}`` as ``techniques.human.human_technique_sets`` gives it, None for a problem
    with no solution the detector reads."""
    return {pid: {"techniques": set().union(*sets) if sets else None} for pid, sets in solution_sets.items()}


def diversity_humans(config: EvalConfig, problem_ids, solution_sets: dict | None = None) -> dict | None:
    """The human reference programs of ``problem_ids`` for the diversity measures
    (diversity.humans.human_programs): the shipped technique sets (``solution_sets``, the
    run's own where it has them), with the code of the release at ``config.release_dir``
    where there is one; None on ``--dataset release`` of another release than the shipped
    one (its solutions are not the shipped sets')."""
    if own_release(config) is not None or not problem_ids:
        return None
    return human_programs(problem_ids, shipped_release(config), solution_sets)


def shipped_release(config: EvalConfig) -> Path | None:
    """``config.release_dir`` when it is the release neocoder ships (its code lines up with
    the shipped technique sets), else None (no release, or another one)."""
    if has_release(config.release_dir) and shipped.is_shipped_release(config.release_dir):
        return Path(config.release_dir)
    return None


def check_execution_classes(config: EvalConfig) -> None:
    """``--execution-classes`` needs the shipped release's human solutions (the humans'
    inputs and fingerprints): a NeocoderError before anything is judged when they are
    not at hand."""
    if config.execution_classes and shipped_release(config) is None:  # also None for another --dataset release
        raise NeocoderError(f"--execution-classes needs the release neocoder ships, with its human_solutions.json "
                            f"(--release or $NEOCODER_RELEASE; {config.release_dir} is not it)")


def execution_keys(config: EvalConfig, box, states, samples, humans: dict | None, problems=None) -> dict | None:
    """With ``--execution-classes``: the execution class of each correct program
    (code_sha256 -> key; diversity/execution_classes.py), the humans' Python solutions
    given theirs in place (``humans``, from ``diversity_humans``); None otherwise, or when
    the humans' code is not at hand (no release)."""
    if not config.execution_classes or not humans or not any(p.source for ps in humans.values() for p in ps):
        return None
    codes, human_keys = execution_classes(box, states, samples, config.release_dir, problems=problems,
                                          workers=config.sandbox.workers or 2, progress=config.progress)
    attach(humans, human_keys)
    return codes


@dataclass
class EvalInputs:
    """What an eval works with once open (``EvalTask.open``): the problem ``states`` it
    covers and their ``problems`` in order, the ``human`` technique sets per problem, the
    ``dataset`` judged on, the sandbox ``box``, the paper-mode ``protocol``, the ``model``
    behind the run's call cache and the strategy's ``options``; ``human_solutions`` holds
    the technique set of each accepted solution (looked up once: ``human`` is their union,
    Eq. 3, and the diversity block's human reference reads them)."""

    states: list[ProblemState]
    problems: list[str]
    human: dict
    human_solutions: dict
    dataset: DatasetInfo
    box: Any
    protocol: Any
    model: Any
    options: Any


@dataclass
class HumanInputs:
    """What the human baselines work with (``HumanTask.open``): the problem ``states``,
    the ``dataset`` they come from, the human ``rows`` (Eq. 5, 6) and the technique set of
    each accepted ``solutions`` they were made from (which the diversity block reads too)."""

    states: list[ProblemState]
    dataset: DatasetInfo
    rows: list
    solutions: dict


def sample_outcome(samples) -> Outcome:
    """How ``samples`` (Sample records) ended, unit "sample": judged, or in error with its
    reason (the model call's error, a sandbox INFRA verdict, or never judged).  A sample
    in error is left out of every rate (``Sample.excluded``) and retried on resume.

    Every reply of the model under test is counted too (``Outcome.answered``, the answer a
    "program"): held a program, or not with its reason (``Sample.no_program``).  A sample
    with no program is scored (wrong, in the rates), so it counts as judged; a run in which
    most replies hold none fails with one line naming the reasons (``Outcome.failure``)."""
    outcome = Outcome("sample", answer="program")
    for sample in samples:
        error = sample.error
        if not error and sample.excluded:
            error = "sandbox INFRA failure" if sample.examples is not None else "not judged"
        outcome.add(judged=not error, error=error)
        if sample.reply is not None and not sample.error:  # a model error left no reply to read
            outcome.answered(sample.no_program)
    return outcome


class EvalTask(Task, name=EVAL, config_type=EvalConfig, unit="sample", record_type=Sample):
    """NeoCoder on a model: solve, judge in the sandbox, detect, score (see the module)."""

    @classmethod
    def for_config(cls, config) -> type[Task]:
        """``HumanTask`` for ``--model human`` (the human baselines), this task otherwise."""
        return HumanTask if config.model.spec == HUMAN else cls

    def check(self) -> None:
        """Refuse what spans options (the runner has checked each against its
        declaration, the strategy's name included)."""
        config = self.config
        if config.model.spec == HUMAN:
            raise NeocoderError(f"--model human is the {HUMAN!r} task (the accepted human solutions, no model): run "
                                f"`neocoder run {HUMAN}` or `neocoder eval --model human`")
        if config.logprobs and config.model.spec.startswith("replay/"):
            raise NeocoderError("--logprobs asks the endpoint for token log-probabilities; a replayed model has none")
        if config.language != PYTHON and (config.paper or config.execution_classes):
            raise NeocoderError(f"--language {config.language} runs on this project's judging only (no --paper or "
                                "--execution-classes yet: their harnesses are Python's)")
        if config.language != PYTHON and config.model.spec.startswith("replay/"):
            raise NeocoderError(f"--language {config.language}: {config.model.spec} replays recorded Python programs")
        if (config.samples >= 2 or config.strategy == "sample") and config.model.temperature == 0:
            drawn = f"{config.best_of} candidates per sample" if config.strategy == "sample" else \
                f"{config.samples} samples per state"
            warnings.warn(f"{drawn} at temperature 0: greedy decoding gives one program per prompt unless the "
                          "endpoint honours seeds; pass --temperature (e.g. 0.8)", stacklevel=3)

    def open(self, run: Run) -> "EvalInputs":
        """Select the problem states (with ``--paper``'s changes), refuse a folder holding
        samples of another strategy, dataset version or paper toggles, join the run's ``--shard``
        part, read the human technique sets, and open the sandbox and the cached model.
        Raises NeocoderError for those refusals and as ``select_states`` does."""
        from neocoder.benchmarks.neocoder.paper import paper_human_sets, paper_states, protocol_of
        from neocoder.techniques.human import human_solution_sets
        config = self.config
        check_execution_classes(config)
        states = paper_states(select_states(config), config.paper, config.release_dir)
        problems = list(dict.fromkeys(s.problem_id for s in states))
        dataset = describe_dataset(config)
        before = _check_resumed(run.folder, config.strategy, dataset.version, config.paper)
        # --shard: this driver's part
        run.stack.enter_context(part(run.folder.path, config.shard, before, config.public()))
        release = own_release(config)
        solutions = human_solution_sets(set(problems), release)
        human = paper_human_sets(technique_union(solutions), config.paper, config.release_dir)
        box = run.open_sandbox(config.sandbox)
        raw = run.open_model(config.model if release is None or config.model.release_dir
                             else config.model.with_(release_dir=release))
        return EvalInputs(states=states, problems=problems, human=human, human_solutions=solutions, dataset=dataset,
                          box=box,
                          protocol=protocol_of(config.paper), model=run.cached(raw), options=config.strategy_options())

    def items(self, run: Run) -> list:
        """Every (state, sample) of the run; with ``--shard K/N`` those of every N-th
        problem from the K-th on (each problem whole, in the dataset's order), so N
        drivers on one run folder share the work and none is judged twice."""
        states = run.inputs.states
        shard = shard_of(self.config.shard)
        if shard is not None:
            k, n = shard
            mine = set(run.inputs.problems[k - 1::n])
            states = [state for state in states if state.problem_id in mine]
        return [(state, i) for state in states for i in range(self.config.samples)]

    def key(self, item) -> tuple:
        """(problem_id, state, sample index): the key of the item's Sample."""
        state, i = item
        return (state.problem_id, state.state, i)

    def solve(self, item, run: Run):
        """Solve, judge and score one sample (``pipeline.judge_sample``), seeded with the model's
        seed + the sample index, and yield its Sample."""
        from neocoder.benchmarks.neocoder.pipeline import judge_sample
        state, i = item
        config, s = self.config, run.inputs
        seed = None if config.model.seed is None else config.model.seed + i
        # semantic entropy's behaviour classes need every test's outcome (docs/metrics.md)
        judge_all_tests = config.all_tests()
        yield judge_sample(state, i, s.model, s.box, (s.human.get(state.problem_id) or {}).get("techniques"),
                           config.cpu_scale, judge_all_tests, config.strategy, s.options, seed, s.protocol,
                           config.language)

    def concurrency(self, run: Run) -> int:
        """Samples in flight: those waiting on the model (``--max-connections``, bounded by
        the model's limiter) plus those being judged (``--workers``, bounded by the sandbox
        pool, which never judges more at once)."""
        workers = self.config.sandbox.workers
        if self.config.sandbox.executor == RAY:  # keep every node's slots busy: twice the cluster's slots in flight
            workers = max(workers, 2 * run.inputs.box.capacity)
        return workers + run.connections

    def label(self, run: Run) -> str:
        """The progress bar's description: "eval" and the model's name."""
        return f"eval {run.inputs.model.name}"

    def manifest(self, run: Run) -> dict:
        """The numbers of problems and problem states, the sandbox image and the dataset's
        fields (``DatasetInfo.manifest``)."""
        s = run.inputs
        return dict(problems=len(s.problems), problem_states=len(s.states), sandbox_image=s.box.image,
                    **s.dataset.manifest())

    def score(self, run: Run) -> dict | None:
        """The run's metrics from every sample in its folder; None for one part of a run
        (``--shard``): the parts are scored together by the command without it."""
        from neocoder.metrics.rates import score_samples
        s, config = run.inputs, self.config
        if config.shard:
            return None
        wanted = {state.key for state in s.states}
        # in key order, not completion order: float sums then add up the same way in every run
        samples = sorted((x for x in run.folder.read(Sample) if (x.problem_id, x.state) in wanted),
                         key=lambda x: x.key)
        tests = ["examples", "plus"] if any(st.extended_tests for st in s.states) else ["examples"]
        metrics = score_samples(s.model.name, samples, config.bootstrap, config.bootstrap_seed,
                                strategy=config.strategy, calls=run.cache.stats(), tests=tests,
                                dataset=s.dataset.name, language=config.language)
        humans = diversity_humans(config, {x.problem_id for x in samples}, s.human_solutions)
        codes = execution_keys(config, s.box, s.states, samples, humans)
        metrics.diversity = run_diversity(samples, humans, codes, resamples=config.bootstrap,
                                          seed=config.bootstrap_seed)
        metrics.outcome = sample_outcome(samples).to_dict()
        return metrics.to_dict()

    def result(self, run: Run, metrics: dict) -> EvalResult:
        """An EvalResult: the run folder, the metrics (None for a ``--shard`` part), wall seconds."""
        return EvalResult(run.folder.path, metrics, run.seconds())


class HumanTask(Task, name=HUMAN, config_type=EvalConfig, unit="problem state"):
    """The human rows (NeoCoder Eq. 5, 6) from the accepted solutions' shipped technique sets, for the
    problem states the config selects; no model and no sandbox."""

    def open(self, run: Run) -> "HumanInputs":
        """Select the problem states and compute the human rows from the accepted solutions'
        technique sets.  Raises NeocoderError for ``--paper`` or ``--shard`` (nothing is judged),
        or as ``check_execution_classes`` and ``select_states`` do."""
        from neocoder.metrics.rates import human_rows
        from neocoder.techniques.human import human_solution_sets
        if self.config.paper:
            raise NeocoderError("--paper changes how model programs are judged; the human baselines are not "
                                "judged: run `neocoder eval --model human` without --paper")
        if self.config.shard:
            raise NeocoderError("--shard splits the judging of a model's samples; the human baselines judge "
                                "nothing: run `neocoder eval --model human` without --shard")
        check_execution_classes(self.config)
        states = select_states(self.config)
        solutions = human_solution_sets({s.problem_id for s in states}, own_release(self.config))
        return HumanInputs(states=states, dataset=describe_dataset(self.config), rows=human_rows(states, solutions),
                           solutions=solutions)

    def manifest(self, run: Run) -> dict:
        """The dataset's fields (``DatasetInfo.manifest``)."""
        return run.inputs.dataset.manifest()

    def items(self, run: Run) -> list:
        """No items: the human rows are made in ``open``."""
        return []

    def solve(self, item, run: Run):
        """Nothing to do (there are no items)."""
        return ()

    def score(self, run: Run) -> dict:
        """Write the human rows and return their metrics (``rates.score_humans``), with the
        humans' diversity block where their programs are at hand (execution classes from the
        sandbox with ``--execution-classes``)."""
        from neocoder.metrics.rates import score_humans
        config = self.config
        run.folder.write_all(run.inputs.rows)
        metrics = score_humans(run.inputs.rows, config.bootstrap, config.bootstrap_seed)
        programs = diversity_humans(config, {row.problem_id for row in run.inputs.rows}, run.inputs.solutions)
        if programs and config.execution_classes:
            box = run.open_sandbox(config.sandbox)
            execution_keys(config, box, run.inputs.states, [], programs, problems=list(programs))
        if programs:
            metrics.diversity = human_diversity(programs, resamples=config.bootstrap, seed=config.bootstrap_seed)
        return metrics.to_dict()

    def result(self, run: Run, metrics: dict) -> EvalResult:
        """An EvalResult: the run folder, the metrics and wall seconds."""
        return EvalResult(run.folder.path, metrics, run.seconds())
