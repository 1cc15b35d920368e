"""NeoCoder as a reward function for TRL's ``GRPOTrainer`` (and any trainer with its convention).

    from neocoder.rewards.trl import neocoder_reward
    reward = neocoder_reward()                       # in process: one Scorer, opened on first use
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], train_dataset=dataset, args=...)

The training dataset names the problem state of each prompt in two columns, ``problem_id``
(e.g. ``"1901A"``) and ``state`` (t), beside ``prompt`` (e.g. the state's statement,
``ProblemState.statement``).  Written against **trl 1.16.0**
(``trl/trainer/grpo_trainer.py``, ``GRPOTrainer._calculate_rewards``): a synchronous reward
function is called once per generation batch as

    f(prompts=[...], completions=[...], completion_ids=[[int, ...], ...],
      trainer_state=TrainerState, log_extra=callable, log_metric=callable,
      <every other dataset column>=[...])

with one list entry per completion (each prompt repeated ``num_generations`` times); a
completion is a string, or for a conversational dataset a list of message dicts
(``[{"role": "assistant", "content": "..."}]``).  It returns one float per completion;
``None`` (TRL's NaN: left out of the means and the advantage) marks a completion that was not
scored: a row with no problem state, or a result that says nothing about the program (an
``error``, or the sandbox failed: ``infra``).  A call none of whose items could be scored
(every result an ``error``: an unknown problem, no sandbox) raises RuntimeError rather than
train on nothing.
TRL logs the values as ``rewards/<__name__>/mean`` and ``/std``; with ``log_metric`` given,
the means of the score components (correct, follows, divergent, ...) are logged too, as
``<__name__>/<component>``.

Every completion is scored as a *reply* (``ScoreItem.reply``: its fenced code, or all of it),
by ``neocoder.rewards.score_batch``: so the reward is ``ScoreResult.reward`` with the
``weights`` given (docs/rewards.md has the formula).
"""

from __future__ import annotations

import atexit
import math
import threading
from collections.abc import Mapping, Sequence

from neocoder.rewards import RewardWeights, ScoreItem, Scorer, ScoreResult, score_batch

TRL_VERSION = "1.16.0"  # the trl whose calling convention this follows (pinned by the `rl` extra)


