"""neocoder/replies.py's grammar factories and readers called at test time (issue 50's
mutation testing): the module-level grammars of the benchmarks are built once at import,
so a broken ``bracketed``, ``first_word``, ``tagged`` or ``choice`` would only show in
grammars made afresh, as a plugin's would be.  Also the edges of the shared rules: a
typographic apostrophe in a refusal, an echoed line of exactly ``ECHO_LINE`` characters,
a bracket right after a marker, placeholders beside answers, the tallies' counts."""

import pytest

from neocoder.benchmarks.framework import grammars as fw
from neocoder.models.base import Reply
from neocoder.replies import (
    BROKEN_JSON,
    CONFLICT,
    ECHO,
    ECHO_LINE,
    EMPTY,
    NO_MARKER,
    OUT_OF_RANGE,
    REASONING_ONLY,
    REFUSAL,
    Grammar,
    Reading,
    Tally,
    answer_text,
    bracketed,
    choice,
    drop_echo,
    first_word,
    mostly_unreadable,
    number,
    opens_with_refusal,
    read_json_fields,
    tagged,
    unreadable_summary,
    within,
)


def test_a_bracketed_grammar_made_now_reads_its_words_and_catches_other_brackets():
    g = bracketed("same or not", ("SAME", "DIFFERENT"))
    assert g.read("They differ: [[different]]") == Reading("DIFFERENT")  # any case, the word as given
    assert g.read("[[SAME]] or rather [[DIFFERENT]]").reason == CONFLICT
    assert g.read("[[SAME]] though (DIFFERENT) at first").reason == CONFLICT  # other brackets disagree
    assert g.read("[[SAME]][DIFFERENT]").reason == CONFLICT  # a bracket right after the marker counts
    assert g.read("[[maybe]] then [[SAME]]") == Reading("SAME")  # a content that is no word is passed over
    assert g.read("SAME]] it is").reason == NO_MARKER  # not opened: nothing is put back
    assert g.describe == "the last [[SAME]] or [[DIFFERENT]]"
    opened = bracketed("verdict", ("YES", "NO"), opened=True, describe="say it")
    assert opened.read("  YES]] fine") == Reading("YES") and opened.opened == "[[" and opened.describe == "say it"


def test_a_first_word_grammar_made_now():
    g = first_word("entail", ("yes", "no"))
    assert g.read("**Yes**, it follows.") == Reading("yes")
    assert g.read("Yes. Well, no.").reason == CONFLICT  # the other word later says otherwise
    assert g.read("Perhaps yes.").reason == NO_MARKER
    assert g.describe == "the reply's first word: yes or no"


def test_a_tagged_grammar_made_now_checks_its_range_and_placeholders():
    g = tagged("score", "score", number, check=within(0, 100), placeholders=("N",))
    assert g.read("ok <SCORE> 42 </score>") == Reading(42.0)
    assert g.read("<score>101</score>").reason == OUT_OF_RANGE
    assert g.read("<score>N</score>").reason == ECHO
    assert g.read("<score>N</score> then <score>7</score>") == Reading(7.0)
    assert g.describe == "the last <score>...</score>"
    assert tagged("t", "t", number, describe="d").describe == "d"


def test_choice_number_and_within():
    read = choice("YES", "No")
    assert read("yes") == "YES" and read("NO") == "No"
    with pytest.raises(ValueError):
        read("maybe")
    assert number("+.5") == 0.5 and number("-3") == -3.0
    for bad in ("1e3", "0x1", "", "1.2.3"):
        with pytest.raises(ValueError):
            number(bad)
    inside = within(0.0, 1.0)
    assert inside(0.0) and inside(1.0) and not inside(-0.01) and not inside(1.01)


def test_a_fresh_grammar_compiles_its_patterns_with_its_flags():
    g = Grammar("case", marker=r"\[\[(\w+)\]\]", value=choice("YES", "NO"), describe="d", flags=0)
    assert g.read("[[YES]]") == Reading("YES")
    assert g.read("[[yes]]") == Reading("YES")  # the content is read in any case by choice
    marker = Grammar("case", marker=r"\[\[(YES|NO)\]\]", value=choice("YES", "NO"), describe="d", flags=0)
    assert marker.read("[[yes]]").reason == NO_MARKER  # flags=0: the pattern itself is case-sensitive
    assert marker.read("[[NO]]") == Reading("NO") and marker.read("[[NO]]") == Reading("NO")  # compiled once, kept


def test_loose_matches_that_are_no_value_are_passed_over():
    g = Grammar("t", marker=r"\[\[(\w+)\]\]", value=choice("YES", "NO"), loose=r"\((\w+)\)", describe="d")
    assert g.read("(maybe) (NO) [[YES]]").reason == CONFLICT  # "maybe" skipped, "NO" still disagrees
    assert g.read("(maybe) [[YES]]") == Reading("YES")


def test_a_placeholder_beside_an_answer_is_no_contradiction():
    assert fw.VERDICT.read("[[<verdict>]] then [[YES]]") == Reading("YES")
    assert fw.VERDICT.read("[[<verdict>]] then [[YES]] and (NO)").reason == CONFLICT


def test_a_typographic_apostrophe_opens_a_refusal():
    assert opens_with_refusal("I\u2019m sorry, no.") and opens_with_refusal("I can\u2019t do that")
    assert opens_with_refusal("I won't") and not opens_with_refusal("Cells can\u2019t divide")
    assert fw.VERDICT.read("I\u2019m sorry, I cannot judge this.").reason == REFUSAL


