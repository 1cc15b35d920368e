"""AidanBench against a misbehaving judge (tests/support/drifting.py, issue 46): every
reply kind is read as what it holds, the records say why a reply was unreadable, the
unreadable counts in metrics.json equal the replies of that kind sent, and a run that
loses items exits non-zero naming the count."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from drifting import (
    DROP,
    EMPTY,
    MALFORMED,
    REASONING_ONLY,
    REFUSAL,
    THINK_ONLY,
    DriftingServer,
    cut,
    echo,
    prompt_text,
    status,
)

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.cli import main
from neocoder.store import RunFolder

GOOD = "<score>80</score>"
VERDICT = "<verdict>no</verdict>"


@pytest.fixture
def recorded(tmp_path):
    """Two questions' recorded answers: A (heat) has 2, B (diaries) has 2, all distinct."""
    rows = [("What could cities do about heat?", ["Plant street trees for shade.",
                                                  "Open cooling centres in libraries."]),
            ("Why do people keep diaries?", ["To remember what happened to them.",
                                             "To practise writing every day."])]
    path = tmp_path / "answers_in.jsonl"
    with path.open("w") as f:
        for q, answers in rows:
            for i, a in enumerate(answers, 1):
                f.write(json.dumps({"model": "someone", "question": q, "answer_num": i, "answer": a}) + "\n")
    return path


def run(recorded, out, respond, *extra):
    """aidanbench with the replayed answers and a drifting judge; returns (server, result)."""
    server = DriftingServer(respond)
    try:
        result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "openai/judge",
                                           "--base-url", server.url, "--api-key", "k", "--judge-retries", "0",
                                           "--out", str(out), "--quiet", *extra])
    finally:
        server.close()
    return server, result


def drift_on_heat(say):
    """The judge answers ``say`` about question A's answers, GOOD about B's."""
    def respond(kind, body):
        if "cities" in prompt_text(kind, body):
            return say(kind, body) if callable(say) else say
        return VERDICT if "verdict" in prompt_text(kind, body).splitlines()[-1] else GOOD
    return respond


KINDS = [
    (EMPTY, "empty"),
    (cut("<score>8"), "cut off"),
    (cut("The answer is mostly coherent, but"), "cut off"),
    (THINK_ONLY, "reasoning only"),
    (echo, "echo"),
    (REFUSAL, "refusal"),
    ("<score>80</score> On reflection, <score>20</score>", "conflicting markers"),
    ("[score]80[/score]", "no marker"),
    ("Score: 80", "no marker"),
    ("85", "no marker"),
    ('Here is my rating: {"score": 80} hope it helps', "no marker"),
    ('{"score": 8', "no marker"),
    ("<score>140</score>", "out of range"),
    ("<score>N</score>", "echo"),
]


@pytest.mark.parametrize("say,reason", KINDS, ids=[r + "-" + str(i) for i, (_, r) in enumerate(KINDS)])
def test_an_unreadable_coherence_reply_makes_its_question_unreadable_and_is_counted(tmp_path, recorded, say, reason):
    out = tmp_path / "run"
    server, result = run(recorded, out, drift_on_heat(say))
    assert result.exit_code == 0, result.output  # B was judged; an unreadable question is no error
    folder = RunFolder(out)
    a = [x for x in folder.read(Answer) if x.question_index == 0]
    assert len(a) == 1 and a[0].coherence is None and a[0].stop == "unreadable"
    assert a[0].judge_readings == [["coherence", reason]] and reason in a[0].unreadable
    q = {x.question_index: x for x in folder.read(QuestionResult)}
    assert q[0].stop_reason == "unreadable" and q[1].stop_reason != "unreadable"
    metrics = json.loads((out / "metrics.json").read_text())
    sent = server.calls - 2  # B's two answers were read
    assert metrics["unreadable"]["coherence"]["unreadable"] == sent == 1
    assert metrics["unreadable"]["coherence"]["reasons"] == {reason: 1}
    assert metrics["outcome"] == {"unit": "question", "items": 2, "judged": 1, "unreadable": 1, "errors": 0,
                                  "reasons": {}, "answer": "answer", "replies": 3, "no_answer": 0,
                                  "no_answer_reasons": {}}  # the generator's three answers all held one
    assert [m["questions"] for m in metrics["models"].values()] == [1]  # the score rests on the judged question only


def test_reasoning_apart_from_the_answer_is_no_answer(tmp_path, recorded):
    out = tmp_path / "run"
    run(recorded, out, drift_on_heat(REASONING_ONLY))
    a = [x for x in RunFolder(out).read(Answer) if x.question_index == 0]
    assert a[0].coherence is None and a[0].judge_readings[0][1] in ("empty", "reasoning only")


def test_retries_count_every_unreadable_reply(tmp_path, recorded):
    replies = iter([REFUSAL, EMPTY, GOOD, GOOD])  # A1: refusal, empty, then read; A2: read
    out = tmp_path / "run"
    server, result = run(recorded, out, drift_on_heat(lambda kind, body: next(replies)), "--judge-retries", "2")
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["unreadable"]["coherence"]["unreadable"] == 2 == server.count("refusal") + server.count("empty")
    assert metrics["unreadable"]["coherence"]["reasons"] == {"empty": 1, "refusal": 1}
    assert metrics["outcome"]["judged"] == 2


def test_a_judge_that_is_never_readable_fails_the_run(tmp_path, recorded):
    out = tmp_path / "run"
    server, result = run(recorded, out, lambda kind, body: "I think it is fine.")
    assert result.exit_code != 0
    assert result.output.strip().splitlines()[-1].startswith("Error: no question of 2 was judged (2 unreadable")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["outcome"]["unreadable"] == 2 and metrics["outcome"]["judged"] == 0
    assert metrics["unreadable"]["coherence"]["unreadable"] == server.calls == 2


@pytest.mark.parametrize("say", [MALFORMED, status(500)], ids=["malformed 200", "500"])
def test_a_failed_judge_call_is_an_error_kept_and_counted(tmp_path, recorded, say):
    out = tmp_path / "run"
    server, result = run(recorded, out, drift_on_heat(say))
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: 1 of 2 questions ended in error")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["outcome"]["errors"] == 1 and metrics["outcome"]["judged"] == 1
    q = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    assert q[0].stop_reason == "error" and q[0].error


def test_a_burst_of_429_then_an_answer_is_read(tmp_path, recorded):
    replies = iter([status(429), status(429), GOOD, GOOD])
    out = tmp_path / "run"
    server, result = run(recorded, out, drift_on_heat(lambda kind, body: next(replies)))
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["outcome"]["judged"] == 2 and metrics["unreadable"]["coherence"]["unreadable"] == 0
    assert server.count("rate limited") == 2


def test_a_connection_dropped_on_every_try_is_the_questions_error(tmp_path, recorded):
    out = tmp_path / "run"
    server, result = run(recorded, out, drift_on_heat(DROP))
    assert result.exit_code == 1  # the run goes on to the end, then fails naming the question in error
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: 1 of 2 questions ended in error") and "the connection was dropped" in last, last
    q = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    assert q[0].stop_reason == "error" and "no usable reply from" in q[0].error and q[1].stop_reason != "error"
