"""The model under test is never trusted (issue 56, "Done when"): one scripted endpoint on
loopback answers, one kind per item, an empty reply, a refusal, an echo of the prompt, a
reply cut at the token limit, prose with no code, a body that is not JSON and a dropped
connection (tests/support/drifting.py), as real servers do when they drift.

- ``neocoder eval`` (judged in the real Docker sandbox): each reply is recorded with its
  reason, none counts as following or as correct, metrics.json counts them per reason, the
  report shows them, the run exits 1 with one line and no traceback; re-judged through
  ``replay/<run folder>`` (as the board re-judges), every reason comes back the same.
- the same endpoint as AidanBench's generator and as LiveIdeaBench's idea model: no empty,
  echoed, cut or refused reply becomes an answer, and no empty idea becomes a refusal."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from drifting import DROP, EMPTY, REFUSAL, TRUNCATED, DriftingServer, cut, echo, prompt_text

from neocoder.cli import main
from neocoder.dataset.shipped import load_states

PROSE = "Read the numbers, sort them and print the middle one."
KINDS = {"empty": EMPTY, "refusal": REFUSAL, "echo": "echo", "cut off": cut("```python\ndef solve():\n    n = in"),
         "no program": PROSE, "broken JSON": TRUNCATED, "dropped": DROP}
NO_PROGRAM = ("empty", "refusal", "echo", "cut off", "no program")


def say(kind: str, body: dict, what):
    """``what`` (a KINDS value) as the endpoint's answer to this call."""
    return echo(kind, body) if what == "echo" else what


def lines_of(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.strip()]


@pytest.mark.docker
def test_eval_reads_every_reply_before_judging_it(tmp_path, release_dir, sandbox):
    states = [s for s in load_states() if s.state == 0][:len(KINDS)]
    script = dict(zip((s.problem_id for s in states), KINDS))

    def respond(kind, body):
        asked = prompt_text(kind, body)
        pid = next(s.problem_id for s in states if s.statement.strip() in asked)
        return say(kind, body, KINDS[script[pid]])

    out = tmp_path / "run"
    args = ["eval", "--model", "openai/m", "--api-key", "k", "--max-retries", "0", "--states", "0",
            "--problems", ",".join(script), "--out", str(out), "--release", str(release_dir), "--quiet"]
    with DriftingServer(respond) as server:
        ran = CliRunner().invoke(main, args[:3] + ["--base-url", server.url] + args[3:])
        # two items in error come first in the one line; with them allowed, the replies are
        accepted = CliRunner().invoke(main, args[:3] + ["--base-url", server.url, "--max-errors", "2"] + args[3:])
    assert ran.exit_code == 1 and len(lines_of(ran)) == 1, ran.output
    assert lines_of(ran)[0].startswith("Error: 2 of 7 samples ended in error"), ran.output
    assert accepted.exit_code == 1 and len(lines_of(accepted)) == 1, accepted.output
    assert lines_of(accepted)[0].startswith("Error: 5 of 5 replies of the model under test held no program ("), \
        accepted.output
    assert "Traceback" not in ran.output + accepted.output

    records = {r["problem_id"]: r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())}
    got = {script[pid]: r for pid, r in records.items()}
    for reason in NO_PROGRAM:
        r = got[reason]
        assert r["no_program"] == reason and r["error"] is None, (reason, r["no_program"])
        assert r["code"] is None and not r["examples"]["correct"] and r["follows"] is False
    assert got["cut off"]["finish_reason"] == "length"
    assert "the body is not JSON" in got["broken JSON"]["error"] and got["broken JSON"]["reply"] is None
    assert "the connection was dropped" in got["dropped"]["error"]

    metrics = json.loads((out / "metrics.json").read_text())
    o = metrics["outcome"]
    assert (o["items"], o["judged"], o["errors"], o["replies"], o["no_answer"]) == (7, 5, 2, 5, 5)
    assert o["no_answer_reasons"] == {reason: 1 for reason in NO_PROGRAM}
    state = metrics["states"]["0"]
    assert state["pass@1"] == 0 and state["convergent"] == 0 and state["n_program"] == 0
    assert state["constraint_following"] is None  # over the replies holding a program: there is none

    report = tmp_path / "report"
    assert CliRunner().invoke(main, ["report", str(out), "--out", str(report)]).exit_code == 0
    pages = "\n".join(p.read_text() for p in report.rglob("*.html"))
    assert all(f"1 x {reason}" in pages for reason in NO_PROGRAM)

    # re-judged from its own records, as `board add` does: the same reason for every reply
    again = tmp_path / "again"
    rejudged = CliRunner().invoke(main, ["eval", "--model", f"replay/{out}", "--states", "0", "--problems",
                                         ",".join(script), "--out", str(again), "--release", str(release_dir),
                                         "--quiet"])
    assert rejudged.exit_code == 1 and "Traceback" not in rejudged.output
    replayed = {r["problem_id"]: r for r in map(json.loads, (again / "records.jsonl").read_text().splitlines())}
    assert {script[p]: r["no_program"] for p, r in replayed.items() if r["no_program"]} == \
        {reason: reason for reason in NO_PROGRAM}


