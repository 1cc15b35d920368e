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


# --- a summary's types, field by field (check_summary: what `board build` reads) ----------

def summary() -> dict:
    """A summary of the shape submissions.summary writes, every field filled."""
    return {"format": 2, "benchmark": "eval", "model": "m", "row_model": "m", "run": "r", "started": "2026-12-01",
            "suite": False, "items": ["1899A", "1901A"], "default": 199,
            "settings": {"temperature": 0.0, "api": "chat", "states": [0, 1], "reasoning": False, "seed": None},
            "facts": {"neocoder": "1.0", "cost": None, "prompt_tokens": 12},
            "values": {"eval.pass@1_t0": {"value": 0.5, "low": 0.4, "high": 0.6, "n": 2, "of": 199, "subset": True,
                                          "unreadable": False, "verified": "re-judged: 2 of 2 samples agree"}},
            "outcome": {"unit": "sample", "items": 2, "judged": 2, "errors": 0, "reasons": {"x": 0}},
            "unreadable": {"replies": 4, "readable": 3, "unreadable": 1, "share": 0.25, "reasons": {"empty": 1}},
            "ratios": {"eval.pass@1_t0": [{"num": {"1899A": 1.0}, "den": {"1899A": 1.0}}, {"num": {}, "den": None}]},
            "sha256": {"records.jsonl": "ab"}, "verified": {"eval": "re-judged"}, "submission": {"submitter": "x"}}


def test_a_whole_summary_is_accepted_and_so_are_its_optional_blanks():
    intake.check_summary(summary())
    blanks = summary()
    blanks.update(items=None, default=None, outcome=None, unreadable=None, sha256=None, verified=None,
                  submission=None)
    blanks["values"]["eval.pass@1_t0"].update(n=None, of=None, verified=None)
    del blanks["values"]["eval.pass@1_t0"]["subset"]
    intake.check_summary(blanks)


def edit(path: str, value):
    """A summary with the field at ``path`` (dot-separated; a list index as a number) set."""
    data = summary()
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = data
    for k in keys[:-1]:
        target = target[k]
    if value is DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


DELETE = object()
CELL = "values.eval.pass@1_t0"


