"""The lost-items rule of each benchmark, worked by hand (issue 56, item 7): the ``outcome``
block that eval, AidanBench, LiveIdeaBench and the framework count from their records,
checked field by field on records written here into a real run folder, so that a
miscount (an INFRA sample taken as judged, a reply with no answer not counted, an idea
whose judges all failed taken as unreadable) fails a test in milliseconds rather than
only in a Docker run."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.task import AidanTask
from neocoder.benchmarks.framework.scores import outcome as framework_outcome
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.task import IdeasTask
from neocoder.benchmarks.neocoder.evaluation import sample_outcome
from neocoder.records import Sample, TierResult
from neocoder.runner import LostItems, check_outcome
from neocoder.store import RunFolder


def sample(i: int, **fields) -> Sample:
    base = dict(problem_id=f"P{i}", state=0, sample=0, model="m", constraints=[], prompt_sha256="h", reply="r",
                examples=TierResult(tests=[], correct=True))
    base.update(fields)
    return Sample(**base)


def infra() -> TierResult:
    return TierResult(tests=[], correct=False, infra=True)


def test_eval_counts_errors_infra_unjudged_and_replies_with_no_program():
    samples = [
        sample(0),                                                     # judged, a program
        sample(1, no_program="empty", examples=TierResult(tests=[], correct=False, skipped=2)),  # judged, no program
        sample(2, error="HTTP 500 after 3 retries", reply=None, examples=None),  # the model failed: no reply read
        sample(3, examples=infra()),                                    # the sandbox failed on the examples
        sample(4, plus=infra()),                                        # ... or on the extended tests
        sample(5, examples=None),                                       # never judged, no error
    ]
    got = sample_outcome(samples).to_dict()
    assert got == {"unit": "sample", "items": 6, "judged": 2, "unreadable": 0, "errors": 4,
                   "reasons": {"sandbox INFRA failure": 2, "HTTP 500 after 3 retries": 1, "not judged": 1},
                   "answer": "program", "replies": 5, "no_answer": 1, "no_answer_reasons": {"empty": 1}}
    with pytest.raises(LostItems, match=r"^4 of 6 samples ended in error \(2 x sandbox INFRA failure; "):
        check_outcome({"outcome": got})
    check_outcome({"outcome": got}, max_errors=4)  # accepted when allowed


def test_eval_all_infra_fails_and_a_clean_run_passes():
    assert sample_outcome([sample(i, examples=infra()) for i in range(3)]).failure().startswith(
        "3 of 3 samples ended in error (3 x sandbox INFRA failure)")
    clean = sample_outcome([sample(i) for i in range(3)])
    assert clean.failure() is None and (clean.judged, clean.replies, clean.no_answer) == (3, 3, 0)
    most = sample_outcome([sample(i, no_program="refusal") for i in range(2)] + [sample(9)])
    assert most.failure().startswith("2 of 3 replies of the model under test held no program (2 x refusal)")


def run_of(tmp_path, records, **inputs):
    """A real run folder holding ``records``, and the run a task's ``outcome`` reads."""
    folder = RunFolder(tmp_path / "run")
    for record in records:
        folder.append(record)
    return SimpleNamespace(folder=folder, inputs=SimpleNamespace(**inputs))


def answer(q: int, n: int, model: str = "g", **fields) -> Answer:
    return Answer(model=model, question_index=q, question=f"Q{q}", answer_num=n, answer=f"a{q}.{n}", **fields)


def ended(q: int, stop: str, model: str = "g", error: str | None = None) -> QuestionResult:
    return QuestionResult(model=model, question_index=q, question=f"Q{q}", answers=1, novelty_sum=0.5,
                          stop_reason=stop, error=error)