QUESTIONS = ["What could cities do about heat?", "Why do people keep diaries?", "How might we teach chess?",
             "What makes a game fair?", "How could libraries change?", "Why do we dream?", "What is a good map?"]


def test_aidanbench_takes_no_empty_echoed_or_refused_reply_as_an_answer(tmp_path):
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(QUESTIONS) + "\n")
    script = dict(zip(QUESTIONS, KINDS))
    judged = []

    def respond(kind, body):
        if kind == "embeddings":
            return "vector"
        text = prompt_text(kind, body)
        if body.get("model") == "judge":
            judged.append(text)
            return "<score>80</score>"
        question = next(q for q in QUESTIONS if q in text)
        return say(kind, body, KINDS[script[question]])

    out = tmp_path / "run"
    with DriftingServer(respond) as server:
        ran = CliRunner().invoke(main, ["aidanbench", "--model", "openai/gen", "--judge", "openai/judge",
                                        "--embedder", "openai/e", "--base-url", server.url, "--api-key", "k",
                                        "--max-retries", "0", "--questions", str(questions), "--max-answers", "2",
                                        "--max-errors", "2", "--out", str(out), "--quiet"])
    # 3 of its 7 replies held no answer (the cut and prose questions answered twice, then repeated themselves):
    # counted, not a majority; the two items in error are allowed
    assert ran.exit_code == 0 and "Traceback" not in ran.output, ran.output
    assert "replies that held no answer (not judged; each ended its question): 1 x echo, 1 x empty, 1 x refusal" \
        in ran.output
    answers = [r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines()) if r["type"] == "answer"]
    by = {script[a["question"]]: a for a in answers}
    for reason in ("empty", "refusal", "echo"):
        assert by[reason]["no_answer"] == reason and by[reason]["coherence"] is None and by[reason]["novelty"] is None
    # a cut answer is an answer in AidanBench (its budget is the benchmark's), judged and kept with its finish reason
    assert by["cut off"]["no_answer"] is None and by["cut off"]["finish_reason"] == "length"
    assert by["no program"]["no_answer"] is None  # prose is an answer here
    assert not any(q in t for t in judged for q in QUESTIONS if script[q] in ("empty", "refusal", "echo"))
    o = json.loads((out / "metrics.json").read_text())["outcome"]
    assert (o["errors"], o["replies"], o["no_answer"]) == (2, 7, 3)
    assert o["no_answer_reasons"] == {"echo": 1, "empty": 1, "refusal": 1}


def test_ideas_takes_no_empty_idea_as_an_idea_or_a_refusal(tmp_path):
    keywords = tmp_path / "keywords.csv"
    keywords.write_text("keyword,category\n" + "".join(f"topic{i},Science\n" for i in range(len(KINDS))))
    script = {f"topic{i}": kind for i, kind in enumerate(KINDS)}

    def respond(kind, body):
        text, model = prompt_text(kind, body), body.get("model")
        if model == "writer":
            word = next(w for w in sorted(script, key=len, reverse=True) if w in text)
            what = KINDS[script[word]]
            return "Idea: " + PROSE if what == PROSE else say(kind, body, what)
        if "grade: X" in text:
            return "grade: B"
        return "originality: 8\nfeasibility: 6\nclarity: 7"

    out = tmp_path / "run"
    with DriftingServer(respond) as server:
        ran = CliRunner().invoke(main, ["ideas", "--model", "openai/writer", "--judges", "openai/j1,openai/j2",
                                        "--judges-per-idea", "2", "--base-url", server.url, "--api-key", "k",
                                        "--max-retries", "0", "--keywords", str(keywords), "--ideas-per-keyword", "1",
                                        "--judge-retries", "0", "--bootstrap", "50", "--max-errors", "2",
                                        "--out", str(out), "--quiet"])
    assert ran.exit_code == 1 and "Traceback" not in ran.output, ran.output
    ideas = {script[r["keyword"]]: r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())
             if r["type"] == "idea"}
    assert (ideas["empty"]["status"], ideas["empty"]["no_idea"]) == ("no idea", "empty")  # not a refusal
    assert (ideas["echo"]["status"], ideas["echo"]["no_idea"]) == ("no idea", "echo")
    assert (ideas["cut off"]["status"], ideas["cut off"]["no_idea"]) == ("no idea", "cut off")
    assert ideas["refusal"]["status"] == "refused" and ideas["no program"]["status"] == "ok"
    assert ideas["broken JSON"]["status"] == ideas["dropped"]["status"] == "error"
    o = json.loads((out / "metrics.json").read_text())["outcome"]
    assert o["errors"] == 2 and o["no_answer_reasons"] == {"cut off": 1, "echo": 1, "empty": 1, "refusal": 1}
    assert lines_of(ran)[-1].startswith("Error: 4 of 5 replies of the model under test held no idea ("), ran.output
