"""A board built from its summary files alone (neocoder/report/leaderboard/submissions.py
``read_summary``, ``source_of``, ``build_board``), worked by hand on summaries written
here: a summary is read within the size limit and never through a symlink, one of another
format or a field of the wrong type refused naming the file; the Source it describes is
exactly its fields; the page is written where asked (its folders made, built again in
place), UTF-8 whatever the locale, with its title, style sheet and script, the papers'
rows added unless left out."""

from __future__ import annotations

import json
import locale
from pathlib import Path

import pytest

from neocoder.errors import NeocoderError
from neocoder.metrics.bootstrap import Ratio
from neocoder.report.leaderboard.collect import Source, published_rows
from neocoder.report.leaderboard.intake import FILE_LIMIT
from neocoder.report.leaderboard.submissions import build_board, read_summary, source_of

MODEL = "openai/Müller-ß"  # a name beyond ASCII: the board's files are UTF-8
CELL = {"value": 0.5, "low": 0.25, "high": 0.75, "n": 2, "verified": "re-scored from recorded judgements"}


def summary(**change) -> dict:
    """A board summary of format 2 as ``board add`` writes one (a framework run's)."""
    data = {"format": 2, "benchmark": "framework", "model": MODEL, "row_model": MODEL, "run": "run-a",
            "started": "2024-05-01T10:00:00", "suite": False, "items": ["541", "542"], "default": 1,
            "settings": {"domain": "macgyver"}, "facts": {"judges": "retrieval"},
            "values": {"framework.feasible": dict(CELL)}, "outcome": {"items": 2, "errors": 0},
            "unreadable": {"replies": 4, "unreadable": 1, "reasons": {"echo": 1}},
            "ratios": {"framework.feasible": [{"num": {"541": 1.0}, "den": {"541": 1.0}}]}, "sha256": {},
            "verified": {"how": "re-scored"}, "submission": {"submitter": "alice", "sha256": "ab12"}}
    return {**data, **change}


