"""The NeoCoder reward in TRL: a real ``GRPOTrainer`` (trl 1.16) trains a tiny randomly
initialised Llama for two steps on CPU, on real problem states of the shipped dataset, with
``neocoder.rewards.trl.neocoder_reward`` judging every completion in the real Docker sandbox.

A random model writes junk, so a test-only wrapper (``WithRecorded``) gives the rewards
something to find: the first completion of each prompt's group gets GPT-4's recorded program
for that state appended (a fenced block, which the reply's program extraction takes), the
second stays junk.  The assertion that matters: what TRL logged under
``rewards/neocoder/mean`` for each step equals the mean of ``score_batch`` recomputed, in
another Scorer, on exactly the replies the trainer's call scored.
"""

import math
import pickle
import tempfile

import pytest
import torch
from datasets import Dataset
from recorded import char_tokenizer, recorded_program, shipped_states
from transformers import LlamaConfig, LlamaForCausalLM
from trl import GRPOConfig, GRPOTrainer

from neocoder.rewards import RewardWeights, ScoreItem, score_batch
from neocoder.rewards.trl import NeocoderReward, completion_text, neocoder_reward

# States whose recorded GPT-4 program is correct on every shipped test (so the rewarded
# completions earn more than correctness: 1878A/0 is divergent, 1843C/2 follows two denials)
STATES = [("1878A", 0), ("1843C", 2)]


def tiny_model(vocab_size: int) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=8192,
                         pad_token_id=0, eos_token_id=1, bos_token_id=None)
    return LlamaForCausalLM(config)


def with_program(junk: str, program: str) -> str:
    """A reply: the junk completion (its backticks dropped, so it opens no fence), then the program fenced."""
    return junk.replace("`", "") + "\n```python\n" + program + "\n```\n"


class WithRecorded:
    """Test-only reward function: records each TRL call, appends the recorded program to the
    even-indexed completions, and hands the result to the real NeoCoder reward."""

    __name__ = "neocoder"

    def __init__(self, reward: NeocoderReward, programs: dict):
        self.reward, self.programs = reward, programs
        self.calls, self.returned = [], []

    def replies(self, completions, problem_ids, states) -> list[str]:
        return [with_program(c, self.programs[(pid, int(t))]) if i % 2 == 0 else c
                for i, (c, pid, t) in enumerate(zip(completions, problem_ids, states))]

    def __call__(self, prompts, completions, completion_ids, **columns):
        replies = self.replies(completions, columns["problem_id"], columns["state"])
        self.calls.append({"prompts": list(prompts), "completions": list(completions), "replies": replies,
                           "problem_id": list(columns["problem_id"]), "state": list(columns["state"]),
                           "extra": sorted(k for k in columns if k not in ("problem_id", "state"))})
        out = self.reward(prompts=prompts, completions=replies, completion_ids=completion_ids, **columns)
        self.returned.append(out)
        return out


@pytest.mark.docker
def test_grpo_trainer_logs_the_neocoder_reward_score_batch_gives():
    states = shipped_states(STATES)
    programs = {(s.problem_id, s.state): recorded_program(s) for s in states}
    tokenizer = char_tokenizer([s.statement for s in states] + list(programs.values()))
    dataset = Dataset.from_list([{"prompt": s.statement, "problem_id": s.problem_id, "state": s.state}
                                 for s in states])
    weights = RewardWeights(correct=1.0, follows=0.5, divergent=0.25, novelty=0.0)
    with neocoder_reward(weights=weights) as reward, tempfile.TemporaryDirectory() as out:
        func = WithRecorded(reward, programs)
        args = GRPOConfig(output_dir=out, max_steps=2, per_device_train_batch_size=2, num_generations=2,
                          max_completion_length=12, logging_steps=1, report_to="none", use_cpu=True,
                          save_strategy="no", seed=0, disable_tqdm=True)
        trainer = GRPOTrainer(model=tiny_model(len(tokenizer)), processing_class=tokenizer, reward_funcs=[func],
                              train_dataset=dataset, args=args)
        trainer.train()
    assert trainer.state.global_step == 2
    logged = [h for h in trainer.state.log_history if "rewards/neocoder/mean" in h]
    assert len(logged) == len(func.calls) == 2, (trainer.state.log_history, func.calls)

    statements = {(s.problem_id, s.state): s.statement for s in states}
    for call in func.calls:  # TRL's convention: one entry per completion, the dataset's columns as keywords
        assert len(call["completions"]) == 2 and len(set(zip(call["problem_id"], call["state"]))) == 1
        assert call["prompts"] == [statements[(call["problem_id"][0], call["state"][0])]] * 2
        assert {"trainer_state", "log_metric", "log_extra"} <= set(call["extra"])
    assert {(c["problem_id"][0], c["state"][0]) for c in func.calls} == set(STATES)

    for call, returned, log in zip(func.calls, func.returned, logged):
        items = [ScoreItem(pid, t, reply=r) for pid, t, r in zip(call["problem_id"], call["state"], call["replies"])]
        again = score_batch(items, weights=weights)  # a Scorer of its own: not the trainer's
        assert [r.error for r in again] == [None, None]
        assert returned == pytest.approx([r.reward for r in again], abs=1e-6)
        assert log["rewards/neocoder/mean"] == pytest.approx(sum(r.reward for r in again) / 2, abs=1e-5)
        assert again[0].reward >= 1.0 and again[0].scores["correct"]  # the recorded program: correct
        assert again[1].reward == 0.0 and not again[1].scores["correct"]  # the junk
        assert log["neocoder/correct"] == pytest.approx(0.5)  # log_metric: the components' means
        assert log["rewards/neocoder/std"] > 0  # a real signal: the group's advantages are not all 0


