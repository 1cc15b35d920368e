"""What the board's re-score tests share (tests/report/test_board_rescore.py,
test_board_framework.py): ``neocoder board add`` in the test's process, its one-line
refusal, and a run folder's records read, rewritten and copied for tampering."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from neocoder.cli import main


def invoke(*args: str):
    """``neocoder ARGS`` in this process (click's runner result)."""
    return CliRunner().invoke(main, list(args))


def add(run, board, submitter: str = "alice"):
    """``neocoder board add RUN --board BOARD --submitter SUBMITTER``."""
    return invoke("board", "add", str(run), "--board", str(board), "--submitter", submitter)


def refused(got, check: str) -> str:
    """The board refused with exit 1 and one line naming ``check``; that line."""
    assert got.exit_code == 1, got.output
    lines = [line for line in got.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"refused ({check})" in lines[0], got.output
    return lines[0]


def rows(folder):
    """The records of the run ``folder`` as dicts, in line order."""
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines() if line.strip()]


def write_rows(folder, data):
    """``data`` written back as the run ``folder``'s records.jsonl."""
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))


def copy(run, tmp_path, name):
    """A copy of the run folder ``run`` at ``tmp_path/name``, to tamper with."""
    target = tmp_path / name
    shutil.copytree(run, target)
    return target