def completion_text(completion) -> str:
    """The reply text of one TRL completion: the string itself, or for a conversational
    completion the contents of its assistant messages (all of them when there is no role),
    joined; a content given as blocks (``[{"type": "text", "text": ...}]``) keeps its text."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    messages = [m for m in completion if isinstance(m, Mapping)]
    said = [m for m in messages if m.get("role", "assistant") == "assistant"] or messages
    return "\n".join(_content_text(m.get("content")) for m in said)


def _content_text(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(b.get("text", "") if isinstance(b, Mapping) else str(b) for b in content)
    return str(content)


def _weights(weights) -> RewardWeights:
    if isinstance(weights, RewardWeights):
        return weights
    return RewardWeights.from_dict(dict(weights) if weights is not None else None)


def unscored(result: ScoreResult) -> bool:
    """Whether a result says nothing about its program: ``error`` (an unknown problem or
    state, a sandbox error) or a sandbox failure (``infra`` / ``excluded`` in its scores)."""
    scores = result.scores or {}
    return result.error is not None or bool(scores.get("infra")) or bool(scores.get("excluded"))


def reward_value(result: ScoreResult) -> float | None:
    """The float a trainer gets for one item: ``result.reward``, or ``None`` when the result
    says nothing about the program (``unscored``), so TRL leaves it out."""
    if unscored(result) or result.reward is None or math.isnan(result.reward):
        return None
    return float(result.reward)


class NeocoderReward:
    """A TRL reward function scoring each completion as a reply to its row's problem state.

    Options: ``weights`` (a ``RewardWeights`` or a mapping of its fields), ``archive`` (the
    archive name ``score_batch`` takes), ``judge_all_tests`` (default False: each test tier
    stops at its first failure, the same rewards and on GPT-4's programs about ten times
    faster; True judges every test, for samples to keep), ``language`` ("python" or "cpp":
    completions are C++ programs, issue 49), ``server`` + ``token`` (score
    through a ``neocoder serve``; ``token`` defaults to ``$NEOCODER_TOKEN``) or else in process: one ``Scorer``
    opened on the first call and kept open across calls, closed by ``close()``, at the end
    of a ``with`` block, or at interpreter exit.  ``name`` is the ``__name__`` TRL logs under;
    ``problem_id_column`` / ``state_column`` name the dataset columns.  ``last_results``
    holds the ``ScoreResult`` list of the latest call (``None`` for unscored rows).
    """

    def __init__(self, *, weights=None, archive: str | None = None, server: str | None = None,
                 token: str | None = None, name: str = "neocoder", problem_id_column: str = "problem_id",
                 state_column: str = "state", scorer: Scorer | None = None, judge_all_tests: bool = False,
                 language: str = "python"):
        self.__name__ = name
        self.weights = _weights(weights)
        self.archive, self.server, self.token = archive, server, token
        self.judge_all_tests = bool(scorer.judge_all_tests if scorer is not None else judge_all_tests)
        self.language = scorer.language if scorer is not None else language
        self.problem_id_column, self.state_column = problem_id_column, state_column
        self._scorer, self._own_scorer = scorer, False
        self._lock, self._at_exit = threading.Lock(), False
        self.last_results: list[ScoreResult | None] = []

    def __repr__(self) -> str:
        where = self.server or "in-process"
        return f"NeocoderReward(name={self.__name__!r}, {where}, archive={self.archive!r}, weights={self.weights})"

    def scorer(self) -> Scorer | None:
        """The in-process Scorer (opened on first use); ``None`` when scoring through a server."""
        if self.server is not None:
            return None
        with self._lock:
            if self._scorer is None:
                self._scorer = Scorer(judge_all_tests=self.judge_all_tests, language=self.language).__enter__()
                self._own_scorer = True
                if not self._at_exit:
                    atexit.register(self.close)
                    self._at_exit = True
            return self._scorer

    def close(self) -> None:
        """Close the Scorer this function opened (its sandbox); a later call opens a new one."""
        with self._lock:
            scorer, own = self._scorer, self._own_scorer
            self._scorer, self._own_scorer = (None, False) if own else (scorer, False)
        if own and scorer is not None:
            scorer.__exit__(None, None, None)

    def __enter__(self) -> "NeocoderReward":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()  # a copy sent to another process opens its own Scorer
        state.update(_scorer=None, _own_scorer=False, _lock=None, _at_exit=False, last_results=[])
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def items(self, completions: list, columns: dict) -> tuple[list[ScoreItem], list[int]]:
        """The ScoreItems of the rows that name a problem state, and their row indices."""
        for column in (self.problem_id_column, self.state_column):
            if column not in columns:
                raise TypeError(f"{self.__name__}: the dataset has no {column!r} column (the problem state of a "
                                f"row: columns {self.problem_id_column!r} and {self.state_column!r}); got "
                                f"{sorted(columns)}")
        ids, states = columns[self.problem_id_column], columns[self.state_column]
        if not (len(ids) == len(states) == len(completions)):
            raise ValueError(f"{self.__name__}: {len(completions)} completions but {len(ids)} problem ids and "
                             f"{len(states)} states")
        items, rows = [], []
        for row, (completion, pid, state) in enumerate(zip(completions, ids, states)):
            if pid is None or state is None or (isinstance(state, float) and math.isnan(state)):
                continue
            items.append(ScoreItem(problem_id=str(pid), state=int(state), reply=completion_text(completion)))
            rows.append(row)
        return items, rows

    def __call__(self, prompts=None, completions=None, completion_ids=None, **columns) -> list[float | None]:
        """Score ``completions`` (TRL's keyword call); one float or None per completion."""
        if completions is None:
            raise TypeError(f"{self.__name__}: called without completions=")
        items, rows = self.items(list(completions), columns)
        scorer = self.scorer()
        results = score_batch(items, archive=self.archive, weights=self.weights, scorer=scorer, server=self.server,
                              token=self.token, judge_all_tests=None if scorer else self.judge_all_tests,
                              language=None if scorer else self.language) \
            if items else []
        rewards: list[float | None] = [None] * len(completions)
        self.last_results = [None] * len(completions)
        for row, result in zip(rows, results):
            rewards[row] = reward_value(result)
            self.last_results[row] = result
        errors = [r.error for r in results if r.error is not None]
        if results and len(errors) == len(results):
            raise RuntimeError(f"{self.__name__}: no completion of the batch could be scored; first error: "
                               f"{errors[0]}")
        log_metric = columns.get("log_metric")
        if callable(log_metric) and results:
            for key, value in component_means(results).items():
                log_metric(f"{self.__name__}/{key}", value)
        return rewards


def component_means(results: list[ScoreResult]) -> dict[str, float]:
    """The mean of each numeric score component over the results that were scored."""
    sums: dict[str, list[float]] = {}
    for result in results:
        if unscored(result):
            continue
        for key, value in (result.scores or {}).items():
            if isinstance(value, (bool, int, float)) and not (isinstance(value, float) and math.isnan(value)):
                sums.setdefault(key, []).append(float(value))
    return {key: sum(values) / len(values) for key, values in sorted(sums.items())}


def neocoder_reward(*, weights=None, archive: str | None = None, server: str | None = None,
                    token: str | None = None, name: str = "neocoder", judge_all_tests: bool = False,
                    **options) -> NeocoderReward:
    """A reward function for ``GRPOTrainer(reward_funcs=[...])`` (trl 1.16.0's convention):
    ``NeocoderReward`` with these options (see its docstring); in process unless ``server``
    (a ``neocoder serve`` URL) is given."""
    return NeocoderReward(weights=weights, archive=archive, server=server, token=token, name=name,
                          judge_all_tests=judge_all_tests, **options)
