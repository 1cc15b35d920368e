"""More of what ``board add`` accepts of a summary and a run folder
(neocoder/report/leaderboard/intake.py; issue 56), by hand and in both directions, each
refusal compared whole: the check it names and its one line (test_board_intake_by_hand.py
checks the words; these pin the line a submitter reads)."""

from __future__ import annotations

import copy

import pytest
from board_hand import refused

from neocoder.report.leaderboard import intake
from neocoder.report.leaderboard.intake import check_cell, check_files, check_summary, number

SUMMARY = {"format": 2, "benchmark": "aidanbench", "model": "m", "row_model": "m", "run": "r",
           "started": "2026-12-01", "suite": False, "items": ["q1", "q2"], "default": 65,
           "settings": {"temperature": 0.7, "api": "chat", "seed": [0, 1], "reasoning": False, "top_p": None},
           "facts": {"neocoder": "1.0", "cost": None, "prompt_tokens": 12},
           "values": {"aidanbench.answers": {"value": 4.0, "low": 3.0, "high": 5.0, "n": 2, "of": 65,
                                             "subset": True, "unreadable": False, "verified": "re-scored"}},
           "outcome": {"unit": "question", "items": 2, "errors": 0, "reasons": {"x": 0}, "lost": None},
           "unreadable": {"replies": 4, "unreadable": 0, "share": 0.0, "reasons": {}},
           "ratios": {"aidanbench.answers": [{"num": {"q1": 2.0}, "den": None}, {"num": {}, "den": {"q1": 1}}]},
           "sha256": {"records.jsonl": "ab"}, "verified": {"how": "re-scored"},
           "submission": {"submitter": "alice", "sha256": "cd"}}


def summary(**change) -> dict:
    return {**copy.deepcopy(SUMMARY), **change}


def test_a_whole_summary_and_its_edge_values_are_accepted():
    check_summary(summary())
    check_summary(summary(unreadable={"share": 1, "replies": 2}), "s.json")  # all unreadable: a share of 1
    check_summary(summary(unreadable={"share": 0}))
    check_summary(summary(ratios={"k": [{"num": {"a": 0}}]}))  # no den: a plain sum


@pytest.mark.parametrize("data", [None, [], "summary", 5])
def test_a_summary_that_is_not_an_object_is_refused_naming_where(data):
    assert refused("types", check_summary, data, "s.json") == "refused (types): s.json is not an object"
    assert refused("types", check_summary, data) == "refused (types): summary is not an object"


@pytest.mark.parametrize("change, line", [
    ({"unreadable": {"share": None}}, "refused (types): s unreadable.share is None, not a number"),
    ({"unreadable": {"share": "0.5"}}, "refused (types): s unreadable.share is '0.5', not a number"),
    ({"unreadable": {"share": 1.0000001}}, "refused (numbers): s unreadable.share is 1.0000001, not a share"),
    ({"outcome": {"items": None, "unit": [1]}}, "refused (types): s outcome.unit is [1], not a count"),
    ({"ratios": {"k": [{"num": {"a": None}}]}}, "refused (types): s ratios.k[a] is None, not a number"),
    ({"ratios": {"k": [{"num": {}, "den": {"b": None}}]}}, "refused (types): s ratios.k[b] is None, not a number"),
    ({"ratios": {"k": [{"num": {"a": float("inf")}}]}}, "refused (numbers): s ratios.k[a] is inf, not a finite number"),
])
def test_a_count_share_or_ratio_of_another_kind_is_refused_whole(change, line):
    assert refused(line.split("(")[1].split(")")[0], check_summary, summary(**change), "s") == line


def test_number_and_cell_refusals_are_one_whole_line():
    assert refused("types", number, "1", "w") == "refused (types): w is '1', not a number"
    assert refused("numbers", number, float("nan"), "w") == "refused (numbers): w is nan, not a finite number"
    assert refused("types", check_cell, [1], "c") == "refused (types): c is [1], not an object"
    assert refused("numbers", check_cell, {"low": 1.0}, "c") == "refused (numbers): c: an interval with one end"
    assert refused("numbers", check_cell, {"value": 2.0, "low": 0.0, "high": 1.0}, "c") == (
        "refused (numbers): c: the interval [0.0, 1.0] does not hold 2.0")
    assert refused("types", check_cell, {"value": 0.5, "low": 0, "high": "1"}, "c") == (
        "refused (types): c high is '1', not a number")
    check_cell({"value": 1.0, "low": 1.0, "high": 1.0}, "c")  # an interval of one point holds its value


def test_files_over_their_limits_are_refused_whole(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "records.jsonl").write_bytes(b"x" * 8)
    (run / "metrics.json").write_bytes(b"y" * 4)
    monkeypatch.setattr(intake, "RECORDS_LIMIT", 7)
    assert refused("files", check_files, run) == (
        f"refused (files): {run / 'records.jsonl'}: 8 bytes, over the limit of 7")
    monkeypatch.setattr(intake, "RECORDS_LIMIT", 8)
    monkeypatch.setattr(intake, "FILES_LIMIT", 1)
    assert refused("files", check_files, run) == (
        f"refused (files): {run}: 2 files, 12 bytes, over the limits of 1 files and {intake.FOLDER_LIMIT} bytes")
    assert refused("files", check_files, tmp_path / "none") == (
        f"refused (files): {tmp_path / 'none'}: not a folder (a symlink is not followed)")


@pytest.mark.parametrize("value", [1.0 - 1e-9, 2.0 + 1e-9, 1.0, 2.0, None])
def test_a_value_within_1e_9_of_its_interval_is_held(value):
    check_cell({"value": value, "low": 1.0, "high": 2.0}, "c")


@pytest.mark.parametrize("value", [0.5, 1.0 - 1e-6, 2.0 + 1e-6, 2.5])
def test_a_value_beyond_1e_9_of_its_interval_is_not(value):
    assert refused("numbers", check_cell, {"value": value, "low": 1.0, "high": 2.0}, "c") == (
        f"refused (numbers): c: the interval [1.0, 2.0] does not hold {value}")


@pytest.mark.parametrize("key", ["value", "low", "high"])
def test_each_end_and_the_value_of_a_cell_is_type_checked(key):
    cell = {"value": 1.5, "low": 1.0, "high": 2.0, key: "1"}
    assert refused("types", check_cell, cell, "c") == f"refused (types): c {key} is '1', not a number"