def board_of(tmp_path, *summaries: dict) -> Path:
    """A board folder whose submissions/ holds ``summaries`` (s0.json, s1.json, ...)."""
    folder = tmp_path / "board" / "submissions"
    folder.mkdir(parents=True)
    for n, data in enumerate(summaries):
        (folder / f"s{n}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return tmp_path / "board"


@pytest.fixture
def ascii_locale():
    """The process's text encoding made ASCII (LC_CTYPE "C"), restored after the test."""
    old = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
    except locale.Error:
        pytest.skip("no C locale")
    if locale.getpreferredencoding(False).lower().replace("-", "") in ("utf8",):
        locale.setlocale(locale.LC_CTYPE, old)
        pytest.skip("the C locale reads UTF-8 here")
    yield
    locale.setlocale(locale.LC_CTYPE, old)


def test_a_summary_is_read_back_as_written(tmp_path):
    board = board_of(tmp_path, summary())
    assert read_summary(board / "submissions" / "s0.json") == summary()


def test_a_summary_is_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    board = board_of(tmp_path, summary())
    assert read_summary(board / "submissions" / "s0.json")["model"] == MODEL
    index = build_board(board, tmp_path / "site", published=False)
    assert MODEL in index.read_bytes().decode("utf-8")


def refused(path: Path) -> str:
    """What ``read_summary`` says of ``path`` (it must refuse it)."""
    with pytest.raises(NeocoderError) as got:
        read_summary(path)
    return str(got.value)


def test_a_summary_up_to_the_size_limit_is_read_and_one_over_it_or_a_symlink_is_not(tmp_path):
    text = json.dumps(summary())
    (tmp_path / "at.json").write_text(text + " " * (FILE_LIMIT - len(text.encode())), encoding="utf-8")
    assert (tmp_path / "at.json").stat().st_size == FILE_LIMIT
    assert read_summary(tmp_path / "at.json") == summary()
    (tmp_path / "over.json").write_text(text + " " * (FILE_LIMIT + 1 - len(text.encode())), encoding="utf-8")
    over = tmp_path / "over.json"
    assert refused(over) == f"{over}: not a board summary (a symlink, or over the size limit)"
    (tmp_path / "small.json").write_text(text, encoding="utf-8")
    (tmp_path / "link.json").symlink_to(tmp_path / "small.json")
    link = tmp_path / "link.json"
    assert refused(link) == f"{link}: not a board summary (a symlink, or over the size limit)"


@pytest.mark.parametrize("data, why", [
    (summary(format=1), "a board summary of format 1, not 2 (add its run again)"),
    ({"benchmark": "framework"}, "a board summary of format None, not 2 (add its run again)"),
    (summary(model=5), "refused (types): s.json model is 5, not a string"),
    (summary(items="541"), "refused (types): s.json items is not a list of strings"),
    ([1, 2], "'list' object has no attribute 'get'")])
def test_a_summary_of_another_format_or_type_is_refused_naming_the_file(tmp_path, data, why):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert refused(path) == f"{path}: not a board summary ({why})"


def test_a_file_that_is_no_json_is_refused_naming_it(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("{not json", encoding="utf-8")
    assert refused(path).startswith(f"{path}: not a board summary (Expecting property name")


def test_the_source_a_summary_describes_is_exactly_its_fields(tmp_path):
    got = source_of(summary(), tmp_path / "s.json")
    assert got == Source("framework", Path("run-a"), MODEL, "2024-05-01T10:00:00", None, ("541", "542"), 1,
                         {"domain": "macgyver"}, {"judges": "retrieval"}, MODEL, {"framework.feasible": CELL},
                         {"items": 2, "errors": 0}, {"replies": 4, "unreadable": 1, "reasons": {"echo": 1}},
                         {"framework.feasible": [Ratio({"541": 1.0}, {"541": 1.0})]})
    suite = source_of(summary(suite=True, items=None, default=None, run="suite-b"), tmp_path / "s.json")
    assert (suite.folder, suite.suite, suite.items, suite.default) == (Path("suite-b"), Path("suite-b"), None, None)


def test_a_source_of_another_format_is_refused_naming_the_file(tmp_path):
    with pytest.raises(NeocoderError) as got:
        source_of(summary(format=1), tmp_path / "s.json")
    assert str(got.value) == f"{tmp_path / 's.json'}: a board summary of format 1, not 2"


def test_the_page_has_its_title_style_sheet_and_script_and_they_are_written_beside_it(tmp_path):
    index = build_board(board_of(tmp_path, summary()), tmp_path / "site", published=False)
    assert index == tmp_path / "site" / "index.html"
    html = index.read_text(encoding="utf-8")
    for line in ("<title>NeoCoder leaderboard</title>", '<link rel="stylesheet" href="static/leaderboard.css">',
                 '<script src="static/leaderboard.js"></script>'):
        assert line in html.splitlines(), line
    assert (tmp_path / "site" / "static" / "leaderboard.css").is_file()
    assert (tmp_path / "site" / "static" / "leaderboard.js").is_file()
    assert MODEL in html and "None" not in html


def test_the_board_is_built_into_new_folders_and_again_in_place_byte_identical(tmp_path):
    board = board_of(tmp_path, summary(), summary(model="openai/other", row_model="openai/other"))
    first = build_board(board, tmp_path / "a" / "b" / "site", published=False).read_bytes()
    again = build_board(board, tmp_path / "a" / "b" / "site", published=False).read_bytes()
    assert first == again and b"openai/other" in first


def test_the_papers_rows_are_added_unless_left_out(tmp_path):
    published = [r.model for r in published_rows() if r.values]
    assert published
    board = board_of(tmp_path, summary())
    with_them = build_board(board, tmp_path / "with").read_text(encoding="utf-8")
    assert build_board(board, tmp_path / "also", published=True).read_text(encoding="utf-8") == with_them
    without = build_board(board, tmp_path / "without", published=False).read_text(encoding="utf-8")
    assert all(model in with_them for model in published)
    assert not any(model in without for model in published)
    assert MODEL in with_them and MODEL in without


def test_a_board_with_no_summary_or_a_bad_one_is_refused_naming_it(tmp_path):
    board = board_of(tmp_path)
    with pytest.raises(NeocoderError) as got:
        build_board(board, tmp_path / "site")
    assert str(got.value) == (f"{board}/submissions: no submissions (add runs with `neocoder board add RUN "
                              f"--board {board}`)")
    (board / "submissions" / "s1.json").write_text(json.dumps(summary(format=1)), encoding="utf-8")
    with pytest.raises(NeocoderError, match=r"s1\.json: not a board summary \(a board summary of format 1"):
        build_board(board, tmp_path / "site")
    assert not (tmp_path / "site").exists()
