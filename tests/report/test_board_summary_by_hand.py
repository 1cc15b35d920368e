"""What ``board add`` writes of an accepted run (neocoder/report/leaderboard/submissions.py
``submission_sha256``, ``summary``, ``add_run``, ``_renders``; issue 56), worked by hand on
one small real AidanBench run and a suite holding it (tests/support/board_hand.py): the
submission's key is the documented hash of its files, the summary holds exactly what the
board keeps, its file is named by submitter and key and written as ``build`` reads it, and
a summary that would not render is refused before any file is written."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from board_hand import MODEL, QUESTIONS, aidan_run, refused, suite_of

from neocoder.report.leaderboard import submissions
from neocoder.report.leaderboard.collect import slug
from neocoder.report.leaderboard.submissions import add_run, check_run, submission_sha256, summary

RESCORED = "re-scored from recorded judgements: 4 of 4 judge replies and 2 of 2 questions agree (novelty as recorded)"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return aidan_run(tmp_path_factory.mktemp("hand") / "run")


def by_hand(folder: Path) -> str:
    """The documented hash: each file's path relative to ``folder`` (sorted), NUL, its
    bytes, NUL."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_submission_key_is_the_documented_hash_of_every_file(tmp_path):
    folder = tmp_path / "run"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.json").write_bytes(b"{}")
    (folder / "sub" / "b.txt").write_bytes(b"x" * ((1 << 20) * 2 + 5))  # more than one block
    (folder / "empty").write_bytes(b"")
    assert submission_sha256(folder) == by_hand(folder)
    assert submission_sha256(str(folder)) == by_hand(folder)
    before = submission_sha256(folder)
    (folder / "sub" / "b.txt").write_bytes(b"x" * ((1 << 20) * 2 + 4) + b"y")
    assert submission_sha256(folder) != before


def test_the_submission_key_follows_no_symlinked_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"not the submission's")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "a.json").write_bytes(b"{}")
    os.symlink(outside, folder / "linked")
    assert submission_sha256(folder) == by_hand_without_links(folder)


def by_hand_without_links(folder: Path) -> str:
    digest = hashlib.sha256()
    for root, _, files in os.walk(folder):  # os.walk follows no symlinked folder by default
        for name in sorted(files):
            path = Path(root, name)
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def expected(run: Path, checked, submitter: str, key: str, run_name: str, suite: bool) -> dict:
    """The summary ``board add`` keeps of the small AidanBench run."""
    source = checked.source
    digest = {name: hashlib.sha256((source.folder / name).read_bytes()).hexdigest()
              for name in ("records.jsonl", "metrics.json")}
    counts = {q: 2.0 for q in QUESTIONS}
    return {"format": 2, "benchmark": "aidanbench", "model": MODEL, "row_model": MODEL, "run": run_name,
            "started": source.started, "suite": suite, "items": sorted(QUESTIONS), "default": 65,
            "settings": dict(source.settings, **({"submitter": submitter} if submitter else {})),
            "facts": source.facts, "values": source.values, "outcome": source.outcome,
            "unreadable": source.unreadable,
            "ratios": {"aidanbench.answers": [{"num": counts, "den": None}],
                       "aidanbench.novelty_sum": [{"num": ratios_of(source), "den": None}]},
            "sha256": digest, "verified": {"how": checked.verified},
            "submission": {"submitter": submitter, "sha256": key}}


def ratios_of(source) -> dict:
    rows = [json.loads(line) for line in (source.folder / "records.jsonl").read_text().splitlines()]
    return {r["question"]: r["novelty_sum"] for r in rows if r["type"] == "question"}


def test_the_summary_holds_exactly_what_the_board_keeps(run):
    (checked,) = check_run(run, verify=False)
    got = summary(checked, "alice", "k" * 64)
    assert got == expected(run, checked, "alice", "k" * 64, "run", False)
    assert got["settings"]["temperature"] == 0.7 and got["settings"]["submitter"] == "alice"


