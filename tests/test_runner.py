"""The one runner (neocoder/runner.py): resume, stop, errors, manifest and metrics, for any task.

A small task writes real ``Answer`` records into a real run folder; no model, no sandbox.
What each test proves is the runner's contract that every benchmark now relies on.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

import neocoder
from neocoder.benchmarks import get_task, register_task, task_names
from neocoder.benchmarks.aidanbench.records import Answer
from neocoder.benchmarks.neocoder.descriptor import EVAL
from neocoder.config import Config
from neocoder.errors import NeocoderError
from neocoder.runner import Run, Stopped, Task, run
from neocoder.store import RunFolder


@dataclass
class CountConfig(Config):
    out: Path
    words: int = 4
    fail_at: int | None = None  # the item whose solve raises
    concurrency: int = 1
    progress: bool = False


class CountTask(Task):
    """Item i answers "word i"; the score counts the answers in the folder."""

    name = "count-test"
    config_type = CountConfig
    record_type = Answer
    prompts = ("aidan_coherence.txt",)
    solved: list = []

    def items(self, run: Run) -> list:
        return list(range(self.config.words))

    def key(self, item) -> tuple:
        return Answer(model="m", question_index=item, question="q", answer_num=1, answer="").key

    def solve(self, item, run: Run):
        if item == self.config.fail_at:
            raise RuntimeError(f"item {item} broke")
        CountTask.solved.append(item)
        yield Answer(model="m", question_index=item, question="q", answer_num=1, answer=f"word {item}")

    def score(self, run: Run) -> dict:
        return {"answers": len(run.folder.read(Answer))}


def counted(n: int) -> dict:
    """The task's metrics: its own count, and the outcome block the runner adds for a task
    with a record type that counts none (runner.scored)."""
    return {"answers": n, "outcome": {"unit": "item", "items": n, "judged": n, "unreadable": 0, "errors": 0,
                                      "reasons": {}}}


@pytest.fixture(autouse=True)
def fresh():
    CountTask.solved = []


def test_a_task_writes_manifest_records_and_metrics(tmp_path):
    result = run(CountTask(CountConfig(out=tmp_path / "r")))
    assert result == counted(4)
    folder = RunFolder(tmp_path / "r", create=False)
    manifest = folder.read_manifest()
    assert manifest.kind == "count-test" and manifest.config["words"] == 4
    assert set(manifest.extra["prompts"]) == {"aidan_coherence.txt"}  # the prompt's text and hash recorded
    assert len(manifest.extra["prompts"]["aidan_coherence.txt"]["sha256"]) == 64
    assert sorted(a.answer for a in folder.read(Answer)) == [f"word {i}" for i in range(4)]
    assert json.loads((tmp_path / "r" / "metrics.json").read_text())["answers"] == 4


def test_a_rerun_resumes_and_redoes_nothing(tmp_path):
    config = CountConfig(out=tmp_path / "r", fail_at=2)
    with pytest.raises(RuntimeError, match="item 2 broke"):
        run(CountTask(config))
    assert CountTask.solved == [0, 1]  # one at a time: item 3 never started after 2 failed
    assert not (tmp_path / "r" / "metrics.json").exists()
    CountTask.solved = []
    assert run(CountTask(CountConfig(out=tmp_path / "r"))) == counted(4)
    assert CountTask.solved == [2, 3]  # 0 and 1 were kept


def test_a_stop_event_finishes_nothing_new_and_raises_stopped(tmp_path):
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped, match="4 of 4"):
        run(CountTask(CountConfig(out=tmp_path / "r")), stop=stop)
    assert CountTask.solved == [] and not (tmp_path / "r" / "metrics.json").exists()
    assert run(CountTask(CountConfig(out=tmp_path / "r"))) == counted(4)


def test_several_items_in_flight(tmp_path):
    assert run(CountTask(CountConfig(out=tmp_path / "r", words=12, concurrency=4))) == counted(12)
    assert sorted(CountTask.solved) == list(range(12))


def test_the_registry_by_name(tmp_path):
    assert EVAL in task_names() and get_task(EVAL).name == EVAL
    with pytest.raises(NeocoderError, match="unknown task 'nope'"):
        get_task("nope")
    with pytest.raises(NeocoderError, match="is taken"):
        register_task(type("Again", (CountTask,), {"name": EVAL}))
    register_task(CountTask)
    assert neocoder.run("count-test", CountConfig(out=tmp_path / "r", words=2)) == counted(2)  # api.run
    with pytest.raises(NeocoderError, match="takes a CountConfig"):
        neocoder.run("count-test", object())


def test_declarations_as_class_keywords():
    class Words(CountTask, name="count-keywords", unit="word"):
        pass
    assert (Words.name, Words.unit, Words.config_type.widened) == ("count-keywords", "word", CountConfig)
    assert issubclass(Words.config_type, CountConfig)  # the runner's: CountConfig with max_errors (--max-errors)
    with pytest.raises(TypeError, match="unknown task declaration"):
        type("Bad", (CountTask,), {}, colour="red")
