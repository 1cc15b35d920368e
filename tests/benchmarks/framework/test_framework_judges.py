"""The framework's two judges (neocoder/benchmarks/framework/retrieval.py, chateval.py) fed
odd replies by a scripted panel on loopback: an unreadable confidence is left out of the
mean and ranks below every readable one (below 0.0) when the verdict's analyst is chosen,
an unreadable verdict is None with its reason (never NO), the stances are kept per analyst,
and ChatEval's unreadable votes and probabilities are set aside."""

import pytest
from framework_panel import USAGE, prompt_of
from loopback import RespondingServer

from neocoder.benchmarks.framework.chateval import NO_VOTE, TIE, ChatEvalJudge
from neocoder.benchmarks.framework.retrieval import ANALYSTS, FOCUS, QUERY, JudgeSettings, RetrievalJudge
from neocoder.config import ModelConfig
from neocoder.models import get_model
from neocoder.models.embedders import Embedder

ROLES = ("problem analyst", "solution analyst", "criterion analyst")


class Flat(Embedder):
    name = "flat"

    def _embed(self, texts):
        return [[1.0, float(len(t) % 7)] for t in texts]


class Recording(Flat):
    """Flat vectors, keeping every text embedded (fragments and retrieval queries)."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def _embed(self, texts):
        self.seen += texts
        return super()._embed(texts)


DISCUSSION = "[[POINT]] the rope and ladder hold here\n[[QUESTIONS]]\nTo solution analyst: how tall?"


def panel(confidence, verdict="[[YES]] it holds", stance=None, discussion=DISCUSSION):
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
        return discussion, None
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


# ----------------------------------------------------------------------------------------
# the whole conversation: what each prompt holds, the budget sent, the transcript kept

PROBLEM, SOLUTION, CRITERION, DEFINITION = "Reach the high shelf.", "Step 1: climb the ladder.", "safety", "no harm"


def recording(respond):
    """A server answering ``respond`` that keeps (prompt, max_tokens) of every call."""
    server = RespondingServer(respond, usage=USAGE)
    server.asked = []
    server.log = lambda kind, body: server.asked.append((prompt_of(kind, body), body.get("max_tokens")))
    return server


def test_the_retrieval_judge_fills_every_prompt_and_keeps_the_transcript():
    respond = panel({"problem analyst": "[[0.2]]", "solution analyst": "[[0.9]]", "criterion analyst": "[[0.4]]"})
    settings = JudgeSettings(rounds=1, threshold=0.99, words=37, judge_tokens=77, discuss_k=3, score_j=2, verdict_l=5)
    with recording(respond) as server:
        with get_model(ModelConfig("openai/panel", base_url=server.url, api_key="k", api="completion")) as model:
            embedder = Recording()
            result = RetrievalJudge(model, embedder, settings).judge(PROBLEM, SOLUTION, {CRITERION: DEFINITION})
    prompts = [p for p, _ in server.asked]
    assert {t for _, t in server.asked} == {77}  # the judge's own budget on every call
    assert all("{" not in p for p in prompts)  # every placeholder filled
    assert all(PROBLEM in p and SOLUTION in p for p in prompts)
    assert all(f"{CRITERION}: {DEFINITION}" in p or (CRITERION in p and DEFINITION in p) for p in prompts)
    assert all("37" in p for p in prompts[:6])  # the word budget of the initial and discussion replies
    steps = [(t["phase"], t["analyst"], t.get("criterion"), t.get("round")) for t in result.transcript]
    assert steps == [("init", "problem analyst", None, None), ("init", "solution analyst", None, None),
                     ("init", "criterion analyst", CRITERION, None),
                     *[("discuss", a, CRITERION, 1) for a in ANALYSTS],
                     *[("confidence", a, CRITERION, 1) for a in ANALYSTS],
                     ("verdict", "solution analyst", CRITERION, None)]
    # GET's k, j and l: 3 fragments for each discussion reply, 2 for a certainty, 5 for the verdict
    assert [len(t["retrieved"]) for t in result.transcript[3:]] == [3, 3, 3, 2, 2, 2, 5]
    assert len(result.transcript) == result.cost["calls"] == len(prompts)
    discuss = prompts[3:6]
    asked = "Questions the other analysts asked:\n"
    assert asked + "(none)\n" in discuss[0]  # nobody has asked yet
    assert asked + "To solution analyst: how tall?\n" in discuss[1]  # the problem analyst's, shown to the next
    assert asked + "To solution analyst: how tall?\nTo solution analyst: how tall?\n" in discuss[2]  # both others'
    # the retrieval query of each discussion: the analyst's own query and the others' questions
    queries = [q for q in embedder.seen if any(q.startswith(QUERY[a]) for a in ANALYSTS)]
    assert queries[:3] == [QUERY["problem analyst"], QUERY["solution analyst"] + " To solution analyst: how tall?",
                           QUERY["criterion analyst"] + " To solution analyst: how tall?" * 2]
    for a, p in zip(ANALYSTS, prompts[:2]):
        assert FOCUS[a] in p  # each analyst's own focus, from the first prompt on
    assert FOCUS["criterion analyst"] in prompts[2]
    for a, p in zip(ANALYSTS * 2 + ("solution analyst",), prompts[3:]):  # discussion, certainty, verdict
        assert FOCUS[a] in p and all(FOCUS[b] not in p for b in ANALYSTS if b != a)
    assert "- (problem analyst) the rope and ladder hold here" in discuss[0]  # fragments with their authors
    for a, p in zip(ANALYSTS, discuss):
        assert f"You are the {a}" in p
    assert result.transcript[6]["readings"]["retrieval confidence"] == {"value": 0.2, "reason": None}
    v = result.verdicts[CRITERION]
    assert all(set(r) >= {"role", "analyst", "value", "reason"} for r in v["readings"])
    assert [r["round"] for r in v["readings"] if r["role"] != "verdict"] == [1] * 6
    assert v["readings"][-1]["analyst"] == "solution analyst"  # the verdict's reading names who gave it
    assert "- (problem analyst) the rope and ladder hold here" in prompts[-1]  # the verdict sees its fragments


def test_a_confidence_reply_copied_from_its_prompt_is_an_echo_not_a_stance():
    """A confidence reply that is a line of its own prompt (a fragment holding another
    analyst's "([NO])") is an echo: neither a certainty nor a stance."""
    def respond(kind, body):
        prompt = prompt_of(kind, body)
        if "How sure are you" in prompt:
            return next(li for li in prompt.splitlines() if "([NO])" in li), None
        if "Verdict: [[" in prompt:
            return "YES]] fine", None
        return "[[POINT]] the ladder is risky ([NO]) on wet floors", None
    v, _ = judge(respond, rounds=1)
    assert v["stances"] == {a: None for a in ANALYSTS} and v["confidences"] == {a: None for a in ANALYSTS}
    assert {r["reason"] for r in v["readings"] if r["role"] in ("confidence", "stance")} == {"echo"}


def test_fragments_and_questions_of_a_reply():
    from neocoder.benchmarks.framework.retrieval import FragmentIndex, fragments_of, questions_of
    reply = "[[ANSWERS]] 1. use the long rope\n- two words\n* three words here\n[[OPINION]]: " + "x " * 300
    frags = fragments_of(reply)
    assert frags[:2] == ["use the long rope", "three words here"] and len(frags[2]) == 400
    assert fragments_of("one two", limit=5) == [] and fragments_of("a b c d e f", limit=5) == ["a b c"]
    # after the first [[QUESTIONS]] only (a second one is no question), list marks stripped
    assert questions_of("Is it safe?\n[[QUESTIONS]]\n- * How tall?\nnot a question\n[[QUESTIONS]]\nWhy?") == [
        "How tall?", "Why?"]
    assert questions_of("Is it safe?\nok\n  - Why?  ") == ["Is it safe?", "Why?"]
    assert questions_of("Xenon lamps, why?") == ["Xenon lamps, why?"]  # only list marks are stripped
    assert fragments_of("X-rays show the crack") == ["X-rays show the crack"]
    index = FragmentIndex(Flat())
    assert index.show([]) == "(nothing yet)"
    index.add(["first point here", "  ", "second point here"], "solution analyst")
    assert index.texts == ["first point here", "second point here"]
    assert index.show([1, 0]) == "- (solution analyst) second point here\n- (solution analyst) first point here"
    assert index.get("q", 0) == [] and len(index.get("q", 5)) == 2


def test_chateval_fills_every_prompt_and_keeps_the_transcript():
    def respond(kind, body):
        prompt = prompt_of(kind, body)
        if "Judgement: [[" in prompt:
            return "YES]] ([0.7])", None
        turn = prompt.count("\nproblem analyst:") + prompt.count("\nsolution analyst:") + \
            prompt.count("\ncriterion analyst:")
        return f"Turn {turn}: the ladder is tall enough.", None
    settings = JudgeSettings(chateval_rounds=2, words=41, judge_tokens=66)
    with recording(respond) as server:
        with get_model(ModelConfig("openai/ce", base_url=server.url, api_key="k", api="completion")) as model:
            result = ChatEvalJudge(model, settings).judge(PROBLEM, SOLUTION, {CRITERION: DEFINITION})
    prompts = [p for p, _ in server.asked]
    assert {t for _, t in server.asked} == {66}
    assert all("{" not in p and PROBLEM in p and SOLUTION in p and CRITERION in p and DEFINITION in p
               for p in prompts)
    assert all("41" in p for p in prompts[:6]) and "The discussion so far:\n(nothing yet)\n" in prompts[0]
    for i, p in enumerate(prompts[:6]):
        assert f"You are {ANALYSTS[i % 3]}" in p
    # every turn so far is in the history, one line each, in order
    history = "\n".join(f"{ANALYSTS[i % 3]}: Turn {i + 1}: the ladder is tall enough." for i in range(6))
    assert all(history in p and f"You are {a}" in p for a, p in zip(ANALYSTS, prompts[6:]))
    assert history.split("\n", 1)[1] not in prompts[1]
    steps = [(t["phase"], t["analyst"], t["criterion"], t.get("round")) for t in result.transcript]
    assert steps == [("discuss", ANALYSTS[i % 3], CRITERION, 1 + i // 3) for i in range(6)] + \
        [("verdict", a, CRITERION, None) for a in ANALYSTS]
    v = result.verdicts[CRITERION]
    assert v["votes"] == [True] * 3 and v["probabilities"] == [0.7] * 3
    assert [set(r) for r in v["readings"]] == [{"role", "analyst", "value", "reason"}] * 6
    assert result.transcript[6]["readings"] == {"chateval verdict": {"value": "YES", "reason": None},
                                                "chateval probability": {"value": 0.7, "reason": None}}


def test_a_chateval_final_that_copies_a_line_of_the_debate_is_an_echo_not_a_vote():
    def respond(kind, body):
        prompt = prompt_of(kind, body)
        if "Judgement: [[" in prompt:  # the final reply repeats the first debate line, verdict and all
            return next(li for li in prompt.splitlines() if li.startswith("problem analyst: ")), None
        return "I lean [[NO]] ([0.2]) on this one.", None
    with RespondingServer(respond, usage=USAGE) as server:
        with get_model(ModelConfig("openai/ce", base_url=server.url, api_key="k", api="completion")) as model:
            result = ChatEvalJudge(model, JudgeSettings(chateval_rounds=1)).judge("P", "S", {"c": "d"})
    v = result.verdicts["c"]
    assert v["votes"] == [None] * 3 and v["probabilities"] == [None] * 3 and v["reason"] == NO_VOTE
    assert {r["reason"] for r in v["readings"]} == {"echo"}


def test_the_first_two_analysts_see_every_criterion_and_each_criterion_is_judged_apart():
    # a reply with a second questions block: only what comes before the first becomes fragments
    respond = panel({r: "[[0.9]]" for r in ROLES}, discussion=DISCUSSION + "\n[[QUESTIONS]]\nAnd how wide?")
    with recording(respond) as server:
        with get_model(ModelConfig("openai/panel", base_url=server.url, api_key="k", api="completion")) as model:
            result = RetrievalJudge(model, Flat(), JudgeSettings(rounds=1, discuss_k=50)).judge(
                PROBLEM, SOLUTION, {"safety": "no harm", "cost": "cheap enough"})
    prompts = [p for p, _ in server.asked]
    assert all("- safety: no harm\n- cost: cheap enough" in p for p in prompts[:2])
    inits = [t for t in result.transcript if t["phase"] == "init"]
    assert [(t["analyst"], t.get("criterion")) for t in inits] == [
        ("problem analyst", None), ("solution analyst", None), ("criterion analyst", "safety"),
        ("criterion analyst", "cost")]
    assert set(result.verdicts) == {"safety", "cost"} and all(v["verdict"] is True for v in result.verdicts.values())
    cost_prompts = [p for p, t in zip(prompts, result.transcript) if t.get("criterion") == "cost"]
    assert cost_prompts and all("cheap enough" in p and "no harm" not in p for p in cost_prompts)
    # every fragment shown with its author (k = 50 shows them all), the criterion analyst's too
    discuss = [p for p, t in zip(prompts, result.transcript) if t["phase"] == "discuss"]
    assert all(f"- ({a}) the rope and ladder hold here" in discuss[0] for a in ANALYSTS)
    assert not any("- (None)" in p for p in prompts)
    # the criterion analyst's first discussion shows the problem analyst's point twice (its first reply
    # and its discussion reply) but its question once: a discussion reply's questions are no fragments
    assert discuss[2].count("- (problem analyst) the rope and ladder hold here") == 2
    assert discuss[2].count("- (problem analyst) To solution analyst: how tall?") == 1



@pytest.mark.parametrize("parse, example, answer, value", [
    ("parse_confidence", "[[0.2]]", "Sure: [[0.8]]", 0.8), ("parse_stance", "([NO])", "I hold ([YES])", "YES"),
    ("parse_verdict", "[[NO]]", "[[YES]] it holds", "YES"), ("parse_probability", "([0.2])", "I say ([0.7])", 0.7)])
def test_the_judges_readers_drop_a_line_copied_from_their_prompt(parse, example, answer, value):
    from neocoder.benchmarks.framework import chateval, retrieval
    read = getattr(retrieval, parse, None) or getattr(chateval, parse)
    line = f"For example, an answer such as {example} would be read as yours."
    prompt = f"Judge the solution.\n{line}\nAnswer now."
    assert read(f"{line}\n{answer}", prompt).value == value
    assert read(f"{line}\n{answer}").reason == "conflicting markers"  # without the prompt the copy counts
