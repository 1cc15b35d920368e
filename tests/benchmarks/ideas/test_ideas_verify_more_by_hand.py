"""A board's checks of a submitted LiveIdeaBench run (neocoder/benchmarks/ideas/verify.py;
issue 56, the "board" mutation set's survivors), worked by hand on small records: how a
recorded reply is read again (chat, completion, both), what each check accepts and what
it refuses, with the message it refuses with, and ``rescore`` / ``recompute`` on a run
folder made here.  Every value below is counted by hand from the records written."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.ideas.protocol import reply_reader
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.verify import (
    check_grades,
    check_ideas,
    check_judgements,
    check_replies,
    eligible_seats,
    readings,
    recompute,
    rescore,
    settings_of,
)
from neocoder.errors import NeocoderError

WRITER = "openai/writer"
REPLY = "originality: 7\nfeasibility: 6\nclarity: 5"  # our judge's three lines
CONTINUED = " 7\nfeasibility: 6\nclarity: 5"  # the same sent by a completions-API seat: "originality:" was the prompt's
SCORES = {"originality": 7.0, "feasibility": 6.0, "clarity": 5.0}
OURS, OFFICIAL = reply_reader("ours"), reply_reader("official")
KEYWORDS = ("bees", "tides", "comets")


def idea(k: int, num: int, text: str = "hives share warmth", status: str = "ok", words: int | None = None,
         model: str = WRITER, recorded: str | None = None) -> Idea:
    return Idea(model=model, keyword_index=k, keyword=KEYWORDS[k], idea_num=num, idea=text, status=status,
                words=len(text.split()) if words is None else words, recorded_model=recorded)


def judgement(k: int, num: int, judge: str = "j1", replies=(REPLY,), scores=SCORES, reasons=None,
              keyword: str | None = None, model: str = WRITER) -> IdeaJudgement:
    return IdeaJudgement(model=model, keyword_index=k, keyword=keyword or KEYWORDS[k], idea_num=num, judge=judge,
                         judge_spec=f"openai/{judge}", scores=scores, replies=list(replies),
                         reasons=[None] * len(replies) if reasons is None else reasons)


def grade(k: int, judge: str = "j1", replies=("grade: B",), letter: str | None = "B", score: float | None = 7.0,
          reasons=None, model: str = WRITER) -> FluencyGrade:
    return FluencyGrade(model=model, keyword_index=k, keyword=KEYWORDS[k], judge=judge, judge_spec=f"openai/{judge}",
                        idea_nums=[1, 2], grade=letter, score=score, replies=list(replies),
                        reasons=[None] * len(replies) if reasons is None else reasons)


def kept(*ideas) -> dict:
    return {(i.keyword_index, i.idea_num): i for i in ideas}


def config(**change) -> dict:
    base = {"model": {"spec": WRITER}, "judges": [{"spec": "openai/j1"}], "judge_names": ["j1"],
            "judges_per_idea": 1, "seed": 0, "bootstrap": 100, "bootstrap_seed": 0, "max_words": 3,
            "ideas_per_keyword": 2}
    return {**base, **change}


# ---- readings: a recorded reply read as the seat sent it


def test_a_chat_seat_s_reply_is_read_as_recorded():
    assert readings("x", lambda t: t, "p:", False) == ["x"]
    assert readings(" B", OURS.parse_grade, "grade:", False) == [None]  # a chat judge must write "grade:" itself


def test_a_completion_seat_s_reply_gets_its_prompt_s_prefix_back():
    assert readings("x", lambda t: t, "p:", True) == ["p:x"]
    assert readings(" B", OURS.parse_grade, "grade:", True) == ["B"]


def test_an_unknown_mode_reads_both_ways():
    assert readings("x", lambda t: t, "p:", None) == ["x", "p:x"]


def test_with_no_prefix_there_is_one_reading_whatever_the_mode():
    for completion in (None, True, False):
        assert readings("x", lambda t: t, "", completion) == ["x"]


# ---- check_replies: the replies give what the record says


def parse_scores(text):
    return OURS.parse_reply(text)[0]


def test_scores_with_no_reply_behind_them_are_refused():
    with pytest.raises(RecordsDisagree, match=r"^here: \{'originality': 7.0, .*\} with no recorded judge reply "
                                              r"behind it$"):
        check_replies(judgement(0, 1, replies=()), parse_scores, "originality:", False, SCORES, "here")


def test_no_scores_and_no_reply_is_accepted():
    assert check_replies(judgement(0, 1, replies=(), scores=None), parse_scores, "originality:", False, None,
                         "here") is None


def test_a_completion_seat_s_reply_without_the_prefix_is_accepted():
    assert check_replies(judgement(0, 1, replies=(CONTINUED,)), parse_scores, "originality:", True, SCORES,
                         "here") is None


def test_a_chat_seat_s_reply_without_the_prefix_is_refused():
    with pytest.raises(RecordsDisagree, match=r"^here: .* in records.jsonl, None read from its recorded judge reply 1"):
        check_replies(judgement(0, 1, replies=(CONTINUED,)), parse_scores, "originality:", False, SCORES, "here")


@pytest.mark.parametrize("reasons", [[], [None, None]])
def test_reasons_that_are_not_one_per_reply_are_refused(reasons):
    with pytest.raises(RecordsDisagree, match=r"^here: reply 1's recorded reason None does not say whether it reads"):
        check_replies(judgement(0, 1, reasons=reasons), parse_scores, "", False, SCORES, "here")


# ---- check_ideas: an idea's status against the length rule (max_words 3 here)


def test_an_ok_idea_whose_word_count_is_not_its_idea_s_is_refused(tmp_path):
    settings = settings_of(tmp_path, config())
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' idea 1: 2 words in records.jsonl, 3 counted in "
                                              r"its idea$"):
        check_ideas([idea(0, 1, words=2)], settings, live=False)


def test_the_length_rule_keeps_an_idea_of_exactly_max_words(tmp_path):
    settings = settings_of(tmp_path, config())
    three, four = idea(0, 1, "hives share warmth"), idea(0, 2, "hives share their warmth", status="too long")
    assert check_ideas([three, four], settings, live=True) == {(0, 1): three}
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' idea 1: status 'too long' in records.jsonl with 3 "
                                              r"words \(the length rule: at most 3\)"):
        check_ideas([idea(0, 1, status="too long")], settings, live=False)


def test_an_ok_idea_over_max_words_is_refused(tmp_path):
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' idea 1: status 'ok' in records.jsonl with 4 words"):
        check_ideas([idea(0, 1, "hives share their warmth")], settings_of(tmp_path, config()), live=False)


# ---- check_judgements


def test_a_judgement_of_no_kept_idea_is_refused(tmp_path):
    settings, one = settings_of(tmp_path, config()), idea(0, 1)
    for j in (judgement(0, 2), judgement(0, 1, keyword="tides")):  # no idea 2; idea 1 is of "bees"
        with pytest.raises(RecordsDisagree, match=r"judge j1: a judgement of no kept idea$"):
            check_judgements(kept(one), [judgement(0, 1), j], ["j1"], settings, OURS, {"j1": False})


def test_a_completion_seat_s_scores_are_read_with_originality_put_back(tmp_path):
    settings = settings_of(tmp_path, config())
    got = check_judgements(kept(idea(0, 1)), [judgement(0, 1, replies=(CONTINUED,))], ["j1"], settings, OURS,
                           {"j1": True})
    assert got == 1


def test_a_chat_seat_s_scores_without_originality_are_refused(tmp_path):
    settings = settings_of(tmp_path, config())
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' idea 1 judge j1: .* None read from its recorded"):
        check_judgements(kept(idea(0, 1)), [judgement(0, 1, replies=(CONTINUED,))], ["j1"], settings, OURS,
                         {"j1": False})


def test_a_score_one_point_off_its_reply_is_refused(tmp_path):
    settings = settings_of(tmp_path, config())
    raised = judgement(0, 1, scores={**SCORES, "originality": 8.0})
    with pytest.raises(RecordsDisagree, match=r"'originality': 8.0.* in records.jsonl, \{'originality': 7.0"):
        check_judgements(kept(idea(0, 1)), [raised], ["j1"], settings, OURS, {"j1": False})


def test_an_official_run_s_scores_are_read_from_the_json_block(tmp_path):
    settings = settings_of(tmp_path, config())
    reply = 'Sound idea. {"originality": 7, "feasibility": 6, "clarity": 5}'
    for completion in (True, False, None):
        assert check_judgements(kept(idea(0, 1)), [judgement(0, 1, replies=(reply,))], ["j1"], settings, OFFICIAL,
                                {"j1": completion}) == 1


# ---- check_grades: one fluency grade per keyword of two or more kept ideas


def two_kept(k: int = 0) -> dict:
    return kept(idea(k, 1), idea(k, 2))


def test_a_grade_is_read_again_and_its_points_are_its_letter_s():
    assert check_grades(two_kept(), [grade(0)], OURS, {"j1": False}) == 1
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' fluency judge j1: score 8.0 in records.jsonl, 7.0 for "
                                              r"grade B$"):
        check_grades(two_kept(), [grade(0, score=8.0)], OURS, {"j1": False})


def test_an_unreadable_grade_has_no_points():
    unread = dict(replies=("I like them both",), letter=None, reasons=["no marker"])
    assert check_grades(two_kept(), [grade(0, score=None, **unread)], OURS, {"j1": False}) == 1
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' fluency judge j1: score 7.0 in records.jsonl, None for "
                                              r"grade None$"):
        check_grades(two_kept(), [grade(0, score=7.0, **unread)], OURS, {"j1": False})


def test_a_grade_of_a_keyword_with_fewer_than_two_kept_ideas_is_refused():
    message = r"^keyword 'tides' fluency judge j1: a grade of a keyword with fewer than two kept ideas$"
    with pytest.raises(RecordsDisagree, match=message):  # no kept idea of "tides" at all
        check_grades(two_kept(0), [grade(0), grade(1)], OURS, {"j1": False})
    with pytest.raises(RecordsDisagree, match=message):  # one kept idea of "tides"
        check_grades({**two_kept(0), **kept(idea(1, 1))}, [grade(0), grade(1)], OURS, {"j1": False})
    assert check_grades({**two_kept(0), **two_kept(1)}, [grade(0), grade(1)], OURS, {"j1": False}) == 2


def test_a_keyword_of_two_kept_ideas_and_no_grade_is_refused():
    with pytest.raises(RecordsDisagree, match=r"^keyword 'tides': 2 kept ideas and no fluency grade$"):
        check_grades({**two_kept(0), **two_kept(1)}, [grade(0)], OURS, {"j1": False})
    assert check_grades({**two_kept(0), **kept(idea(1, 1))}, [grade(0)], OURS, {"j1": False}) == 1


def test_a_completion_seat_s_grade_is_read_with_grade_put_back():
    assert check_grades(two_kept(), [grade(0, replies=(" B",))], OURS, {"j1": True}) == 1
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' fluency judge j1: 'B' in records.jsonl, None read"):
        check_grades(two_kept(), [grade(0, replies=(" B",))], OURS, {"j1": False})



def test_an_official_run_s_grade_is_read_as_sent_whatever_the_seat():
    # the authors' fluency critic answers with its first word; its prompt ends with no prefix to put back
    for completion in (True, False, None):
        assert check_grades(two_kept(), [grade(0, replies=("B. The two differ in method.",))], OFFICIAL,
                            {"j1": completion}) == 1
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' fluency judge j1: 'B' in records.jsonl, None read"):
        check_grades(two_kept(), [grade(0, replies=("grade: B",))], OFFICIAL, {"j1": True})

# ---- rescore and recompute on a run folder made here


def run_folder(path, *records, extra_lines: str = ""):
    from neocoder.store import RunFolder
    run = RunFolder(path, create=True)
    for r in records:
        run.append(r)
    if extra_lines:
        with run.records_path.open("a", encoding="utf-8") as f:
            f.write(extra_lines)
    return path


def graded_run(path, replies=(REPLY,), grade_replies=("grade: B",)):
    """Keyword "bees": two kept ideas, each judged by j1, and j1's fluency grade B."""
    return run_folder(path, idea(0, 1), idea(0, 2), judgement(0, 1, replies=replies),
                      judgement(0, 2, replies=replies), grade(0, replies=grade_replies))


