"""``neocoder board add`` checks a run before it joins a board, and ``neocoder board build``
rebuilds the board from the accepted summaries alone, byte for byte (issue 47, item 6).
The board re-judges what it is given (issue 56, items 5-7): the records themselves are
judged again in the board's sandbox, every number is recomputed, nothing outside the run
folder is read, and each refusal below names its check in one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from types import SimpleNamespace

import pytest
from checkout import CHECKOUT
from click.testing import CliRunner

from neocoder.cli import main

GPT4 = "replay/gpt-4-1106-preview"


def neocoder(*args: str):
    """The CLI in a process of its own (no cache of another run's records carries over)."""
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *args], capture_output=True, text=True,
                          cwd=CHECKOUT, timeout=3600)


def build(board, out):
    """``neocoder board build`` in this process (as ``add``), as a finished process."""
    done = CliRunner().invoke(main, ["board", "build", str(board), "--out", str(out)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    return SimpleNamespace(returncode=done.exit_code, stdout=done.stdout, stderr=done.stderr)


def add(run, board, submitter="alice"):
    """``neocoder board add`` in this process (so the mutation run's coverage sees the checks:
    scripts/mutation.sh, set "board"), as a finished process: returncode, stdout, stderr (a
    traceback, which no refusal may be, is put in stderr and makes the returncode 2)."""
    done = CliRunner().invoke(main, ["board", "add", str(run), "--board", str(board), "--submitter", submitter])
    stderr = done.stderr
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        stderr += "".join(traceback.format_exception(done.exception))
        return SimpleNamespace(returncode=2, stdout=done.stdout, stderr=stderr)
    return SimpleNamespace(returncode=done.exit_code, stdout=done.stdout, stderr=stderr)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """GPT-4's recorded replies on the shipped dataset's first 3 problems at t=0."""
    out = tmp_path_factory.mktemp("runs") / "gpt4"
    done = CliRunner().invoke(main, ["eval", "--model", GPT4, "--states", "0", "--limit", "3", "--quiet", "--out",
                                     str(out)])
    assert done.exit_code == 0, done.output
    return out


def copy(run, tmp_path, name):
    target = tmp_path / name
    shutil.copytree(run, target)
    return target


def refused(got, check):
    """The CLI refused with exit 1 and ONE line naming ``check``."""
    assert got.returncode == 1, (got.stdout, got.stderr)
    lines = [line for line in got.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"refused ({check})" in lines[0], got.stderr
    return lines[0]


def edit_json(folder, name, change):
    data = json.loads((folder / name).read_text())
    change(data)
    (folder / name).write_text(json.dumps(data))


def records(folder):
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]


def write_records(folder, rows):
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def rescore(folder):
    """metrics.json recomputed from the (edited) records with neocoder's own scoring, as a
    submitter who edits records would."""
    from neocoder.benchmarks.neocoder.evaluation import sample_outcome
    from neocoder.metrics.rates import score_samples
    from neocoder.records import Sample
    from neocoder.store import RunFolder
    metrics = json.loads((folder / "metrics.json").read_text())
    samples = sorted(RunFolder(folder, create=False).read(Sample), key=lambda s: s.key)
    fresh = score_samples(metrics["model"], samples, metrics["bootstrap"]["resamples"],
                          metrics["bootstrap"]["seed"]).to_dict()
    metrics["states"] = fresh["states"]
    metrics["outcome"] = sample_outcome(samples).to_dict()
    (folder / "metrics.json").write_text(json.dumps(metrics))


@pytest.mark.docker
def test_a_checked_run_is_rejudged_joins_and_the_board_rebuilds_byte_identical(run, tmp_path):
    board = tmp_path / "board"
    added = add(run, board)
    assert added.returncode == 0, added.stderr
    assert "re-judged: 3 of 3 samples agree" in added.stdout
    (summary,) = (board / "submissions").glob("*.json")
    data = json.loads(summary.read_text())
    assert data["items"] and len(data["items"]) == 3 and data["default"] == 199
    assert data["ratios"]["eval.pass@1_t0"]  # kept for paired comparison without the run folder
    assert data["values"]["eval.pass@1_t0"]["verified"] == "re-judged: 3 of 3 samples agree"
    first = build(board, tmp_path / "a")
    assert first.returncode == 0, first.stderr
    again = build(board, tmp_path / "b")
    assert again.returncode == 0, again.stderr
    one, two = (tmp_path / "a" / "index.html").read_bytes(), (tmp_path / "b" / "index.html").read_bytes()
    assert one == two
    html = one.decode()
    assert GPT4 in html and "n=3" in html and "&#8834;" in html  # its n, and marked a subset of 199
    assert "re-judged" in html and '<span class="lost" title=' not in html


@pytest.mark.docker
def test_records_edited_to_ac_with_recomputed_metrics_are_refused_naming_the_sample(run, tmp_path):
    edited = copy(run, tmp_path, "edited")
    rows = records(edited)
    wrong = next(r for r in rows if r.get("type") == "sample" and not r["examples"]["correct"])
    for tier in ("examples", "plus"):
        if wrong.get(tier):
            wrong[tier]["correct"] = True
            for t in wrong[tier]["tests"]:
                t["verdict"] = "AC"
    write_records(edited, rows)
    rescore(edited)  # the metrics agree with the edited records: only re-judging finds it
    line = refused(add(edited, tmp_path / "board"), "records")
    assert f"problem {wrong['problem_id']} state 0 sample 0: correct is True in records.jsonl, False re-judged" \
        in line


def test_made_up_problem_ids_are_refused(run, tmp_path):
    made_up = copy(run, tmp_path, "made-up")
    rows = records(made_up)
    for r in rows:
        if r.get("type") == "sample":
            r["problem_id"] = "x" + r["problem_id"]
    write_records(made_up, rows)
    rescore(made_up)
    line = refused(add(made_up, tmp_path / "board"), "items")
    assert "the default set does not hold" in line


def test_extra_problems_are_refused(run, tmp_path):
    """The items check is "the problems the manifest names", not "no fewer": a problem
    added to the records (a real one of the dataset) is refused."""
    from neocoder.dataset import shipped
    extra = copy(run, tmp_path, "extra")
    rows = records(extra)
    held = {r["problem_id"] for r in rows if r.get("type") == "sample"}
    other = next(p for p in shipped.problem_ids() if p not in held)
    added = dict(next(r for r in rows if r.get("type") == "sample"), problem_id=other)
    write_records(extra, rows + [added])
    rescore(extra)
    line = refused(add(extra, tmp_path / "board"), "items")
    assert "manifest.json names 3 problems, the records hold 4" in line


@pytest.mark.parametrize("change, why", [
    (lambda m: m["extra"].pop("dataset_sha256"), "a version alone"),
    (lambda m: m["extra"].update(dataset_version="codeforces-0.9"), "another version"),
    (lambda m: m["extra"].update(dataset_sha256="0" * 64), "another fingerprint"),
    (lambda m: m["extra"].update(dataset_path="/tmp/mine.jsonl"), "a file of its own with the shipped version"),
    (lambda m: m["extra"].update(dataset_version=None, dataset="problem states from my-file.jsonl"), "own file"),
])
def test_a_dataset_other_than_the_shipped_files_is_refused(run, tmp_path, change, why):
    other = copy(run, tmp_path, "other")
    edit_json(other, "manifest.json", change)
    refused(add(other, tmp_path / "board"), "dataset")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nan_and_infinity_are_refused(run, tmp_path, bad):
    odd = copy(run, tmp_path, "odd")
    metrics = json.loads((odd / "metrics.json").read_text())
    metrics["states"]["0"]["pass@1"] = bad
    (odd / "metrics.json").write_text(json.dumps(metrics))  # json writes NaN and Infinity, and reads them back
    line = refused(add(odd, tmp_path / "board"), "numbers")
    assert "not a finite number" in line


def test_a_hand_edited_metrics_file_is_refused_naming_the_check(run, tmp_path):
    edited = copy(run, tmp_path, "edited")
    edit_json(edited, "metrics.json", lambda m: m["states"]["0"].update({"pass@1": 0.9}))
    line = refused(add(edited, tmp_path / "board"), "metrics")
    assert "pass@1_t0 is 0.9 in metrics.json" in line
    assert not (tmp_path / "board" / "submissions").exists() or not list((tmp_path / "board" / "submissions").iterdir())


def test_an_interval_that_is_not_the_recomputed_one_is_refused(run, tmp_path):
    wide = copy(run, tmp_path, "wide")
    edit_json(wide, "metrics.json", lambda m: m["states"]["0"]["intervals"]["pass@1"].update(low=0.0, high=0.99))
    line = refused(add(wide, tmp_path / "board"), "metrics")
    assert "interval high is 0.99 in metrics.json" in line


def test_a_claimed_value_with_no_records_behind_it_is_refused(run, tmp_path):
    """Made-up t=5 figures for a t=0 run: no record measures them."""
    claimed = copy(run, tmp_path, "claimed")
    edit_json(claimed, "metrics.json", lambda m: m["states"].update({"5": dict(m["states"]["0"])}))
    line = refused(add(claimed, tmp_path / "board"), "metrics")
    assert "_t5 is " in line and "None recomputed from the records" in line


def test_truncated_records_are_refused_naming_the_check(run, tmp_path):
    cut = copy(run, tmp_path, "cut")
    lines = (cut / "records.jsonl").read_text().splitlines(keepends=True)
    (cut / "records.jsonl").write_text("".join(lines[:-1]))
    refused(add(cut, tmp_path / "board"), "items")


def test_a_symlinked_file_is_refused(run, tmp_path):
    linked = copy(run, tmp_path, "linked")
    (linked / "records.jsonl").unlink()
    os.symlink(run / "records.jsonl", linked / "records.jsonl")
    line = refused(add(linked, tmp_path / "board"), "files")
    assert "a symlink" in line


@pytest.mark.parametrize("folder", ["../gpt4", "/etc", "eval/../../gpt4"])
def test_a_suite_step_pointing_outside_its_folder_is_refused(run, tmp_path, folder):
    suite = tmp_path / "suite"
    suite.mkdir()
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["kind"] = "suite"
    (suite / "manifest.json").write_text(json.dumps(manifest))
    (suite / "metrics.json").write_text(json.dumps({"benchmark": "suite"}))
    step = {"type": "suite_step", "benchmark": "eval", "folder": folder, "model": GPT4}
    step["format_version"] = next(r for r in records(run) if r.get("type") == "sample")["format_version"]
    write_records(suite, [step])
    line = refused(add(suite, tmp_path / "board"), "files")
    assert "points outside the run folder" in line


def test_a_list_as_model_name_is_refused(run, tmp_path):
    listed = copy(run, tmp_path, "listed")
    edit_json(listed, "manifest.json", lambda m: m["config"]["model"].update(spec=["a", "b"]))
    line = refused(add(listed, tmp_path / "board"), "types")
    assert "config.model.spec is ['a', 'b'], not a string" in line


def test_a_string_as_interval_bound_is_refused(run, tmp_path):
    text = copy(run, tmp_path, "text")
    edit_json(text, "metrics.json", lambda m: m["states"]["0"]["intervals"]["pass@1"].update(low="0"))
    line = refused(add(text, tmp_path / "board"), "types")
    assert "low is '0', not a number" in line


def test_a_records_file_over_the_limit_is_refused_before_it_is_read(run, tmp_path):
    from neocoder.report.leaderboard.intake import RECORDS_LIMIT
    big = copy(run, tmp_path, "big")
    with (big / "records.jsonl").open("r+b") as f:
        f.truncate(RECORDS_LIMIT + 1)  # sparse: no disk, and never read
    started = time.monotonic()
    line = refused(add(big, tmp_path / "board"), "files")
    assert "over the limit" in line and time.monotonic() - started < 60


@pytest.mark.docker
def test_a_second_submitters_run_gets_its_own_row_and_a_run_that_lost_items_is_marked(run, tmp_path):
    """Alice's run and Bob's (the same model, settings and folder name) are two rows, neither
    replacing the other; Bob's lost a sample (a model error): it is marked on the board and
    its problem is not in n."""
    board = tmp_path / "board"
    assert add(run, board, "alice").returncode == 0
    bob = tmp_path / "bob" / "gpt4"
    shutil.copytree(run, bob)
    rows = records(bob)
    lost = next(r for r in rows if r.get("type") == "sample")
    lost.update(reply=None, code=None, code_sha256=None, examples=None, plus=None, techniques=[],
                violated_constraints=[], unchecked_constraints=[], follows=False, divergent=None,
                human_techniques=None, new_techniques=None, error="model: connection reset")
    write_records(bob, rows)
    rescore(bob)
    added = add(bob, board, "bob")
    assert added.returncode == 0, added.stderr
    assert len(list((board / "submissions").glob("*.json"))) == 2
    built = build(board, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "site" / "index.html").read_text()
    assert "submitter alice" in html and "submitter bob" in html
    assert html.count('<span class="badge ours">run</span>') == 2
    assert '<span class="lost" title="lost 1 of 3 samples' in html
    assert "n=2" in html and "n=3" in html  # Bob's pass@1 is over the 2 problems with a judged sample


@pytest.mark.slow
@pytest.mark.docker
def test_gpt4s_full_replay_run_is_rejudged_and_its_t5_cells_count_97(tmp_path):
    """GPT-4's full recorded run (199 problems, 1063 samples) is accepted as re-judged,
    and its t=5 cells count the 97 problems that have a state 5."""
    out = tmp_path / "gpt4-full"
    made = neocoder("eval", "--model", GPT4, "--quiet", "--out", str(out))
    assert made.returncode == 0, made.stderr
    started = time.monotonic()
    added = add(out, tmp_path / "board")
    seconds = time.monotonic() - started
    assert added.returncode == 0, added.stderr
    assert "re-judged: 1063 of 1063 samples agree" in added.stdout
    print(f"board add of GPT-4's full run: {seconds:.1f} s")
    (summary,) = (tmp_path / "board" / "submissions").glob("*.json")
    values = json.loads(summary.read_text())["values"]
    assert values["eval.pass@1_t0"]["n"] == 199
    assert values["eval.convergent_t5"]["n"] == 97 and values["eval.divergent_t5"]["n"] == 97
    built = build(tmp_path / "board", tmp_path / "site")
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "site" / "index.html").read_text()
    cell = re.search(r'data-col="eval.convergent_t5".*?</td>', html.split("<tbody>")[1], re.S).group(0)
    assert "n=97" in cell
