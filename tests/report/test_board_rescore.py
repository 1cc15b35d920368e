"""Benchmarks judged by models are re-scored on the board from their recorded judge replies
(issue 56, item 5): ``neocoder board add`` reads every recorded judge reply again with the
benchmark's own grammar, rebuilds the scores and replays what follows from them, and each
cell says so ("re-scored from recorded judgements").

Small real runs against scripted loopback endpoints (tests/support/drifting.py): AidanBench
on the first three shipped questions (``--limit 3``: a ``--questions`` file is not the
benchmark's default set, which the board's ``dataset`` check refuses before any re-score)
with a generator, a coherence judge and an embedder; LiveIdeaBench on the first two
shipped keywords with a panel of three seats.  Each run is accepted and labelled, then
copies of it are tampered with (a recorded score, a judge reply, an added record, and
metrics.json edited consistently with the edited records) and each copy is refused, naming
the check and the first item that differs."""

from __future__ import annotations

import hashlib
import json

import pytest
from board_runs import add, copy, invoke, refused, rows, write_rows
from checkout import SHARED
from drifting import DriftingServer, prompt_text

INCOHERENT = "A WOBBLE answer"  # the judge scores an answer holding this 5: its question stops
UNREADABLE = "A MUMBLE answer"  # the judge answers a bare number about it: unreadable, its question stops


# ---------------------------------------------------------------- AidanBench

def aidan_respond(kind, body):
    """Distinct answers (the second answer to the second question incoherent, the second to
    the third one unreadable to the judge), coherence 80, hashed embeddings."""
    text = prompt_text(kind, body)
    if kind == "embeddings":
        return "embedding"
    if body.get("model") == "judge":
        if INCOHERENT in text:
            return "<score>5</score>"
        return "70" if UNREADABLE in text else "<score>80</score>"
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    second = "(none yet)" not in text  # the question's first answer is in the prompt
    if second and "World War 1" in text:
        return f"{INCOHERENT} {digest}."
    if second and "nationalize ASI" in text:
        return f"{UNREADABLE} {digest}."
    return f"An answer numbered {digest}."


@pytest.fixture(scope="module")
def aidan_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("aidan") / "run"
    with DriftingServer(aidan_respond) as server:
        got = invoke("aidanbench", "--model", "openai/gen", "--judge", "openai/judge", "--embedder", "openai/e",
                     "--base-url", server.url, "--api-key", "k", "--max-retries", "0", "--limit", "3",
                     "--max-answers", "3", "--judge-retries", "0", "--bootstrap", "50", "--out", str(out),
                     "--quiet")
    assert got.exit_code == 0, got.output
    return out


def aidan_metrics(folder):
    """metrics.json recomputed from the (edited) records with AidanBench's own totals, as a
    submitter who edits records would."""
    from neocoder.benchmarks.aidanbench.verify import recompute
    from neocoder.store import RunFolder
    metrics = json.loads((folder / "metrics.json").read_text())
    config = RunFolder(folder, create=False).read_manifest().config
    for model in metrics["models"]:
        metrics["models"][model] = recompute(folder, model, config, metrics)["models"][model]
    (folder / "metrics.json").write_text(json.dumps(metrics))


def test_aidanbench_run_is_rescored_from_its_judge_replies_and_says_so(aidan_run, tmp_path):
    ends = {r["question_index"]: (r["answers"], r["stop_reason"]) for r in rows(aidan_run) if r["type"] == "question"}
    assert ends == {0: (3, "max answers"), 1: (1, "incoherent"), 2: (1, "unreadable")}
    got = add(aidan_run, tmp_path / "board")
    assert got.exit_code == 0, got.output
    assert "re-scored from recorded judgements: 7 of 7 judge replies and 3 of 3 questions agree (novelty as " \
           "recorded)" in got.output, got.output
    (summary,) = (tmp_path / "board" / "submissions").glob("*.json")
    cells = json.loads(summary.read_text())["values"]
    assert {c["verified"] for c in cells.values()} == {
        "re-scored from recorded judgements: 7 of 7 judge replies and 3 of 3 questions agree (novelty as recorded)"}


