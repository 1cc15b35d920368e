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
import shutil

import pytest
from click.testing import CliRunner
from drifting import DriftingServer, prompt_text

from neocoder.cli import main

INCOHERENT = "A WOBBLE answer"  # the judge scores an answer holding this 5: its question stops
UNREADABLE = "A MUMBLE answer"  # the judge answers a bare number about it: unreadable, its question stops


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def add(run, board):
    return invoke("board", "add", str(run), "--board", str(board), "--submitter", "alice")


def refused(got, check: str) -> str:
    """The board refused with exit 1 and one line naming ``check``."""
    assert got.exit_code == 1, got.output
    lines = [line for line in got.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"refused ({check})" in lines[0], got.output
    return lines[0]


def rows(folder):
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]


def write_rows(folder, data):
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))


def copy(run, tmp_path, name):
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


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
], ids=["coherence", "reply-and-coherence", "reply", "answer-added", "coherence-dropped", "unreadable-read"])
def test_aidanbench_records_tampered_with_consistent_metrics_are_refused(aidan_run, tmp_path, tamper, check, names):
    folder = copy(aidan_run, tmp_path, "tampered")
    data = rows(folder)
    tamper(data)
    write_rows(folder, data)
    aidan_metrics(folder)
    line = refused(add(folder, tmp_path / "board"), check)
    assert names in line, line
    assert not (tmp_path / "board" / "submissions").exists()
