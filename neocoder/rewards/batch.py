"""Batched scoring outside the server: ``Scorer`` (in process, on this machine's sandbox)
and ``score_batch`` (in process or against a ``neocoder serve`` URL).

A batch is a list of ``ScoreItem`` (a reply or a program for one problem state); each
item is judged by ``scoring.score_state`` (the function behind ``/v1/score``), weighted
into a reward (formula.py) and, when the batch names an archive, measured against the
archive and added to it (archive.py).  Judging runs concurrently on the sandbox's
workers; the archive step is serialised per (archive, problem) **in index order**: item i
is measured and archived only after every earlier item of the batch for the same problem
has been, so a batch's novelty numbers depend only on the batch's order (and the
archive's contents before it), never on which program the sandbox finished first.  A bad
item (an unknown problem or state, a malformed item, a sandbox error) gets a result with
``error`` set, reward 0, and is not archived; the rest of the batch goes on.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, fields
from typing import Iterable, Iterator

from neocoder.config import LANGUAGES, PYTHON, SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.records import ProblemState, Sample
from neocoder.rewards.archive import ArchiveStore, check_name
from neocoder.rewards.formula import RewardWeights, reward
from neocoder.rewards.scoring import ProblemBank, score_state

LOCAL_OWNER = ""  # the owner of in-process archives (the server's are its callers' ids)


@dataclass(frozen=True)
class ScoreItem:
    """One program to score: for problem ``problem_id`` at state ``state``, either a model's
    raw ``reply`` (its fenced code block, or the whole reply, is the program) or a
    ``program`` taken whole.  ValueError unless exactly one of them is given."""

    problem_id: str
    state: int
    reply: str | None = None
    program: str | None = None

    def __post_init__(self):
        if (self.reply is None) == (self.program is None):
            raise ValueError("ScoreItem: give exactly one of reply and program")

    @property
    def text(self) -> str:
        """The reply or the program, as ``judge_reply`` takes it."""
        return self.reply if self.reply is not None else self.program

    @classmethod
    def of(cls, value) -> "ScoreItem":
        """``value`` as a ScoreItem (a ScoreItem, or a dict of its fields); ValueError or
        TypeError for anything else."""
        return value if isinstance(value, cls) else cls(**value)

    def to_dict(self) -> dict:
        """The item as a ``/v1/score`` batch item (only the source given)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class ScoreResult:
    """The outcome of one item of a batch.

    - ``index``: the item's position in the batch (results may arrive in another order);
    - ``reward``: formula.py's reward, in [0, weights.total] (0 for an error);
    - ``scores``: ``correct``, ``correct_plus``, ``follows``, ``convergent``, ``divergent``,
      ``neogauge``, ``excluded``, ``infra`` (scoring.score_record) and, with an archive,
      ``novelty``: ``{"new_share", "nearest_distance", "archive_size"}`` (archive.py);
    - ``sample``: the full Sample record (docs/records.md), as ``/v1/score`` returns it;
    - ``error``: why the item could not be scored (then scores and sample are empty).
    """

    index: int
    problem_id: str
    state: int
    reward: float = 0.0
    scores: dict = field(default_factory=dict)
    sample: dict = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict:
        """The result as plain JSON (one NDJSON line of a streamed batch)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ScoreResult":
        """The result of a ``to_dict`` (unknown keys are ignored)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


def predecessors(problems: list[str], archive: str | None) -> list[int | None]:
    """For each item (by its problem id), the index of the previous item of the same
    problem in the batch, whose archive step must come first; all None without an
    archive (nothing to serialise)."""
    last: dict[str, int] = {}
    out: list[int | None] = []
    for i, pid in enumerate(problems):
        out.append(last.get(pid) if archive is not None else None)
        last[pid] = i
    return out


def failed(index: int, problem_id, state, exc: BaseException) -> ScoreResult:
    """The result of an item that could not be scored: ``error`` says why."""
    message = str(exc) if isinstance(exc, NeocoderError) else f"{type(exc).__name__}: {exc}"
    return ScoreResult(index, str(problem_id), state if isinstance(state, int) else -1, error=message)


def settle(index: int, record: Sample, scores: dict, weights: RewardWeights, archives: ArchiveStore | None = None,
           owner: str = LOCAL_OWNER, archive: str | None = None) -> ScoreResult:
    """The result of a judged item: with ``archive``, its novelty against ``owner``'s
    archive (measured, then the program joins it; ArchiveStore.add); then the reward.
    Called in index order per (archive, problem) by every batch runner."""
    scores = dict(scores)
    if archive is not None:
        scores["novelty"] = archives.add(owner, archive, record.problem_id, record.state, record.code or "",
                                         record.techniques or [])
    return ScoreResult(index, record.problem_id, record.state, reward(scores, weights), scores, record.to_dict())