def _answer(data, q, num):
    return next(r for r in data if r["type"] == "answer" and r["question_index"] == q and r["answer_num"] == num)


def _question(data, q):
    return next(r for r in data if r["type"] == "question" and r["question_index"] == q)


def _coherence_raised(data):
    """The incoherent answer's recorded score raised above the stop (its reply unchanged),
    and the question's result with it: two answers, max answers not reached."""
    _answer(data, 1, 2)["coherence"] = 90.0
    _answer(data, 1, 2)["stop"] = None
    _question(data, 1).update(answers=2, stop_reason="max answers")


def _reply_and_score_raised(data):
    """The incoherent answer's judge reply and score both raised, and its question's result
    with them: a live generator stops short of max answers only at a judged stop."""
    a = _answer(data, 1, 2)
    a.update(coherence=90.0, stop=None, judge_replies=["<score>90</score>"])
    _question(data, 1).update(answers=2, stop_reason="max answers")


def _reply_changed(data):
    """A kept answer's judge reply changed to an incoherent score (its recorded score left)."""
    _answer(data, 0, 2)["judge_replies"] = ["<score>5</score>"]


def _novelty_raised(data):
    """The first question's novelty sum raised by half (its answers' novelty unchanged): the
    question's result, not one answer, disagrees with the replay."""
    _question(data, 0)["novelty_sum"] += 0.5


def _answer_added(data):
    extra = dict(_answer(data, 0, 3), answer_num=4, answer="One answer too many.")
    data.append(extra)


def _coherence_dropped(data):
    """The incoherent answer's score and replies removed, as if it had never been judged:
    no stop, two answers."""
    a = _answer(data, 1, 2)
    a.update(coherence=None, stop=None, judge_replies=[], judge_readings=[])
    _question(data, 1).update(answers=2, stop_reason="max answers")


def _unreadable_read(data):
    """The unreadable reply's answer given the score its bare number says, and kept."""
    a = _answer(data, 2, 2)
    a.update(coherence=70.0, stop=None, unreadable=None)
    _question(data, 2).update(answers=2, stop_reason="max answers", error=None)


@pytest.mark.parametrize("tamper, check, names", [
    (_coherence_raised, "records", "question 2 answer 2: coherence 90.0 in records.jsonl, 5.0 read from its "
                                   "recorded judge reply"),
    (_reply_and_score_raised, "records", "question 2: ends at max answers after 2 of 3 answers"),
    (_reply_changed, "records", "question 1 answer 2: coherence 80.0 in records.jsonl, 5.0 read from its "
                                "recorded judge reply"),
    (_answer_added, "records", "question 1 answer 4: an answer after its question's last recorded one"),
    (_coherence_dropped, "records", "question 2 answer 2: no coherence recorded, yet neither an error, nor an "
                                    "unreadable reply, nor no answer"),
    (_unreadable_read, "records", "question 3 answer 2: coherence 70.0 in records.jsonl, None read from its "
                                  "recorded judge reply"),
    (_novelty_raised, "records", "question 1: novelty_sum is "),
], ids=["coherence", "reply-and-coherence", "reply", "answer-added", "coherence-dropped", "unreadable-read",
        "novelty-raised"])
def test_aidanbench_records_tampered_with_consistent_metrics_are_refused(aidan_run, tmp_path, tamper, check, names):
    folder = copy(aidan_run, tmp_path, "tampered")
    data = rows(folder)
    tamper(data)
    write_rows(folder, data)
    aidan_metrics(folder)
    line = refused(add(folder, tmp_path / "board"), check)
    assert names in line, line
    assert not (tmp_path / "board" / "submissions").exists()
    if tamper is _novelty_raised:  # both numbers named: the recorded one and the re-scored one
        import re
        claimed, rescored = map(float, re.search(r"novelty_sum is (\S+) in records.jsonl, (\S+) re-scored",
                                                 line).groups())
        assert claimed - rescored == pytest.approx(0.5) and rescored == _question(rows(aidan_run), 0)["novelty_sum"]


# ---------------------------------------------------------------- LiveIdeaBench

