"""LiveIdeaBench (issue 17, item 3): fluency's grade mapping, flexibility's percentile, the
seeded judge draw without self-judging, the length filter, refusals, unparseable judge
replies, resume, replay, bad input, the report in a real Chromium, and end-to-end runs
through the real local model server.

The judges and idea writers other than the local model are real OpenAI-style HTTP
servers on loopback (``PanelServer``) whose replies a test scripts per model and prompt."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from browser import dump_dom, screenshot
from click.testing import CliRunner
from panel import FALLBACK_MARK, JUDGE_REPLIES, PanelServer, keyword_of, scripted, settings

from neocoder.api import run_ideas
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.loop import grade_fluency
from neocoder.benchmarks.ideas.panel import Seat, draw_fluency_judge, draw_judges, eligible, parse_judges
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.scoring import (
    FLUENCY_POINTS,
    extract_idea,
    is_refusal,
    keyword_rows,
    model_scores,
    parse_grade,
    parse_scores,
    percentile,
)
from neocoder.benchmarks.ideas.sources import load_keywords, load_leaderboard
from neocoder.benchmarks.ideas.task import UnreadableMeasures
from neocoder.cli import main
from neocoder.errors import NeocoderError, RecordError
from neocoder.models.openai_compat import OpenAICompatModel
from neocoder.report.html import build_report
from neocoder.store import RunFolder


@pytest.fixture
def server():
    s = PanelServer(scripted())
    yield s
    s.close()


@pytest.fixture
def keywords(tmp_path) -> Path:
    path = tmp_path / "keywords.csv"
    path.write_text("keyword,category\nmeteorology,Earth science\nperiodic table,Chemistry\nsoil,Biology\n")
    return path


# ----------------------------------------------------------------------------------------
# fluency: the grade mapping


@pytest.mark.parametrize("reply,grade", [
    ("grade: A", "A"), ("Grade: b", "B"), ("**grade:** C", "C"), ("Alike in part.\ngrade: D", "D"),
    ("grade: E", None), ("grade: X", None), ("grade: A\ngrade: C", None),
    ("These ideas are quite different.", None), ("A good set of ideas.", None), ("", None),
    # not the "grade: X" line our prompt asks for: unreadable, no guess from a letter in the text
    ("<grade>C</grade>", None), ("D", None), ("**D.**", None),
    ("The grade is B, since the ideas share a problem.", None),
])
def test_fluency_grades_are_read_from_judge_replies(reply, grade):
    assert parse_grade(reply) == grade


def test_fluency_maps_grades_to_livideabench_points_through_a_real_judge():
    assert FLUENCY_POINTS == {"A": 10.0, "B": 7.0, "C": 4.0, "D": 1.0}  # D identical ... A different problems
    ideas = [Idea(model="openai/writer", keyword_index=0, keyword="soil", idea_num=n, idea=f"idea {n}")
             for n in (1, 3)]
    for letter, points in (("A", 10.0), ("B", 7.0), ("C", 4.0), ("D", 1.0)):
        server = PanelServer(scripted(grade=f"grade: {letter}"))
        try:
            seat = Seat("j1", "openai/j1", OpenAICompatModel("openai/j1", "j1", base_url=server.url, api_key="k"))
            graded = grade_fluency(ideas, seat, IdeasConfig(model=None, judges=[], out=Path("."), judge_retries=2))
            assert (graded.grade, graded.score, graded.error) == (letter, points, None)
            assert graded.idea_nums == [1, 3] and len(server.requests) == 1
            assert "Idea 1: idea 1" in server.requests[0][1] and "Idea 2: idea 3" in server.requests[0][1]
        finally:
            server.close()
    server = PanelServer(scripted(grade="They differ a lot."))
    try:
        seat = Seat("j1", "openai/j1", OpenAICompatModel("openai/j1", "j1", base_url=server.url, api_key="k"))
        graded = grade_fluency(ideas, seat, IdeasConfig(model=None, judges=[], out=Path("."), judge_retries=2))
        assert graded.grade is None and graded.score is None and "unparseable after 3 attempts" in graded.error
        assert len(server.requests) == 3  # bounded: the first ask and two retries (no call cache here)
    finally:
        server.close()


# ----------------------------------------------------------------------------------------
# flexibility: the 30th percentile over keywords


def test_percentile_interpolates_linearly_between_order_statistics():
    assert percentile(range(1, 11)) == pytest.approx(3.7)  # h = 0.3 * 9 = 2.7: 3 + 0.7 * (4 - 3)
    assert percentile([5.0]) == 5.0 and percentile([]) is None
    assert percentile([4, 1, 10, 7]) == pytest.approx(1 + 0.9 * 3)  # h = 0.9 between 1 and 4: order, not input


def hand_made(scores: list[float], grade: str = "D", judges=(("j1", 0.0), ("j2", 0.0))):
    """Keyword k gets one idea whose judges score every criterion scores[k] + offset, and
    the fluency grade ``grade``."""
    ideas, judgements, grades = [], [], []
    for k, s in enumerate(scores):
        ideas.append(Idea(model="m", keyword_index=k, keyword=f"k{k}", idea_num=1, idea="x"))
        for name, offset in judges:
            judgements.append(IdeaJudgement(model="m", keyword_index=k, keyword=f"k{k}", idea_num=1, judge=name,
                                            judge_spec=f"openai/{name}",
                                            scores={c: s + offset for c in ("originality", "feasibility",
                                                                              "clarity")}))
        grades.append(FluencyGrade(model="m", keyword_index=k, keyword=f"k{k}", judge="j1", judge_spec="openai/j1",
                                   grade=grade, score=FLUENCY_POINTS[grade]))
    return ideas, judgements, grades


def test_flexibility_is_one_value_the_30th_percentile_of_the_four_score_keyword_average():
    rows = keyword_rows(*hand_made([float(s) for s in range(1, 11)]))
    assert [r["average"] for r in rows] == [pytest.approx((3 * s + 1) / 4) for s in range(1, 11)]
    assert [r["average_3"] for r in rows] == [pytest.approx((2 * s + 1) / 3) for s in range(1, 11)]  # kept, unused
    got = model_scores(rows, resamples=500, seed=1)
    # four-score averages (3 s + 1) / 4 for s = 1..10; h = 2.7 between s = 3 and s = 4 (the paper's
    # definition).  One flexibility (issue 56): the leaderboard block's is the model's, not a three-score one
    assert got["flexibility"] == pytest.approx((3 * 3 + 1) / 4 + 0.7 * 3 / 4)
    assert got["originality"] == pytest.approx(5.5) and got["fluency"] == 1.0
    board = got["leaderboard"]
    assert board["flexibility"] == got["flexibility"]
    assert got["intervals"]["flexibility"] == got["intervals"]["leaderboard.flexibility"]
    assert board["average"] == pytest.approx((1.0 + 5.5 + 5.5 + board["flexibility"]) / 4)
    iv = got["intervals"]["flexibility"]
    assert 1.0 <= iv["low"] < got["flexibility"] < iv["high"] <= 10.0  # resampling keywords moves it
    same = model_scores(keyword_rows(*hand_made([6.0] * 8)), resamples=200)
    assert same["intervals"]["flexibility"]["low"] == same["intervals"]["flexibility"]["high"] == same["flexibility"]


def test_flexibility_follows_the_weaker_keywords_and_an_idea_is_its_judges_mean():
    rows = keyword_rows(*hand_made([2.0, 9.0, 9.0, 9.0], judges=(("j1", -1.0), ("j2", 1.0))))
    assert rows[0]["originality"] == 2.0  # judges 1 and 3 -> 2
    strong = model_scores(rows, resamples=0)
    assert strong["flexibility"] < strong["originality"]  # one weak keyword of four pulls the 30th percentile down
    assert model_scores(rows, resamples=0)["intervals"] == {}


# ----------------------------------------------------------------------------------------
# the judge panel and the draw


def test_the_draw_is_seeded_distinct_and_never_the_idea_model():
    seats = [("a", "local/gemma-3-270m"), ("b", "local/gemma-3-270m"), ("j1", "openai/j1"), ("j2", "openai/j2"),
             ("j3", "openai/j3"), ("j4", "openai/j4")]
    # a seat of the idea model's spec is left out whatever its name
    assert eligible(seats, {"local/gemma-3-270m"}, 3, "local/gemma-3-270m") == ["j1", "j2", "j3", "j4"]
    with pytest.raises(NeocoderError, match=r"3 judge\(s\) besides the idea model, fewer than the 4.*a \(local/gemma"):
        eligible(seats, {"local/gemma-3-270m", "openai/j4"}, 4, "replay/x")
    names = ["j1", "j2", "j3", "j4", "j5"]
    draws = [draw_judges(names, 3, 0, f"keyword {i}", n) for i in range(200) for n in (1, 2, 3)]
    assert all(len(set(d)) == 3 and set(d) <= set(names) for d in draws)
    assert all(d == sorted(d, key=names.index) for d in draws)  # panel order
    assert draws == [draw_judges(names, 3, 0, f"keyword {i}", n) for i in range(200) for n in (1, 2, 3)]
    other = [draw_judges(names, 3, 1, f"keyword {i}", n) for i in range(200) for n in (1, 2, 3)]
    assert sum(a != b for a, b in zip(draws, other)) > 300  # another seed, other draws (6 of 10 differ at random)
    counts = {n: sum(n in d for d in draws) for n in names}
    assert all(300 <= c <= 420 for c in counts.values()), counts  # uniform: 600 draws x 3/5 = 360 each
    fluency = [draw_fluency_judge(names, 0, f"keyword {i}") for i in range(200)]
    assert set(fluency) == set(names) and fluency == [draw_fluency_judge(names, 0, f"keyword {i}") for i in range(200)]
    with pytest.raises(ValueError):
        draw_judges(names[:2], 3, 0, "k", 1)


@pytest.mark.parametrize("text,message", [
    ("openai/j1,,openai/j2", "entry 2"), ("a=gemma", "'spec'.*not PROVIDER/NAME"),
    ("a=openai/x,a=openai/y", "'name'.*already entry 1"), ("openai/x,openai/x", "already entry 1"),
    ("bad name=openai/x", "'name'"), ("a=opneai/x", "unknown provider 'opneai'"),
])
def test_bad_judge_specs_are_refused_naming_the_entry(text, message):
    with pytest.raises(NeocoderError, match=message):
        parse_judges(text)


def test_judge_specs_give_seat_names():
    assert [(s.name, s.spec) for s in parse_judges("a=local/gemma-3-270m, b=local/gemma-3-270m,openai/gpt-4o")] == \
        [("a", "local/gemma-3-270m"), ("b", "local/gemma-3-270m"), ("openai/gpt-4o", "openai/gpt-4o")]


def test_a_panel_too_small_without_the_idea_model_is_refused_before_any_call(tmp_path, server, keywords):
    config = settings(tmp_path, server, keywords, judges=("j1", "j2", "j3"), writer="openai/j1")
    with pytest.raises(NeocoderError, match="never judges its own ideas.*openai/j1"):
        run_ideas(config)
    assert server.requests == [] and not (tmp_path / "run" / "records.jsonl").exists()
    result = CliRunner().invoke(main, ["ideas", "--model", "openai/j1", "--base-url", server.url, "--api-key", "k",
                                       "--judges", "x=openai/j1,openai/j2,openai/j3", "--keywords", str(keywords),
                                       "--out", str(tmp_path / "cli"), "--quiet"])
    assert result.exit_code != 0 and "never judges its own ideas" in result.output and "x (openai/j1)" in result.output
    assert server.requests == []


# ----------------------------------------------------------------------------------------
# the loop: length filter, refusals, judge replies


def test_ideas_over_the_word_limit_are_left_out_and_counted(tmp_path, keywords):
    def writer(keyword, num, fallback):
        words = {"meteorology": {1: 201, 2: 200}}.get(keyword, {}).get(num, 30)
        return "Idea: " + " ".join(f"w{i}" for i in range(words))
    server = PanelServer(scripted(writer))
    try:
        result = run_ideas(settings(tmp_path, server, keywords))
    finally:
        server.close()
    ideas = {(i.keyword, i.idea_num): i for i in RunFolder(result.run).read(Idea)}
    assert ideas[("meteorology", 1)].status == "too long" and ideas[("meteorology", 1)].words == 201
    assert ideas[("meteorology", 2)].status == "ok" and ideas[("meteorology", 2)].words == 200
    judged = {(j.keyword, j.idea_num) for j in RunFolder(result.run).read(IdeaJudgement)}
    assert ("meteorology", 1) not in judged and ("meteorology", 2) in judged
    assert not any("w200" in text for text in server.of("j1") + server.of("j2") + server.of("j3") + server.of("j4"))
    summary = result.models["openai/writer"]
    assert (summary["ideas"], summary["kept"], summary["too_long"]) == (6, 5, 1)
    assert summary["per_keyword"][0]["kept"] == 1 and summary["per_keyword"][0]["fluency"] is None  # one kept idea
    assert summary["fluency_graded"] == 2  # the other keywords have two kept ideas each


@pytest.mark.parametrize("text,refusal", [
    ("I'm sorry, but I can't help with that.", True), ("Sorry — I cannot provide that.", True),
    ("I cannot generate ideas about weapons.", True), ("As an AI language model, I ...", True),
    ("**I must decline** this request.", True), ("", False), ("   ", False),  # empty: no idea, no refusal
    ("Cells cannot divide without telomerase, so measure it in soil microbes.", False),
    ("Sorry-state detectors: train a classifier on apology phrases in call-centre logs.", True),
    ("Use sorrow-related vocabulary in diaries to track seasonal mood.", False),
])
def test_the_refusal_rule_looks_at_how_a_reply_opens(text, refusal):
    assert is_refusal(extract_idea(text)) is refusal


def test_extract_idea_takes_the_text_after_the_idea_marker():
    assert extract_idea("Sure! Here you go.\n\n**Idea:** Map soil fungi with eDNA.") == "Map soil fungi with eDNA."
    assert extract_idea('"Use drones to sample clouds."') == "Use drones to sample clouds."


def test_a_refusal_is_asked_again_once_with_the_fallback_prompt(tmp_path, keywords):
    def writer(keyword, num, fallback):
        if keyword != "soil":
            return f"Idea: study {keyword} idea {num}."
        if num == 1:
            return "Idea: grow soil microbes on Mars simulant." if fallback else "I'm sorry, I can't help with that."
        return "I apologise, but I cannot do this." if fallback else "As an AI, I cannot propose research."
    server = PanelServer(scripted(writer))
    try:
        result = run_ideas(settings(tmp_path, server, keywords))
    finally:
        server.close()
    prompts = [t for m, t, _ in server.requests if m == "writer" and keyword_of(t) == "soil"]
    assert len(prompts) == 4 and sum(FALLBACK_MARK in t for t in prompts) == 2  # once each, never twice
    ideas = {i.idea_num: i for i in RunFolder(result.run).read(Idea) if i.keyword == "soil"}
    assert (ideas[1].status, ideas[1].fallback, ideas[1].idea) == ("ok", True, "grow soil microbes on Mars simulant.")
    assert ideas[1].refused_reply.startswith("I'm sorry")
    assert (ideas[2].status, ideas[2].fallback) == ("refused", True)
    judged = {(j.keyword, j.idea_num) for j in RunFolder(result.run).read(IdeaJudgement)}
    assert ("soil", 1) in judged and ("soil", 2) not in judged
    s = result.models["openai/writer"]
    assert (s["refused"], s["fallback_asked"], s["fallback_kept"], s["kept"]) == (1, 2, 1, 5)


def test_unparseable_judge_replies_are_errors_never_scores(tmp_path, keywords):
    judges = dict(JUDGE_REPLIES, j3="I like this idea a lot.", j4="originality: 11\nfeasibility: 5\nclarity: 5")
    server = PanelServer(scripted(judges=judges))
    try:
        with pytest.raises(UnreadableMeasures, match=r"originality, feasibility, clarity, flexibility unreadable "
                                                     r"\(\d+ of \d+ judge score replies could not be read") as caught:
            run_ideas(settings(tmp_path, server, keywords))  # two of four seats never readable: most replies
    finally:
        server.close()
    result = caught.value.result  # metrics.json written, the tables' result kept for the surfaces
    judgements = RunFolder(result.run).read(IdeaJudgement)
    bad = [j for j in judgements if j.judge in ("openai/j3", "openai/j4")]
    assert bad and all(j.scores is None and "unparseable after 3 attempts" in j.error for j in bad)
    assert all(len(j.replies) == 3 for j in bad)  # bounded: the first ask and two retries
    asked = server.of("j3")  # each retry is a new prompt, so a new call, not the cached reply just refused
    assert len(asked) == 3 * sum(j.judge == "openai/j3" for j in bad) and len(set(asked)) == len(asked)
    assert all(j.scores is not None and j.error is None for j in judgements if j not in bad)
    s = result.models["openai/writer"]
    assert s["judge_errors"] == len(bad) and s["judgements"] == len(judgements) - len(bad)
    # each idea's originality is the mean of its readable judges (j1: 8, j2: 6), never a 0 for the others
    kept = [i for i in RunFolder(result.run).read(Idea) if i.status == "ok"]
    per_idea = []
    for i in kept:
        got = [j.scores["originality"] for j in judgements if (j.keyword, j.idea_num) == (i.keyword, i.idea_num)
               and j.scores]
        if got:
            per_idea.append(sum(got) / len(got))
    rows = s["per_keyword"]  # every kept idea had a readable seat, so a row's originality is over its kept ideas
    assert sum(r["originality"] * r["kept"] for r in rows) / sum(r["kept"] for r in rows) == \
        pytest.approx(sum(per_idea) / len(per_idea))
    assert s["originality"] is None and "originality" in s["unreadable_measures"]  # issue 56: no number from them
    assert parse_scores("originality: 7\nfeasibility: 0\nclarity: 5") is None  # 1-10 only


# ----------------------------------------------------------------------------------------
# resume, replay, bad input


def test_resume_after_an_interruption_pays_for_no_call_twice(tmp_path, server, keywords):
    whole = run_ideas(settings(tmp_path, server, keywords, out=tmp_path / "whole"))
    rows = (whole.run / "records.jsonl").read_text().splitlines()
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(whole.run / "calls.jsonl", cut / "calls.jsonl")
    (cut / "records.jsonl").write_text("\n".join(rows[:len(rows) // 2]) + '\n{"type": "idea_judg')
    before = len(server.requests)
    resumed = run_ideas(settings(tmp_path, server, keywords, out=cut))
    assert len(server.requests) == before  # everything redone came from the call cache
    assert resumed.calls["calls_made"] == 0 and resumed.calls["cache_hits"] > 0
    assert resumed.models == whole.models  # the same scores and intervals
    keys = [(r.TYPE,) + r.key for r in RunFolder(cut).read()]
    assert len(keys) == len(set(keys)) == len(RunFolder(whole.run).read())
    again = run_ideas(settings(tmp_path, server, keywords, out=cut))
    assert again.calls == {"cache_hits": 0, "calls_made": 0, "prompt_tokens": 0, "completion_tokens": 0}


def test_a_folder_resumed_with_other_keywords_never_mixes_them_up(tmp_path, server, keywords):
    run_ideas(settings(tmp_path, server, keywords))
    other = tmp_path / "other.txt"
    other.write_text("soil\nglaciers\n")  # soil moves from position 2 to 0
    result = run_ideas(settings(tmp_path, server, other))
    rows = result.models["openai/writer"]["per_keyword"]
    assert [(r["keyword_index"], r["keyword"], r["kept"]) for r in rows] == [(0, "soil", 2), (1, "glaciers", 2)]
    ideas = [i for i in RunFolder(result.run).read(Idea) if i.keyword_index == 0]
    assert [i.keyword for i in ideas] == ["soil", "soil"] and all("soil" in i.idea for i in ideas)
    stale = [j for j in RunFolder(result.run).read(IdeaJudgement) if j.keyword == "meteorology"]
    assert stale  # judgements of seats not drawn for soil stay in the folder under meteorology's name ...
    assert result.models["openai/writer"]["judgements"] == 2 * 2 * 3  # ... and are never counted for soil


def test_replay_judges_recorded_ideas_again_without_their_writer(tmp_path, server, keywords):
    first = run_ideas(settings(tmp_path, server, keywords, out=tmp_path / "first"))
    asked = len(server.of("writer"))
    replay = settings(tmp_path, server, None, out=tmp_path / "again", judges=("j1", "j2", "j3", "writer"),
                      writer=f"replay/{first.run}")
    again = run_ideas(replay)
    assert len(server.of("writer")) == asked  # no idea written again, and the writer never judged its own ideas
    assert "openai/writer" not in again.models[f"replay/{first.run}"]["eligible_judges"]
    ideas = {(i.keyword, i.idea_num): i.idea for i in RunFolder(again.run).read(Idea)}
    assert ideas == {(i.keyword, i.idea_num): i.idea for i in RunFolder(first.run).read(Idea)}
    assert all(i.recorded_model == "openai/writer" for i in RunFolder(again.run).read(Idea))
    assert again.models[f"replay/{first.run}"]["keywords"] == 3  # the recorded keywords
    with pytest.raises(NeocoderError, match="never judges its own ideas.*openai/writer"):
        run_ideas(settings(tmp_path, server, None, out=tmp_path / "refused", judges=("j1", "j2", "writer"),
                           writer=f"replay/{first.run}"))
    assert not (tmp_path / "refused").exists()  # refused before the run folder is made

    two = tmp_path / "two.jsonl"
    two.write_text("\n".join(json.dumps(r) for r in [
        {"model": "m1", "keyword": "soil", "idea": "Idea: map soil fungi."},
        {"model": "m1", "keyword": "soil", "idea": "Idea: count soil worms."},
        {"model": "m2", "keyword": "soil", "idea": "Idea: weigh soil carbon."}]) + "\n")
    several = run_ideas(settings(tmp_path, server, None, out=tmp_path / "two", writer=f"replay/{two}"))
    assert set(several.models) == {f"replay/{two}#m1", f"replay/{two}#m2"}
    assert several.models[f"replay/{two}#m1"]["kept"] == 2 and several.models[f"replay/{two}#m2"]["kept"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"keyword": "soil", "idea": "x"}\n{"keyword": "soil", "idea": 3}\n')
    with pytest.raises(RecordError, match=r"bad.jsonl: record line 2: field 'idea'"):
        run_ideas(settings(tmp_path, server, None, out=tmp_path / "bad", writer=f"replay/{bad}"))


def test_keyword_files_are_checked_naming_file_line_and_field(tmp_path, monkeypatch):
    no_column = tmp_path / "a.csv"
    no_column.write_text("word,category\nsoil,Biology\n")
    with pytest.raises(RecordError, match=r"a.csv: record line 1: field 'keyword'"):
        load_keywords(no_column)
    twice = tmp_path / "b.csv"
    twice.write_text("keyword,category\nsoil,Biology\n,Physics\n")
    with pytest.raises(RecordError, match=r"b.csv: record line 3: field 'keyword': empty"):
        load_keywords(twice)
    text = tmp_path / "c.txt"
    text.write_text("soil\n\nclimate\nSoil\n")
    with pytest.raises(RecordError, match=r"c.txt: record line 4: field 'keyword'.*first on line 1"):
        load_keywords(text)
    monkeypatch.setenv("LIVEIDEABENCH_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(NeocoderError, match="LIVEIDEABENCH_DIR"):
        load_keywords()


def test_the_shared_keywords_and_leaderboard_are_read_at_run_time():
    keywords = load_keywords()
    assert len(keywords) == 1180 and len({k.category for k in keywords}) == 22
    assert sum(k.category == "Physics" for k in keywords) == 210
    board = load_leaderboard()
    assert len(board) == 20 and board[0]["short"] == "gemini-pro-1.5"
    for row in board:  # the leaderboard's Average is the mean of its four columns
        assert row["Average"] == pytest.approx(np.mean([row[c] for c in ("Fluency", "Feasibility", "Originality",
                                                                          "Flexibility")]), abs=1e-6)


# ----------------------------------------------------------------------------------------
# the report in a real browser


def check_report(run: Path, out: Path, model: str) -> str:
    """Build the report of ``run``, open it in Chromium and check the ideas section: the
    run's row among the 20 published ones, the figure, and a drill-down page with every
    keyword.  Returns the page's DOM."""
    index = build_report([run], out)
    page = dump_dom(index.as_uri(), out / "profile", budget_ms=3000)
    assert "LiveIdeaBench" in page and "Beside the published leaderboard" in page and "<svg" in page
    table = page[page.index('<table class="leaderboard"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr") == 1 + 20 + 1 and table.count('class="run"') == 1 and model in table
    assert "gemini-pro-1.5" in table and "llama-3.3-70b-instruct" in table
    drill = next(out.glob("run1-*.html"))
    keywords = len(RunFolder(run).read_metrics()["models"][model]["per_keyword"])
    assert drill.read_text().count('<section class="keyword">') == keywords
    shot = out / "ideas.png"
    screenshot(index.as_uri(), shot, out / "profile", size="1200,1600")
    assert shot.stat().st_size > 10_000
    return page


def test_the_report_shows_an_ideas_run_beside_the_published_leaderboard(tmp_path, server):
    result = run_ideas(settings(tmp_path, server, None, limit=4))  # the first 4 of LiveIdeaBench's keywords
    page = check_report(result.run, tmp_path / "report", "openai/writer")
    assert "Per keyword: openai/writer (4 keywords)" in page and "Earth science" in page


# ----------------------------------------------------------------------------------------
# end to end through the real local model server


@pytest.mark.llm
def test_the_local_model_writes_ideas_judged_by_a_panel_end_to_end(tmp_path, server):
    out = tmp_path / "gemma"
    args = ["ideas", "--model", "local/gemma-3-270m", "--judges",
            "local/gemma-3-270m,openai/j1,openai/j2,openai/j3,openai/j4", "--base-url", server.url,
            "--api-key", "k", "--limit", "5", "--ideas-per-keyword", "2", "--max-tokens", "120", "--bootstrap", "500",
            "--out", str(out), "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    ideas = RunFolder(out).read(Idea)
    assert len(ideas) == 10 and {i.model for i in ideas} == {"local/gemma-3-270m"}
    assert all(i.status == "error" or i.tokens["completion"] > 0 for i in ideas)
    assert len({i.reply for i in ideas if i.reply}) > 5  # each idea number is sampled with its own seed
    judges = {j.judge for j in RunFolder(out).read(IdeaJudgement)}
    assert judges and "local/gemma-3-270m" not in judges  # the idea model never judges itself
    assert "model: local/gemma-3-270m" in result.output and "gemini-pro-1.5" in result.output
    assert "* local/gemma-3-270m" in result.output
    print(result.output)  # the table beside the leaderboard, for the record (pytest -s)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert "model calls 0 made" in again.output  # resumed: every call from the run folder or the cache
    check_report(out, tmp_path / "report", "local/gemma-3-270m")


@pytest.mark.llm
def test_a_panel_of_the_local_model_under_distinct_names(tmp_path, server, keywords):
    args = ["ideas", "--model", "openai/writer", "--base-url", server.url, "--api-key", "k", "--judges",
            "a=local/gemma-3-270m,b=local/gemma-3-270m,c=local/gemma-3-270m", "--keywords", str(keywords),
            "--limit", "1", "--ideas-per-keyword", "2", "--bootstrap", "200", "--out", str(tmp_path / "r"), "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    judgements = RunFolder(tmp_path / "r").read(IdeaJudgement)
    assert len(judgements) == 2 * 3 and {j.judge for j in judgements} == {"a", "b", "c"}
    for j in judgements:  # a score from the real model's reply, or an error: never both, never a made-up 0
        assert (j.scores is None) != (j.error is None)
        assert j.scores is None or all(1 <= v <= 10 for v in j.scores.values())
        assert j.replies and len(j.replies) <= 3
    assert any(j.scores for j in judgements)  # the base model's completions of the worked examples are read
    by_idea = {}
    for j in judgements:
        by_idea.setdefault((j.keyword, j.idea_num), []).append(j.replies)
    assert all(r[0] == r[1] == r[2] for r in by_idea.values())  # three seats, one model: the same replies
    itself = CliRunner().invoke(main, ["ideas", "--model", "local/gemma-3-270m", "--judges",
                                       "a=local/gemma-3-270m,b=local/gemma-3-270m,c=local/gemma-3-270m",
                                       "--keywords", str(keywords), "--out", str(tmp_path / "self"), "--quiet"])
    assert itself.exit_code != 0 and "never judges its own ideas" in itself.output