def test_a_summary_with_no_submitter_names_none(run):
    (checked,) = check_run(run, verify=False)
    got = summary(checked)
    assert got == expected(run, checked, "", "", "run", False)
    assert "submitter" not in got["settings"] and got["submission"] == {"submitter": "", "sha256": ""}


def test_a_suites_summary_names_the_suite_as_its_run(run, tmp_path):
    suite = suite_of(tmp_path / "suite-b", [{"benchmark": "aidanbench", "folder": "aidanbench"}])
    shutil.copytree(run, suite / "aidanbench")
    (checked,) = check_run(suite, verify=False)
    got = summary(checked, "bob", "0" * 64)
    assert (got["run"], got["suite"]) == ("suite-b", True)
    assert got["settings"]["suite"] == "quick"


def test_a_summary_without_records_or_metrics_hashes_what_there_is(run, tmp_path):
    (checked,) = check_run(run, verify=False)
    folder = Path(shutil.copytree(run, tmp_path / "copy"))
    checked.source.folder = folder
    (folder / "metrics.json").unlink()
    got = summary(checked, "alice", "k")
    assert got["sha256"] == {"records.jsonl": hashlib.sha256((folder / "records.jsonl").read_bytes()).hexdigest()}


def test_add_writes_one_summary_named_by_submitter_and_key_as_build_reads_it(run, tmp_path):
    board = tmp_path / "a" / "b" / "board"  # its folders made
    written = add_run(run, board, "  alice ")
    key = by_hand(run)
    path = board / "submissions" / (slug(f"alice-{key[:16]}-aidanbench-{MODEL}") + ".json")
    assert written == [(path, RESCORED)]
    assert sorted((board / "submissions").iterdir()) == [path]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert path.read_text(encoding="utf-8") == json.dumps(data, indent=1, sort_keys=True) + "\n"
    assert data["submission"] == {"submitter": "alice", "sha256": key}
    assert data["verified"] == {"how": RESCORED} and data["settings"]["submitter"] == "alice"
    assert add_run(run, board, "alice") == written  # the same submission again: the same file
    assert sorted((board / "submissions").iterdir()) == [path]


@pytest.mark.parametrize("submitter", ["", "   ", None, 5])
def test_add_needs_a_submitters_name_and_writes_nothing_without_one(run, tmp_path, submitter):
    assert refused("types", add_run, run, tmp_path / "board", submitter) == (
        "refused (types): a submitter's name is needed (--submitter)")
    assert not (tmp_path / "board").exists()


def test_a_refused_run_writes_nothing(run, tmp_path):
    board = tmp_path / "board"
    assert refused("files", add_run, tmp_path / "nowhere", board, "alice") == (
        f"refused (files): {tmp_path / 'nowhere'}: not a folder (a symlink is not followed)")
    assert not board.exists()


def test_a_summary_that_would_not_render_is_refused_naming_the_run(run):
    (checked,) = check_run(run, verify=False)
    data = json.loads(json.dumps(summary(checked, "alice", "k")))
    submissions._renders(data, run)  # as add writes it: renders
    line = refused("types", submissions._renders, dict(data, run=None), run)
    assert line.startswith(f"refused (types): {run}: its summary does not render (") and "NoneType" in line
    assert refused("types", submissions._renders, dict(data, format=1), run) == (
        f"refused (types): {run}: its summary does not render ({run}: a board summary of format 1, not 2)")


def test_a_summary_that_fails_its_type_check_is_refused_naming_the_run_and_nothing_is_written(run, tmp_path):
    """A model setting the board cannot show (an object where a scalar belongs) passes the
    run's checks, but not the summary's."""
    odd = Path(shutil.copytree(run, tmp_path / "odd"))
    manifest = json.loads((odd / "manifest.json").read_text())
    manifest["config"]["model"]["api"] = {"x": 1}
    (odd / "manifest.json").write_text(json.dumps(manifest))
    assert refused("types", add_run, odd, tmp_path / "board", "alice") == (
        f"refused (types): {odd} (aidanbench, {MODEL}) settings.api is {{'x': 1}}, not a number")
    assert not (tmp_path / "board").exists()
