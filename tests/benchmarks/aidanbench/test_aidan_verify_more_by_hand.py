"""A board's checks of a submitted AidanBench run (neocoder/benchmarks/aidanbench/verify.py;
issue 56, the "board" mutation set's survivors), worked by hand on small records: each
answer's coherence against its last judge reply (``check_coherence``), each ended
question replayed with the run's stop rule (``_replay`` through ``rescore``), the run's
settings read from its manifest, and ``recompute``'s intervals drawn with the run's seed.
Every count, sum and MMR below is worked out by hand from the records written."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.verify import check_coherence, coherence_readings, question_ids, recompute, rescore
from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.errors import NeocoderError
from neocoder.records import Manifest

GEN = "openai/gen"
JUDGE = {"spec": "openai/judge"}  # an openai judge is a chat judge: its replies carry the whole <score> tag


def answer(q: int, num: int, coherence: float | None = None, novelty: float = 1.0, replies=None, model: str = GEN,
           **fields) -> Answer:
    if replies is None:
        replies = [] if coherence is None else [f"<score>{coherence:g}</score>"]
    return Answer(model=model, question_index=q, question=f"q{q}", answer_num=num, answer=f"answer {num}",
                  coherence=coherence, novelty=novelty, judge_replies=list(replies), **fields)


def result(q: int, answers: int, novelty_sum: float, stop: str, model: str = GEN, **fields) -> QuestionResult:
    return QuestionResult(model=model, question_index=q, question=f"q{q}", answers=answers, novelty_sum=novelty_sum,
                          stop_reason=stop, **fields)


def run_folder(path, *records):
    from neocoder.store import RunFolder
    run = RunFolder(path, create=True)
    for r in records:
        run.append(r)
    return path


# ---- coherence_readings: a completion reply's closing tag is added only when it has none


def test_a_completion_reply_s_later_unclosed_tag_is_not_closed_for_it():
    # "<score>70</score> then <score>80": one whole tag, 70; closing the second would make two that disagree
    assert coherence_readings("70</score> then <score>80", 100, True) == [70.0]
    assert coherence_readings("70 then 80", 100, True) == [None]  # closed after "80": "70 then 80" is no number


# ---- check_coherence


def test_an_answer_that_ended_in_an_error_or_held_no_answer_has_no_coherence_to_check():
    assert check_coherence(answer(0, 1, error="timeout"), 100, False) is False
    assert check_coherence(answer(0, 1, no_answer="empty"), 100, False) is False
    assert check_coherence(answer(0, 1, 70.0), 100, False) is True


def test_a_coherence_with_no_judge_reply_is_refused():
    with pytest.raises(RecordsDisagree, match=r"^question 1 answer 2: coherence 70.0 with no recorded judge reply "
                                              r"behind it$"):
        check_coherence(answer(0, 2, 70.0, replies=[]), 100, False)


def test_an_answer_called_unreadable_must_have_an_unreadable_last_reply():
    assert check_coherence(answer(0, 1, None, replies=["fine"], unreadable="no marker"), 100, False) is True
    tampered = answer(0, 1, 70.0, replies=["<score>70</score>"], unreadable="no marker")
    with pytest.raises(RecordsDisagree, match=r"^question 1 answer 1: coherence None in records.jsonl, 70.0 read"):
        check_coherence(tampered, 100, False)


def test_a_recorded_coherence_within_a_millionth_of_its_reply_agrees():
    assert check_coherence(answer(0, 1, 70.0000001, replies=["<score>70</score>"]), 100, False) is True
    with pytest.raises(RecordsDisagree, match=r"coherence 70.00001 in records.jsonl, 70.0 read"):
        check_coherence(answer(0, 1, 70.00001, replies=["<score>70</score>"]), 100, False)


# ---- rescore: coherence and the replayed questions of a run folder made here


def judged_question(path, high: float, low: float, **manifest):
    """Question 1: answer 1 coherent (novelty 1.0), answer 2 incoherent (coherence ``low``,
    novelty 0.6): kept 1, novelty 1.0, gated novelty 1.0 (only answer 1 is above the stop),
    MMR at lambda 0.5 = 0.5 * high / top - 0.5 * (1 - 1.0) on the run's scale's top."""
    top = 10 if manifest.get("coherence_scale") == 10 else 100
    folder = run_folder(path, answer(0, 1, high), answer(0, 2, low, novelty=0.6, stop="incoherent"),
                        result(0, 1, 1.0, "incoherent", gated_novelty=1.0, mmr=0.5 * high / top))
    return folder, {"model": {"spec": GEN}, "judge": JUDGE, **manifest}


def test_a_manifest_silent_on_the_scale_is_read_on_0_to_100(tmp_path):
    folder, config = judged_question(tmp_path / "run", 80.0, 10.0)
    assert rescore(folder, GEN, config, tmp_path) == ("re-scored from recorded judgements: 2 of 2 judge replies and "
                                                      "1 of 1 questions agree (novelty as recorded)")


def test_the_paper_s_scale_bounds_the_recorded_coherence(tmp_path):
    folder, config = judged_question(tmp_path / "ten", 9.0, 2.0, coherence_scale=10)
    assert rescore(folder, GEN, config, tmp_path).endswith("2 of 2 judge replies and 1 of 1 questions agree "
                                                           "(novelty as recorded)")
    folder, config = judged_question(tmp_path / "hundred", 70.0, 2.0, coherence_scale=10)
    with pytest.raises(RecordsDisagree, match=r"^question 1 answer 1: coherence 70.0 in records.jsonl, None read"):
        rescore(folder, GEN, config, tmp_path)  # 70 is outside the paper's 1-10


def test_a_run_with_no_judge_counts_no_judge_reply(tmp_path):
    folder = run_folder(tmp_path / "run", answer(0, 1), answer(0, 2, novelty=0.1, stop="repetitive"),
                        result(0, 1, 1.0, "repetitive"))
    assert rescore(folder, GEN, {"model": {"spec": GEN}, "judge": None}, tmp_path) == (
        "re-scored from recorded judgements: 0 of 0 judge replies and 1 of 1 questions agree (novelty as recorded)")


def ran_out(path, model: str):
    """Two answers (novelty 1.0 and 0.5, neither stopping), the question ended "max answers"
    at 2 of the default cap of 100: novelty 1.5."""
    return run_folder(path, answer(0, 1, model=model), answer(0, 2, novelty=0.5, model=model),
                      result(0, 2, 1.5, "max answers", model=model))


def test_a_replayed_source_may_run_out_below_the_cap_a_live_generator_may_not(tmp_path):
    replayed = "replay/runs/old"
    folder = ran_out(tmp_path / "replayed", replayed)
    assert rescore(folder, replayed, {"model": {"spec": replayed}}, tmp_path).endswith(
        "0 of 0 judge replies and 1 of 1 questions agree (novelty as recorded)")
    folder = ran_out(tmp_path / "live", GEN)
    with pytest.raises(RecordsDisagree, match=r"^question 1: ends at max answers after 2 of 100 answers$"):
        rescore(folder, GEN, {"model": {"spec": GEN}}, tmp_path)
    for silent in ({}, {"model": None}, {"model": {"spec": None}}):  # a manifest that cannot say: a live generator
        with pytest.raises(RecordsDisagree, match=r"ends at max answers after 2 of 100 answers"):
            rescore(folder, GEN, silent, tmp_path)


def test_a_question_counting_an_answer_with_no_record_is_refused_naming_the_file(tmp_path):
    folder = run_folder(tmp_path / "run", answer(0, 1), result(0, 2, 1.5, "max answers"))
    with pytest.raises(NeocoderError, match=r"records.jsonl: question record \(openai/gen, question 1\) counts 2 "
                                            r"answers, but answer_num 2 has no answer record"):
        rescore(folder, GEN, {"model": {"spec": "replay/runs/old"}}, tmp_path)


def test_an_answer_of_a_question_the_run_did_not_end_is_refused(tmp_path):
    folder = run_folder(tmp_path / "run", answer(0, 1), answer(0, 2, novelty=0.1, stop="repetitive"),
                        result(0, 1, 1.0, "repetitive"), answer(1, 1))
    with pytest.raises(RecordsDisagree, match=r"^question 2 answer 1: an answer of a question the run did not end$"):
        rescore(folder, GEN, {"model": {"spec": GEN}}, tmp_path)


def test_a_missing_run_folder_is_refused_and_not_made(tmp_path):
    metrics = {"bootstrap": {"resamples": 100, "seed": 0}}
    for call in (lambda f: rescore(f, GEN, {}, tmp_path), lambda f: recompute(f, GEN, {}, metrics)):
        with pytest.raises(NeocoderError, match=r"no such run folder"):
            call(tmp_path / "missing")
        assert not (tmp_path / "missing").exists()


# ---- recompute: the run's own bootstrap seed


def test_the_intervals_are_drawn_with_the_run_s_bootstrap_seed(tmp_path):
    folder = run_folder(tmp_path / "run", result(0, 1, 1.0, "repetitive"), result(1, 5, 3.0, "repetitive"),
                        result(2, 9, 6.5, "repetitive"), result(3, 2, 1.2, "incoherent"))
    got = {seed: recompute(folder, GEN, {}, {"bootstrap": {"resamples": 50, "seed": seed}})["models"][GEN]
           for seed in (1, 2)}
    assert got[1]["answers"] == got[2]["answers"] == 17 and got[1]["novelty_sum"] == pytest.approx(11.7)
    assert got[1]["intervals"] != got[2]["intervals"]  # only the seed differs
    again = recompute(folder, GEN, {}, {"bootstrap": {"resamples": 50, "seed": 1}})["models"][GEN]
    assert again["intervals"] == got[1]["intervals"]


# ---- question_ids


def test_the_shipped_questions_only_when_the_run_used_them():
    from neocoder.benchmarks.aidanbench.task import load_questions
    shipped = question_ids(Manifest(kind="aidanbench", config={"questions": None}))
    assert shipped == set(load_questions()) and len(shipped) == 65
    assert question_ids(Manifest(kind="aidanbench", config={})) == shipped
    assert question_ids(Manifest(kind="aidanbench", config={"questions": "mine.txt"})) is None
