"""C++ rewards (issue 49): TRL's and verl's reward functions score C++ completions in the
real Docker sandbox (compiled, judged, detected with the C++ grammar), and a Python-minded
reward scores the same completion as a broken Python program."""

import pytest

from neocoder.rewards import trl as neo_trl
from neocoder.rewards import verl as neo_verl
from neocoder.techniques import detect
from neocoder.techniques.human import solutions_by_language

pytestmark = pytest.mark.docker


def test_trl_and_verl_score_cpp_completions(release_dir):
    code = next(src for lang, src in solutions_by_language(release_dir, ["1701A"])["1701A"] if lang == "cpp")
    reply = f"```cpp\n{code}\n```"
    broken = "```cpp\nint main( {\n```"
    with neo_trl.NeocoderReward(language="cpp", judge_all_tests=True) as reward:
        got = reward(prompts=["p", "p"], completions=[reply, broken], problem_id=["1701A", "1701A"], state=[0, 0])
        good, bad = reward.last_results
    assert good.scores["correct"] is True and good.sample["techniques"] == sorted(detect(code, "cpp"))
    assert {t["verdict"] for t in bad.sample["examples"]["tests"]} == {"CE"} and bad.scores["correct"] is False
    assert got[0] > got[1]
    with neo_trl.NeocoderReward(judge_all_tests=True) as python_reward:  # the default language is Python
        python_reward(prompts=["p"], completions=[reply], problem_id=["1701A"], state=[0])
        assert python_reward.last_results[0].scores["correct"] is False
    try:
        scored = neo_verl.compute_score("neocoder", reply, "1701A/0", language="cpp")
        assert scored["correct"] == 1.0 and scored["scored"] == 1.0
        assert (False, "cpp") in neo_verl._shared
    finally:
        neo_verl.close_shared_scorer()