CLONE = SHARED / "liveideabench" / "official"
SCORES = {"j1": (8, 6, 7), "j2": (5, 7, 6), "j3": (9, 4, 8)}
LONG = "Idea: " + " ".join(f"word{i}" for i in range(40))  # over --max-words 30: "too long", not judged


def ours_reply(seat, text):
    o, f, c = SCORES[seat]
    if seat == "j3" and "reminder" not in text:
        return "I find this idea rather promising overall."  # unreadable: asked again with a reminder
    return f"originality: {o}\nfeasibility: {f}\nclarity: {c}"


def official_reply(seat, text):
    o, f, c = SCORES[seat]
    if seat == "j3" and "reminder" not in text:
        return "Promising, I would say."
    return f'Sound enough.\n```json\n{{"originality": {o}, "feasibility": {f}, "clarity": {c}}}\n```'


def ideas_respond(kind, body):
    """Three ideas per keyword (the third of the second keyword too long), judges scoring by
    seat (j3's first reply unreadable), fluency B."""
    text, model = prompt_text(kind, body), body.get("model")
    if model == "writer":
        num = (body.get("seed") or 0) + 1
        keyword = "periodic table" if "periodic table" in text else "meteorology"
        if keyword == "periodic table" and num == 3:
            return LONG
        return f"Idea: study {keyword} with method {num} against a control group in the field."
    if "grade: X" in text or "ONLY ANSWER" in text:
        return "grade: B" if "grade: X" in text else "B"
    official = (body.get("messages") or [{}])[0].get("role") == "system"
    return (official_reply if official else ours_reply)(model, text)


def ideas_run(out, *extra):
    with DriftingServer(ideas_respond) as server:
        got = invoke("ideas", "--model", "openai/writer", "--judges", "openai/j1,openai/j2,openai/j3",
                     "--judges-per-idea", "2", "--base-url", server.url, "--api-key", "k", "--max-retries", "0",
                     "--limit", "2", "--ideas-per-keyword", "3", "--max-words", "30", "--seed", "0",
                     "--judge-retries", "1", "--bootstrap", "50", "--quiet", "--out", str(out), *extra)
    assert got.exit_code == 0, got.output
    return out


@pytest.fixture(scope="module", params=["ours", "official"])
def ideas(request, tmp_path_factory):
    """A LiveIdeaBench run on the first two shipped keywords, by our protocol or the
    authors' (read from their clone when the run is made, never by the board)."""
    if not (SHARED / "liveideabench" / "keywords.csv").is_file():
        pytest.skip("LiveIdeaBench's keywords are not here")
    if request.param == "official" and not CLONE.is_dir():
        pytest.skip("the authors' files are not here")
    mp = pytest.MonkeyPatch()
    mp.setenv("LIVEIDEABENCH_DIR", str(SHARED / "liveideabench"))
    request.addfinalizer(mp.undo)
    extra = ("--protocol", "official", "--liveideabench", str(CLONE)) if request.param == "official" else ()
    return ideas_run(tmp_path_factory.mktemp(f"ideas-{request.param}") / "run", *extra)


def ideas_metrics(folder):
    """metrics.json recomputed from the (edited) records with LiveIdeaBench's own summary."""
    from neocoder.benchmarks.ideas.verify import recompute
    from neocoder.store import RunFolder
    metrics = json.loads((folder / "metrics.json").read_text())
    config = RunFolder(folder, create=False).read_manifest().config
    for model in metrics["models"]:
        metrics["models"][model] = json.loads(json.dumps(recompute(folder, model, config, metrics)["models"][model]))
    (folder / "metrics.json").write_text(json.dumps(metrics))


def test_ideas_run_is_rescored_from_its_judge_replies_and_says_so(ideas, tmp_path):
    data = rows(ideas)
    assert [r["status"] for r in data if r["type"] == "idea"].count("too long") == 1
    judgements = [r for r in data if r["type"] == "idea_judgement"]
    assert len(judgements) == 5 * 2 and any(len(j["replies"]) == 2 for j in judgements)
    replies = sum(len(r["replies"]) for r in data if r["type"] in ("idea_judgement", "idea_fluency"))
    got = add(ideas, tmp_path / "board")
    assert got.exit_code == 0, got.output
    how = f"re-scored from recorded judgements: {replies} of {replies} judge replies agree (5 kept ideas, 2 keywords)"
    assert how in got.output, got.output
    (summary,) = (tmp_path / "board" / "submissions").glob("*.json")
    cells = json.loads(summary.read_text())["values"]
    assert set(cells) == {f"ideas.{m}" for m in ("originality", "fluency", "flexibility", "feasibility", "clarity")}
    assert {c["verified"] for c in cells.values()} == {how}


