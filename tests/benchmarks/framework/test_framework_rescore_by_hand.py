"""A board's re-scoring of a framework run's solutions (neocoder/benchmarks/framework/
verify.py ``check_solution``, ``rescore``, ``recompute``), worked by hand on small
records: the judges' settings as the manifest recorded them, what the judges were shown
of a solution, a summary its steps do not give, a judge, criterion or cost the turns do
not give, each refused with the exact line naming problem, judge and criterion; the run's
solutions read per model and domain, and its metrics recomputed as the task scores them.

The retrieval judge's verdicts here are asked with no discussion round (``rounds`` 0): one
verdict turn per criterion, its analyst the first, so a solution's records stay short."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.framework.domains import CRITERIA, Problem, load_problems
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.benchmarks.framework.retrieval import ANALYSTS, JudgeSettings
from neocoder.benchmarks.framework.verify import (
    _check_summary,
    _context,
    check_solution,
    judge_settings_of,
    recompute,
    rescore,
)
from neocoder.errors import NeocoderError
from neocoder.store import RunFolder

P = ANALYSTS[0]
STEP = "lever the lid up with the spoon"
CONFIG = {"domain": "macgyver", "rounds": 0}  # no max_steps: the run's default
METRICS = {"bootstrap": {"resamples": 20, "seed": 3}}


def steps_of(problem_id: str, text: str = STEP, domain: str = "macgyver", unreadable=()) -> list[FrameworkStep]:
    """A solution's two steps: ``text`` chosen (entropy 0.5), then a majority STOP."""
    def step(n, candidates, chosen, stopped, entropy):
        """Step ``n`` of two candidates, ``chosen`` appended unless ``stopped``."""
        return FrameworkStep(domain, problem_id, n, candidates, [stopped] * 2, [None, None], [0, 1], entropy,
                             "discrete", chosen, stopped, "llm:judge", unreadable=list(unreadable))
    return [step(1, [text, "twist the lid"], 0, False, 0.5), step(2, ["STOP", "STOP"], None, True, 0.0)]


def verdict_turn(criterion: str, reply: str = "YES]] it holds", **tokens) -> dict:
    """The retrieval judge's verdict turn on ``criterion`` (no round before it)."""
    return {"phase": "verdict", "analyst": P, "criterion": criterion, "reply": reply, **tokens}


def verdict_of(value: str = "YES") -> dict:
    """The verdict the records keep of a verdict turn replying ``value``."""
    return {"verdict": value == "YES", "reason": None, "confidence": None, "analyst": P, "rounds": 0,
            "confidences": {}, "stances": {}, "readings": [{"role": "verdict", "analyst": P, "value": value,
                                                             "reason": None}]}


def solution(problem_id: str = "p1", domain: str = "macgyver", model: str = "m", text: str = STEP,
             **more) -> FrameworkSolution:
    """A finished solution of ``text`` judged YES on every criterion of its domain by the
    retrieval judge, its cost that of its turns (no tokens recorded)."""
    criteria = list(CRITERIA[domain])
    fields = dict(steps=[text], entropies=[0.5], divergent=0.5, divergent_min=0.5, divergent_max=0.5,
                  stop_reason="stop", verdicts={"retrieval": {c: verdict_of() for c in criteria}},
                  discussion={"retrieval": [verdict_turn(c) for c in criteria]},
                  judge_cost={"retrieval": {"calls": len(criteria), "prompt_tokens": 0, "completion_tokens": 0}})
    return FrameworkSolution(domain, problem_id, model, **{**fields, **more})


PROBLEMS = {"p1": Problem("macgyver", "p1", "Open the stuck jar with a spoon."),
            "c1": Problem("code", "c1", "Print the sum of two numbers.")}


def refusal(s: FrameworkSolution, config: dict = CONFIG) -> str:
    """The line ``check_solution`` refuses ``s`` with."""
    with pytest.raises(RecordsDisagree) as got:
        check_solution(s, steps_of(s.problem_id, s.steps[0] if s.steps else STEP), PROBLEMS, config)
    return str(got.value)


def test_the_judges_settings_are_the_manifests_each_default_where_it_is_silent():
    config = {"discuss_k": 3, "score_j": 2, "verdict_l": 6, "threshold": 0.7, "rounds": 4, "words": 90,
              "chateval_rounds": 3, "judge_tokens": 9, "model": {"spec": "openai/gen"}}
    assert judge_settings_of(config) == JudgeSettings(discuss_k=3, score_j=2, verdict_l=6, threshold=0.7, rounds=4,
                                                      words=90, chateval_rounds=3)
    assert judge_settings_of({"rounds": 1}) == JudgeSettings(rounds=1)
    assert judge_settings_of({}) == JudgeSettings()


