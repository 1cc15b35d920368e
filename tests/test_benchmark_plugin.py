"""A benchmark added the documented way (docs/tasks.md "Adding a benchmark"): one package's
worth of code, defined in this file, and one ``register_benchmark`` call, gets every
surface with no other file changed: a command (``neocoder words``), the Python API
(``neocoder.run``), a server job (``POST /v1/runs``), a report section, a suite entry (the
creativity profile) and a leaderboard column.

The benchmark, "words", asks a model for a short list of words per prompt and scores the
share of distinct words in each reply (a divergent measure, 0-1).  Its model is a real
OpenAI-style endpoint on loopback (tests/support/loopback.py) that answers in order, so the
numbers are known: "red green blue" (3 distinct of 3) and "red red blue" (2 of 3).

The runner's lost-items rule reaches it with no line of its own (an endpoint refusing every
call: exit 1, a rerun retries; ``--max-errors``; a record noting an error); a benchmark with
no report section is shown from its declared measures; runs of a benchmark not registered
here are named unknown; installed plug-ins are found through the ``neocoder.benchmarks``
entry point group, a broken one left out with a warning.  tests/test_plugin_wheel.py installs
it as a wheel in a fresh virtual environment.
"""

import json
import statistics
from dataclasses import dataclass, replace
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


# -- the lost-items rule, owned by the runner: the plug-in above writes no line for it ----------
class Refusing(ScriptedServer):
    """The scripted endpoint answering 429 to its first ``refused`` calls (each call is tried
    1 + --max-retries times, so 2 refused calls with --max-retries 1 lose one prompt)."""

    def __init__(self, replies, refused):
        super().__init__(replies)
        self.fail_first = refused


def words(url: str, out: Path, *extra: str):
    return CliRunner().invoke(main, ["words", "--model", "openai/m", "--base-url", url, "--api-key", "k",
                                     "--max-retries", "1", "--prompts", "2", "--out", str(out), "--quiet", *extra])


def test_every_call_refused_exits_non_zero_and_a_rerun_retries_the_items(tmp_path):
    out = tmp_path / "429"
    with Refusing(REPLIES, refused=10**6) as refusing:
        done = words(refusing.url, out)
    assert done.exit_code == 1, done.output
    assert "2 of 2 prompts ended in error (2 x openai/m: RateLimitError" in done.output
    outcome = json.loads((out / "metrics.json").read_text())["outcome"]  # the runner's block: score never ran
    assert (outcome["items"], outcome["judged"], outcome["errors"], outcome["unit"]) == (2, 0, 2, "prompt")
    assert refusing.requests == 4  # both prompts asked (1 + 1 retry each): one lost prompt stops no other
    with ScriptedServer(REPLIES) as model:
        again = words(model.url, out)
        assert again.exit_code == 0, again.output
        assert model.requests == 2  # both prompts retried
    assert replies(out) == REPLIES
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)
    assert metrics["outcome"] == {"unit": "prompt", "items": 2, "judged": 2, "unreadable": 0, "errors": 0,
                                  "reasons": {}}


def test_max_errors_tolerates_that_many_lost_items_and_no_more(tmp_path):
    with Refusing(REPLIES, refused=2) as model:  # the first prompt lost, the second answered
        lost = words(model.url, tmp_path / "strict")
    assert lost.exit_code == 1 and "1 of 2 prompts ended in error" in lost.output, lost.output
    with Refusing(REPLIES, refused=2) as model:
        tolerated = words(model.url, tmp_path / "tolerant", "--max-errors", "1")
    assert tolerated.exit_code == 0, tolerated.output
    metrics = json.loads((tmp_path / "tolerant" / "metrics.json").read_text())
    assert (metrics["outcome"]["judged"], metrics["outcome"]["errors"]) == (1, 1)
    assert metrics["models"]["openai/m"]["distinct"] == pytest.approx(1.0)  # scored on the prompt answered
    with ScriptedServer(["red red blue"]) as model:  # a rerun retries the lost prompt only
        again = words(model.url, tmp_path / "tolerant")
        assert again.exit_code == 0 and model.requests == 1, again.output
    assert replies(tmp_path / "tolerant") == ["red red blue", "red green blue"]


