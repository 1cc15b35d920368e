"""The diversity judge's reply grammar (issue 46): the last [[SAME]] / [[DIFFERENT]]
decides, every drifting reply is unreadable with its reason, counted per reason, and the
program it was asked about is set aside, never merged or split on a guess."""

import pytest
from drifting import EMPTY, MALFORMED, REASONING_ONLY, REFUSAL, THINK_ONLY, DriftingServer, cut, echo

from neocoder.config import ModelConfig
from neocoder.metrics.diversity.judge_measure import GRAMMAR, Judge, judge_prompt, read_verdict
from neocoder.models import ModelError, get_model

PROMPT = judge_prompt("Print the largest number.", "print(max(a))", "print(sorted(a)[-1])")
ASKED = PROMPT.messages[0]["content"]


@pytest.mark.parametrize("reply, value", [
    ("One sorts, the other scans.\n[[DIFFERENT]]", False),
    ("[[SAME]]", True),
    ("Both scan once. [[same]]", True),  # the marker in other case is still the marker
    ("At first I thought [[SAME]], but no: one sorts.\n[[DIFFERENT]]\n", None),  # two markers disagree
    ("<think>maybe [[DIFFERENT]]</think>Both take the maximum. [[SAME]]", True),  # thinking is not read
])
def test_the_last_marker_decides_and_disagreeing_markers_are_unreadable(reply, value):
    reading = read_verdict(reply, ASKED)
    assert reading.value is value
    assert reading.readable is (value is not None)


@pytest.mark.parametrize("reply, finish, reason", [
    ("", None, "empty"),
    ("   \n", None, "empty"),
    ("<think>Let me compare the two loops carefully.</think>", None, "reasoning only"),
    ("I'm sorry, but I cannot compare these programs.", None, "refusal"),
    ("The first program sorts the whole list and then", "length", "cut off"),
    ("SAME", None, "no marker"),  # a bare word is no marker: the prompt asks for brackets
    ("[SAME]", None, "no marker"),
    ("[[SAME]] although **DIFFERENT** in style", None, "conflicting markers"),
    ("[[SAME]] or maybe [DIFFERENT]", None, "conflicting markers"),
    ("[[<verdict>]]", None, "echo"),  # the prompt's placeholder is no verdict
    (ASKED, None, "echo"),  # the whole prompt sent back
    ("[[MAYBE]]", None, "no marker"),
])
def test_drifting_replies_are_unreadable_with_their_reason(reply, finish, reason):
    reading = read_verdict(reply, ASKED, finish)
    assert not reading.readable and reading.value is None and reading.reason == reason


def test_a_base_models_continuation_gets_its_opening_back():
    assert PROMPT.completion.endswith("Verdict: [[") and PROMPT.code_prefix == "Verdict: [["
    assert read_verdict("SAME]]", PROMPT.completion, completion=True).value is True
    assert read_verdict("DIFFERENT]] since one sorts", PROMPT.completion, completion=True).value is False
    assert read_verdict("", PROMPT.completion, completion=True).reason == "empty"
    assert read_verdict("perhaps", PROMPT.completion, completion=True).reason == "no marker"
    # the prompts show a placeholder, never a verdict a model could echo as its answer
    assert "[[<verdict>]]" in ASKED and "[[SAME]]" not in ASKED and "[[DIFFERENT]]" not in ASKED
    assert GRAMMAR.placeholders == ("<verdict>",)


# The scripted judge: per reply kind, what it sends and the reason it must be counted under.
KINDS = [
    ("answer", "Same steps.\n[[SAME]]", None),
    ("answer", "[[DIFFERENT]]", None),
    ("empty", EMPTY, "empty"),
    ("cut off", cut("Program A sorts the list while program B"), "cut off"),
    ("reasoning only", REASONING_ONLY, "reasoning only"),
    ("think only", THINK_ONLY, "reasoning only"),
    ("echo", "echo", "echo"),
    ("refusal", REFUSAL, "refusal"),
    ("answer", "[[SAME]] ... [[DIFFERENT]]", "conflicting markers"),
    ("answer", "SAME", "no marker"),
]


