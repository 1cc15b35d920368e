"""A framework run is re-scored on the board from its recorded judge turns (issue 56, item
5; neocoder/benchmarks/framework/verify.py): ``neocoder board add`` reads every recorded
confidence, stance, verdict and probability reply again with the framework's grammars (the
prompts rebuilt from the records), replays each judge's decisions with its own rules, and
each cell says so ("re-scored from recorded judgements ... (step entropies as recorded)").

A small real run against the scripted loopback endpoint (tests/support/scripted_models.py):
``neocoder framework --domain macgyver --limit 2``, both judges, the LLM entailment backend
and the endpoint's embeddings.  It is accepted and labelled; then copies are tampered with
(a recorded verdict flipped with metrics.json recomputed consistently, a verdict reply
changed) and each is refused, naming the problem, judge and criterion."""

from __future__ import annotations

import json

import pytest
import scripted_models
from board_runs import add, copy, invoke, refused, rows, write_rows
from scripted_models import ScriptedModels

LABEL = "re-scored from recorded judgements"
CERTAIN = {"problem analyst": "0.3", "solution analyst": "0.9", "criterion analyst": "0.6"}  # mean 0.6 > T = 0.5


def framework_reply(prompt: str, seed: int):
    """The endpoint's framework replies, with readable certainties and stances (its own
    analysts' confidence replies are an echo of the prompt: a run resting on mostly
    unreadable replies shows no number on the board): the solution analyst the most
    certain, the discussion settled after its first round."""
    if "How sure are you" in prompt:
        role = next(r for r in CERTAIN if f"You are the {r}" in prompt)
        return f"Sure enough. [[{CERTAIN[role]}]] ([YES])", None
    return ORIGINAL(prompt, seed)


ORIGINAL = scripted_models.framework_reply


def framework_run(out, judges: str, reply=None):
    """``neocoder framework --domain macgyver --limit 2`` with ``judges`` against the scripted
    endpoint (its framework replies ``reply`` where given), into ``out``; ``out``."""
    with pytest.MonkeyPatch.context() as mp, ScriptedModels() as server:
        if reply is not None:
            mp.setattr(scripted_models, "framework_reply", reply)
        mp.setenv("OPENAI_API_KEY", "k")  # the embedder (the judge's fragment store) on the same endpoint
        mp.setenv("OPENAI_BASE_URL", server.url)
        done = invoke("framework", "--domain", "macgyver", "--limit", "2", "--model", "openai/gen",
                      "--base-url", server.url, "--api-key", "k", "--api", "completion", "--judges", judges,
                      "--entailment", "llm", "--embedder", "openai/emb", "--candidates", "2", "--max-steps", "3",
                      "--bootstrap", "50", "--out", str(out), "--quiet")
    assert done.exit_code == 0, done.output
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return framework_run(tmp_path_factory.mktemp("framework") / "run", "both", framework_reply)


def solutions(data):
    return [r for r in data if r["type"] == "framework_solution"]


def rewrite_metrics(folder):
    """metrics.json recomputed from the (edited) records with the framework's own scoring."""
    from neocoder.benchmarks.framework.verify import recompute
    config = json.loads((folder / "manifest.json").read_text())["config"]
    metrics = json.loads((folder / "metrics.json").read_text())
    metrics.update(json.loads(json.dumps(recompute(folder, config["model"]["spec"], config, metrics))))
    (folder / "metrics.json").write_text(json.dumps(metrics))


def test_a_framework_run_is_rescored_from_its_judge_turns_and_says_so(run, tmp_path):
    verdict = solutions(rows(run))[0]["verdicts"]["retrieval"]["feasibility"]
    assert (verdict["rounds"], verdict["analyst"], verdict["verdict"]) == (1, "solution analyst", True)
    got = add(run, tmp_path / "board")
    assert got.exit_code == 0, got.output
    turns = sum(len(t) for s in solutions(rows(run)) for t in s["discussion"].values())
    how = f"{LABEL}: {turns} of {turns} judge turns on 2 problems agree (step entropies as recorded)"
    assert how in got.output, got.output
    (summary,) = (tmp_path / "board" / "submissions").glob("*.json")
    cells = json.loads(summary.read_text())["values"]
    assert set(cells) == {"framework.entropy", "framework.feasible", "framework.effective", "framework.overall"}
    assert {c["verified"] for c in cells.values()} == {how}


def test_a_flipped_verdict_with_consistent_metrics_is_refused_naming_its_problem(run, tmp_path):
    folder = copy(run, tmp_path, "flipped")
    data = rows(folder)
    first = solutions(data)[0]
    assert first["verdicts"]["retrieval"]["feasibility"]["verdict"] is True
    first["verdicts"]["retrieval"]["feasibility"]["verdict"] = False
    write_rows(folder, data)
    rewrite_metrics(folder)
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["judges"]["retrieval"]["yes"]["feasibility"]["value"] == 0.5  # the metrics check passes
    line = refused(add(folder, tmp_path / "board"), "records")
    assert f"problem {first['problem_id']} judge retrieval criterion feasibility: verdict is False in " \
           "records.jsonl, True re-read from its recorded replies" in line, line


@pytest.mark.parametrize("judge, old, new", [("retrieval", "YES]] it holds", "NO]] it holds"),
                                             ("chateval", "YES]] ([0.8])", "NO]] ([0.8])")])
def test_a_changed_verdict_reply_is_refused_naming_its_problem(run, tmp_path, judge, old, new):
    folder = copy(run, tmp_path, f"reply-{judge}")
    data = rows(folder)
    second = solutions(data)[1]
    turn = next(t for t in second["discussion"][judge] if t["phase"] == "verdict" and t["criterion"] == "safety")
    assert turn["reply"] == old
    turn["reply"] = new
    write_rows(folder, data)
    line = refused(add(folder, tmp_path / "board"), "records")
    assert f"problem {second['problem_id']} judge {judge} criterion safety: turn " in line, line
    assert "read again from its reply" in line and "'NO'" in line, line


def test_a_run_resting_on_mostly_unreadable_replies_is_accepted_with_blank_cells(tmp_path):
    """The endpoint's own analysts answer their confidence with an echo of the prompt: most
    judge replies are unreadable, so the board shows no number; yet what metrics.json
    claims is still checked against the records (a claimed value that is no number, or
    that is not the recomputed one, is refused)."""
    out = framework_run(tmp_path / "run", "retrieval")
    got = add(out, tmp_path / "board")
    assert got.exit_code == 0, got.output
    (summary,) = (tmp_path / "board" / "submissions").glob("*.json")
    cells = json.loads(summary.read_text())["values"]
    blank = [k for k, c in cells.items() if c.get("unreadable")]
    assert blank and all(cells[k]["value"] is None for k in blank), cells

    metrics = json.loads((out / "metrics.json").read_text())
    for tamper, check in ((lambda m: m["judges"]["retrieval"]["yes"]["feasibility"].update(value="0.5"), "types"),
                          (lambda m: m["judges"]["retrieval"]["yes"]["feasibility"].update(value=0.123), "metrics")):
        folder = copy(out, tmp_path, f"claimed-{check}")
        edited = json.loads(json.dumps(metrics))
        tamper(edited)
        (folder / "metrics.json").write_text(json.dumps(edited))
        refused(add(folder, tmp_path / f"board-{check}"), check)
