"""The board's re-reading of a framework run's judge turns (neocoder/benchmarks/framework/
verify.py), worked by hand on small transcripts: each recorded reply read again against
the prompt rebuilt from the records (every field of it: a reply made of the prompt's own
lines is an ``echo``, one that is not is no answer), the retrieval judge's fragment store
grown from the recorded replies, its stop rule and verdict analyst replayed, ChatEval's
debate and votes replayed, and each refusal naming the criterion and the turn.

The echo rule (grammars.py ``read``: a reply whose every line is a line of the prompt) is
what makes a prompt's content observable here: a reply copying one line of the rebuilt
prompt reads as ``echo`` only when the board rebuilt that line as the judge was shown it."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.framework.grammars import CONFIDENCE
from neocoder.benchmarks.framework.retrieval import ANALYSTS, FOCUS, JudgeSettings
from neocoder.benchmarks.framework.verify import (
    _reread,
    _retrieval_turn,
    _same,
    _Store,
    rebuild_chateval,
    rebuild_retrieval,
)

P, S, C = ANALYSTS
DEFINITION = "Can it be done with the items at hand?"
CTX = {"problem": "Open the stuck jar with a spoon.", "solution": "Step 1: lever the lid up with the spoon",
       "criteria": {"feasibility": DEFINITION}, "words": 150}
ECHO = {"value": None, "reason": "echo"}
NO_MARKER = {"value": None, "reason": "no marker"}


def turn(phase: str, analyst: str, reply, criterion: str = "feasibility", **more) -> dict:
    """One recorded judge turn as the records keep it."""
    return {"phase": phase, "analyst": analyst, "criterion": criterion, "reply": reply, **more}


def replayed(*turns: dict) -> tuple[dict, _Store]:
    """The retrieval judge's state and fragment store after ``turns``, replayed one by one."""
    state, store = {}, _Store()
    for t in turns:
        _retrieval_turn(t, state, store, CTX)
    return state, store


def read_as(state: dict, criterion: str = "feasibility") -> list[dict]:
    """Each reading of ``criterion`` as {"value", "reason"}, in the order read."""
    return [{"value": r["value"], "reason": r["reason"]} for r in state[criterion]["readings"]]


# _same: the records' numbers to 1e-9, every other value exactly, containers of the same shape

@pytest.mark.parametrize("a, b", [(0.1 + 0.2, 0.3), (0.0, 1e-12), (1e12, 1e12 + 1e-1),
                                  ([1, {"x": 0.5}], [1.0, {"x": 0.5}]), ({"a": [None]}, {"a": [None]}), ("YES", "YES")])
def test_values_the_records_may_hold_again_are_the_same(a, b):
    assert _same(a, b) and _same(b, a)


@pytest.mark.parametrize("a, b", [(0.1, 0.9), (1.0, 2.0), (0.0, 1e-8), (1, None), (1, "1"), ({}, []), ([], {}),
                                  ([1], [1, 2]), ([1, 2], [1]), ({"a": 1}, {"a": 1, "b": 1}), ({"a": 1}, {"a": 2}),
                                  (True, 2), ("YES", "NO")])
def test_values_that_differ_are_not_the_same(a, b):
    assert not _same(a, b) and not _same(b, a)


# _reread: the reply read as the judge read it, the recorded reading compared

@pytest.mark.parametrize("reply, more, reading", [
    ("", {"reasoning": "let me think"}, {"value": None, "reason": "reasoning only"}),
    ("", {}, {"value": None, "reason": "empty"}),
    ("I am not sure", {"finish_reason": "length"}, {"value": None, "reason": "cut off"}),
    ("I am not sure", {"finish_reason": "stop"}, NO_MARKER),
    ("Sure. [[0.8]] ([YES])", {"finish_reason": "length"}, {"value": 0.8, "reason": None})])
