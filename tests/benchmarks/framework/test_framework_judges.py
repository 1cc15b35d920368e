"""The framework's two judges (neocoder/benchmarks/framework/retrieval.py, chateval.py) fed
odd replies by a scripted panel on loopback: an unreadable confidence is left out of the
mean and ranks below every readable one (below 0.0) when the verdict's analyst is chosen,
an unreadable verdict is None with its reason (never NO), the stances are kept per analyst,
and ChatEval's unreadable votes and probabilities are set aside."""

import pytest
from framework_panel import USAGE, prompt_of
from loopback import RespondingServer

from neocoder.benchmarks.framework.chateval import NO_VOTE, TIE, ChatEvalJudge
from neocoder.benchmarks.framework.retrieval import ANALYSTS, JudgeSettings, RetrievalJudge
from neocoder.config import ModelConfig
from neocoder.models import get_model
from neocoder.models.embedders import Embedder

ROLES = ("problem analyst", "solution analyst", "criterion analyst")


class Flat(Embedder):
    name = "flat"

    def _embed(self, texts):
        return [[1.0, float(len(t) % 7)] for t in texts]


def panel(confidence, verdict="[[YES]] it holds", stance=None):
    """A panel: ``confidence[role]`` the text after "Because." of the confidence reply (the
    same every round), ``stance[role]`` its stance marker, ``verdict`` the verdict reply."""
    stance = stance or {r: "([YES])" for r in ROLES}

    def respond(kind, body):
        prompt = prompt_of(kind, body)
        role = next(r for r in ROLES if f"You are the {r}" in prompt)
        if "How sure are you" in prompt:
            return f"Because. {confidence[role]} {stance[role]}", None
        if "Verdict: [[" in prompt:
            return verdict, None
        return "[[POINT]] the rope and ladder hold here\n[[QUESTIONS]]\nTo solution analyst: how tall?", None
    return respond


def judge(respond, **settings):
    with RespondingServer(respond, usage=USAGE) as server:
        with get_model(ModelConfig("openai/panel", base_url=server.url, api_key="k", api="completion")) as model:
            result = RetrievalJudge(model, Flat(), JudgeSettings(**settings)).judge("P", "S", {"safety": "no harm"})
        verdict_asked = [p for p in (prompt_of(k, b) for k, b in server.requests) if "Verdict: [[" in p]
    return result.verdicts["safety"], verdict_asked


def test_an_unreadable_confidence_is_left_out_of_the_mean_and_ranks_below_every_readable_one():
    v, asked = judge(panel({"problem analyst": "[[very]]", "solution analyst": "[[0.3]]",
                            "criterion analyst": "[[0.2]]"}), threshold=0.2, rounds=2)
    assert v["confidence"] == pytest.approx(0.25)  # (0.3 + 0.2) / 2: neither 0 nor 1 for the unreadable one
    assert v["rounds"] == 1  # 0.25 > 0.2: stopped after the first round
    assert v["confidences"] == {"problem analyst": None, "solution analyst": 0.3, "criterion analyst": 0.2}
    assert v["analyst"] == "solution analyst" and len(asked) == 1 and "You are the solution analyst" in asked[0]
    unreadable = [r for r in v["readings"] if r["role"] == "confidence" and r["value"] is None]
    assert [r["analyst"] for r in unreadable] == ["problem analyst"] and unreadable[0]["reason"]


def test_a_readable_zero_outranks_an_unreadable_confidence():
    v, asked = judge(panel({"problem analyst": "no idea", "solution analyst": "[[0.0]]",
                            "criterion analyst": "[[2.5]]"}), threshold=0.5, rounds=2)
    assert v["confidences"] == {"problem analyst": None, "solution analyst": 0.0, "criterion analyst": None}
    assert v["confidence"] == 0.0 and v["rounds"] == 2  # 0 is not above T: both rounds
    assert v["analyst"] == "solution analyst" and "You are the solution analyst" in asked[0]