def test_a_manifest_silent_on_the_protocol_is_rescored_with_ours(tmp_path):
    folder = graded_run(tmp_path / "run")
    assert "protocol" not in config()
    assert rescore(folder, WRITER, config(), tmp_path) == ("re-scored from recorded judgements: 3 of 3 judge replies "
                                                           "agree (2 kept ideas, 1 keywords)")


def test_a_protocol_a_board_cannot_read_is_refused(tmp_path):
    folder = graded_run(tmp_path / "run")
    with pytest.raises(NeocoderError, match=r"^manifest.json: protocol 'theirs': use "):
        rescore(folder, WRITER, config(protocol="theirs"), tmp_path)


def test_a_missing_run_folder_is_refused_and_not_made(tmp_path):
    for call in (lambda f: rescore(f, WRITER, config(), tmp_path), lambda f: recompute(f, WRITER, config(), {})):
        with pytest.raises(NeocoderError, match=r"no such run folder"):
            call(tmp_path / "missing")
        assert not (tmp_path / "missing").exists()


def test_a_record_with_no_model_field_is_no_record_of_the_model(tmp_path):
    state = '{"problem_id": "1A", "state": 0, "constraints": [], "statement": "s", "tests": []}\n'
    folder = run_folder(tmp_path / "run", idea(0, 1), idea(0, 2), judgement(0, 1), judgement(0, 2), grade(0),
                        extra_lines=state)
    assert rescore(folder, WRITER, config(), tmp_path).endswith("3 of 3 judge replies agree (2 kept ideas, 1 keywords)")