def test_a_reply_is_read_with_its_recorded_reasoning_and_finish_reason(reply, more, reading):
    got = _reread(CONFIDENCE, {"reply": reply, **more}, "the prompt")
    assert {"value": got.value, "reason": got.reason} == reading
    kept = _reread(CONFIDENCE, {"reply": reply, **more, "readings": {"retrieval confidence": reading}}, "the prompt")
    assert kept == got


@pytest.mark.parametrize("kept, reply, message", [
    ({"value": 0.5, "reason": None}, "Sure. [[0.8]] ([YES])",
     "{'value': 0.5, 'reason': None} is the turn's recorded retrieval confidence, 0.8 (readable) read again from "
     "its reply"),
    ({"value": 0.8, "reason": None}, "Sure.",
     "{'value': 0.8, 'reason': None} is the turn's recorded retrieval confidence, None (no marker) read again "
     "from its reply")])
def test_a_recorded_reading_the_reply_does_not_give_is_refused_naming_both(kept, reply, message):
    with pytest.raises(RecordsDisagree) as got:
        _reread(CONFIDENCE, {"reply": reply, "readings": {"retrieval confidence": kept}}, "the prompt")
    assert str(got.value) == message


# the retrieval judge's fragment store, grown from the init and discussion replies

INIT = turn("init", P, "[[POINT]] the lid is stuck fast\n[[POINT]] ok\n[[QUESTIONS]]\nwhat holds the lid down?")
SECOND = turn("init", S, "[[POINT]] the spoon may bend easily")
DISCUSS = turn("discuss", C, "- the lever needs a rim\n[[QUESTIONS]]\nis the rim wide enough?\n[[QUESTIONS]]\n"
                             "does the spoon fit there?", round=1)


def test_the_store_holds_each_fragment_with_its_author_and_a_discussion_without_its_questions():
    state, store = replayed(INIT, SECOND, DISCUSS, turn("discuss", P, None, round=1))
    assert store.texts == ["the lid is stuck fast", "what holds the lid down?", "the spoon may bend easily",
                           "the lever needs a rim"]
    assert store.index.authors == [P, P, S, C]
    assert state == {}  # init and discussion turns are no reading
    assert store.show([3, 0]) == f"- ({C}) the lever needs a rim\n- ({P}) the lid is stuck fast"


def confidence(analyst: str, reply: str, retrieved=(), round: int = 1, criterion: str = "feasibility") -> dict:
    """A confidence turn of ``analyst`` (its reply read by CONFIDENCE and STANCE)."""
    return turn("confidence", analyst, reply, criterion, round=round, retrieved=list(retrieved))


def test_a_turn_is_shown_the_fragments_it_retrieved_that_the_store_holds():
    seen = f"- ({P}) the lid is stuck fast\n- ({C}) the lever needs a rim"
    state, _ = replayed(INIT, SECOND, DISCUSS, confidence(S, seen, retrieved=[0, 3, 4, 9]))
    assert read_as(state) == [ECHO, ECHO]
    state, _ = replayed(INIT, SECOND, DISCUSS, confidence(S, seen, retrieved=[3, 4]))  # fragment 0 not retrieved
    assert read_as(state) == [NO_MARKER, NO_MARKER]
    state, _ = replayed(INIT, SECOND, DISCUSS, confidence(S, f"- ({C}) does the spoon fit there?", retrieved=[3, 4]))
    assert read_as(state) == [NO_MARKER, NO_MARKER]  # a question is no fragment


def test_a_turn_that_retrieved_nothing_is_shown_nothing_yet():
    state, _ = replayed(INIT, confidence(S, "(nothing yet)", retrieved=[]))
    assert read_as(state) == [ECHO, ECHO]
    state, _ = replayed(INIT, confidence(S, "(nothing yet)", retrieved=[0]))
    assert read_as(state) == [NO_MARKER, NO_MARKER]


@pytest.mark.parametrize("line", [f"You are the {P} of a panel. Your focus: {FOCUS[P]}",
                                  f"Criterion: feasibility: {DEFINITION}", CTX["problem"], CTX["solution"]])