@pytest.mark.docker
def test_reward_calling_conventions_and_unscored_rows():
    state = shipped_states([STATES[0]])[0]
    program = recorded_program(state)
    conversational = [[{"role": "assistant", "content": "```python\n" + program + "\n```"}],
                      [{"role": "assistant", "content": [{"type": "text", "text": "no code here"}]}],
                      "```python\n" + program + "\n```"]
    assert completion_text(conversational[1]) == "no code here"
    with neocoder_reward(name="neo", weights={"novelty": 0.0}) as reward:
        assert reward.__name__ == "neo"
        got = reward(prompts=["p"] * 4, completions=conversational + ["x"], completion_ids=[[1]] * 4,
                     problem_id=[state.problem_id] * 3 + [None], state=[state.state] * 3 + [None])
        assert got[3] is None and reward.last_results[3] is None  # a row with no problem state
        assert got[0] == got[2] and got[0] >= 1.0 and got[1] == 0.0
        with pytest.raises(TypeError, match="'state' column"):
            reward(prompts=["p"], completions=["x"], completion_ids=[[1]], problem_id=[state.problem_id])
        with pytest.raises(RuntimeError, match="no completion of the batch could be scored"):
            reward(prompts=["p"], completions=["x"], completion_ids=[[1]], problem_id=["0000Z"], state=[0])
        copy = pickle.loads(pickle.dumps(reward))  # TRL's picklable reward forms: the copy opens its own Scorer
        assert copy.__name__ == "neo" and copy._scorer is None
    assert reward._scorer is None  # closed at the end of the with block
    assert all(not math.isnan(x) for x in got[:3])


@pytest.mark.docker
def test_reward_functions_through_a_server_equal_in_process(tmp_path, release_dir):
    """The TRL and verl reward functions with ``server=``: the batch goes to a real ``neocoder
    serve`` (its shipped dataset, POST /v1/score with items) and the rewards are the in-process ones."""
    from servers import TOKEN, ServerProcess

    import neocoder.rewards.verl as neo_verl
    states = shipped_states(STATES)
    replies = [with_program("", recorded_program(s)) for s in states] + ["print(", "no code"]
    columns = {"problem_id": [s.problem_id for s in states] * 2, "state": [s.state for s in states] * 2}
    call = {"prompts": ["p"] * 4, "completions": replies, "completion_ids": [[1]] * 4, **columns}
    with neocoder_reward(weights={"novelty": 0.0}) as local:
        want = local(**call)
    assert want[0] >= 1.0 and want[1] >= 1.0 and want[2:] == [0.0, 0.0]
    server = ServerProcess(tmp_path / "data", release_dir, "--workers", "2").start()
    try:
        remote = neocoder_reward(weights={"novelty": 0.0}, server=server.url, token=TOKEN)
        assert remote(**call) == pytest.approx(want) and remote._scorer is None
        got = neo_verl.compute_score_batch(["neocoder"] * 4, replies, [f"{p}/{t}" for p, t in zip(*columns.values())],
                                           [{}] * 4, weights={"novelty": 0.0}, server=server.url, token=TOKEN)
        assert [g["score"] for g in got] == pytest.approx(want) and neo_verl._shared == {}
    finally:
        assert server.stop(), server.log.read_text()