def test_aidanbench_counts_questions_and_every_generator_reply(tmp_path):
    records = [
        answer(0, 1, judge_readings=[["coherence", None], ["coherence", "no marker"]]),
        answer(0, 2, stop="incoherent", judge_readings=[["coherence", None], ["similarity", None]]),
        ended(0, "incoherent"),
        answer(1, 1, judge_readings=[["coherence", None]]),
        answer(1, 2, stop="no answer", no_answer="empty"),
        ended(1, "no answer"),
        answer(2, 1, stop="unreadable", judge_readings=[["coherence", "refusal"]]),
        ended(2, "unreadable"),
        answer(3, 1, stop="error", error="judge: HTTP 500"),
        ended(3, "error", error="judge: HTTP 500"),
        answer(0, 1, model="other"),  # another run's generator: not this run's
        ended(7, "incoherent"),       # a question past the run's list: not this run's
        ended(5, "incoherent"),       # ... the first one past it too
        answer(5, 1),
    ]
    run = run_of(tmp_path, records, questions=["Q0", "Q1", "Q2", "Q3", "Q4"], generators=[SimpleNamespace(name="g")])
    got, tally = AidanTask.outcome(None, run)
    assert got == {"unit": "question", "items": 5, "judged": 2, "unreadable": 1, "errors": 2,
                   "reasons": {"judge: HTTP 500": 1, "not ended (the run stopped before this question)": 1},
                   "answer": "answer", "replies": 6, "no_answer": 1, "no_answer_reasons": {"empty": 1}}
    assert tally["coherence"] == {"replies": 5, "readable": 3, "unreadable": 2, "share": 0.4,
                                  "reasons": {"no marker": 1, "refusal": 1}}
    assert tally["similarity"]["replies"] == 1 and "entailment" not in tally


def idea(k: int, n: int, status: str = "ok", model: str = "w", **fields) -> Idea:
    return Idea(model=model, keyword_index=k, keyword=f"k{k}", idea_num=n, idea="x", status=status, **fields)


def judged(k: int, n: int, judge: str, scores=None, error=None, reasons=()) -> IdeaJudgement:
    return IdeaJudgement(model="w", keyword_index=k, keyword=f"k{k}", idea_num=n, judge=judge,
                         judge_spec=f"openai/{judge}", scores=scores, error=error, reasons=list(reasons))


def test_ideas_counts_each_idea_once_and_every_reply_that_settled_one(tmp_path):
    s = {"originality": 7.0, "feasibility": 6.0, "clarity": 8.0}
    records = [
        idea(2, 2, status="error", error="idea model: HTTP 429"),                                 # no reply to read
        idea(2, 3, status="error"),                                                               # nor its message
        idea(0, 1), judged(0, 1, "j1", scores=s), judged(0, 1, "j2", error="judge: HTTP 500"),   # judged
        idea(0, 2), judged(0, 2, "j1", error="judge: HTTP 500"),                                  # its judge failed
        idea(0, 3), judged(0, 3, "j1", reasons=["no marker", "no marker"]),                       # unreadable
        idea(1, 1),                                                                              # no judge asked
        idea(1, 2, status="refused", no_idea="refusal"),
        idea(1, 3, status="no idea", no_idea="empty"),
        idea(2, 1, status="too long"),
        FluencyGrade(model="w", keyword_index=0, keyword="k0", judge="j2", judge_spec="openai/j2", grade="B",
                     score=7.0, reasons=["no marker", None]),
        FluencyGrade(model="other", keyword_index=0, keyword="k0", judge="j3", judge_spec="openai/j3", grade="B",
                     score=7.0, reasons=["empty"]),                                             # not this run's
    ]
    run = run_of(tmp_path, records, writers=[SimpleNamespace(name="w")])
    got, tally = IdeasTask.outcome(None, run)
    assert got == {"unit": "idea", "items": 9, "judged": 1, "unreadable": 1, "errors": 4,
                   "reasons": {"idea model call failed": 1, "idea model: HTTP 429": 1, "judge: HTTP 500": 1,
                               "no judge was asked": 1},
                   "answer": "idea", "replies": 7, "no_answer": 2, "no_answer_reasons": {"empty": 1, "refusal": 1}}
    assert tally["j1"] == {"replies": 2, "readable": 0, "unreadable": 2, "share": 1.0, "reasons": {"no marker": 2}}
    assert tally["fluency j2"] == {"replies": 2, "readable": 1, "unreadable": 1, "share": 0.5,
                                   "reasons": {"no marker": 1}}
    assert "fluency j3" not in tally


def solution(error=None, verdicts=None, divergent=0.5):
    return SimpleNamespace(error=error, verdicts=verdicts, divergent=divergent)


