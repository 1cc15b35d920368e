"""A run that lost items fails loudly (issue 46, item 3): the runner's ``outcome`` rule,
through the Python API and the CLI, on a small task registered here."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

import neocoder
from neocoder.cli import main
from neocoder.config import MAX_ERRORS, PROGRESS, Config
from neocoder.options import option
from neocoder.records import RECORD_TYPES, Record
from neocoder.runner import LostItems, Outcome, Task, run
from neocoder.store import RunFolder


@dataclass
class JudgedConfig(Config):
    """``items`` items; the first ``fail`` end in an error, the next ``unread`` unreadable."""

    out: Path
    items: int = option(5, "Items.", ge=1, cap=50)
    fail: int = option(0, "Items that end in an error.", ge=0, cap=50)
    unread: int = option(0, "Items whose judge reply is unreadable.", ge=0, cap=50)
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()


@dataclass
class Verdict(Record):
    """One item's end: ``error`` or ``unreadable`` (a reason) or a ``score``."""

    TYPE = "toy_verdict"
    index: int
    score: float | None = None
    unreadable: str | None = None
    error: str | None = None

    @property
    def key(self) -> tuple:
        return (self.index,)

    @property
    def finished(self) -> bool:
        return self.error is None  # an item in error is retried on resume


class JudgedTask(Task, name="toy-judged", config_type=JudgedConfig, unit="answer", record_type=Verdict):
    """Judge ``items`` answers, some of which fail (the config says which)."""

    def items(self, run):
        return [(i,) for i in range(self.config.items)]

    def solve(self, item, run):
        i, c = item[0], self.config
        if i < c.fail:
            yield Verdict(i, error="judge: HTTP 500 after 3 retries")
        elif i < c.fail + c.unread:
            yield Verdict(i, unreadable="no marker")
        else:
            yield Verdict(i, score=1.0)

    def score(self, run):
        latest = {r.index: r for r in run.folder.read(Verdict)}
        outcome = Outcome(self.unit)
        for r in latest.values():
            outcome.add(judged=r.score is not None, unreadable=r.unreadable is not None, error=r.error)
        return {"outcome": outcome.to_dict()}


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setitem(RECORD_TYPES, Verdict.TYPE, Verdict)
    neocoder.register_task(JudgedTask)


def _metrics(folder: Path) -> dict:
    return json.loads((folder / "metrics.json").read_text())


def test_items_in_error_fail_the_run_after_everything_is_written(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(LostItems) as caught:
        run(JudgedTask(JudgedConfig(out=out, items=5, fail=2, progress=False)))
    message = str(caught.value)
    assert message.startswith("2 of 5 answers ended in error (2 x judge: HTTP 500 after 3 retries)"), message
    assert "--max-errors 2" in message and "\n" not in message
    assert _metrics(out)["outcome"] == {"unit": "answer", "items": 5, "judged": 3, "unreadable": 0, "errors": 2,
                                        "reasons": {"judge: HTTP 500 after 3 retries": 2}}
    assert len(RunFolder(out, create=False).read(Verdict)) == 5  # kept, with their errors


def test_max_errors_tolerates_that_many(tmp_path):
    metrics = run(JudgedTask(JudgedConfig(out=tmp_path / "run", fail=2, max_errors=2, progress=False)))
    assert metrics["outcome"]["errors"] == 2
    with pytest.raises(LostItems):
        run(JudgedTask(JudgedConfig(out=tmp_path / "three", fail=3, max_errors=2, progress=False)))


def test_unreadable_is_counted_not_an_error_but_nothing_judged_fails(tmp_path):
    metrics = run(JudgedTask(JudgedConfig(out=tmp_path / "some", unread=4, progress=False)))
    assert (metrics["outcome"]["judged"], metrics["outcome"]["unreadable"]) == (1, 4)
    with pytest.raises(LostItems, match=r"^no answer of 5 was judged \(5 unreadable, 0 in error\)"):
        run(JudgedTask(JudgedConfig(out=tmp_path / "none", unread=5, progress=False)))


def test_the_cli_exits_non_zero_with_one_line(tmp_path):
    out = tmp_path / "run"
    done = CliRunner().invoke(main, ["run", "toy-judged", "--fail", "1", "--out", str(out), "--quiet"])
    assert done.exit_code == 1
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: 1 of 5 answers ended in error"), done.output
    again = CliRunner().invoke(main, ["run", "toy-judged", "--fail", "1", "--out", str(out), "--max-errors", "1"])
    assert again.exit_code == 0, again.output


def test_outcome_failure_lines():
    o = Outcome("question")
    assert o.failure() is None  # no items: nothing lost
    o.add(judged=True)
    o.add(error="a")
    o.add(error="b")
    o.add(error="a")
    assert o.failure(3) is None
    assert o.failure(2).startswith("3 of 4 questions ended in error (2 x a; 1 x b)")
    assert Outcome.from_dict(o.to_dict()) == o


def test_most_replies_without_an_answer_fail_the_run_and_half_do_not():
    from neocoder.runner import Outcome
    out = Outcome("sample", answer="program")
    for reason in ("empty", "empty", None):
        out.add(judged=True)
        out.answered(reason)
    line = out.failure()
    assert line.startswith("2 of 3 replies of the model under test held no program (2 x empty)")
    back = Outcome.from_dict(out.to_dict())
    assert back.to_dict() == out.to_dict() and back.failure() == line
    half = Outcome("sample", answer="program")
    for reason in ("refusal", None):
        half.add(judged=True)
        half.answered(reason)
    assert half.failure() is None and half.to_dict()["no_answer_reasons"] == {"refusal": 1}
    assert "replies" not in Outcome("sample").to_dict()  # a task that reads no reply keeps the old block


def test_replies_holding_no_answer_are_named_before_nothing_judged():
    from neocoder.runner import Outcome
    out = Outcome("idea", answer="idea")
    for _ in range(3):
        out.add()  # nothing judged: every reply held no idea
        out.answered("empty")
    assert out.failure().startswith("3 of 3 replies of the model under test held no idea (3 x empty)")
    out.add(error="HTTP 500")
    assert out.failure().startswith("1 of 4 ideas ended in error")  # errors first
