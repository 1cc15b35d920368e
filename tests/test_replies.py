"""The reply grammars (neocoder/replies.py) on the replies real models give when they drift."""

import pytest

from neocoder import replies as r

VERDICT = r.bracketed("verdict", ("YES", "NO"), opened=True)
CONFIDENCE = r.Grammar("confidence", marker=r"\[\[\s*([^\[\]\n]{1,20}?)\s*\]\]", value=r.number,
                       check=r.within(0.0, 1.0), placeholders=("<certainty>",), describe="[[c]]")
SCORE = r.tagged("score", "score", r.number, r.within(0, 100))
SAME = r.first_word("same", ("SAME", "DIFFERENT"))
PROMPT = "Decide.\nAnswer [[YES]] or [[NO]], then give one sentence of reasons.\nVerdict: [["


@pytest.mark.parametrize("reply, value, reason", [
    ("YES]] it holds", "YES", None),  # a base model continues the prompt's "[["
    ("[[no]] it does not", "NO", None),  # case is no ambiguity
    ("There is no safety risk here. [[YES]]", "YES", None),  # a word is not a marker
    ("[YES]]\n[NO] ... not feasible", None, r.CONFLICT),  # the reply: never YES
    ("[[YES]] at first, but [[NO]]", None, r.CONFLICT),
    ("YES]] and **NO**", None, r.CONFLICT),
    ("", None, r.EMPTY),
    ("   \n", None, r.EMPTY),
    ("<think>weighing it</think>", None, r.REASONING_ONLY),
    ("<think>[[NO]]</think>[[YES]] fine", "YES", None),  # thinking is not the answer
    ("I'm sorry, I cannot judge this.", None, r.REFUSAL),
    ("The solution looks fine to me.", None, r.NO_MARKER),
    ("[YES] it holds", None, r.NO_MARKER),  # single brackets are not the grammar's marker
    ("Answer [[YES]] or [[NO]], then give one sentence of reasons.", None, r.ECHO),
])
def test_verdict_grammar(reply, value, reason):
    got = VERDICT.read(reply, prompt=PROMPT)
    assert (got.value, got.reason) == (value, reason)


def test_cut_off_needs_the_endpoints_word():
    assert VERDICT.read("The solution is long and", finish_reason="length").reason == r.CUT_OFF
    assert VERDICT.read("The solution is long and", finish_reason="stop").reason == r.NO_MARKER


@pytest.mark.parametrize("reply, value, reason", [
    ("Clear enough. [[0.8]] ([YES])", 0.8, None),
    ("like [[<certainty>]]", None, r.ECHO),  # the prompt's placeholder came back
    ("echoing [[<certainty>]] then [[0.3]]", 0.3, None),
    ("[[1.5]]", None, r.OUT_OF_RANGE),
    ("[[0.2]] no, [[0.9]]", None, r.CONFLICT),
    ("certainty 0.6", None, r.NO_MARKER),  # a bare number is not the marker
])
def test_confidence_grammar(reply, value, reason):
    got = CONFIDENCE.read(reply)
    assert (got.value, got.reason) == (value, reason)


@pytest.mark.parametrize("reply, value, reason", [
    ("<score>72</score>", 72.0, None),
    ("thinking <score>10</score> ... final <score>10</score>", 10.0, None),
    ("<score>10</score> no: <score>40</score>", None, r.CONFLICT),
    ("<score>N</score>", None, r.NO_MARKER),
    ("<score>140</score>", None, r.OUT_OF_RANGE),
    ("score: 70", None, r.NO_MARKER),  # the authors' format only
])
def test_score_grammar(reply, value, reason):
    got = SCORE.read(reply)
    assert (got.value, got.reason) == (value, reason)


@pytest.mark.parametrize("reply, value, reason", [
    ("SAME\nboth sort", "SAME", None),
    ("**different** - one is a DP", "DIFFERENT", None),
    ("SAME. No wait, DIFFERENT", None, r.CONFLICT),
    ("They are the same", None, r.NO_MARKER),
])
def test_first_word_grammar(reply, value, reason):
    got = SAME.read(reply)
    assert (got.value, got.reason) == (value, reason)


