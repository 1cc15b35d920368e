"""A benchmark added the documented way (docs/tasks.md "Adding a benchmark"): one package's
worth of code, defined in this file, and one ``register_benchmark`` call, gets every
surface with no other file changed: a command (``neocoder words``), the Python API
(``neocoder.run``), a server job (``POST /v1/runs``), a report section, a suite entry (the
creativity profile) and a leaderboard column.

The benchmark, "words", asks a model for a short list of words per prompt and scores the
share of distinct words in each reply (a divergent measure, 0-1).  Its model is a real
OpenAI-style endpoint on loopback (tests/support/loopback.py) that answers in order, so the
numbers are known: "red green blue" (3 distinct of 3) and "red red blue" (2 of 3).
"""

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback import ScriptedServer
from markupsafe import Markup, escape
from servers import TOKEN, Served

import neocoder
from neocoder.benchmarks import benchmark_names, register_benchmark, task_names, unregister_benchmark
from neocoder.benchmarks.descriptor import DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import model_value
from neocoder.cli import main
from neocoder.client import Client
from neocoder.config import PROGRESS, Config, ModelConfig
from neocoder.models.base import Prompt
from neocoder.options import Option, option
from neocoder.records import Record
from neocoder.report.sections.base import Section
from neocoder.runner import Task
from neocoder.serve.config import DEFAULT_TASKS
from neocoder.store import RunFolder

REPLIES = ["red green blue", "red red blue"]  # distinct shares 1.0 and 2/3
EXPECTED = statistics.mean([1.0, 2 / 3])


# -- the benchmark: everything a new benchmark package holds ----------------------------------
@dataclass
class WordsConfig(Config):
    """The words benchmark: ``prompts`` prompts to ``model``, into the run folder ``out``."""

    model: ModelConfig = Option(help="The model asked.", required=True).field()
    out: Path
    prompts: int = option(2, "Prompts to ask.", ge=1, cap=20)
    progress: bool = PROGRESS.field()


@dataclass
class WordsReply(Record):
    """One reply and its share of distinct words."""

    TYPE = "words_reply"
    model: str
    index: int
    reply: str
    distinct: float

    @property
    def key(self) -> tuple:
        return (self.index,)


class WordsTask(Task, name="words", config_type=WordsConfig, record_type=WordsReply, unit="prompt"):
    """Ask for words; score the share of distinct ones."""

    def open(self, run):
        return run.cached(run.open_model(self.config.model))

    def items(self, run):
        return [(i,) for i in range(self.config.prompts)]

    def solve(self, item, run):
        text = f"List three colours (prompt {item[0]})."
        reply = run.inputs.generate(Prompt(messages=({"role": "user", "content": text},), completion=text,
                                           code_prefix="")).text
        words = reply.split()
        yield WordsReply(self.config.model.spec, item[0], reply, len(set(words)) / max(1, len(words)))

    def score(self, run):
        shares = [r.distinct for r in run.folder.read(WordsReply)]
        mean = statistics.mean(shares)
        return {"models": {self.config.model.spec: {"distinct": mean,
                                                    "intervals": {"distinct": {"low": min(shares),
                                                                               "high": max(shares)}}}}}


class WordsSection(Section):
    """The report's part for words runs: each run's replies."""

    def read(self, run, folder):
        run.records = sorted(folder.read(WordsReply), key=lambda r: r.index)
        run.label = run.model_label()

    def size(self, run):
        return f"{len(run.records)} replies"

    def index_html(self, runs):
        items = "".join(f"<li>{escape(r.reply)}</li>" for run in runs for r in run.records)
        return Markup(f"<section id='words'><h2>Words</h2><ul>{items}</ul></section>")

    def write_pages(self, runs, out):
        pass


WORDS = Benchmark(
    name="words", title="Words: distinct words per reply", tasks={"words": WordsTask},
    records={WordsReply.TYPE: WordsReply}, unit="prompt",
    measures=(Measure("distinct", "distinct words", DIVERGENT, "fraction", model_value("distinct"),
                      "the example of docs/tasks.md"),),
    presets={QUICK: {"prompts": 2}, FULL: {}}, section=WordsSection)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def words_registered():
    register_benchmark(WORDS)
    yield
    unregister_benchmark(WORDS)


@pytest.fixture
def model():
    with ScriptedServer(REPLIES * 4) as server:
        yield server


def replies(folder: Path) -> list[str]:
    return [r.reply for r in sorted(RunFolder(folder, create=False).read(WordsReply), key=lambda r: r.index)]


def test_it_is_registered_with_its_task_and_records():
    assert "words" in benchmark_names() and "words" in task_names()
    with pytest.raises(neocoder.NeocoderError, match="taken"):
        register_benchmark(Benchmark(name="words", title="again", tasks={"words-2": WordsTask}))


def test_a_command_of_its_own_name(model, tmp_path):
    out = tmp_path / "cli"
    assert "Prompts to ask." in CliRunner().invoke(main, ["words", "--help"]).output
    done = CliRunner().invoke(main, ["words", "--model", "openai/m", "--base-url", model.url, "--api-key", "k",
                                     "--prompts", "2", "--out", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    assert replies(out) == REPLIES
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)
    assert "words" in CliRunner().invoke(main, ["--help"]).output


def test_the_python_api(model, tmp_path):
    config = WordsConfig(model=ModelConfig("openai/m", base_url=model.url, api_key="k"), out=tmp_path / "api",
                         prompts=2, progress=False)
    metrics = neocoder.run("words", config)
    assert metrics["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)
    assert RunFolder(tmp_path / "api", create=False).read_manifest().kind == "words"


def test_a_server_job(model, tmp_path, release_dir):
    server = Served(tmp_path, release_dir, allow_endpoint=["127.0.0.1"], allow_task=(*DEFAULT_TASKS, "words"))
    try:
        client = Client(server.url, TOKEN)
        job = client.submit_run("words", {"model": {"spec": "openai/m", "base_url": model.url}, "prompts": 2})
        ended = client.wait(job["id"], poll=0.2, run=True)
    finally:
        server.stop()
    assert ended["status"] == "succeeded", ended
    assert ended["progress"] == {"done": 2, "total": 2}
    assert ended["metrics"]["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)


def test_a_report_section_a_suite_entry_and_a_leaderboard_column(model, tmp_path):
    from neocoder.report.html import build_report
    from neocoder.report.leaderboard.collect import collect
    from neocoder.report.leaderboard.site import build_leaderboard
    from neocoder.suite.config import SuiteConfig
    from neocoder.suite.task import SuiteTask

    suite = tmp_path / "suite"
    profile = neocoder.run(SuiteTask(SuiteConfig(
        model=ModelConfig("openai/m", base_url=model.url, api_key="k"), out=suite, release_dir=tmp_path,
        benchmarks=["words"], preset=QUICK, progress=False)))
    measure = {m["key"]: m for m in profile["measures"]}["distinct"]
    assert measure["benchmark"] == "words" and measure["kind"] == DIVERGENT
    assert measure["value"] == pytest.approx(EXPECTED) and replies(suite / "words") == REPLIES

    index = build_report([suite / "words"], tmp_path / "report")
    page = index.read_text()
    assert "<section id='words'>" in page and "red green blue" in page and "2 replies" in page

    (row,) = collect([suite])
    assert row.values["words.distinct"]["value"] == pytest.approx(EXPECTED)
    board = build_leaderboard([suite], tmp_path / "board", published=False, reports=False).read_text()
    assert "distinct words" in board and "Words: distinct words per reply" in board
