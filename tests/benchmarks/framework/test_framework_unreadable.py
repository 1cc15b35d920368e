"""A framework run's metrics count the unreadable judge replies (issue 46): per role and per
judge and criterion, shares over the readable verdicts only, a criterion whose verdicts are
mostly unreadable shown as unreadable (and Overall with it), the outcome per solution."""

import pytest

from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.benchmarks.framework.scores import outcome, run_scores


def verdict(value, reason=None):
    """A retrieval criterion as recorded: its verdict reply's reading and one confidence."""
    return {"verdict": None if value is None else value == "YES", "reason": reason,
            "readings": [{"role": "confidence", "analyst": "problem analyst", "round": 1, "value": 0.8,
                          "reason": None},
                         {"role": "verdict", "analyst": "problem analyst", "value": value, "reason": reason}]}


def solution(pid, verdicts, error=None):
    return FrameworkSolution(domain="macgyver", problem_id=pid, model="m", steps=["x"], entropies=[1.0],
                             divergent=1.0, divergent_min=1.0, divergent_max=1.0, stop_reason="stop",
                             verdicts={"retrieval": verdicts}, error=error)


def test_shares_rest_on_readable_verdicts_and_a_mostly_unreadable_criterion_is_no_number():
    sols = [solution("a", {"feasibility": verdict("YES"), "safety": verdict(None, "echo")}),
            solution("b", {"feasibility": verdict("NO"), "safety": verdict(None, "conflicting markers")}),
            solution("c", {"feasibility": verdict(None, "empty"), "safety": verdict("YES")})]
    steps = [FrameworkStep(domain="macgyver", problem_id="a", step=1, candidates=["x", "", "STOP"],
                           stops=[False, False, True], logprobs=[None] * 3, classes=[0, None, 1], entropy=0.69,
                           estimator="discrete", chosen=0, stopped=False, entailment="llm:m",
                           unreadable=[None, "empty", None],
                           entailment_replies={"replies": 2, "readable": 1, "unreadable": 1, "share": 0.5,
                                               "reasons": {"no marker": 1}})]
    m = run_scores(sols, 50, 0, drop_repeated=False, steps=steps)
    judged = m["judges"]["retrieval"]
    assert judged["yes"]["feasibility"]["value"] == pytest.approx(0.5)  # over the 2 readable, not 3
    assert judged["yes"]["feasibility"]["n"] == 2
    assert judged["yes"]["safety"]["value"] is None and judged["yes"]["safety"]["unreadable"] is True
    assert judged["overall"]["value"] is None and judged["overall"]["criteria"] == ["safety"]
    assert judged["unreadable"]["safety"] == {"replies": 3, "readable": 1, "unreadable": 2, "share": 2 / 3,
                                              "reasons": {"conflicting markers": 1, "echo": 1}}
    u = m["unreadable"]
    assert u["retrieval verdict"]["unreadable"] == 3 and u["retrieval verdict"]["replies"] == 6
    assert u["retrieval confidence"]["unreadable"] == 0
    assert u["step candidate"] == {"replies": 3, "readable": 2, "unreadable": 1, "share": 1 / 3,
                                   "reasons": {"empty": 1}}
    assert u["entailment"]["unreadable"] == 1 and m["divergent"]["mean"]["value"] == 1.0  # half: not mostly


def test_the_outcome_counts_solutions_judged_unreadable_and_in_error():
    sols = [solution("a", {"feasibility": verdict("YES"), "safety": verdict(None, "echo")}),
            solution("b", {"feasibility": verdict(None, "empty"), "safety": verdict(None, "refusal")}),
            solution("c", {}, error="judge: HTTP 500 after 3 retries")]
    o = outcome(sols, judged_by=True).to_dict()
    assert (o["items"], o["judged"], o["unreadable"], o["errors"]) == (3, 1, 1, 1)
    assert o["unit"] == "solution" and o["reasons"] == {"judge: HTTP 500 after 3 retries": 1}


def test_validate_sets_an_unreadable_verdict_aside_instead_of_reading_no():
    from neocoder.benchmarks.framework.records import JudgedPair
    from neocoder.benchmarks.framework.validate import judge_accuracy, verdict_of
    yes, no, lost = verdict("YES"), verdict("NO"), verdict(None, "echo")
    assert verdict_of({"f": yes, "s": yes})[0] is True
    assert verdict_of({"f": no, "s": lost})[0] is False  # one NO decides, the unreadable one does not matter
    assert verdict_of({"f": yes, "s": lost})[0] is None  # undecided: set aside, never NO
    pairs = {p: JudgedPair("macgyver", p, "P", "S", truth, "x", verdicts={"retrieval": v})
             for p, truth, v in (("a", True, {"f": yes, "s": yes}), ("b", False, {"f": yes, "s": lost}),
                                 ("c", False, {"f": no, "s": lost}))}
    got = judge_accuracy(pairs, "retrieval", 50, 0)
    assert got["set_aside"] == 1 and got["accuracy"]["n"] == 2 and got["accuracy"]["value"] == 1.0
    assert got["unreadable"]["s"] == {"replies": 3, "readable": 1, "unreadable": 2, "share": 2 / 3,
                                      "reasons": {"echo": 2}}
    assert got["unreadable_verdicts"] == 2
