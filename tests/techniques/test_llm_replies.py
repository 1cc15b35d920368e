"""The LLM technique detector's reply grammar (issue 46): a bullet list of the taxonomy's
names, or "- none"; every drifting reply unreadable with its reason and counted, and a
program whose replies are all unreadable has unknown techniques (DetectionError), never
an empty set."""

import pytest
from drifting import EMPTY, MALFORMED, REASONING_ONLY, REFUSAL, THINK_ONLY, DriftingServer, cut, echo

from neocoder.config import ModelConfig
from neocoder.models import ModelError, get_model
from neocoder.techniques.human import _detector_files
from neocoder.techniques.llm import ROLE, DetectionError, LLMDetector, parse_labels
from neocoder.techniques.taxonomy import TAXONOMY

ASKED = LLMDetector(None).prompt("for i in range(3):\n    print(sorted([i, 2]))", "python").messages[0]["content"]


@pytest.mark.parametrize("reply, techniques, dropped", [
    ("- for loop\n- sorting", {"for loop", "sorting"}, []),
    ("Here you go:\n- For Loop\n* breadth first search\n1. sorting.\n- vector\n",
     {"for loop", "width first search", "sorting"}, ["vector"]),
    ("- none", set(), []),
    ("- **None**.", set(), []),
    ("<think>- recursion?</think>\n- for loop", {"for loop"}, []),  # thinking is not read
])
def test_a_bullet_list_is_read_as_the_taxonomys_names(reply, techniques, dropped):
    reading = parse_labels(reply, ASKED)
    assert reading.readable and reading.value == (techniques, dropped)


@pytest.mark.parametrize("reply, finish, reason", [
    ("", None, "empty"),
    ("<think>It loops over the input.</think>", None, "reasoning only"),
    ("I'm sorry, I can't analyse this code.", None, "refusal"),
    ("- for loop\n- sort", "length", "cut off"),  # a cut list may miss techniques: never read as complete
    ("It uses a loop, I think.", None, "no marker"),
    ("- vector\n- loops", None, "no marker"),  # no name of the list: not an empty set
    ("- none\n- for loop", None, "conflicting markers"),
    ("- <technique>\n- <technique>", None, "echo"),  # the prompt's placeholder
    ("\n".join(f"- {t}" for t in TAXONOMY), None, "echo"),  # the taxonomy copied back
    (ASKED, None, "echo"),  # the whole prompt sent back
])
def test_drifting_replies_are_unreadable_with_their_reason(reply, finish, reason):
    reading = parse_labels(reply, ASKED, finish)
    assert not reading.readable and reading.value is None and reading.reason == reason


def test_the_prompt_shows_a_placeholder_and_llm_py_is_not_the_shipped_detectors_source():
    assert "- <technique>" in ASKED and "- for loop\n- sorting" not in ASKED
    names = [f.name for f in _detector_files()]
    assert "llm.py" not in names and "detector.py" in names and "human.py" in names


KINDS = [  # what the scripted detector sends and the reason it is counted under
    ("- for loop\n- sorting", None),
    (EMPTY, "empty"),
    (cut("- for loop\n- sort"), "cut off"),
    (REASONING_ONLY, "reasoning only"),
    (THINK_ONLY, "reasoning only"),
    ("echo", "echo"),
    (REFUSAL, "refusal"),
    ("- none\n- recursion", "conflicting markers"),
    ("It loops.", "no marker"),
]


def test_a_drifting_detector_is_counted_per_reply_kind_and_unknown_is_never_empty():
    script = iter(KINDS)

    def respond(kind, body):
        say, _ = next(script)
        return echo(kind, body) if say == "echo" else say
    server = DriftingServer(respond)
    try:
        detector = LLMDetector(get_model(ModelConfig("openai/d", base_url=server.url, api_key="k")), retries=2)
        results = []
        for _ in range(3):  # three programs, up to three replies each
            try:
                results.append(detector.detect("for i in range(3):\n    print(i)"))
            except DetectionError as exc:
                results.append(exc.reason)
    finally:
        server.close()
    # the 1st reply reads; the next three (empty, cut off, reasoning only) exhaust the 2nd
    # program's tries; the 3rd program's three (think only, echo, refusal) too
    assert results == [{"for loop", "sorting"}, "reasoning only", "refusal"]
    assert server.calls == 7
    tally = detector.tally.to_dict()[ROLE]
    sent = [reason for _, reason in KINDS[:7]]
    unreadable = [r for r in sent if r]
    assert tally["replies"] == 7 and tally["unreadable"] == len(unreadable) == 6
    assert tally["reasons"] == {r: unreadable.count(r) for r in set(unreadable)}


def test_the_detector_reads_a_retried_reply_and_counts_the_unreadable_ones():
    script = iter(["- none\n- recursion", "It loops.", "- recursion"])
    server = DriftingServer(lambda kind, body: next(script))
    try:
        detector = LLMDetector(get_model(ModelConfig("openai/d", base_url=server.url, api_key="k")), retries=2)
        assert detector.detect("def f(n):\n    return f(n - 1)") == {"recursion"}
    finally:
        server.close()
    assert detector.tally.to_dict()[ROLE]["reasons"] == {"conflicting markers": 1, "no marker": 1}


def test_a_malformed_200_is_a_model_error_not_a_technique_list():
    server = DriftingServer(lambda kind, body: MALFORMED)
    try:
        detector = LLMDetector(get_model(ModelConfig("openai/d", base_url=server.url, api_key="k")))
        with pytest.raises(ModelError):
            detector.detect("print(1)")
    finally:
        server.close()
    assert detector.tally.to_dict() == {}