def test_drop_echo_at_exactly_echo_line_characters():
    line = "x" * ECHO_LINE
    prompt = f"Instructions\n{line}\nmore"
    assert drop_echo(f"{line}\nmine", prompt) == ("mine", True)
    assert drop_echo(f"{line[:-1]}\nmine", prompt) == (f"{line[:-1]}\nmine", False)  # one shorter: kept
    assert drop_echo("mine", prompt) == ("mine", False)
    assert drop_echo("mine", None) == ("mine", False) and drop_echo("mine", "") == ("mine", False)


def test_the_framework_reader_drops_echoed_prompt_lines_before_reading():
    prompt = "Answer [[YES]] or [[NO]].\nFor example: [[NO]] means the criterion is not met at all.\nVerdict: [["
    reply = Reply(text="For example: [[NO]] means the criterion is not met at all.\nYES]] it holds")
    assert fw.read(fw.VERDICT, reply, prompt) == Reading("YES")
    assert fw.read(fw.VERDICT, reply) == Reading("NO")  # without the prompt the copied example is the answer


def test_read_json_fields_drops_an_echoed_example_and_reads_the_answer():
    prompt = 'Reply as JSON, for example {"originality": 11, "clarity": 0} with your scores.'
    reply = '{"originality": 11, "clarity": 0} with your scores.\n{"Originality": 7, "clarity": 8}'
    assert read_json_fields(reply, ("originality", "clarity"), check=within(1, 10)).value == {
        "originality": 7.0, "clarity": 8.0}
    echoed = 'Reply as JSON, for example {"originality": 11, "clarity": 0} with your scores.'
    assert read_json_fields(echoed, ("originality", "clarity"), prompt=prompt).reason == ECHO
    assert read_json_fields(echoed, ("originality", "clarity"), check=within(1, 10)).reason == OUT_OF_RANGE
    assert read_json_fields('{"originality": true, "clarity": 2}', ("originality", "clarity")).reason == BROKEN_JSON
    assert read_json_fields("{not json", ("a",)).reason == BROKEN_JSON
    assert read_json_fields("  I'm sorry, no scores.", ("a",)).reason == REFUSAL
    assert read_json_fields("   ", ("a",)).reason == EMPTY


def test_tally_counts_each_reason_and_the_share():
    t = Tally()
    for reading in (Reading.unreadable(ECHO), Reading.unreadable(ECHO), Reading(1), None):
        t.add("judge", reading)
    t.add_reason("judge", None)
    t.add_reason("judge", EMPTY)
    assert t.to_dict() == {"judge": {"replies": 5, "readable": 2, "unreadable": 3, "share": 0.6,
                                     "reasons": {ECHO: 2, EMPTY: 1}}}
    assert unreadable_summary(0, 0) == {"replies": 0, "readable": 0, "unreadable": 0, "share": None, "reasons": {}}


def test_mostly_unreadable_is_more_than_half():
    assert not mostly_unreadable(None) and not mostly_unreadable({}) and not mostly_unreadable({"replies": 0})
    assert not mostly_unreadable(unreadable_summary(4, 2))  # exactly half
    assert mostly_unreadable(unreadable_summary(5, 3)) and mostly_unreadable(unreadable_summary(1, 1))
    assert mostly_unreadable({"replies": 3, "readable": 0, "share": None})


@pytest.mark.parametrize("text, value", [("X", "X"), ("STOPX now", "STOPX now"), ("STOP, I think", "STOP"),
                                         ("**Stop.**", "STOP"), ("Step 2: stop", "STOP")])
def test_step_candidates_at_the_edges_of_stop(text, value):
    assert fw.read_candidate(text) == Reading(value)


def test_the_factories_name_their_grammar_and_open_it_only_when_asked():
    assert bracketed("b", ("A",)).name == "b" and bracketed("b", ("A",)).opened == ""
    assert first_word("f", ("yes",)).name == "f" and tagged("t", "score", number).name == "t"


def test_a_loose_match_inside_a_marker_is_not_read_again():
    # the loose pattern also matches the start of the marker itself ("[[N" of "[[NO]]"): inside the
    # marker's span it is the marker, not a second opinion
    g = Grammar("t", marker=r"\[\[(YES|NO)\]\]", value=choice("YES", "NO", "N"), loose=r"\[\[(N)", describe="d")
    assert g.read("[[NO]]") == Reading("NO")
    assert g.read("[[N then [[NO]]").reason == CONFLICT  # outside a marker it is read


def test_answer_text_and_reading_dict():
    assert answer_text("<think>only this</think>") == (None, Reading.unreadable(REASONING_ONLY))
    assert answer_text("   ") == (None, Reading.unreadable(EMPTY))
    assert answer_text("- loops\n- recursion", "Name the techniques.") == ("- loops\n- recursion", None)
    asked = "Name every technique the program uses, one a line."  # a line of the prompt, sent back
    assert answer_text(f"{asked}\n- loops", f"Read this.\n{asked}") == ("- loops", None)
    assert answer_text(asked, f"Read this.\n{asked}") == (None, Reading.unreadable(ECHO))
    assert fw.reading_dict(Reading.unreadable(ECHO)) == {"value": None, "reason": ECHO}
    assert fw.reading_dict(Reading(0.5)) == {"value": 0.5, "reason": None}
