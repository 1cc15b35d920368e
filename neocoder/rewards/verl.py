"""NeoCoder as a verl custom reward function (``custom_reward_function.path`` / ``.name``).

Written against **verl 0.9.1**.  verl calls a custom reward in one of two ways:

* per sample, ``compute_score`` (the reward loop's ``NaiveRewardManager``, the default:
  ``verl/experimental/reward_loop/reward_manager/naive.py``, and the legacy
  ``verl/workers/reward_manager/naive.py``), from a thread pool (``run_in_executor``), so
  calls may overlap::

      compute_score(data_source=str, solution_str=str, ground_truth=<reward_model.ground_truth>,
                    extra_info=<extra_info dict, plus "num_turns" and "rollout_reward_scores">)

* batched, ``compute_score_batch`` (``reward_manager=batch``:
  ``verl/workers/reward_manager/batch.py``, ``BatchRewardManager.verify``)::

      compute_score_batch(data_sources=np.ndarray, solution_strs=[str], ground_truths=[...],
                          extra_infos=np.ndarray of dicts (each plus "rollout_reward_scores"),
                          **reward_kwargs)

Configure it as ``custom_reward_function.path=pkg://neocoder.rewards.verl`` (or the file's
path) and ``custom_reward_function.name=compute_score`` (or ``compute_score_batch`` with
``reward_model.reward_manager=batch``).  In both, ``custom_reward_function.reward_kwargs``
from the config are merged into the call's keywords (``verl/trainer/ppo/reward.py``,
``_call_with_kwargs``); the options here come that way: ``weights`` (a mapping of
``RewardWeights`` fields), ``archive`` (an archive name), ``judge_all_tests`` (default
False: each test tier stops at its first failure; the same rewards, about ten times
faster), ``server`` and ``token`` (a ``neocoder serve`` URL; the token defaults to
``$NEOCODER_TOKEN``, so it need not sit in a config file).  Without ``server`` the score is
computed in process by one ``Scorer`` shared by every call of the process (opened on first
use, closed at exit).

**Which problem state** a sample answers is named by the dataset row, either way:

* ``extra_info = {"problem_id": "1901A", "state": 0, ...}`` (other keys are ignored), or
* ``ground_truth = "1901A/0"`` (``"<problem_id>/<t>"``), or a mapping with the two keys.

``extra_info`` wins when it names both; a row naming two different states is an error.
``data_source`` is not read (verl uses it to group metrics; ``"neocoder"`` is natural).

The answer is a dict: ``"score"`` (``ScoreResult.reward``; 0.0 for a sample that could not be
scored: an ``error`` such as an unknown state, or a sandbox failure, ``infra``), ``"scored"``
(1.0, or 0.0 then: verl has no "not applicable", so filter on it), and every score component
(``COMPONENTS`` as 0.0 / 1.0 / a ratio; 0.0 when absent or None): the same keys for every sample, as verl's managers
collect them into per-key lists (``reward_extra_info``).  The response is scored as a *reply*
(its fenced code, or all of it).
"""

from __future__ import annotations

import atexit
import math
import re
import threading
from collections.abc import Mapping

# absolute, so verl may also load this module by file path (load_module: spec_from_file_location)
from neocoder.rewards import RewardWeights, ScoreItem, Scorer, ScoreResult, score_batch

VERL_VERSION = "0.9.1"  # the verl whose reward managers this follows
# the score components reported beside "score" (the keys of ScoreResult.scores / POST /v1/score)
COMPONENTS = ("correct", "correct_plus", "follows", "convergent", "divergent", "neogauge", "excluded", "infra")
_GROUND_TRUTH = re.compile(r"^\s*([^/\s]+)\s*/\s*(\d+)\s*$")

_shared: dict[tuple, Scorer] = {}  # the process's in-process Scorers, by (judge_all_tests, language)
_shared_lock = threading.Lock()


def problem_state(ground_truth=None, extra_info=None) -> tuple[str, int]:
    """``(problem_id, t)`` named by a verl row: ``extra_info`` {"problem_id", "state"} or
    ``ground_truth`` "1901A/0" (or a mapping with those keys).  Raises ValueError when the
    row names none, or two different ones."""
    found = []
    if isinstance(extra_info, Mapping) and extra_info.get("problem_id") is not None \
            and extra_info.get("state") is not None:
        found.append((str(extra_info["problem_id"]), int(extra_info["state"])))
    if isinstance(ground_truth, Mapping) and ground_truth.get("problem_id") is not None:
        found.append((str(ground_truth["problem_id"]), int(ground_truth["state"])))
    elif isinstance(ground_truth, str) and (m := _GROUND_TRUTH.match(ground_truth)):
        found.append((m.group(1), int(m.group(2))))
    if not found:
        raise ValueError(f"no problem state in ground_truth={ground_truth!r} / extra_info: expected "
                         f"ground_truth '<problem_id>/<t>' or extra_info {{'problem_id', 'state'}}")
    if len(set(found)) > 1:
        raise ValueError(f"ground_truth and extra_info name different problem states: {found}")
    return found[0]