class Scorer:
    """In-process scoring: the shipped dataset (or ``states``), the humans' technique sets,
    a sandbox and an archive store, opened by ``with Scorer() as scorer:``.

    ``sandbox``: where programs run (default: the local Docker pool with one worker per
    CPU); ``archive_db``: the archives' database (None: in memory, gone with the process;
    a SQLite file path or a SQLAlchemy URL keeps them).  ``model`` is the name recorded as
    each sample's model; ``judge_all_tests`` False stops each tier at its first failure
    (faster, the same scores); ``language`` the programs' ("python" or "cpp": C++ replies
    are read, compiled and detected as C++).  Entering raises NeocoderError when the sandbox cannot run
    here, ArchiveError when the database cannot be opened."""

    def __init__(self, sandbox: SandboxConfig | None = None, archive_db=None, states: list[ProblemState] | None = None,
                 model: str = "api", judge_all_tests: bool = True, cpu_scale: float = 1.0,
                 language: str = PYTHON):
        if language not in LANGUAGES:
            raise NeocoderError(f"Scorer: language {language!r} is not one of {', '.join(LANGUAGES)}")
        self.language = language
        self.config = sandbox or SandboxConfig()
        self.archive_db, self.model = archive_db, model
        self.judge_all_tests, self.cpu_scale = judge_all_tests, cpu_scale
        if states is None:
            from neocoder.dataset import shipped
            self.bank = ProblemBank(shipped.load_states(), f"validated (shipped {shipped.version()})")
        else:
            self.bank = ProblemBank(states, "given")
        self._stack: ExitStack | None = None
        self.box = self._archives = None
        self._archives_lock = threading.Lock()

    def __enter__(self) -> "Scorer":
        from neocoder.executors import open_sandbox
        with ExitStack() as stack:
            self.box = stack.enter_context(open_sandbox(self.config))
            stack.callback(self._close_archives)
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Remove the sandbox's containers and close the archive database."""
        if self._stack is not None:
            self._stack.close()
            self._stack = None
            self.box = None

    @property
    def archives(self) -> ArchiveStore:
        """The archive store (``archive_db``), opened on first use: a batch without an
        archive never needs it (nor sqlalchemy).  ArchiveError when it cannot be opened."""
        with self._archives_lock:
            if self._archives is None:
                self._archives = ArchiveStore(self.archive_db)
            return self._archives

    def _close_archives(self) -> None:
        with self._archives_lock:
            if self._archives is not None:
                self._archives.close()
                self._archives = None

    @property
    def workers(self) -> int:
        """Programs judged at once (the sandbox's concurrency)."""
        return max(1, int(self.config.workers))

    def judge(self, item: ScoreItem) -> tuple[Sample, dict]:
        """The Sample record and scores of one item (scoring.score_state); NotFound for an
        unknown problem or state."""
        state = self.bank.state(item.problem_id, item.state)
        return score_state(state, item.text, self.box, self.bank.human(item.problem_id), self.model,
                           self.cpu_scale, self.judge_all_tests, self.language)

    def score(self, items: Iterable, archive: str | None = None,
              weights: RewardWeights = RewardWeights()) -> Iterator[ScoreResult]:
        """Score ``items`` (ScoreItem or dicts of its fields) concurrently on the sandbox's
        workers and yield each ScoreResult as it is judged (completion order; ``index`` is
        the item's position).  With ``archive`` (a name), novelty is measured against it
        and every scored program joins it, in index order per problem (module docstring).
        A bad item yields a result with ``error``; ArchiveError for a bad archive name."""
        if self.box is None:
            raise NeocoderError("Scorer: use it as a context manager (with Scorer() as scorer: ...)")
        items = list(items)
        # opened now: a database that cannot open fails the call, not each item
        store = self.archives if archive is not None and check_name(archive) else None
        parsed, problems = [], []
        for value in items:
            try:
                parsed.append(ScoreItem.of(value))
            except (TypeError, ValueError) as exc:
                parsed.append(exc)
            problems.append(_field(value, "problem_id"))
        order = predecessors(problems, archive)
        done = [threading.Event() for _ in items]
        stop = threading.Event()

        def work(i: int) -> ScoreResult:
            try:
                item = parsed[i]
                if isinstance(item, Exception):
                    return failed(i, problems[i], _field(items[i], "state"), item)
                try:
                    record, scores = self.judge(item)
                    _wait(done, order[i], stop)
                    return settle(i, record, scores, weights, store, LOCAL_OWNER, archive)
                except Exception as exc:  # noqa: BLE001 - one bad item must not lose the batch
                    return failed(i, item.problem_id, item.state, exc)
            finally:
                done[i].set()

        # twice the sandbox's workers: a thread waiting for its turn at the archive, or detecting
        # techniques, does not keep the sandbox idle (the sandbox bounds its own concurrency)
        yield from _completed(work, len(items), 2 * self.workers, stop)