def test_the_judges_were_shown_the_numbered_steps_and_for_code_the_plan_with_its_program():
    assert _context(solution(), PROBLEMS, 150) == {
        "problem": "Open the stuck jar with a spoon.", "solution": f"Step 1: {STEP}",
        "criteria": CRITERIA["macgyver"], "words": 150}
    code = solution("c1", "code", steps=["read a and b", "print a + b"], program="print(a + b)")
    assert _context(code, PROBLEMS, 90) == {
        "problem": "Print the sum of two numbers.",
        "solution": "Plan:\nStep 1: read a and b\nStep 2: print a + b\n\nProgram:\nprint(a + b)",
        "criteria": CRITERIA["code"], "words": 90}


def test_a_problem_outside_the_shipped_set_is_refused_naming_it():
    with pytest.raises(RecordsDisagree) as got:
        _context(solution("p9"), PROBLEMS, 150)
    assert str(got.value) == "problem p9: not a problem of the shipped macgyver set"


def test_a_summary_its_steps_do_not_give_is_refused_naming_the_field_and_both_values():
    _check_summary(solution(), steps_of("p1"), 8)
    with pytest.raises(RecordsDisagree) as got:
        _check_summary(solution(steps=["twist the lid"]), steps_of("p1"), 8)
    assert str(got.value) == (f"problem p1: steps is ['twist the lid'] in records.jsonl, ['{STEP}'] from its "
                              "recorded steps")
    with pytest.raises(RecordsDisagree) as got:
        _check_summary(solution(divergent_max=0.75), steps_of("p1"), 8)
    assert str(got.value) == "problem p1: divergent_max is 0.75 in records.jsonl, 0.5 from its recorded steps"


def test_a_solution_its_turns_and_steps_give_is_accepted_and_its_turns_counted():
    assert check_solution(solution(), steps_of("p1"), PROBLEMS, CONFIG) == 3
    turns = [verdict_turn(c, prompt_tokens=7, completion_tokens=2) for c in CRITERIA["macgyver"]]
    paid = solution(discussion={"retrieval": turns},
                    judge_cost={"retrieval": {"calls": 3, "prompt_tokens": 21, "completion_tokens": 6}})
    assert check_solution(paid, steps_of("p1"), PROBLEMS, CONFIG) == 3


def test_a_solution_no_judge_looked_at_has_no_turns_to_read():
    bare = solution(verdicts={}, discussion={}, judge_cost={})
    assert check_solution(bare, steps_of("p1"), PROBLEMS, {**CONFIG, "max_steps": 5}) == 0


def edited(judge: str = "retrieval", verdicts=None, turns=None, cost=None) -> FrameworkSolution:
    """The solution with one judge's recorded verdicts, turns or cost replaced."""
    s = solution()
    if verdicts is not None:
        s.verdicts = {**s.verdicts, judge: verdicts}
    if turns is not None:
        s.discussion = {**s.discussion, judge: turns}
    if cost is not None:
        s.judge_cost = {**s.judge_cost, judge: cost}
    return s


CRITS = CRITERIA["macgyver"]
ALL = {c: verdict_of() for c in CRITS}


@pytest.mark.parametrize("s, line", [
    (edited("gpt", turns=[]), "problem p1 judge gpt: not a judge of the framework"),
    (edited("chateval", verdicts={"feasibility": {}}), "problem p1 judge chateval criterion effectiveness: no turns"),
    (edited(verdicts={**ALL, "bogus": verdict_of()}), "problem p1 judge retrieval criterion bogus: no turns"),
    (edited(turns=[*map(verdict_turn, CRITS), verdict_turn("bogus")], cost={"calls": 4}),
     "problem p1 judge retrieval criterion bogus: no recorded verdict"),
    (edited(verdicts={c: verdict_of() for c in CRITS if c != "safety"}),
     "problem p1 judge retrieval criterion safety: no recorded verdict"),
    (edited(turns=[verdict_turn(c) for c in CRITS if c != "safety"]),
     "problem p1 judge retrieval criterion safety: no turns"),
    (edited(verdicts={**ALL, "safety": verdict_of("NO")}),
     "problem p1 judge retrieval criterion safety: verdict is False in records.jsonl, True re-read from its "
     "recorded replies"),
    (edited(cost={"calls": 3, "prompt_tokens": 1, "completion_tokens": 0}),
     "problem p1 judge retrieval: cost {'calls': 3, 'prompt_tokens': 1, 'completion_tokens': 0} in records.jsonl, "
     "{'calls': 3, 'prompt_tokens': 0, 'completion_tokens': 0} counted in its turns"),
    (edited(turns=[verdict_turn(c, completion_tokens=None) for c in CRITS],
            cost={"calls": 3, "prompt_tokens": 0, "completion_tokens": 3}),
     "problem p1 judge retrieval: cost {'calls': 3, 'prompt_tokens': 0, 'completion_tokens': 3} in records.jsonl, "
     "{'calls': 3, 'prompt_tokens': 0, 'completion_tokens': 0} counted in its turns")])
