"""LiveIdeaBench's idea replies read before they are judged (issue 56, item 2), and a
measure resting on mostly unreadable judge replies shown as unreadable, with no rank and
a failing run (issue 56, item 4).

A scripted idea model on loopback (tests/support/drifting.py) answers one idea of the
keyword with a reply that holds no idea (empty, reasoning only, echo, cut off, a bare
"Idea:"): it is recorded as "no idea" with its reason, is neither judged nor a refusal
(no fallback is asked), and is counted per reason in metrics.json; a refusal is still a
refusal (the protocol's rule); a run whose replies mostly hold no idea exits non-zero
with one line.  With two of three seats answering nothing readable, the console, the
report and metrics.json say "unreadable" for the measures resting on them, give no
rank, and the run exits non-zero naming them.  Flexibility has one value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from checkout import SHARED
from click.testing import CliRunner
from drifting import EMPTY, REASONING_ONLY, REFUSAL, THINK_ONLY, DriftingServer, cut, echo, prompt_text

from neocoder.benchmarks.ideas.records import Idea, IdeaJudgement
from neocoder.cli import main
from neocoder.store import RunFolder

CLONE = SHARED / "liveideabench" / "official"
GOOD = "originality: 8\nfeasibility: 6\nclarity: 7"
OFFICIAL_GOOD = 'Sound.\n```json\n{"originality": 8, "feasibility": 6, "clarity": 7}\n```'
IDEAS = {1: "Idea: track cloud seeding with lidar drones over the Alps.",
         2: "Idea: predict fog from tree-canopy humidity sensors in valleys.",
         3: "Idea: crowdsource barometric readings from phones to nowcast storms."}


@pytest.fixture
def keywords(tmp_path) -> Path:
    path = tmp_path / "keywords.csv"
    path.write_text("keyword,category\nmeteorology,Earth science\n")
    return path


def idea_num(body) -> int:
    return (body.get("seed") or 0) + 1


def scripted(first, judge=None):
    """The writer answers ``first`` (a reply, a Say, or a function of the call) for idea 1
    and the ideas of ``IDEAS`` for the others; the judges answer ``judge(model, call)``,
    else readable scores; the fluency judge grades B."""
    def respond(kind, body):
        text, model = prompt_text(kind, body), body.get("model")
        if model == "writer":
            if idea_num(body) == 1 and first is not None:
                return first(kind, body) if callable(first) else first
            return IDEAS[idea_num(body)]
        if "grade: X" in text or "ONLY ANSWER" in text:
            return "grade: B" if "grade: X" in text else "B"
        if judge is not None:
            return judge(model, text)
        return OFFICIAL_GOOD if (body.get("messages") or [{}])[0].get("role") == "system" else GOOD
    return respond


def run(tmp_path, keywords, respond, judges="openai/j1,openai/j2", per_idea="2", *extra):
    server = DriftingServer(respond)
    out = tmp_path / "run"
    try:
        result = CliRunner().invoke(main, [
            "ideas", "--model", "openai/writer", "--judges", judges, "--judges-per-idea", per_idea,
            "--base-url", server.url, "--api-key", "k", "--max-retries", "0", "--keywords", str(keywords),
            "--ideas-per-keyword", "3", "--seed", "0", "--judge-retries", "0", "--bootstrap", "50", "--quiet",
            "--out", str(out), *extra])
    finally:
        server.close()
    return server, out, result


NO_IDEA = [(EMPTY, "empty"), (THINK_ONLY, "reasoning only"), (REASONING_ONLY, "reasoning only"), (echo, "echo"),
           (cut("Idea: seed clouds with"), "cut off"), ("**Idea:**", "empty")]


@pytest.mark.parametrize("say,reason", NO_IDEA, ids=[f"{r}-{i}" for i, (_, r) in enumerate(NO_IDEA)])
def test_a_reply_with_no_idea_is_recorded_with_its_reason_and_is_no_refusal(tmp_path, keywords, say, reason):
    asked = []
    server, out, result = run(tmp_path, keywords, scripted(say, lambda model, text: asked.append(text) or GOOD))
    assert result.exit_code == 0, result.output  # 1 of 3 replies held no idea: counted, not a failure
    ideas = {i.idea_num: i for i in RunFolder(out).read(Idea)}
    assert (ideas[1].status, ideas[1].no_idea, ideas[1].fallback) == ("no idea", reason, False)
    assert [ideas[n].status for n in (2, 3)] == ["ok", "ok"]
    assert {j.idea_num for j in RunFolder(out).read(IdeaJudgement)} == {2, 3} and len(asked) == 4
    assert server.calls - len(asked) - 1 == 3  # three writer calls (no fallback asked) and one fluency grade
    metrics = json.loads((out / "metrics.json").read_text())
    o = metrics["outcome"]
    assert (o["answer"], o["replies"], o["no_answer"], o["no_answer_reasons"]) == ("idea", 3, 1, {reason: 1})
    (s,) = metrics["models"].values()
    assert (s["no_idea"], s["no_idea_reasons"], s["refused"], s["kept"]) == (1, {reason: 1}, 0, 2)
    assert s["per_keyword"][0]["no_idea"] == 1 and s["per_keyword"][0]["errors"] == 0
    assert f"1 held no idea (1 x {reason})" in result.output


def test_a_refusal_is_still_asked_again_and_an_empty_fallback_is_no_idea(tmp_path, keywords):
    replies = iter([REFUSAL, EMPTY])
    server, out, result = run(tmp_path, keywords, scripted(lambda kind, body: next(replies)))
    idea = {i.idea_num: i for i in RunFolder(out).read(Idea)}[1]
    assert (idea.fallback, idea.status, idea.no_idea) == (True, "no idea", "empty")
    assert idea.refused_reply.startswith("I'm sorry")
    refused = iter([REFUSAL, REFUSAL])
    server, out2, result = run(tmp_path / "b", keywords, scripted(lambda kind, body: next(refused)))
    idea = {i.idea_num: i for i in RunFolder(out2).read(Idea)}[1]
    assert (idea.fallback, idea.status, idea.no_idea) == (True, "refused", "refusal")
    assert json.loads((out2 / "metrics.json").read_text())["outcome"]["no_answer_reasons"] == {"refusal": 1}


@pytest.mark.skipif(not CLONE.is_dir(), reason="the authors' files are not here")
def test_official_protocol_an_empty_idea_is_no_refusal_and_a_phrase_anywhere_is(tmp_path, keywords):
    official = ("--protocol", "official", "--liveideabench", str(CLONE))
    server, out, result = run(tmp_path, keywords, scripted(EMPTY), "openai/c1,openai/c2", "2", *official)
    idea = {i.idea_num: i for i in RunFolder(out).read(Idea)}[1]
    assert (idea.status, idea.no_idea, idea.fallback) == ("no idea", "empty", False)
    mid = "Idea: soil sensors are a fine topic, but I can't propose research on weather."
    server, out2, result = run(tmp_path / "b", keywords, scripted(mid), "openai/c1,openai/c2", "2", *official)
    idea = {i.idea_num: i for i in RunFolder(out2).read(Idea)}[1]
    assert (idea.status, idea.fallback) == ("refused", True)  # the authors' rule, kept exactly


def test_a_run_whose_replies_mostly_hold_no_idea_fails_with_one_line(tmp_path, keywords):
    def respond(kind, body):
        if body.get("model") == "writer":
            return {1: EMPTY, 2: THINK_ONLY}.get(idea_num(body), IDEAS[3])
        return GOOD
    server, out, result = run(tmp_path, keywords, respond)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        "Error: 2 of 3 replies of the model under test held no idea (1 x empty, 1 x reasoning only); they are "
        "recorded with their reason and counted in metrics.json")
    assert server.calls == 3 + 2  # no fallback asked: an empty idea is neither an idea nor a refusal; idea 3 judged


# --- issue 56, item 4: a measure mostly unreadable, printed as such, no rank, a failing run ----------------------

def test_two_unreadable_seats_of_three_give_no_number_no_rank_and_fail(tmp_path, keywords):
    refused = []

    def two_of_three_unreadable(model, text):
        if model in ("j1", "j2"):
            refused.append(model)
            return REFUSAL.text
        return GOOD
    server, out, result = run(tmp_path, keywords, scripted(None, two_of_three_unreadable),
                              "openai/j1,openai/j2,openai/j3", "3")
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("Error: openai/writer: originality, feasibility, clarity, flexibility unreadable "
                                "(6 of 9 judge score replies could not be read: 6 x refusal)")
    assert "no number or published rank" in lines[-1]
    for label in ("originality ", "feasibility ", "clarity ", "flexibility ("):
        (row,) = [line for line in lines if line.startswith("  " + label)]
        assert "unreadable" in row and not re.search(r"\d\.\d\d", row)
    assert re.search(r"fluency\s+7\.00", result.output)  # fluency rests on readable grades
    assert "would rank" not in result.output
    assert "* openai/writer: no rank: Fluency" not in result.output
    assert "no rank: Feasibility, Originality, Flexibility, Average unreadable" in result.output
    metrics = json.loads((out / "metrics.json").read_text())
    (s,) = metrics["models"].values()
    assert s["unreadable_measures"] == ["originality", "feasibility", "clarity", "flexibility"]
    assert all(s[m] is None for m in s["unreadable_measures"]) and s["fluency"] == 7.0
    assert s["leaderboard"]["average"] is None and s["leaderboard"]["originality"] is None
    assert not set(s["intervals"]) & {"originality", "flexibility", "leaderboard.average"}
    assert s["replies"]["scores"]["unreadable"] == len(refused) == 6
    from neocoder.report.html import build_report
    page = build_report([out], tmp_path / "report").read_text()
    section = page[page.index('id="ideas"'):]
    totals = section[:section.index("</table>")]
    assert totals.count(">unreadable<") == 4 and "6 refusal" in totals
    board = section[section.index('id="ideas-leaderboard"'):]
    run_row = next(r for r in board.split("<tr") if "<b>openai/writer</b>" in r)
    assert run_row.count(">unreadable<") == 4 and "7.00" in run_row  # Fluency alone has a number


def test_one_unreadable_seat_of_three_leaves_the_numbers_and_flexibility_has_one_value(tmp_path, keywords):
    server, out, result = run(tmp_path, keywords,
                              scripted(None, lambda model, text: REFUSAL.text if model == "j1" else GOOD),
                              "openai/j1,openai/j2,openai/j3", "3")
    assert result.exit_code == 0, result.output
    (s,) = json.loads((out / "metrics.json").read_text())["models"].values()
    assert s["unreadable_measures"] == [] and s["originality"] == 8.0
    assert s["flexibility"] == s["leaderboard"]["flexibility"]  # one flexibility, the board's definition
    printed = set(re.findall(r"flexibility[^\n]*?(\d+\.\d\d)", result.output, re.I))
    board = [line for line in result.output.splitlines() if line.strip().startswith("* ") and "protocol" in line]
    assert len(printed) == 1 and f"{s['flexibility']:.2f}" in printed
    assert f"{s['flexibility']:12.2f}" in board[0] and "would rank" in result.output
