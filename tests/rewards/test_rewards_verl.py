"""The NeoCoder reward as verl 0.9.1 calls a custom reward function, judged in the real sandbox.

verl's own code runs here where it can: ``get_custom_reward_fn`` loads the function from the
config (``pkg://`` and file paths, ``reward_kwargs`` merged as an OmegaConf mapping), and the
``BatchRewardManager`` (``reward_manager=batch``) and the legacy ``NaiveRewardManager`` score a
real ``DataProto``: they decode the responses with a tokenizer and call the function with
their own keywords.  scripts/setup.sh installs verl with ``--no-deps`` and only the few
packages these modules import (tensordict with cloudpickle and pyvers, omegaconf; ray comes
with the ``ray`` extra), since verl's own pins (transformers < 5.11, vllm, ...) clash with trl's.

The reward loop's ``NaiveRewardManager`` (``verl/experimental/reward_loop``, 0.9.1's default)
cannot be imported without its heavy dependencies (aiohttp, its Ray resource pools, the
rollout replicas), so its call is reproduced: the same keywords (``data_source``,
``solution_str``, ``ground_truth``, ``extra_info`` with ``num_turns`` and
``rollout_reward_scores`` added), from a thread pool as its ``run_in_executor`` does.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from recorded import char_tokenizer, recorded_program, shipped_states
from verl import DataProto
from verl.trainer.ppo.reward import get_custom_reward_fn
from verl.workers.reward_manager.batch import BatchRewardManager
from verl.workers.reward_manager.naive import NaiveRewardManager

import neocoder.rewards.verl as neo_verl
from neocoder.rewards import RewardWeights, ScoreItem, score_batch

WEIGHTS = {"correct": 1.0, "follows": 0.5, "divergent": 0.25, "novelty": 0.0}


def fenced(program: str) -> str:
    return "Here is my solution.\n```python\n" + program + "\n```\n"


@pytest.fixture(scope="module")
def rows():
    """Four verl rows: (reply, ground_truth, extra_info, (problem_id, t)); the state named by
    ground_truth, by extra_info, or both; two recorded GPT-4 programs that pass, one that
    passes but breaks its constraints, and junk."""
    a, b, c = shipped_states([("1878A", 0), ("1843C", 2), ("1873A", 2)])
    return [
        (fenced(recorded_program(a)), "1878A/0", {}, ("1878A", 0)),
        (fenced(recorded_program(b)), None, {"problem_id": "1843C", "state": 2, "index": 7}, ("1843C", 2)),
        ("def solve(:\n    print(", "1873A/2", {"problem_id": "1873A", "state": 2}, ("1873A", 2)),
        (fenced(recorded_program(c)), {"problem_id": "1873A", "state": 2}, {}, ("1873A", 2)),
    ]


@pytest.fixture(scope="module")
def expected(rows):
    """score_batch on the same replies, in a Scorer of its own."""
    items = [ScoreItem(pid, t, reply=reply) for reply, _, _, (pid, t) in rows]
    results = score_batch(items, weights=RewardWeights.from_dict(WEIGHTS))
    assert [r.error for r in results] == [None] * 4
    rewards = [r.reward for r in results]
    assert rewards[0] >= 1.5 and rewards[1] >= 1.5 and rewards[2] == 0.0  # two pass and follow, junk fails
    assert 1.0 <= rewards[3] < 1.5 and not results[3].scores["follows"]  # passes, breaks a denial
    return results


def data_proto(rows, tokenizer) -> DataProto:
    """A verl batch as the rollout leaves it: left-padded prompts, right-padded responses."""
    prompts = [tokenizer(f"Solve {pid} at state {t}.")["input_ids"] for *_, (pid, t) in rows]
    responses = [tokenizer(reply)["input_ids"] for reply, *_ in rows]
    assert all(tokenizer.decode(r, skip_special_tokens=True) == row[0] for r, row in zip(responses, rows))
    p_len, r_len, pad = max(map(len, prompts)), max(map(len, responses)), tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompts])
    response_ids = torch.tensor([r + [pad] * (r_len - len(r)) for r in responses])
    mask = torch.tensor([[0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
                         for p, r in zip(prompts, responses)])
    return DataProto.from_dict(
        tensors={"prompts": prompt_ids, "responses": response_ids, "attention_mask": mask,
                 "input_ids": torch.cat([prompt_ids, response_ids], dim=1)},
        non_tensors={"data_source": np.array(["neocoder"] * len(rows), dtype=object),
                     "reward_model": np.array([{"ground_truth": gt} for _, gt, _, _ in rows], dtype=object),
                     "extra_info": np.array([dict(extra) for _, _, extra, _ in rows], dtype=object)})


def verl_config(path: str, name: str):
    return OmegaConf.create({"reward": {"custom_reward_function": {"path": path, "name": name,
                                                                    "reward_kwargs": {"weights": WEIGHTS}}}})


def check(output, rows, expected, tokenizer):
    """A manager's return_dict output against score_batch: the reward at each response's last
    valid token, and every extra key reported for every row."""
    tensor, extra = output["reward_tensor"], output["reward_extra_info"]
    for i, (reply, *_ ) in enumerate(rows):
        last = len(tokenizer(reply)["input_ids"]) - 1
        assert tensor[i, last].item() == pytest.approx(expected[i].reward, abs=1e-6)
        assert tensor[i].sum().item() == pytest.approx(expected[i].reward, abs=1e-6)
    assert set(extra) >= {"score", "scored", *neo_verl.COMPONENTS}
    assert all(len(values) == len(rows) for values in extra.values())
    assert extra["score"] == pytest.approx([r.reward for r in expected])
    assert extra["scored"] == [1.0] * len(rows)
    assert extra["correct"] == [float(r.scores["correct"]) for r in expected]
    assert extra["follows"] == [float(r.scores["follows"]) for r in expected]


@pytest.mark.docker
def test_batch_reward_manager_scores_as_score_batch(rows, expected):
    tokenizer = char_tokenizer([r[0] for r in rows] + ["Solve at state ./0123456789ACZ"])
    fn = get_custom_reward_fn(verl_config("pkg://neocoder.rewards.verl", "compute_score_batch"))
    manager = BatchRewardManager(tokenizer, num_examine=0, compute_score=fn)
    check(manager(data_proto(rows, tokenizer), return_dict=True), rows, expected, tokenizer)


@pytest.mark.docker
def test_naive_reward_manager_loads_the_file_and_scores_per_sample(rows, expected):
    tokenizer = char_tokenizer([r[0] for r in rows] + ["Solve at state ./0123456789ACZ"])
    fn = get_custom_reward_fn(verl_config(os.path.abspath(neo_verl.__file__), "compute_score"))
    manager = NaiveRewardManager(tokenizer, num_examine=0, compute_score=fn)
    check(manager(data_proto(rows, tokenizer), return_dict=True), rows, expected, tokenizer)


@pytest.mark.docker
def test_reward_loop_call_from_threads_shares_one_scorer(rows, expected):
    neo_verl.close_shared_scorer()

    def call(row):  # the keywords of verl/experimental/reward_loop/reward_manager/naive.py's run_single
        reply, ground_truth, extra, _ = row
        extra_info = dict(extra, num_turns=None, rollout_reward_scores={})
        return neo_verl.compute_score(data_source="neocoder", solution_str=reply, ground_truth=ground_truth,
                                      extra_info=extra_info, weights=WEIGHTS)

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(call, rows))
    assert [g["score"] for g in got] == pytest.approx([r.reward for r in expected])
    assert list(neo_verl._shared) == [(False, "python")]  # one Scorer (fail-fast), opened by the first call, kept
    first = neo_verl._shared[(False, "python")]
    neo_verl.compute_score("neocoder", rows[0][0], rows[0][1])
    assert neo_verl._shared == {(False, "python"): first}
    neo_verl.close_shared_scorer()
    assert neo_verl._shared == {}


def test_problem_state_formats_and_errors():
    assert neo_verl.problem_state("1901A/0") == ("1901A", 0)
    assert neo_verl.problem_state(" 1901A / 3 ", {"problem_id": "1901A", "state": 3}) == ("1901A", 3)
    assert neo_verl.problem_state(None, {"problem_id": "1901A", "state": "2"}) == ("1901A", 2)
    assert neo_verl.problem_state({"problem_id": "1899A", "state": 1}, {"index": 3}) == ("1899A", 1)
    with pytest.raises(ValueError, match="different problem states"):
        neo_verl.problem_state("1901A/0", {"problem_id": "1901A", "state": 1})
    with pytest.raises(ValueError, match="no problem state"):
        neo_verl.problem_state("42", {"rollout_reward_scores": {}})


@pytest.mark.docker
def test_unknown_state_scores_zero_and_unscored():
    got = neo_verl.compute_score_batch(data_sources=np.array(["neocoder"], dtype=object), solution_strs=["x"],
                                       ground_truths=["0000Z/0"], extra_infos=np.array([{}], dtype=object))
    assert got == [dict({"score": 0.0, "scored": 0.0}, **{k: 0.0 for k in neo_verl.COMPONENTS})]
    neo_verl.close_shared_scorer()