@pytest.mark.parametrize("reply, value, reason", [
    ('Analysis.\n```json\n{"originality": 8, "feasibility": 6, "clarity": 7}\n```', (8.0, 6.0, 7.0), None),
    ('{"originality": 8, "feasibility": 6', None, r.BROKEN_JSON),
    ('{"originality": 8, "feasibility": 6}', None, r.BROKEN_JSON),
    ('{"originality": 8, "feasibility": 60, "clarity": 7}', None, r.OUT_OF_RANGE),
    ('{"originality": "high", "feasibility": 6, "clarity": 7}', None, r.BROKEN_JSON),
    ("I cannot rate this idea.", None, r.REFUSAL),
])
def test_json_fields(reply, value, reason):
    got = r.read_json_fields(reply, ("originality", "feasibility", "clarity"), check=r.within(1, 10))
    assert (None if got.value is None else tuple(got.value.values()), got.reason) == (value, reason)


def test_tally_counts_per_role_and_reason():
    t = r.Tally()
    t.add("verdict", VERDICT.read("YES]]"))
    t.add("verdict", VERDICT.read(""))
    t.add("verdict", VERDICT.read("[[YES]] [[NO]]"))
    t.add("confidence", CONFIDENCE.read("[[0.5]]"))
    t.add("confidence", None)  # not asked
    d = t.to_dict()
    assert d["verdict"] == {"replies": 3, "readable": 1, "unreadable": 2, "share": 2 / 3,
                            "reasons": {r.CONFLICT: 1, r.EMPTY: 1}}
    assert d["confidence"]["share"] == 0.0
    assert r.mostly_unreadable(d["verdict"]) and not r.mostly_unreadable(d["confidence"])


# --- the model under test's replies (read_answer), read before they are judged ------------

SOLVE_PROMPT = "Solve the problem below without a for loop.\nWrite a Python function solve() that reads stdin.\n"
HAS_FENCE = lambda text: "```" in text  # noqa: E731  (a stand-in for NeoCoder's program rule)


@pytest.mark.parametrize("reply, finish, reason", [
    (None, "stop", r.EMPTY),
    ("  \n ", "stop", r.EMPTY),
    ("<think>the loop is denied</think>", "stop", r.REASONING_ONLY),
    ("Write a Python function solve() that reads stdin.", "stop", r.ECHO),  # a long prompt line only
    ("Solve the problem below without a for loop.", "stop", r.ECHO),
    ("```python\ndef solve():\n    print(1", "length", r.CUT_OFF),  # a program cut at the token limit
    ("I'm sorry, I cannot help with that.", "stop", r.REFUSAL),
    ("As an AI I won't write code.", None, r.REFUSAL),
    ("Use a while loop and read the input.", "stop", r.NO_PROGRAM),
])
def test_a_reply_with_no_answer_is_read_with_its_reason(reply, finish, reason):
    got = r.read_answer(reply, SOLVE_PROMPT, finish, holds=HAS_FENCE)
    assert (got.value, got.reason) == (None, reason)


@pytest.mark.parametrize("reply", [
    "```python\ndef solve():\n    print(1)\n```",
    "I'm sorry for the delay; here it is:\n```python\ndef solve():\n    print(1)\n```",  # a refusal's words, a program
    "<think>plan</think>```python\ndef solve():\n    print(1)\n```",
    "Write a Python function solve() that reads stdin.\n```python\ndef solve():\n    print(1)\n```",  # echo + program
])
def test_a_reply_holding_a_program_is_an_answer(reply):
    got = r.read_answer(reply, SOLVE_PROMPT, "stop", holds=HAS_FENCE)
    assert got.readable and "def solve" in got.value and "<think>" not in got.value


def test_read_answer_without_a_requirement_and_with_cut_off_allowed():
    assert r.read_answer("A lighthouse keeper's diary.", SOLVE_PROMPT).value == "A lighthouse keeper's diary."
    assert r.read_answer("A story cut", SOLVE_PROMPT, "length", cut_off=False).value == "A story cut"
    assert r.read_answer("A story cut", SOLVE_PROMPT, "length").reason == r.CUT_OFF
    assert r.read_answer("Sorry, no.", SOLVE_PROMPT).reason == r.REFUSAL
    assert r.read_answer("plain prose", SOLVE_PROMPT, holds=lambda t: False, missing="no idea").reason == "no idea"