def test_the_manifest_s_seat_mode_says_how_replies_are_read(tmp_path):
    folder = graded_run(tmp_path / "run", replies=(CONTINUED,), grade_replies=(" B",))
    local = config(judges=[{"spec": "local/j1"}])  # a local seat is asked through the completions API
    assert rescore(folder, WRITER, local, tmp_path).startswith("re-scored from recorded judgements: 3 of 3")
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees' idea 1 judge j1: .* None read from its recorded"):
        rescore(folder, WRITER, config(), tmp_path)  # an openai seat is a chat seat: it wrote no "originality:"


def replayed_run(path):
    model = "replay/runs/old"
    return run_folder(path, idea(0, 1, model=model, recorded="openai/j2"), judgement(0, 1, model=model))


REPLAYED = dict(model={"spec": "replay/runs/old"}, judges=[{"spec": "openai/j1"}, {"spec": "openai/j2"}],
                judge_names=["j1", "j2"])


def test_a_replayed_run_may_bring_fewer_ideas_than_asked(tmp_path):
    folder = replayed_run(tmp_path / "run")
    assert rescore(folder, "replay/runs/old", config(**REPLAYED), tmp_path) == (
        "re-scored from recorded judgements: 1 of 1 judge replies agree (1 kept ideas, 1 keywords)")
    live = run_folder(tmp_path / "live", idea(0, 1), judgement(0, 1))
    with pytest.raises(RecordsDisagree, match=r"^keyword 'bees': ideas \[1\] in records.jsonl, \[1, 2\] asked$"):
        rescore(live, WRITER, config(), tmp_path)


