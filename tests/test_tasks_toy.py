"""A task of ~30 lines, defined here and registered, runs through the CLI, the Python API
and the server with no CLI or server code written for it (docs/tasks.md).

The toy task writes ``words`` typed records and scores their count.  Its one option is
declared once in its config; ``neocoder run toy-words --words N``, ``neocoder.run`` and
``POST /v1/runs`` all read that declaration (the server refuses ``words: 0`` naming the
field).  The server is the real app on uvicorn, in this process on a loopback port, so
the task registered here is the one its job thread runs.
"""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from servers import TOKEN, Served

import neocoder
from neocoder.cli import main
from neocoder.client import Client, ServerError
from neocoder.config import PROGRESS, Config
from neocoder.options import option
from neocoder.records import RECORD_TYPES, Record
from neocoder.runner import Task
from neocoder.serve.config import DEFAULT_TASKS
from neocoder.store import RunFolder


# -- the toy task: everything a new task writes ---------------------------------------------
@dataclass
class ToyConfig(Config):
    """The toy task: ``words`` words into the run folder ``out``."""

    out: Path
    words: int = option(3, "Words to write.", ge=1, cap=50)
    progress: bool = PROGRESS.field()  # declared once in neocoder/config.py, kept out of the manifest


@dataclass
class Word(Record):
    """One word the toy task wrote."""

    TYPE = "toy_word"
    index: int
    word: str

    @property
    def key(self) -> tuple:
        return (self.index,)


class ToyTask(Task):
    """Write some words (the example of docs/tasks.md)."""

    name, config_type, record_type, unit = "toy-words", ToyConfig, Word, "word"

    def items(self, run):
        return [(i,) for i in range(self.config.words)]

    def solve(self, item, run):
        yield Word(item[0], f"word-{item[0]}")

    def score(self, run):
        return {"words": len(run.folder.read(Word))}
# ---------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    """The task and its record type registered (records.py has no register function yet)."""
    monkeypatch.setitem(RECORD_TYPES, Word.TYPE, Word)
    neocoder.register_task(ToyTask)


def _words(folder: Path) -> list[str]:
    return [r.word for r in sorted(RunFolder(folder, create=False).read(Word), key=lambda r: r.index)]


def test_toy_task_through_the_python_api(tmp_path):
    assert "toy-words" in neocoder.task_names()
    metrics = neocoder.run("toy-words", ToyConfig(out=tmp_path / "api", words=4, progress=False))
    assert metrics["words"] == 4  # and the outcome block the runner counted from its records (runner.scored)
    assert metrics["outcome"] == {"unit": "word", "items": 4, "judged": 4, "unreadable": 0, "errors": 0, "reasons": {}}
    assert _words(tmp_path / "api") == ["word-0", "word-1", "word-2", "word-3"]
    manifest = json.loads((tmp_path / "api" / "manifest.json").read_text())
    assert manifest["kind"] == "toy-words" and manifest["config"] == {"out": str(tmp_path / "api"), "words": 4}
    again = neocoder.run("toy-words", ToyConfig(out=tmp_path / "api", words=5, progress=False))
    assert again["words"] == 5 and again["outcome"]["judged"] == 5  # resumed: four kept, one added


def test_toy_task_through_the_cli(tmp_path):
    help_text = CliRunner().invoke(main, ["run", "toy-words", "--help"]).output
    assert "--words INTEGER RANGE" in help_text and "Words to write." in help_text and "x>=1" in help_text
    done = CliRunner().invoke(main, ["run", "toy-words", "--words", "2", "--out", str(tmp_path / "cli"), "--quiet"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output.split("run folder")[0])["words"] == 2
    assert _words(tmp_path / "cli") == ["word-0", "word-1"]
    refused = CliRunner().invoke(main, ["run", "toy-words", "--words", "0", "--out", str(tmp_path / "no")])
    assert refused.exit_code == 2 and "--words" in refused.output and not (tmp_path / "no").exists()


@pytest.fixture
def served(tmp_path, release_dir):
    """The real app on uvicorn in this process (servers.Served), with a client of its token."""
    server = Served(tmp_path, release_dir, allow_task=(*DEFAULT_TASKS, "toy-words"))  # a plug-in: allowed
    yield Client(server.url, TOKEN), tmp_path / "data"
    server.stop()


def test_toy_task_through_the_server(served):
    client, data = served
    job = client.submit_run("toy-words", ToyConfig(out=Path("ignored"), words=3))
    # max_errors: every task's request takes it, declared or not (the runner's lost-items rule)
    assert job["request"] == {"task": "toy-words", "config": {"words": 3, "max_errors": 0}}
    ended = client.wait(job["id"], poll=0.2, run=True)
    assert ended["status"] == "succeeded", ended
    assert ended["metrics"]["words"] == 3 and ended["progress"]["done"] == 3
    assert _words(data / "runs" / job["id"]) == ["word-0", "word-1", "word-2"]
    assert job["id"] not in {j["id"] for j in client.jobs()}  # eval jobs stay apart
    with pytest.raises(ServerError) as refused:
        client.submit_run("toy-words", {"words": 0})
    assert refused.value.status == 422 and "config.words" in str(refused.value)
    with pytest.raises(ServerError) as unknown:
        client.submit_run("no-such-task", {})
    assert unknown.value.status == 422 and "task" in str(unknown.value)
    with pytest.raises(ServerError) as path:
        client.submit_run("toy-words", {"out": "/etc"})  # the run folder is the server's
    assert path.value.status == 422 and "config.out" in str(path.value)