def test_a_drifting_judge_is_counted_per_reply_kind_and_its_programs_set_aside(tmp_path):
    script = iter(KINDS)

    def respond(kind, body):
        _, say, _ = next(script)
        return echo(kind, body) if say == "echo" else say
    server = DriftingServer(respond)
    try:
        model = get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k", max_tokens=48))
        judge = Judge(model, {"1A": "Print the largest number."})
        readings = [judge.verdict("1A", "print(max(a))", f"print({i})") for i in range(len(KINDS))]
    finally:
        server.close()
    assert server.calls == len(KINDS) and judge.calls == len(KINDS)
    assert [r.reason for r in readings] == [reason for *_, reason in KINDS]
    assert [r.value for r in readings[:2]] == [True, False]
    tally = judge.tally.to_dict()["diversity judge"]
    unreadable = [reason for *_, reason in KINDS if reason]
    assert tally["replies"] == len(KINDS) and tally["unreadable"] == len(unreadable) == judge.unreadable
    assert tally["reasons"] == {r: unreadable.count(r) for r in set(unreadable)}
    assert tally["share"] == pytest.approx(len(unreadable) / len(KINDS))


def test_an_unreadable_verdict_sets_the_program_aside_in_the_partition():
    # program 1 vs 0: DIFFERENT (new class); 2 vs 0: empty -> set aside, never compared with
    # program 1; 3 vs 0: SAME -> class 0; 4 vs 0: DIFFERENT, 4 vs 1: refusal -> set aside
    replies = iter(["[[DIFFERENT]]", EMPTY, "[[SAME]]", "[[DIFFERENT]]", REFUSAL])
    server = DriftingServer(lambda kind, body: next(replies))
    try:
        judge = Judge(get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k")), {"1A": "P"})
        labels = judge.partition("1A", ["a", "b", "c", "d", "e"])
    finally:
        server.close()
    assert labels == [0, 1, None, 0, None]
    assert judge.set_aside == [("1A", 2, 5), ("1A", 4, 5)]
    assert judge.pairs_set_aside() == 2 * 3 + 1  # each with the three placed, and the pair of the two
    assert judge.tally.to_dict()["diversity judge"]["reasons"] == {"empty": 1, "refusal": 1}


def test_a_malformed_200_is_a_model_error_not_a_verdict():
    server = DriftingServer(lambda kind, body: MALFORMED)
    try:
        judge = Judge(get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k")), {"1A": "P"})
        with pytest.raises(ModelError):
            judge.same("1A", "a", "b")
    finally:
        server.close()
    assert judge.tally.to_dict() == {}  # an error is no reply: not counted as readable or unreadable


def test_validate_sets_aside_the_pairs_of_unreadable_verdicts_and_says_so(tmp_path, release_dir):
    import json

    from checkout import CHECKOUT
    from click.testing import CliRunner

    from neocoder.cli import main
    labels = CHECKOUT / "data" / "codeforces" / "algorithm_pairs" / "partitions.jsonl"
    calls = iter(range(10_000))
    # every third verdict a refusal, the others SAME
    server = DriftingServer(lambda kind, body: REFUSAL if next(calls) % 3 == 2 else "[[SAME]]")
    try:
        out = tmp_path / "report.json"
        result = CliRunner().invoke(main, [
            "diversity", "validate", "--release", str(release_dir), "--labels", str(labels), "--bootstrap", "20",
            "--measures", "technique", "--model", "openai/judge", "--base-url", server.url, "--api-key", "k",
            "--judge-programs", "4", "--judge-cache", str(tmp_path / "judge.jsonl"), "--json", str(out)])
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    j = report["judge_calls"]
    # a verdict asked twice (identical programs) is answered once by the call cache: the
    # judge counts every verdict it read, the server only the calls that reached it
    assert j["calls"] >= server.calls and server.count("refusal") > 0
    refusals = j["unreadable"]
    assert refusals >= server.count("refusal") and j["set_aside_programs"] == refusals
    assert report["unreadable"]["diversity judge"] == {
        "replies": j["calls"], "readable": j["calls"] - refusals, "unreadable": refusals,
        "share": refusals / j["calls"], "reasons": {"refusal": refusals}}
    assert j["set_aside_pairs"] > 0
    line = next(x for x in result.output.splitlines() if x.startswith("judge openai/judge"))
    assert f"{refusals} replies unreadable ({refusals} refusal)" in line
    assert f"{j['set_aside_programs']} programs, {j['set_aside_pairs']} pairs" in line