def test_a_replayed_run_is_summarized_over_its_ideas_keywords_without_their_writer(tmp_path):
    folder = replayed_run(tmp_path / "run")
    got = recompute(folder, "replay/runs/old", config(**REPLAYED), {})["models"]["replay/runs/old"]
    assert (got["keywords"], got["ideas"], got["kept"], got["judgements"]) == (1, 1, 1, 1)
    assert got["eligible_judges"] == ["j1"] and got["judges"] == {"j1": 1}
    assert [row["keyword"] for row in got["per_keyword"]] == ["bees"]


def test_a_panel_too_small_is_refused_naming_the_model(tmp_path):
    folder = graded_run(tmp_path / "run")
    alone = config(judges=[{"spec": WRITER}])  # the only seat is the idea model itself
    for call in (rescore, recompute):
        with pytest.raises(NeocoderError, match=r"^openai/writer: the panel has 0 judge\(s\) besides the idea model, "
                                                r"fewer than the 1 drawn per idea"):
            call(folder, WRITER, alone, tmp_path)


def test_the_panel_draws_three_per_idea_when_the_manifest_is_silent():
    seats = {"judge_names": ["j1", "j2", "j3", "j4"],
             "judges": [{"spec": "openai/a"}, {"spec": "openai/b"}, {"spec": "openai/c"}, {"spec": "openai/d"}]}
    assert eligible_seats({"model": {"spec": "openai/a"}, **seats}, "openai/a", []) == ["j2", "j3", "j4"]
    with pytest.raises(NeocoderError, match=r"^openai/b: the panel has 2 judge\(s\) besides the idea model, fewer "
                                            r"than the 3 drawn per idea"):
        eligible_seats({"model": {"spec": "openai/b"}, **seats}, "openai/b", [idea(0, 1, recorded="openai/c")])