def test_a_confidence_reply_copying_a_line_of_its_prompt_is_an_echo(line):
    state, _ = replayed(confidence(P, line))
    assert read_as(state) == [ECHO, ECHO]
    assert state["feasibility"]["confidences"] == {P: None} and state["feasibility"]["stances"] == {P: None}


@pytest.mark.parametrize("line", [f"You are the {S} of a panel. Your focus: {FOCUS[P]}",
                                  "Criterion: feasibility: Is it safe?", "Open the jar.", "Step 1: twist the lid"])
def test_a_confidence_reply_of_a_line_its_prompt_does_not_hold_is_no_echo(line):
    state, _ = replayed(confidence(P, line))
    assert read_as(state) == [NO_MARKER, NO_MARKER]


def test_an_analyst_and_criterion_the_judge_does_not_know_are_shown_with_no_focus_or_definition():
    state, _ = replayed(confidence("outsider", "You are the outsider of a panel. Your focus:\nCriterion: bogus:",
                                   criterion="bogus"))
    assert read_as(state, "bogus") == [ECHO, ECHO]


@pytest.mark.parametrize("line, reading", [
    (f"You are the {S} of a panel, and you are the most certain of its members. Your focus: {FOCUS[S]}", ECHO),
    (f"Criterion: feasibility: {DEFINITION}", ECHO), ("Verdict: [[", ECHO),
    (f"You are the {P} of a panel, and you are the most certain of its members. Your focus: {FOCUS[S]}", NO_MARKER)])
def test_a_verdict_reply_is_read_against_the_verdict_prompt(line, reading):
    state, _ = replayed(turn("verdict", S, line))
    assert read_as(state) == [reading]
    assert state["feasibility"]["verdict"][0] == S


# rebuild_retrieval: the stop rule, the verdict's analyst, the verdict as the records keep it

SURE = {P: "0.3", S: "0.9", C: "0.6"}  # mean 0.6 > T = 0.5: settled after the round
UNSURE = {P: "0.3", S: "0.5", C: "0.4"}  # mean 0.4: not settled


def asked(certainty: dict, round: int, skip: str | None = None) -> list[dict]:
    """A round of confidence turns, each analyst saying ``certainty[analyst]``, YES."""
    return [confidence(a, f"Sure enough. [[{certainty[a]}]] ([YES])", round=round) for a in ANALYSTS if a != skip]


VERDICT = turn("verdict", S, "YES]] it holds")


def test_a_settled_first_round_and_the_most_confident_analysts_verdict_are_rebuilt():
    got = rebuild_retrieval([INIT, *asked(SURE, 1), VERDICT], CTX, JudgeSettings(rounds=2, threshold=0.5))
    readings = [{"role": role, "analyst": a, "round": 1, "value": value, "reason": None}
                for a in ANALYSTS for role, value in (("confidence", float(SURE[a])), ("stance", "YES"))]
    assert got == {"feasibility": {
        "verdict": True, "reason": None, "confidence": pytest.approx(0.6), "analyst": S, "rounds": 1,
        "confidences": {a: float(SURE[a]) for a in ANALYSTS}, "stances": {a: True for a in ANALYSTS},
        "readings": [*readings, {"role": "verdict", "analyst": S, "value": "YES", "reason": None}]}}


def test_an_unsettled_round_asks_another_up_to_the_rounds_allowed():
    turns = [*asked(UNSURE, 1), *asked(UNSURE, 2), turn("verdict", S, "[[NO]] it fails")]
    got = rebuild_retrieval(turns, CTX, JudgeSettings(rounds=2, threshold=0.5))["feasibility"]
    assert (got["rounds"], got["verdict"], got["analyst"]) == (2, False, S)
    assert [r["round"] for r in got["readings"][:-1]] == [1] * 6 + [2] * 6