@dataclass
class NotedReply(Record):
    """A reply the plug-in noted itself: an ``error`` or an ``unreadable`` reason, and a
    ``finished`` left as Record's (True): the runner's convention decides."""

    TYPE = "noted_reply"
    index: int
    error: str | None = None
    unreadable: str | None = None

    @property
    def key(self) -> tuple:
        return (self.index,)


class NotingTask(Task, name="words-noted", config_type=WordsConfig, record_type=NotedReply, unit="prompt"):
    """Prompt 0 ends in an error the task noted itself, prompt 1 unreadable, the others judged."""

    def items(self, run):
        return [(i,) for i in range(self.config.prompts)]

    def solve(self, item, run):
        i = item[0]
        yield NotedReply(i, error="endpoint said 503" if i == 0 else None, unreadable="no marker" if i == 1 else None)

    def score(self, run):
        return {"noted": len(run.folder.read(NotedReply))}


def test_records_noting_an_error_are_counted_and_retried_unreadable_ones_kept(tmp_path, monkeypatch):
    from neocoder.records import RECORD_TYPES
    from neocoder.runner import Run
    monkeypatch.setitem(RECORD_TYPES, NotedReply.TYPE, NotedReply)
    neocoder.register_task(NotingTask)
    model = ModelConfig("openai/m", base_url="http://127.0.0.1:9/v1", api_key="k")  # never called
    config = WordsConfig(model=model, out=tmp_path / "noted", prompts=3, progress=False)
    with pytest.raises(neocoder.NeocoderError, match="1 of 3 prompts ended in error \\(1 x endpoint said 503\\)"):
        neocoder.run("words-noted", config)
    outcome = json.loads((tmp_path / "noted" / "metrics.json").read_text())["outcome"]
    assert (outcome["judged"], outcome["unreadable"], outcome["errors"]) == (1, 1, 1)
    task = NotingTask(config)
    assert task.pending(Run(task), [(0,), (1,), (2,)]) == [(0,)]  # the noted error only: its finished is True
    tolerant = NotingTask.config_type(model=model, out=tmp_path / "noted", prompts=3, progress=False, max_errors=1)
    assert neocoder.run("words-noted", tolerant)["outcome"]["errors"] == 1  # retried, noted again, tolerated


# -- a benchmark without a report section; runs of a benchmark not registered here -------------
class WordsPlainTask(WordsTask, name="words-plain"):
    """The words task under another name, for a benchmark that brings no report section."""


WORDS_PLAIN = replace(WORDS, name="words-plain", title="Words, plain: no report section of its own",
                      tasks={"words-plain": WordsPlainTask}, presets={}, section=None)


def test_a_benchmark_without_a_report_section_is_shown_from_its_declared_measures(model, tmp_path):
    from neocoder.report.html import build_report
    from neocoder.report.leaderboard.site import build_leaderboard
    register_benchmark(WORDS_PLAIN)
    try:
        config = WordsPlainTask.config_type(model=ModelConfig("openai/m", base_url=model.url, api_key="k"),
                                            out=tmp_path / "plain", prompts=2, progress=False)
        neocoder.run("words-plain", config)
        page = build_report([tmp_path / "plain"], tmp_path / "report").read_text()
        assert "Words, plain: no report section of its own" in page and "declared measures" in page
        assert "distinct words (higher is better)" in page and "0.833" in page and "0.667 - 1" in page
        assert "red green blue" not in page  # the records are the benchmark's own: no section shows them
        board = build_leaderboard([tmp_path / "plain"], tmp_path / "board", published=False, reports=True)
        assert "distinct words" in board.read_text()
        assert "0.833" in next((tmp_path / "board").rglob("reports/**/index.html")).read_text()
    finally:
        unregister_benchmark(WORDS_PLAIN)
    # the other direction: a benchmark with its own section keeps it (test_a_report_section_...)