def shared_scorer(judge_all_tests: bool = False, language: str = "python") -> Scorer:
    """The process's in-process Scorer for verl's calls with this ``judge_all_tests`` and
    ``language`` (opened on first use, shared by every thread, closed at exit)."""
    key = (judge_all_tests, language)
    with _shared_lock:
        if not _shared:
            atexit.register(close_shared_scorer)
        if key not in _shared:
            _shared[key] = Scorer(judge_all_tests=judge_all_tests, language=language).__enter__()
        return _shared[key]


def close_shared_scorer() -> None:
    """Close the shared Scorers (their sandboxes); the next call opens a new one."""
    with _shared_lock:
        scorers = list(_shared.values())
        _shared.clear()
    for scorer in scorers:
        scorer.__exit__(None, None, None)


def _weights(weights) -> RewardWeights:
    if isinstance(weights, RewardWeights):
        return weights  # else a mapping (an OmegaConf DictConfig from verl's config included)
    return RewardWeights.from_dict({str(k): float(v) for k, v in dict(weights).items()} if weights else None)


def as_verl(result: ScoreResult) -> dict:
    """The dict verl gets for one result: "score", "scored" and every component of COMPONENTS."""
    scores = result.scores or {}
    scored = (result.error is None and not scores.get("infra") and not scores.get("excluded")
              and result.reward is not None and not math.isnan(result.reward))
    out = {"score": float(result.reward) if scored else 0.0, "scored": 1.0 if scored else 0.0}
    for key in COMPONENTS:
        value = scores.get(key)
        out[key] = float(value) if scored and isinstance(value, (bool, int, float)) else 0.0
    return out


def _score(items: list[ScoreItem], weights, archive, server, token, judge_all_tests,
           language: str = "python") -> list[dict]:
    every = bool(judge_all_tests)
    scorer = None if server else shared_scorer(every, language)
    results = score_batch(items, archive=archive, weights=_weights(weights), scorer=scorer, server=server,
                          token=token, judge_all_tests=None if scorer else every,
                          language=None if scorer else language)
    return [as_verl(r) for r in results]


def compute_score(data_source, solution_str, ground_truth, extra_info=None, *, weights=None,
                  archive: str | None = None, server: str | None = None, token: str | None = None,
                  judge_all_tests: bool = False, language: str = "python", **kwargs) -> dict:
    """verl's per-sample custom reward: the NeoCoder reward of ``solution_str`` as a reply to
    the problem state the row names (module docstring).  Returns ``{"score", "scored",
    <components>}``.  Other keywords verl passes (``reward_router_address``, ...) are ignored."""
    problem_id, state = problem_state(ground_truth, extra_info)
    return _score([ScoreItem(problem_id=problem_id, state=state, reply=solution_str or "")],
                  weights, archive, server, token, judge_all_tests, language)[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, *, weights=None,
                        archive: str | None = None, server: str | None = None, token: str | None = None,
                        judge_all_tests: bool = False, language: str = "python", **kwargs) -> list[dict]:
    """verl's batched custom reward (``reward_manager=batch``): lists (or numpy object arrays)
    in, one ``compute_score`` dict per sample out, in order; the whole batch is scored by one
    ``score_batch`` call."""
    solution_strs = list(solution_strs)
    ground_truths = list(ground_truths) if ground_truths is not None else [None] * len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not (len(ground_truths) == len(extra_infos) == len(solution_strs)):
        raise ValueError(f"{len(solution_strs)} solutions, {len(ground_truths)} ground truths, "
                         f"{len(extra_infos)} extra infos")
    items = []
    for text, truth, extra in zip(solution_strs, ground_truths, extra_infos):
        problem_id, state = problem_state(truth, extra)
        items.append(ScoreItem(problem_id=problem_id, state=state, reply=text or ""))
    return _score(items, weights, archive, server, token, judge_all_tests, language) if items else []