def _field(value, name: str):
    return getattr(value, name, None) if not isinstance(value, dict) else value.get(name)


class _Stopped(Exception):
    """The consumer stopped reading a batch: items waiting for their turn give up."""


def _wait(done: list[threading.Event], before: int | None, stop: threading.Event) -> None:
    while before is not None and not done[before].wait(0.1):
        if stop.is_set():
            raise _Stopped()


def _completed(work, n: int, workers: int, stop: threading.Event) -> Iterator[ScoreResult]:
    """``work(i)`` for i in 0..n-1 on ``workers`` threads (submitted in index order, so an
    item's predecessor has always started), yielded as they complete."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="neocoder-score")
    try:
        pending = {pool.submit(work, i) for i in range(n)}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


def score_batch(items: Iterable, *, archive: str | None = None, weights: RewardWeights = RewardWeights(),
                scorer: Scorer | None = None, server: str | None = None, token: str | None = None,
                judge_all_tests: bool | None = None, language: str | None = None) -> list[ScoreResult]:
    """Score a batch and return its results in index order.

    In process with ``scorer`` (an open Scorer), or a Scorer opened for this call (the
    local Docker sandbox, in-memory archives: an archive then lives only for the call);
    or against ``server`` (a ``neocoder serve`` URL; ``token`` defaults to
    ``$NEOCODER_TOKEN``): the batch is POSTed to ``/v1/score`` and its NDJSON stream read
    (the server's archives, private to the token).  ``judge_all_tests`` False stops each
    tier at its first failing test (the same scores, often ten times faster); None is the
    scorer's own setting (True for a Scorer opened here and for the server); ``language``
    ("python" or "cpp") likewise (None: the scorer's, else Python).  Raises
    ServerError for an answer that is not a stream (401, 413 over ``max_batch``, 422, 429
    after retries), NeocoderError when the local sandbox cannot run, ValueError for both
    ``scorer`` and ``server``, or a ``judge_all_tests`` or ``language`` the given scorer does not have."""
    if server is not None and scorer is not None:
        raise ValueError("score_batch: give scorer or server, not both")
    if server is not None:
        every = True if judge_all_tests is None else judge_all_tests
        return sorted(_remote(list(items), archive, weights, server, token, every, language or PYTHON),
                      key=lambda r: r.index)
    if scorer is None:
        with Scorer(judge_all_tests=True if judge_all_tests is None else judge_all_tests,
                    language=language or PYTHON) as own:
            return sorted(own.score(items, archive, weights), key=lambda r: r.index)
    if judge_all_tests is not None and judge_all_tests != scorer.judge_all_tests:
        raise ValueError(f"score_batch: the scorer has judge_all_tests={scorer.judge_all_tests}")
    if language is not None and language != scorer.language:
        raise ValueError(f"score_batch: the scorer scores {scorer.language}, not {language}")
    return sorted(scorer.score(items, archive, weights), key=lambda r: r.index)


def _remote(items: list, archive: str | None, weights: RewardWeights, server: str, token: str | None,
            judge_all_tests: bool, language: str = PYTHON) -> list[ScoreResult]:
    """POST the batch to ``server``'s /v1/score and read every NDJSON line; ServerError when
    the stream breaks or ends before every item has its result."""
    import json

    import requests

    from neocoder.client import Client, ServerError
    body = {"items": [ScoreItem.of(x).to_dict() for x in items], "archive": archive, "weights": asdict(weights),
            "judge_all_tests": judge_all_tests, "language": language}
    answer = Client(server, token).request("POST", "/v1/score", json=body, stream=True)
    try:
        with answer:
            results = [ScoreResult.from_dict(json.loads(line)) for line in answer.iter_lines() if line]
    except (requests.RequestException, ValueError) as exc:
        raise ServerError(None, f"POST /v1/score: the stream of results broke: {exc}") from exc
    if len(results) != len(items):
        raise ServerError(answer.status_code, f"POST /v1/score: the stream ended after {len(results)} of "
                                              f"{len(items)} results")
    return results
