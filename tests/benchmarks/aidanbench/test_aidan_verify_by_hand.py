"""How a board reads a recorded AidanBench coherence reply again
(neocoder/benchmarks/aidanbench/verify.py ``coherence_readings``; issue 56, item 5), worked
by hand: a chat reply as recorded, a completion reply with the ``<score>`` its prompt ended
with put back, both where the mode is unknown; the scale's range applies."""

from __future__ import annotations

from neocoder.benchmarks.aidanbench.verify import coherence_readings


def test_a_chat_reply_is_read_as_recorded():
    assert coherence_readings("<score>70</score> fine", 100, False) == [70.0]
    assert coherence_readings("70</score>", 100, False) == [None]  # a chat judge must write the whole tag
    assert coherence_readings("", 100, False) == [None] and coherence_readings(None, 100, False) == [None]


def test_a_completion_reply_gets_the_opening_tag_its_prompt_ended_with():
    assert coherence_readings("70</score> because", 100, True) == [70.0]
    assert coherence_readings("70", 100, True) == [70.0]  # cut before its closing tag: the tag is closed
    assert coherence_readings("", 100, True) == [None]
    assert coherence_readings(None, 100, True) == [None]


def test_an_unknown_mode_reads_both_ways():
    assert coherence_readings("70</score>", 100, None) == [None, 70.0]
    assert coherence_readings("<score>40</score>", 100, None) == [40.0, 40.0]  # the inner tag read either way


def test_the_scale_bounds_the_score():
    assert coherence_readings("<score>9</score>", 10, False) == [9.0]
    assert coherence_readings("<score>70</score>", 10, False) == [None]  # out of the paper's 1-10
    assert coherence_readings("<score>100</score>", 100, False) == [100.0]
    assert coherence_readings("<score>101</score>", 100, False) == [None]