def test_a_judge_criterion_or_cost_its_turns_do_not_give_is_refused_naming_it(s, line):
    assert refusal(s) == line


def test_a_verdict_reply_read_otherwise_is_refused_naming_the_criterion_and_turn():
    turns = [verdict_turn(c) for c in CRITS]
    turns[1] = {**turns[1], "readings": {"retrieval verdict": {"value": "NO", "reason": None}}}
    assert refusal(edited(turns=turns)) == (
        "problem p1 judge retrieval criterion safety: turn 2: {'value': 'NO', 'reason': None} is the turn's "
        "recorded retrieval verdict, 'YES' (readable) read again from its reply")


# the run folder: its solutions per model and domain, re-scored and recomputed

def run_folder(path, *records):
    """A run folder holding ``records``."""
    RunFolder(path).write_all(list(records))
    return path


def macgyver(n: int) -> list[str]:
    """The ids of the shipped MacGyver set's first ``n`` problems."""
    return [p.problem_id for p in load_problems("macgyver")[:n]]


def test_a_run_is_rescored_from_each_solutions_own_steps_and_turns(tmp_path):
    a, b, c = macgyver(3)
    folder = run_folder(tmp_path / "run", solution(a), *steps_of(a), solution(b, text="boil the jar"),
                        *steps_of(b, "boil the jar"), solution(c, model="other", verdicts={}),
                        solution("541-not-shipped", domain="code", verdicts={}))
    line = "re-scored from recorded judgements: 6 of 6 judge turns on 2 problems agree (step entropies as recorded)"
    assert rescore(folder, "m", CONFIG, tmp_path / "scratch") == line
    assert rescore(folder, "m", {"rounds": 0}, tmp_path / "scratch") == line  # macgyver: the run's default domain


def test_a_code_run_is_rescored_against_the_shipped_code_problems(tmp_path):
    (p,) = [q.problem_id for q in load_problems("code")[:1]]
    folder = run_folder(tmp_path / "run", solution(p, "code", program="print(1)"), *steps_of(p, domain="code"),
                        solution(macgyver(1)[0], verdicts={}))
    got = rescore(folder, "m", {"domain": "code", "rounds": 0}, tmp_path / "scratch")
    assert got == ("re-scored from recorded judgements: 1 of 1 judge turns on 1 problems agree (step entropies as "
                   "recorded)")


@pytest.mark.parametrize("config, line", [
    ({"domain": "macgyver", "data": "mine.jsonl"}, "domain 'macgyver' with data 'mine.jsonl' is not a shipped "
                                                    "problem set"),
    ({"domain": "bookmia"}, "domain 'bookmia' with data None is not a shipped problem set"),
    ({"domain": "hypogen", "data": "h.jsonl"}, "domain 'hypogen' with data 'h.jsonl' is not a shipped problem set")])
def test_a_domain_the_board_cannot_read_is_refused_naming_it(tmp_path, config, line):
    with pytest.raises(NeocoderError) as got:
        rescore(run_folder(tmp_path / "run"), "m", config, tmp_path / "scratch")
    assert str(got.value) == line


def test_a_missing_run_folder_is_refused_and_not_made(tmp_path):
    for call in (lambda f: recompute(f, "m", CONFIG, METRICS), lambda f: rescore(f, "m", CONFIG, tmp_path / "s")):
        with pytest.raises(NeocoderError, match="no such run folder"):
            call(tmp_path / "missing")
        assert not (tmp_path / "missing").exists()


def test_metrics_are_recomputed_from_the_models_finished_solutions_of_the_runs_domain(tmp_path):
    folder = run_folder(tmp_path / "run", solution("p1", verdicts={}), solution("p2", verdicts={}),
                        solution("p3", verdicts={}, error="timeout"), solution("p4", model="other", verdicts={}),
                        solution("c1", "code", verdicts={}), solution("p5", repeated=True, verdicts={}),
                        *steps_of("p1", unreadable=["echo"]), *steps_of("p4", unreadable=["empty"]))
    got = recompute(folder, "m", {}, METRICS)
    assert (got["problems"], got["filtered_repeated"], got["steps"]) == (3, 0, 3)
    assert got["unreadable"]["step candidate"]["reasons"] == {"echo": 2}
    assert recompute(folder, "m", {"domain": "code"}, METRICS)["problems"] == 1


def test_bookmias_repeated_stories_are_dropped_from_its_metrics(tmp_path):
    folder = run_folder(tmp_path / "run", solution("b1", "bookmia", verdicts={}),
                        solution("b2", "bookmia", repeated=True, verdicts={}))
    got = recompute(folder, "m", {"domain": "bookmia"}, METRICS)
    assert (got["problems"], got["filtered_repeated"]) == (1, 1)
