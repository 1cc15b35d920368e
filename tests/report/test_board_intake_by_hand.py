"""What ``board add`` reads of a submitted folder and which shapes it accepts
(neocoder/report/leaderboard/intake.py; issue 56, item 5), worked by hand in both
directions: each rule on the values it must accept and on those it must refuse, with the
check its one line names."""

from __future__ import annotations

import os

import pytest

from neocoder.report.leaderboard import intake
from neocoder.report.leaderboard.intake import SubmissionRefused, check_cell, check_files, inside, number


def refused(check: str, call, *args, **kw) -> str:
    with pytest.raises(SubmissionRefused) as got:
        call(*args, **kw)
    assert got.value.check == check and str(got.value).startswith(f"refused ({check}): "), str(got.value)
    return str(got.value)


@pytest.mark.parametrize("name", ["aidanbench", "ideas/sub", "a.b", "..a", "a..", "sub/..a"])
def test_a_step_folder_inside_the_suite_is_accepted(tmp_path, name):
    (tmp_path / name).mkdir(parents=True)
    assert inside(tmp_path, name) == tmp_path / name


@pytest.mark.parametrize("name,why", [
    (None, "is not a name"), (5, "is not a name"), ("", "is not a name"), ("a\x00b", "is not a name"),
    ("/etc", "points outside"), ("..", "points outside"), ("a/../..", "points outside"),
    ("a/../../x", "points outside"), ("..\\..\\x", "points outside"), (".", "points outside"),
    ("a/..", "points outside")])
def test_a_step_folder_that_is_no_name_or_leaves_the_suite_is_refused(tmp_path, name, why):
    (tmp_path / "a").mkdir()
    line = refused("files", inside, tmp_path, name)
    assert why in line and repr(name) in line and str(tmp_path) in line


def test_a_step_folder_reached_through_a_symlink_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    os.symlink(outside, suite / "aidanbench")
    assert "points outside" in refused("files", inside, suite, "aidanbench")


def test_files_within_their_limits_pass_and_one_over_or_a_symlink_is_refused(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "records.jsonl").write_bytes(b"x" * 40)
    (run / "metrics.json").write_bytes(b"y" * 10)
    monkeypatch.setattr(intake, "RECORDS_LIMIT", 40)
    monkeypatch.setattr(intake, "FILE_LIMIT", 10)
    check_files(run)  # each at its limit
    monkeypatch.setattr(intake, "RECORDS_LIMIT", 39)
    assert "records.jsonl: 40 bytes, over the limit of 39" in refused("files", check_files, run)
    monkeypatch.setattr(intake, "RECORDS_LIMIT", 40)
    monkeypatch.setattr(intake, "FILE_LIMIT", 9)
    assert "metrics.json: 10 bytes, over the limit of 9" in refused("files", check_files, run)
    monkeypatch.setattr(intake, "FILE_LIMIT", 10)
    monkeypatch.setattr(intake, "FOLDER_LIMIT", 49)
    assert "2 files, 50 bytes" in refused("files", check_files, run)
    monkeypatch.setattr(intake, "FOLDER_LIMIT", 50)
    monkeypatch.setattr(intake, "FILES_LIMIT", 1)
    assert "2 files, 50 bytes, over the limits of 1 files" in refused("files", check_files, run)
    monkeypatch.setattr(intake, "FILES_LIMIT", 2)
    check_files(run)
    os.symlink(run / "metrics.json", run / "sub.json")
    assert "sub.json: a symlink" in refused("files", check_files, run)
    os.unlink(run / "sub.json")
    (run / "d").mkdir()
    os.symlink(tmp_path, run / "d" / "up")
    assert "up: a symlink" in refused("files", check_files, run)
    assert "not a folder" in refused("files", check_files, run / "metrics.json")
    os.symlink(run, tmp_path / "link")
    assert "not a folder" in refused("files", check_files, tmp_path / "link")


@pytest.mark.parametrize("value", [0, 1, -2.5, 1e300, 0.0])
def test_finite_numbers_are_accepted(value):
    number(value, "x")
    number(value, "x", none=False)


def test_none_only_where_allowed_and_no_bool_string_nan_or_infinity():
    number(None, "x")
    line = refused("types", number, None, "cell value", none=False)
    assert line == "refused (types): cell value is None, not a number"
    for bad in (True, False, "1.0", [1], {"v": 1}):
        refused("types", number, bad, "x")
    for bad in (float("nan"), float("inf"), float("-inf")):
        assert "not a finite number" in refused("numbers", number, bad, "x")


def test_a_cell_holds_its_value_between_finite_ends():
    check_cell({"value": 0.5, "low": 0.4, "high": 0.6}, "c")
    check_cell({"value": 0.4, "low": 0.4, "high": 0.4}, "c")
    check_cell({"value": 0.6 + 5e-10, "low": 0.4, "high": 0.6}, "c")  # within the 1e-9 rounding allowance
    check_cell({"value": None, "low": 0.4, "high": 0.6}, "c")
    check_cell({"value": 0.5, "low": None, "high": None}, "c")
    check_cell({"value": 0.9, "low": 0.4, "high": 0.6}, "c", holds=False)  # a claim: compared elsewhere
    assert "an interval with one end" in refused("numbers", check_cell, {"value": 0.5, "low": 0.4}, "c")
    assert "an interval with one end" in refused("numbers", check_cell, {"value": 0.5, "high": 0.4}, "c")
    assert "does not hold 0.7" in refused("numbers", check_cell, {"value": 0.7, "low": 0.4, "high": 0.6}, "c")
    assert "does not hold 0.3" in refused("numbers", check_cell, {"value": 0.3, "low": 0.4, "high": 0.6}, "c")
    refused("numbers", check_cell, {"value": None, "low": 0.6, "high": 0.4}, "c")  # ends the wrong way round
    assert "c high is '0.6', not a number" in refused("types", check_cell, {"value": 0.5, "low": 0.4,
                                                                            "high": "0.6"}, "c")
    refused("types", check_cell, [0.5], "c")