def test_runs_of_a_benchmark_not_registered_here_are_named_unknown(model, tmp_path):
    from neocoder.report.html import build_report
    from neocoder.report.leaderboard.collect import collect
    from neocoder.suite.config import SuiteConfig
    from neocoder.suite.task import SuiteTask
    neocoder.run("words", WordsConfig(model=ModelConfig("openai/m", base_url=model.url, api_key="k"),
                                      out=tmp_path / "run", prompts=2, progress=False))
    neocoder.run(SuiteTask(SuiteConfig(model=ModelConfig("openai/m", base_url=model.url, api_key="k"),
                                       out=tmp_path / "suite", release_dir=tmp_path, benchmarks=["words"],
                                       preset=QUICK, progress=False)))
    assert [r.model for r in collect([tmp_path / "run", tmp_path / "suite"])] == ["openai/m"] * 2  # registered
    unregister_benchmark(WORDS)
    unknown = "unknown benchmark 'words': no registered benchmark declares it"
    with pytest.raises(neocoder.NeocoderError, match=f"run: {unknown}"):
        build_report([tmp_path / "run"], tmp_path / "report")
    with pytest.raises(neocoder.NeocoderError, match=f"run: {unknown}"):  # never "no finished runs"
        collect([tmp_path / "run"])
    with pytest.raises(neocoder.NeocoderError, match=f"suite: the suite ran {unknown}"):  # never a KeyError
        collect([tmp_path / "suite"])
    board = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "suite"), "--out", str(tmp_path / "b")])
    assert board.exit_code == 1 and unknown in board.output and "Traceback" not in board.output, board.output
    with pytest.raises(neocoder.NeocoderError, match="no benchmark 'words' \\(unknown benchmark 'words'"):
        SuiteTask(SuiteConfig(model=ModelConfig("openai/m"), out=tmp_path / "s2", release_dir=tmp_path,
                              benchmarks=["words"])).check()


# -- installed plug-ins: the neocoder.benchmarks entry point group ------------------------------
@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path holding an installed distribution ("words-found") whose entry points
    in the group neocoder.benchmarks are ``points`` ({name: "module:attribute"}); ``modules`` are
    written beside it.  The registry looks for plug-ins again (reload_plugins) before and after."""
    from importlib import invalidate_caches

    from neocoder.benchmarks import reload_plugins
    root = tmp_path / "site"

    def install(points: dict, modules: dict | None = None):
        info = root / "words_found-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: words-found\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[neocoder.benchmarks]\n" + "".join(f"{k} = {v}\n"
                                                                                  for k, v in points.items()))
        for name, text in (modules or {}).items():
            (root / f"{name}.py").write_text(text)
        monkeypatch.syspath_prepend(str(root))
        invalidate_caches()
        reload_plugins()

    yield install
    reload_plugins()


FOUND = '''
from dataclasses import replace
from test_benchmark_plugin import WORDS, WordsTask

class FoundTask(WordsTask, name="words-found"):
    """The words task as an installed plug-in's."""

BENCHMARK = replace(WORDS, name="words-found", title="Words, found", tasks={"words-found": FoundTask}, presets={})
'''


def test_an_installed_plugin_is_found_through_its_entry_point(site):
    from neocoder.benchmarks import benchmark, broken_plugins, get_task
    assert "words-found" not in benchmark_names()
    site({"words-found": "words_found_plugin:BENCHMARK"}, {"words_found_plugin": FOUND})
    assert benchmark_names()[-2:] == ["words-found", "words"]  # after the built-ins, before those registered
    assert get_task("words-found").__name__ == "FoundTask" and benchmark("words-found").title == "Words, found"
    assert broken_plugins() == {}
    assert "Prompts to ask." in CliRunner().invoke(main, ["words-found", "--help"]).output


def test_a_broken_plugin_is_left_out_with_a_warning_naming_its_entry_point(site):
    from neocoder.benchmarks import broken_plugins, get_task
    site({"missing": "no_such_module_of_neocoder_tests:BENCHMARK", "not-one": "json:dumps"})
    with pytest.warns(UserWarning) as warned:
        names = benchmark_names()
    said = sorted(str(w.message) for w in warned)
    assert len(said) == 2 and "entry point 'missing' (no_such_module_of_neocoder_tests:BENCHMARK)" in said[0]
    assert names[:4] == ["eval", "aidanbench", "ideas", "framework"] and "words" in names
    assert set(broken_plugins()) == {"missing", "not-one"}
    assert "names a function, not a neocoder Benchmark" in broken_plugins()["not-one"]
    with pytest.raises(neocoder.NeocoderError, match="unknown task 'missing'.*plug-ins that failed to load: "
                                                     "entry point 'missing'.*ModuleNotFoundError"):
        get_task("missing")
    listed = CliRunner().invoke(main, ["--help"])  # an unrelated command runs on
    assert listed.exit_code == 0 and "words" in listed.output
