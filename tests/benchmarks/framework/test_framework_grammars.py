"""The framework's reply grammars (neocoder/benchmarks/framework/grammars.py) on the issue's
replies and the other ways a drifting judge answers: the last marker counts, everything
else is unreadable with its reason (issue 46)."""

import pytest

from neocoder import replies as r
from neocoder.benchmarks.framework import grammars as g
from neocoder.benchmarks.framework.calls import fill
from neocoder.benchmarks.framework.chateval import majority, parse_probability
from neocoder.benchmarks.framework.retrieval import parse_confidence, parse_stance, parse_verdict
from neocoder.models import Reply

CTX = dict(role="problem analyst", focus="the problem", problem="Reach the shelf.", solution="Step 1: climb.",
           criterion="safety", definition="no harm", fragments="- (x) y", history="(none)")


@pytest.mark.parametrize("reply, value, reason", [
    ("There is no safety risk here. [[YES]]", "YES", None),  # the reply: a word is not a marker
    ("[YES]]\n[NO] ... not feasible", None, r.CONFLICT),  # the reply read as YES before
    ("YES]] the ladder holds", "YES", None),  # a base model continues the prompt's "Verdict: [["
    ("NO]] it is not safe", "NO", None),
    ("[[yes]] fine", "YES", None),
    ("[[YES]] at first; on reflection [[NO]]", None, r.CONFLICT),
    ("[[YES]] though (NO) for the rope", None, r.CONFLICT),  # other brackets saying otherwise
    ("YES]] and **NO**", None, r.CONFLICT),
    ("[[<verdict>]]", None, r.ECHO),  # the prompt's placeholder came back
    ("", None, r.EMPTY),
    ("<think>[[NO]] maybe</think>", None, r.REASONING_ONLY),
    ("I'm sorry, I cannot judge this solution.", None, r.REFUSAL),
    ("The solution looks acceptable overall", None, r.NO_MARKER),
    ("[[MAYBE]] hard to say", None, r.NO_MARKER),
])
def test_verdict(reply, value, reason):
    prompt = fill("framework_verdict.txt", **CTX)
    assert prompt.rstrip().endswith("[[") and "[[<verdict>]]" in prompt
    got = parse_verdict(reply, prompt)
    assert (got.value, got.reason) == (value, reason)
    assert g.as_bool(got) is (None if value is None else value == "YES")


def test_an_echoed_verdict_prompt_is_unreadable():
    prompt = fill("framework_verdict.txt", **CTX)
    assert g.read(g.VERDICT, Reply(text=prompt), prompt).reason == r.ECHO
    assert g.read(g.VERDICT, Reply(text="Verdict: [[\nYES]] fine"), prompt).value == "YES"


@pytest.mark.parametrize("reply, value, reason", [
    ("Clear. [[0.8]] ([YES])", 0.8, None),
    ("like [[<certainty>]] ([<stance>])", None, r.ECHO),  # the prompt's example echoed: not 0.6 any more
    ("[[0.6]]", 0.6, None),  # a value the model wrote itself is read
    ("I'd say 0.4", None, r.NO_MARKER),  # a bare number is no marker (the old parser read 0.4)
    ("[[7]] then 0.3", None, r.OUT_OF_RANGE),  # the old parser read 0.3
    ("[[0.2]] no, [[0.9]]", None, r.CONFLICT),
    ("[[0.7]] [0.2] ([YES])", None, r.CONFLICT),  # another number in other brackets
    ("criterion (1) holds: [[0.7]] ([YES])", 0.7, None),  # a numbered point in parentheses is no rival
    ("Thinking about the rope and", None, r.CUT_OFF),
])
def test_confidence(reply, value, reason):
    got = g.CONFIDENCE.read(reply, finish_reason="length" if "rope and" in reply else "stop")
    assert (got.value, got.reason) == (value, reason)
    if "rope" not in reply:
        assert parse_confidence(reply).value == value