def test_with_no_readable_confidence_there_is_no_early_stop_and_the_first_analyst_gives_the_verdict():
    v, asked = judge(panel({r: "[[<certainty>]]" for r in ROLES}), threshold=0.0, rounds=3)
    assert v["confidence"] is None and v["rounds"] == 3
    assert v["analyst"] == ANALYSTS[0] and "You are the problem analyst" in asked[0]
    assert all(r["reason"] for r in v["readings"] if r["role"] == "confidence")


def test_the_most_confident_analyst_wins_and_equal_ones_go_to_the_first():
    v, _ = judge(panel({"problem analyst": "[[0.4]]", "solution analyst": "[[0.9]]",
                        "criterion analyst": "[[0.9]]"}), threshold=0.99, rounds=1)
    assert v["analyst"] == "solution analyst" and v["confidence"] == pytest.approx(2.2 / 3)
    v, _ = judge(panel({"problem analyst": "[[0.4]]", "solution analyst": "[[0.5]]",
                        "criterion analyst": "[[0.6]]"}), threshold=0.5, rounds=3)
    assert v["analyst"] == "criterion analyst" and v["rounds"] == 3  # mean 0.5 is not above T = 0.5


def test_stances_are_kept_per_analyst_and_an_unreadable_one_is_none():
    v, _ = judge(panel({r: "[[0.9]]" for r in ROLES},
                       stance={"problem analyst": "([YES])", "solution analyst": "([NO])",
                               "criterion analyst": "(maybe)"}))
    assert v["stances"] == {"problem analyst": True, "solution analyst": False, "criterion analyst": None}
    stance = [r for r in v["readings"] if r["role"] == "stance"]
    assert [(r["analyst"], r["value"]) for r in stance] == [("problem analyst", "YES"), ("solution analyst", "NO"),
                                                            ("criterion analyst", None)]
    assert stance[2]["reason"] and stance[0]["reason"] is None


@pytest.mark.parametrize("reply, verdict", [("NO]] it does not", False), ("YES]] fine", True),
                                            ("I cannot say.", None), ("[[<verdict>]]", None)])
def test_an_unreadable_verdict_is_none_with_its_reason_never_no(reply, verdict):
    v, _ = judge(panel({r: "[[0.9]]" for r in ROLES}, verdict=reply))
    assert v["verdict"] is verdict
    assert (v["reason"] is None) == (verdict is not None)
    assert v["readings"][-1]["role"] == "verdict" and v["readings"][-1]["value"] == (
        None if verdict is None else ("YES" if verdict else "NO"))


def chateval(finals, rounds=1):
    votes = iter(finals)

    def respond(kind, body):
        if "Judgement: [[" in prompt_of(kind, body):
            return next(votes), None
        return "I think it works because the ladder is tall.", None
    with RespondingServer(respond, usage=USAGE) as server:
        with get_model(ModelConfig("openai/ce", base_url=server.url, api_key="k", api="completion")) as model:
            result = ChatEvalJudge(model, JudgeSettings(chateval_rounds=rounds)).judge("P", "S", {"c": "d"})
    return result.verdicts["c"], result.cost


def test_chateval_sets_unreadable_votes_and_probabilities_aside():
    v, cost = chateval(["NO]] ([0.2])", "maybe ([0.9])", "NO]] ([high])"])
    assert v["votes"] == [False, None, False] and v["verdict"] is False and v["reason"] is None
    assert v["probabilities"] == [0.2, 0.9, None] and v["confidence"] == pytest.approx(0.55)
    assert cost["calls"] == 6  # one round of three turns, three finals
    unreadable = [(r["role"], r["analyst"]) for r in v["readings"] if r["value"] is None]
    assert unreadable == [("verdict", "solution analyst"), ("probability", "criterion analyst")]


def test_chateval_tie_and_no_readable_vote_are_told_apart():
    v, _ = chateval(["YES]] ([0.8])", "NO]] ([0.3])", "??"], rounds=2)
    assert v["verdict"] is None and v["reason"] == TIE and v["confidence"] == pytest.approx(0.55)
    v, _ = chateval(["??", "nothing", "[[<verdict>]] ([<probability>])"])
    assert v["verdict"] is None and v["reason"] == NO_VOTE and v["confidence"] is None