def test_with_no_round_allowed_the_verdict_is_the_first_analysts_with_no_confidence():
    got = rebuild_retrieval([turn("verdict", P, "YES]] fine")], CTX, JudgeSettings(rounds=0))["feasibility"]
    assert (got["rounds"], got["analyst"], got["confidence"], got["confidences"]) == (0, P, None, {})


@pytest.mark.parametrize("turns, rounds, message", [
    ([*asked(SURE, 1, skip=C), VERDICT], 2, "feasibility: round 1 holds no confidence of every analyst"),
    ([*asked(SURE, 1), *asked(SURE, 2), VERDICT], 2,
     "feasibility: round 2 after the confidences of round 1 settled it"),
    ([*asked(UNSURE, 1), VERDICT], 2, r"feasibility: rounds [1] recorded, the stop rule asks otherwise"),
    ([*asked(UNSURE, 1), *asked(UNSURE, 3), VERDICT], 3,
     "feasibility: rounds [1, 3] recorded, the stop rule asks otherwise"),
    ([VERDICT], 1, "feasibility: rounds [] recorded, the stop rule asks otherwise"),
    (asked(SURE, 1), 2, "feasibility: no verdict turn"),
    ([*asked(SURE, 1), turn("verdict", P, "YES]] it holds")], 2,
     f"feasibility: the verdict asked of the {P}, the most confident is the {S}")])
def test_turns_the_judges_rules_would_not_have_taken_are_refused_naming_the_criterion(turns, rounds, message):
    with pytest.raises(RecordsDisagree) as got:
        rebuild_retrieval(turns, CTX, JudgeSettings(rounds=rounds, threshold=0.5))
    assert str(got.value) == message


def test_a_reading_the_reply_does_not_give_is_refused_naming_the_turn():
    turns = [INIT, *asked(SURE, 1), VERDICT]
    turns[2] = {**turns[2], "readings": {"retrieval confidence": {"value": 0.7, "reason": None}}}
    with pytest.raises(RecordsDisagree) as got:
        rebuild_retrieval(turns, CTX, JudgeSettings(rounds=2, threshold=0.5))
    assert str(got.value) == ("feasibility: turn 3: {'value': 0.7, 'reason': None} is the turn's recorded retrieval "
                              "confidence, 0.9 (readable) read again from its reply")


# rebuild_chateval: every final reply read against the criterion's whole debate, ``decide`` replayed

def debate(*replies, criterion: str = "feasibility") -> list[dict]:
    """One discussion turn per analyst, in order, replying ``replies``."""
    return [turn("discuss", a, r, criterion) for a, r in zip(ANALYSTS, replies)]


def finals(*replies, criterion: str = "feasibility", order=ANALYSTS) -> list[dict]:
    """Each analyst's final turn (read by CHATEVAL_VERDICT and PROBABILITY), in ``order``."""
    return [turn("final", a, r, criterion) for a, r in zip(order, replies)]


TALK = debate("  It holds: the spoon is strong. ", "It fails, the lid is glued.", None)
ONE_ROUND = JudgeSettings(chateval_rounds=1)


def test_a_debate_and_its_final_votes_are_rebuilt_by_majority():
    got = rebuild_chateval([*TALK, *finals("YES]] ([0.8])", "NO]] ([0.4])", "YES]] ([0.9])")], CTX, ONE_ROUND)
    readings = [r for a, v, p in zip(ANALYSTS, ("YES", "NO", "YES"), (0.8, 0.4, 0.9))
                for r in ({"role": "verdict", "analyst": a, "value": v, "reason": None},
                          {"role": "probability", "analyst": a, "value": p, "reason": None})]
    assert got == {"feasibility": {"verdict": True, "reason": None, "votes": [True, False, True],
                                   "probabilities": [0.8, 0.4, 0.9], "confidence": pytest.approx(0.7),
                                   "readings": readings}}