def test_framework_counts_solutions_by_their_verdict_replies():
    readable = {"retrieval": {"safety": {"readings": [{"role": "verdict", "reason": "no marker"},
                                                       {"role": "verdict", "reason": None}]}}}
    unreadable = {"retrieval": {"safety": {"readings": [{"role": "verdict", "reason": "empty"},
                                                         {"role": "confidence", "reason": None}]}}}
    got = framework_outcome([solution(verdicts=readable), solution(verdicts=unreadable), solution(error="HTTP 500"),
                             solution(verdicts={})], judged_by=True).to_dict()
    assert (got["items"], got["judged"], got["unreadable"], got["errors"]) == (4, 1, 2, 1)
    assert got["reasons"] == {"HTTP 500": 1} and "replies" not in got
    steps = framework_outcome([solution(divergent=0.3), solution(divergent=None)], judged_by=False).to_dict()
    assert (steps["judged"], steps["unreadable"]) == (1, 1)


# --- the runner's Outcome and check_outcome, word by word ---------------------------------

def test_reasons_are_kept_to_160_characters_most_frequent_first_then_by_name():
    from neocoder.runner import Outcome
    out = Outcome("item")
    long = "x" * 200
    for error in ("b failed", "a failed", "c failed", "c failed", long, "  spaced \n  out  "):
        out.add(error=error)
    reasons = list(out.to_dict()["reasons"].items())
    assert reasons == [("c failed", 2), ("a failed", 1), ("b failed", 1), ("spaced out", 1), ("x" * 160, 1)]
    for reason in ("zeta", "mid", "zeta", "alpha"):
        out.answered(reason)  # most frequent first, not by name: zeta before alpha
    assert list(out.to_dict()["no_answer_reasons"].items()) == [("zeta", 2), ("alpha", 1), ("mid", 1)]


def test_the_failure_line_names_the_three_most_frequent_reasons():
    from neocoder.runner import Outcome
    out = Outcome("sample", answer="program")
    for error in ("e1", "e1", "e2", "e3", "e4"):
        out.add(error=error)
    assert out.failure() == ("5 of 5 samples ended in error (2 x e1; 1 x e2; 1 x e3); they are kept in the run and "
                             "counted in metrics.json (rerun to retry them, or --max-errors 5 to accept them)")
    assert out.failure(max_errors=5).startswith("no sample of 5 was judged (5 in error)")  # allowed: none judged
    quiet = Outcome("sample", answer="program")
    for reason in ("r1", "r1", "r2", "r3", "r4"):
        quiet.add(judged=True)
        quiet.answered(reason)
    assert quiet.failure() == ("5 of 5 replies of the model under test held no program (2 x r1, 1 x r2, 1 x r3); "
                               "they are recorded with their reason and counted in metrics.json")


def test_nothing_judged_says_how_many_were_unreadable_and_in_error():
    from neocoder.runner import Outcome
    none = Outcome("question")
    none.add()
    none.add(error="boom")
    assert none.failure(max_errors=1) == ("no question of 2 was judged (1 in error): metrics.json counts them; "
                                          "there is no number to report")
    none.add(unreadable=True)
    assert none.failure(max_errors=1) == ("no question of 3 was judged (1 unreadable, 1 in error): metrics.json "
                                          "counts them; there is no number to report")


def test_check_outcome_refuses_by_default_and_passes_what_has_no_block():
    one = {"outcome": {"unit": "item", "items": 2, "judged": 1, "errors": 1, "reasons": {"boom": 1}}}
    with pytest.raises(LostItems, match=r"^1 of 2 items ended in error \(1 x boom\)") as raised:
        check_outcome(one)
    assert raised.value.outcome.errors == 1
    check_outcome(one, max_errors=1)
    for nothing in (None, [], {}, {"outcome": None}, {"outcome": {}}):
        check_outcome(nothing)  # a task that judges nothing, or not a metrics dict: no block, no verdict


def test_eval_counts_no_reply_of_a_sample_in_error_even_when_it_kept_one():
    failed = sample(0, error="self-correct: HTTP 500", reply="partial", examples=None)
    got = sample_outcome([failed, sample(1)])
    assert (got.replies, got.errors, got.judged) == (1, 1, 1)