def _judgement(data, seat=None, retried=False):
    return next(r for r in data if r["type"] == "idea_judgement" and (seat is None or r["judge"] == seat)
                and (len(r["replies"]) == 2) == retried)


def _score_raised(data):
    _judgement(data)["scores"]["originality"] = 10.0


def _reply_changed(data):
    j = _judgement(data)
    j["replies"][-1] = j["replies"][-1].replace("originality: ", "originality: 1").replace(
        '"originality": ', '"originality": 1')


def _judgement_dropped(data):
    data.remove(_judgement(data, "openai/j3", retried=True))


def _kept_idea_called_too_long(data):
    idea = next(r for r in data if r["type"] == "idea" and r["status"] == "ok")
    idea["status"] = "too long"


def _grade_raised(data):
    grade = next(r for r in data if r["type"] == "idea_fluency")
    grade.update(grade="A", score=10.0)


def _grade_dropped(data):
    data.remove(next(r for r in data if r["type"] == "idea_fluency"))


def _idea_added(data):
    idea = next(r for r in data if r["type"] == "idea" and r["status"] == "too long")
    data.append(dict(idea, idea_num=4))


def _retry_called_readable(data):
    _judgement(data, retried=True)["reasons"][0] = None


@pytest.mark.parametrize("tamper, names", [
    (_score_raised, "keyword 'meteorology' idea 1 judge openai/j1: {'originality': 10.0, 'feasibility': 6.0, "
                    "'clarity': 7.0} in records.jsonl, {'originality': 8.0, 'feasibility': 6.0, 'clarity': 7.0} read "
                    "from its recorded judge reply 1"),
    (_reply_changed, "keyword 'meteorology' idea 1 judge openai/j1: {'originality': 8.0, 'feasibility': 6.0, "
                     "'clarity': 7.0} in records.jsonl, None read from its recorded judge reply 1"),
    (_judgement_dropped, "no judgement of seat openai/j3, drawn to judge it"),
    (_kept_idea_called_too_long, "keyword 'meteorology' idea 1: status 'too long' in records.jsonl with 1"),
    (_grade_raised, "keyword 'meteorology' fluency judge openai/j1: 'A' in records.jsonl, 'B' read from its "
                    "recorded judge reply 1"),
    (_grade_dropped, "keyword 'meteorology': 3 kept ideas and no fluency grade"),
    (_idea_added, "keyword 'periodic table': ideas [1, 2, 3, 4] in records.jsonl, [1, 2, 3] asked"),
    (_retry_called_readable, "reply 1's recorded reason None does not say whether it reads"),
], ids=["score", "reply", "judgement-dropped", "kept-idea-too-long", "grade", "grade-dropped", "idea-added",
        "reason"])
def test_ideas_records_tampered_with_consistent_metrics_are_refused(ideas, tmp_path, tamper, names):
    folder = copy(ideas, tmp_path, "tampered")
    data = rows(folder)
    tamper(data)
    write_rows(folder, data)
    ideas_metrics(folder)
    line = refused(add(folder, tmp_path / "board"), "records")
    assert names in line, line
    assert not (tmp_path / "board" / "submissions").exists()


def test_ideas_metrics_edited_alone_are_refused(ideas, tmp_path):
    folder = copy(ideas, tmp_path, "edited")
    metrics = json.loads((folder / "metrics.json").read_text())
    (summary,) = metrics["models"].values()
    summary["originality"] += 1
    (folder / "metrics.json").write_text(json.dumps(metrics))
    line = refused(add(folder, tmp_path / "board"), "metrics")
    assert "originality is" in line and "recomputed from the records" in line, line
