"""AidanBench's generator replies read before they are judged (issue 56, item 2), and the
per-role reply counts of metrics.json against the requests really sent (issue 56, item 7).

A scripted generator on loopback (tests/support/drifting.py) answers one question with a
reply that holds no answer (empty, reasoning only, echo, refusal) and the other with real
answers: the reply is recorded with its reason, never embedded or judged, ends its
question as "no answer", and is counted per reason in metrics.json; a run whose replies
mostly hold none exits non-zero with one line.  A reply cut at the token limit is an
answer (docs/aidanbench.md says why), its finish_reason kept."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from drifting import EMPTY, REASONING_ONLY, REFUSAL, THINK_ONLY, DriftingServer, cut, echo, prompt_text

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.cli import main
from neocoder.store import RunFolder

HEAT, DIARY = "What could cities do about heat?", "Why do people keep diaries?"
DIARY_ANSWERS = ("Journaling helps people process their emotions and lower their stress.",
                 "Historians read old diaries as primary sources on everyday life centuries ago.")


def role_of(kind: str, body: dict) -> str:
    """Which role a request plays: the generator, or the judge's coherence, similarity or
    entailment prompt (prompts/aidan_*.txt)."""
    text = prompt_text(kind, body)
    if body.get("model") == "gen":
        return "generator"
    if "entails" in text:
        return "entailment"
    if "How similar in idea" in text:
        return "similarity"
    return "coherence"


def scripted(heat, judge=None):
    """The generator answers ``heat`` (a reply, a Say, or a function of the call) to the
    heat question and the two diary answers in turn; the judge answers ``judge(role,
    call)`` or a readable reply per role."""
    def respond(kind, body):
        role, text = role_of(kind, body), prompt_text(kind, body)
        if role == "generator":
            if HEAT in text:
                return heat(kind, body) if callable(heat) else heat
            return DIARY_ANSWERS[0] if "(none yet)" in text else DIARY_ANSWERS[1]
        if judge is not None:
            return judge(role, text)
        return {"coherence": "<score>80</score>", "similarity": "<score>10</score>",
                "entailment": "<verdict>no</verdict>"}[role]
    return respond


def run(tmp_path, respond, *extra):
    questions = tmp_path / "questions.txt"
    questions.write_text(f"{HEAT}\n{DIARY}\n")
    server = DriftingServer(respond)
    out = tmp_path / "run"
    try:
        result = CliRunner().invoke(main, ["aidanbench", "--model", "openai/gen", "--judge", "openai/judge",
                                           "--base-url", server.url, "--api-key", "k", "--max-retries", "0",
                                           "--questions", str(questions), "--max-answers", "2",
                                           "--judge-retries", "0", "--bootstrap", "50", "--out", str(out),
                                           "--quiet", *extra])
    finally:
        server.close()
    return server, out, result


NO_ANSWER = [(EMPTY, "empty"), (THINK_ONLY, "reasoning only"), (REASONING_ONLY, "reasoning only"),
             (echo, "echo"), (REFUSAL, "refusal")]


@pytest.mark.parametrize("say,reason", NO_ANSWER, ids=[f"{r}-{i}" for i, (_, r) in enumerate(NO_ANSWER)])
def test_a_reply_with_no_answer_ends_its_question_unjudged_and_is_counted(tmp_path, say, reason):
    judged = []

    def judge(role, text):
        judged.append(text)
        return "<score>80</score>"
    server, out, result = run(tmp_path, scripted(say, judge))
    assert result.exit_code == 0, result.output  # 1 of 3 replies held no answer: counted, not a failure
    folder = RunFolder(out)
    (heat,) = [a for a in folder.read(Answer) if a.question_index == 0]
    assert (heat.stop, heat.no_answer, heat.coherence, heat.novelty) == ("no answer", reason, None, None)
    assert not any(HEAT in t for t in judged)  # never judged: the 80 it would get is no score of it
    q = {x.question_index: x for x in folder.read(QuestionResult)}
    assert (q[0].stop_reason, q[0].answers, q[0].novelty_sum) == ("no answer", 0, 0.0)
    assert reason in q[0].error and q[1].answers == 2
    metrics = json.loads((out / "metrics.json").read_text())
    o = metrics["outcome"]
    assert (o["answer"], o["replies"], o["no_answer"], o["no_answer_reasons"]) == ("answer", 3, 1, {reason: 1})
    assert o["replies"] == sum(1 for k in server.sent if k) - len(judged)  # every generator reply counted once
    (totals,) = metrics["models"].values()
    assert totals["no_answer"] == {reason: 1} and totals["stop_reasons"]["no answer"] == 1
    assert totals["answers"] == 2  # the diary's two; the heat question scores 0, not 80 and 0.86
    assert "1 x " + reason in result.output and "no answer" in result.output


def test_a_reply_cut_at_the_token_limit_is_an_answer_with_its_finish_reason(tmp_path):
    server, out, result = run(tmp_path, scripted(cut("Plant shade trees along every street and paint roofs")))
    assert result.exit_code == 0, result.output
    heat = [a for a in RunFolder(out).read(Answer) if a.question_index == 0]
    assert heat[0].no_answer is None and heat[0].coherence == 80.0 and heat[0].finish_reason == "length"
    assert "replies" in json.loads((out / "metrics.json").read_text())["outcome"]
    assert json.loads((out / "metrics.json").read_text())["outcome"]["no_answer"] == 0


def test_a_cot_reply_cut_before_its_answer_holds_none(tmp_path):
    server, out, result = run(tmp_path, scripted(cut("First, cities heat up because asphalt stores")), "--cot")
    (heat,) = [a for a in RunFolder(out).read(Answer) if a.question_index == 0]
    assert (heat.no_answer, heat.stop, heat.finish_reason) == ("cut off", "no answer", "length")


def test_repeating_an_earlier_answer_is_repetitive_not_an_echo(tmp_path):
    replies = iter([DIARY_ANSWERS[0], DIARY_ANSWERS[0]])
    server, out, result = run(tmp_path, scripted(lambda kind, body: next(replies)))
    heat = [a for a in RunFolder(out).read(Answer) if a.question_index == 0]
    assert [a.no_answer for a in heat] == [None, None] and heat[1].stop == "repetitive"


def test_a_run_whose_replies_mostly_hold_no_answer_fails_with_one_line(tmp_path):
    server, out, result = run(tmp_path, lambda kind, body: (EMPTY if body.get("model") == "gen"
                                                            else "<score>80</score>"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        "Error: 2 of 2 replies of the model under test held no answer (2 x empty); they are recorded with their "
        "reason and counted in metrics.json")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["outcome"]["no_answer_reasons"] == {"empty": 2} and server.calls == 2  # no judge was asked


def test_per_role_reply_counts_equal_the_requests_the_judge_received(tmp_path):
    """Issue 56, item 7: metrics.json's per-role reply counts against the requests the
    scripted endpoint really received per role, retries included, with an unreadable first
    reply in each role so a count off by one (a retry or a resumed verdict counted twice,
    or not at all) fails."""
    first = {"coherence": True, "similarity": True, "entailment": True}

    def judge(role, text):
        if first[role]:  # each role's first reply is unreadable once, then read on the retry
            first[role] = False
            return "I would rather not say."
        return {"coherence": "<score>80</score>", "similarity": "<score>10</score>",
                "entailment": "<verdict>no</verdict>"}[role]
    seen: dict = {}
    heat = ("Plant shade trees and paint the roofs white.", "Open the libraries as cooling centres at night.")
    # distinct answers: an identical prompt would be answered by the call cache, read but never sent
    respond = scripted(lambda kind, body: heat[0] if "(none yet)" in prompt_text(kind, body) else heat[1], judge)

    def counting(kind, body):
        role = role_of(kind, body)
        seen[role] = seen.get(role, 0) + 1
        return respond(kind, body)
    server, out, result = run(tmp_path, counting, "--llm-similarity", "--entailment", "judge",
                              "--judge-retries", "1")
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    counted = {role: block["replies"] for role, block in metrics["unreadable"].items()}
    assert counted == {role: n for role, n in seen.items() if role != "generator"}
    assert all(metrics["unreadable"][role]["unreadable"] == 1 for role in counted)
    assert set(counted) == {"coherence", "similarity", "entailment"} and counted["entailment"] >= 2
    assert metrics["outcome"]["replies"] == seen["generator"]


def test_a_rescore_keeps_a_no_answer_stop_at_any_thresholds(tmp_path):
    server, out, result = run(tmp_path, scripted(EMPTY))
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--coherence-stop", "1", "--novelty-stop",
                                      "0.01", "--out", str(tmp_path / "rescored")])
    assert again.exit_code == 0, again.output
    q = {x.question_index: x for x in RunFolder(tmp_path / "rescored").read(QuestionResult)}
    assert (q[0].stop_reason, q[0].answers) == ("no answer", 0) and "empty" in q[0].error