def test_split_votes_are_a_tie_and_no_readable_probability_no_confidence():
    got = rebuild_chateval([*TALK, *finals("YES]] ([x])", "NO]] ([x])", "I abstain")], CTX, ONE_ROUND)["feasibility"]
    assert (got["verdict"], got["reason"], got["votes"]) == (None, "tie", [True, False, None])
    assert (got["probabilities"], got["confidence"]) == ([None, None, None], None)


@pytest.mark.parametrize("line", [
    f"You are {S}, one of several judges who discussed whether a proposed solution meets a criterion.",
    f"{P}: It holds: the spoon is strong.", f"{S}: It fails, the lid is glued.", f"{C}:",
    f"Criterion: feasibility: {DEFINITION}", CTX["problem"], CTX["solution"]])
def test_a_final_reply_copying_a_line_of_its_debate_prompt_is_an_echo(line):
    turns = [*TALK, *debate("On safety: fine.", criterion="safety"), *finals("YES]] ([0.8])", line, "NO]] ([0.2])")]
    got = rebuild_chateval(turns, CTX, ONE_ROUND)["feasibility"]
    assert got["readings"][2:4] == [{"role": "verdict", "analyst": S, **ECHO},
                                    {"role": "probability", "analyst": S, **ECHO}]
    assert (got["verdict"], got["reason"]) == (None, "tie")


@pytest.mark.parametrize("line", [f"You are {P}, one of several judges who discussed whether a proposed solution "
                                  "meets a criterion.", f"{S}: On safety: fine.", f"{C}: None",
                                  "Criterion: feasibility: Is it safe?", "Step 1: twist the lid"])
def test_a_final_reply_of_a_line_its_prompt_does_not_hold_is_no_echo(line):
    turns = [*TALK, *debate("On safety: fine.", "On safety: fine.", criterion="safety"),
             *finals("YES]] ([0.8])", line, "NO]] ([0.2])")]
    got = rebuild_chateval(turns, CTX, ONE_ROUND)["feasibility"]
    assert [{"value": r["value"], "reason": r["reason"]} for r in got["readings"][2:4]] == [NO_MARKER, NO_MARKER]


def test_a_criterion_the_problem_does_not_name_is_judged_with_no_definition_and_no_debate():
    turns = finals("Criterion: bogus:", criterion="bogus")
    turns[0]["readings"] = {"chateval verdict": ECHO, "chateval probability": ECHO}
    with pytest.raises(RecordsDisagree) as got:
        rebuild_chateval(turns, CTX, ONE_ROUND)
    assert str(got.value) == (f"bogus: 0 debate turns and final votes of ['{P}'], not 1 rounds of every analyst")


@pytest.mark.parametrize("turns, message", [
    ([*TALK[:2], *finals("YES]] ([0.8])", "YES]] ([0.8])", "YES]] ([0.8])")],
     f"feasibility: 2 debate turns and final votes of ['{P}', '{S}', '{C}'], not 1 rounds of every analyst"),
    ([*TALK, *finals("YES]] ([0.8])", "YES]] ([0.8])", "YES]] ([0.8])", order=(P, C, S))],
     f"feasibility: 3 debate turns and final votes of ['{P}', '{C}', '{S}'], not 1 rounds of every analyst")])
def test_a_debate_of_other_rounds_or_votes_out_of_order_is_refused(turns, message):
    with pytest.raises(RecordsDisagree) as got:
        rebuild_chateval(turns, CTX, ONE_ROUND)
    assert str(got.value) == message


def test_a_final_reading_the_reply_does_not_give_is_refused_naming_the_turn():
    turns = [*TALK, *finals("YES]] ([0.8])", "NO]] ([0.4])", "YES]] ([0.9])")]
    turns[4]["readings"] = {"chateval probability": {"value": 0.5, "reason": None}}
    with pytest.raises(RecordsDisagree) as got:
        rebuild_chateval(turns, CTX, ONE_ROUND)
    assert str(got.value) == ("feasibility: turn 5: {'value': 0.5, 'reason': None} is the turn's recorded chateval "
                              "probability, 0.4 (readable) read again from its reply")