@pytest.mark.parametrize("reply, value, reason", [
    ("ok [[0.8]] ([YES])", "YES", None),
    ("ok [[0.8]] ([no])", "NO", None),
    ("ok [[0.8]] ([YES]) ... ([NO])", None, r.CONFLICT),
    ("ok [[0.8]] ([<stance>])", None, r.ECHO),
    ("ok [[0.8]] YES", None, r.NO_MARKER),
    ("ok [[0.8]] ([YES]) but [[NO]]", None, r.CONFLICT),
])
def test_stance(reply, value, reason):
    got = parse_stance(reply)
    assert (got.value, got.reason) == (value, reason)


@pytest.mark.parametrize("reply, verdict, probability", [
    ("YES]] ([0.8])", ("YES", None), (0.8, None)),
    ("NO]] ([0.2])", ("NO", None), (0.2, None)),
    ("[[<verdict>]] ([<probability>])", (None, r.ECHO), (None, r.ECHO)),
    ("YES]] ([1.4])", ("YES", None), (None, r.OUT_OF_RANGE)),
    ("YES]] ([0.8]) or rather NO]] ([0.3])", ("YES", None), (None, r.CONFLICT)),
    ("[[YES]] ([0.8]) no: [[NO]] ([0.8])", (None, r.CONFLICT), (0.8, None)),
    ("probably 0.7", (None, r.NO_MARKER), (None, r.NO_MARKER)),
    ("[YES]] [NO] ([0.4]) [0.6]", (None, r.CONFLICT), (None, r.CONFLICT)),
])
def test_chateval_verdict_and_probability(reply, verdict, probability):
    prompt = fill("framework_chateval_verdict.txt", **CTX)
    assert "[[<verdict>]] ([<probability>])" in prompt and prompt.rstrip().endswith("[[")
    got = g.CHATEVAL_VERDICT.read(reply, prompt)
    assert (got.value, got.reason) == verdict
    p = parse_probability(reply, prompt)
    assert (p.value, p.reason) == probability


def test_chateval_majority_sets_the_unreadable_vote_aside():
    assert majority([True, None, False]) is None and majority([True, None, None]) is True
    assert majority([None, None, None]) is None


@pytest.mark.parametrize("reply, value, reason", [
    ("yes", "yes", None), ("No.", "no", None), ("Yes, but no", None, r.CONFLICT),
    ("Perhaps", None, r.NO_MARKER), ("", None, r.EMPTY), ("I can't say", None, r.REFUSAL),
])
def test_entailment(reply, value, reason):
    got = g.ENTAIL.read(reply)
    assert (got.value, got.reason) == (value, reason)


@pytest.mark.parametrize("reply, value, reason", [
    ("Use the towel.", "Use the towel.", None),
    ("Step 3: Boil the water.", "Boil the water.", None),
    ("STOP", g.STOP_WORD, None), ("**stop**.", g.STOP_WORD, None),
    ("", None, r.EMPTY),  # no longer a STOP vote
    ("Step 2:", None, r.EMPTY),
    ("<think>what next</think>", None, r.REASONING_ONLY),
    ("I'm sorry, but I can't help with that.", None, r.REFUSAL),
    ("Answer with short numbered steps, one step per line.", None, r.ECHO),
])
def test_step_candidates(reply, value, reason):
    got = g.read_candidate(reply, "Answer with short numbered steps, one step per line. Then STOP.")
    assert (got.value, got.reason) == (value, reason)


def test_a_reply_with_reasoning_apart_and_no_text_is_reasoning_only():
    reply = Reply(text="", reasoning="Let me think about it.", extra={"finish_reason": "stop"})
    assert g.read(g.VERDICT, reply).reason == r.REASONING_ONLY
    assert g.read(g.VERDICT, Reply(text="", extra={})).reason == r.EMPTY
    assert g.read(g.VERDICT, Reply(text="the rope is", extra={"finish_reason": "length"})).reason == r.CUT_OFF
    assert g.read_candidate("", reasoning="Let me think.").reason == r.REASONING_ONLY