@pytest.mark.parametrize("path, value, check, words", [
    ("model", ["m"], "types", "summary model is ['m'], not a string"),
    ("benchmark", None, "types", "summary benchmark is None"),
    ("row_model", 3, "types", "summary row_model"),
    ("run", {"a": 1}, "types", "summary run"),
    ("started", 20261201, "types", "summary started"),
    ("format", "2", "types", "format must be an integer"),
    ("format", 2.0, "types", "format must be an integer"),
    ("suite", "no", "types", "suite a boolean"),
    ("items", "1899A", "types", "items is not a list of strings"),
    ("items", ["1899A", 5], "types", "items is not a list of strings"),
    ("default", "199", "types", "default is '199', not an integer"),
    ("default", 199.0, "types", "default is 199.0"),
    ("settings", ["temperature"], "types", "summary settings is ['temperature'], not an object"),
    ("settings.temperature", "hot", None, None),  # a string is a scalar: accepted
    ("settings.temperature", {"t": 1}, "types", "summary settings.temperature is"),
    ("settings.states", [0, float("nan")], "numbers", "summary settings.states is nan"),
    ("facts.cost", float("inf"), "numbers", "summary facts.cost is inf"),
    ("outcome", [1], "types", "summary outcome is [1], not an object"),
    ("outcome.items", -1, "types", "summary outcome.items is -1, not a count"),
    ("outcome.items", 2.5, "types", "summary outcome.items is 2.5, not a count"),
    ("outcome.items", True, "types", "summary outcome.items is True, not a count"),
    ("outcome.reasons", {"x": -1}, "types", "summary outcome.reasons.x is -1, not a count"),
    ("outcome.reasons", {"x": "1"}, "types", "summary outcome.reasons.x is '1', not a count"),
    ("outcome.reasons", {5: 1}, "types", "summary outcome.reasons key is 5, not a string"),
    ("unreadable.share", 1.5, "numbers", "summary unreadable.share is 1.5, not a share"),
    ("unreadable.share", -0.1, "numbers", "not a share"),
    ("unreadable.share", None, "types", "summary unreadable.share is None, not a number"),
    ("unreadable.share", 1, None, None),  # every reply unreadable: a share of 1
    ("values", [], "types", "summary values is not an object"),
    (CELL, 0.5, "types", "summary eval.pass@1_t0 is 0.5, not an object"),
    (CELL + ".n", "2", "types", "summary eval.pass@1_t0 n is '2', not an integer"),
    (CELL + ".of", 199.0, "types", "summary eval.pass@1_t0 of is 199.0, not an integer"),
    (CELL + ".subset", "yes", "types", "summary eval.pass@1_t0 subset is not a boolean"),
    (CELL + ".unreadable", 1, "types", "summary eval.pass@1_t0 unreadable is not a boolean"),
    (CELL + ".verified", 3, "types", "summary eval.pass@1_t0 verified is 3, not a string"),
    (CELL + ".low", "0.4", "types", "summary eval.pass@1_t0 low is '0.4', not a number"),
    ("ratios", [], "types", "summary ratios is not an object"),
    ("ratios.eval.pass@1_t0", {}, "types", "summary ratios.eval.pass@1_t0 is not a list"),
    ("ratios.eval.pass@1_t0.0", [1], "types", "each needs num (and den) objects"),
    ("ratios.eval.pass@1_t0.0.num", [1.0], "types", "each needs num (and den) objects"),
    ("ratios.eval.pass@1_t0.0.den", [1.0], "types", "each needs num (and den) objects"),
    ("ratios.eval.pass@1_t0.0.num", {"1899A": None}, "types", "summary ratios.eval.pass@1_t0[1899A] is None"),
    ("ratios.eval.pass@1_t0.0.den", {"1899A": float("nan")}, "numbers", "ratios.eval.pass@1_t0[1899A] is nan"),
    ("sha256", ["ab"], "types", "summary sha256 is ['ab'], not an object"),
    ("verified.eval", {"a": 1}, "types", "summary verified.eval is"),
    ("submission.submitter", float("inf"), "numbers", "summary submission.submitter is inf"),
], ids=lambda v: str(v)[:40] if isinstance(v, str) else None)
def test_each_field_of_another_type_is_refused_naming_it(path, value, check, words):
    data = summary()
    if path.startswith(CELL):  # the cell's and the ratios' keys hold a dot: reached by hand
        cell = data["values"]["eval.pass@1_t0"]
        tail = path[len(CELL) + 1:]
        if tail:
            cell[tail] = value
        else:
            data["values"]["eval.pass@1_t0"] = value
    elif path.startswith("ratios.eval.pass@1_t0"):
        tail = path[len("ratios.eval.pass@1_t0") + 1:].split(".")
        if tail == [""]:
            data["ratios"]["eval.pass@1_t0"] = value
        elif len(tail) == 1:
            data["ratios"]["eval.pass@1_t0"][int(tail[0])] = value
        else:
            data["ratios"]["eval.pass@1_t0"][int(tail[0])][tail[1]] = value
    else:
        data = edit(path, value)
    if check is None:
        intake.check_summary(data)
        return
    line = refused(check, intake.check_summary, data)
    assert words in line, line


def test_the_submissions_content_hash_is_over_each_path_and_its_bytes_in_path_order(tmp_path, monkeypatch):
    import hashlib

    from neocoder.report.leaderboard.submissions import submission_sha256
    run = tmp_path / "run"
    (run / "sub").mkdir(parents=True)
    (run / "metrics.json").write_bytes(b"{}")
    (run / "sub" / "records.jsonl").write_bytes(b"a" * 10)
    expected = hashlib.sha256(b"metrics.json\0{}\0" + b"sub/records.jsonl\0" + b"a" * 10 + b"\0").hexdigest()
    assert submission_sha256(run) == expected
    twin = tmp_path / "elsewhere" / "run2"
    __import__("shutil").copytree(run, twin)
    assert submission_sha256(twin) == expected  # where the folder is does not count, what it holds does
    (twin / "sub" / "records.jsonl").rename(twin / "sub" / "records2.jsonl")
    assert submission_sha256(twin) != expected  # a name counts
    big = tmp_path / "big"
    big.mkdir()
    (big / "records.jsonl").write_bytes(bytes(range(256)) * 8193)  # read in several 1 MiB blocks
    assert submission_sha256(big) == hashlib.sha256(b"records.jsonl\0" + bytes(range(256)) * 8193 + b"\0").hexdigest()
