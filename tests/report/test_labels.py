"""Labels that say what was computed (issue 58, F2): best@k with its k, a rate's base where it
is not the table's n, runs of one model told apart in `neocoder compare` with the problems
their differences are paired over and each run's language, the paper's Table 4 flagged
beside a run of few problems, the default diversity measure's status explained where it is
printed, and AidanBench's per-model errors saying what was left out.

The runs are real: replayed GPT-4 programs judged in the Docker sandbox (one, two and five
samples per problem state, on problems chosen so that one has no extended tests and one no
human technique set), and an AidanBench run against a scripted generator on loopback that
fails one question.  No number may change: only labels are checked, beside the metrics."""

import html
import json
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback import Loopback, Quiet, send

from neocoder.api import evaluate
from neocoder.benchmarks.aidanbench.records import QuestionResult
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.records import Sample
from neocoder.report import published
from neocoder.report.compare import compare, load_run, render
from neocoder.report.html import build_report
from neocoder.report.labels import distinct_labels, small_run_lines
from neocoder.report.text import best_label, best_of_ks, default_status, eval_table
from neocoder.store import RunFolder

pytestmark = pytest.mark.docker

# at t=0 1901A has extended tests, 1873A and 1773F none; 1773F has no human technique set
PROBLEMS = ["1901A", "1873A", "1773F"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, release_dir, sandbox) -> dict[str, Path]:
    """Replayed GPT-4, judged for real: ``one`` (3 problems, t=0-1, one sample each),
    ``again`` (a copy of ``one`` in another folder: the same model twice), ``two`` and
    ``five`` (1901A at t=0 with 2 and 5 samples)."""
    root = tmp_path_factory.mktemp("labels")
    gpt4 = ModelConfig("replay/gpt-4-1106-preview", temperature=0.8)
    out = {}
    for name, problems, states, samples in (("one", PROBLEMS, [0, 1], 1), ("two", ["1901A"], [0], 2),
                                            ("five", ["1901A"], [0], 5)):
        done = evaluate(EvalConfig(model=gpt4, out=root / name, release_dir=release_dir, problems=problems,
                                   states=states, samples=samples, bootstrap=100, progress=False))
        out[name] = done.run
    out["again"] = root / "copies" / "one"
    shutil.copytree(out["one"], out["again"])
    return out


def records(run: Path) -> list[Sample]:
    return RunFolder(run, create=False).read(Sample)


def metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text())


def cli(*args: str):
    return CliRunner().invoke(main, ["compare", *args, "--bootstrap", "100"])


def test_best_of_k_is_named_with_its_k(runs):
    two, five = eval_table(metrics(runs["two"]), records(runs["two"])), eval_table(metrics(runs["five"]),
                                                                                   records(runs["five"]))
    assert "best@2 NeoG" in two and "best@5" not in two
    assert "best@5 NeoG" in five and "best@2" not in five
    unread = eval_table(metrics(runs["two"]))  # the records not given: k is not claimed
    assert "best@k NeoG" in unread and "k not named" in unread and "best@5" not in unread
    assert "best@" not in eval_table(metrics(runs["one"]), records(runs["one"]))  # one sample: no such column
    assert best_of_ks(records(runs["two"])) == {"0": (2, 2)}
    assert best_label({"0": (2, 2), "1": (5, 5)}) == "best@2-5" and best_label({"0": (3, 3)}) == "best@3"
    assert best_label(None) == best_label({}) == "best@k"
    # the same number under either label: only the name moved
    value = metrics(runs["two"])["states"]["0"]["neogauge_best@5"]
    assert f"{100 * value:.1f}%" in two and f"{100 * value:.1f}%" in unread


def test_a_rate_over_fewer_samples_than_n_says_so_and_one_over_n_does_not(runs):
    m = metrics(runs["one"])
    state = m["states"]["0"]
    assert (state["n"], state["n_extended"], state["n_divergent"]) == (3, 1, 2)  # the chosen problems
    table = eval_table(m)
    row = next(line for line in table.splitlines() if line.split()[:2] == ["0", "3"])
    assert row.count(" of 1") == 1 and row.count(" of 2") == 2  # pass@1+ext; divergent, NeoGauge
    cells = row.split()
    ci = state["intervals"]["pass@1"]
    assert cells[2:4] == [f"{100 * state['pass@1']:.1f}%", f"±{50 * (ci['high'] - ci['low']):.1f}"]
    assert "of" not in cells[2:5]  # pass@1 is over n: no base printed
    legend = next(line for line in table.splitlines() if line.startswith("of N:"))
    assert "pass@1+ext over those whose state has extended tests" in legend
    assert f"t=0: {100 * state['pass@1_examples_tiered']:.1f}%" in legend  # pass@1 on the same sample
    assert "divergent and NeoGauge over those whose problem has a human technique set" in legend
    assert "follow" not in legend  # every reply held a program: follow is over n

    five = eval_table(metrics(runs["five"]))  # 5 samples of 1901A: every base is n
    assert " of " not in five.split("\n", 3)[2] and "of N:" not in five


def test_compare_tells_two_runs_of_one_model_apart_and_counts_the_shared_problems(runs):
    got = cli(str(runs["one"]), str(runs["again"]), "--no-published")
    assert got.exit_code == 0, got.output
    header = got.output.splitlines()[0]
    first = f"replay/gpt-4-1106-preview ({runs['one'].parent.name}/one)"
    second = "replay/gpt-4-1106-preview (copies/one)"
    assert first in header and second in header and f"{second} - {first}" in header
    shared = next(line for line in got.output.splitlines() if line.startswith(f"{second} - {first}: "))
    assert shared.startswith(f"{second} - {first}: paired over the shared problems, t=0: 3 (pass@1_plus 1, "), shared
    assert "divergent/neogauge/cumulative_neogauge 2" in shared and "; t=1: 3" in shared
    assert "t=0: of its n=3 samples, pass@1_plus over 1 (pass@1 on those: " in got.output
    assert "divergent/neogauge over 2" in got.output
    assert f"  {first}: folder {runs['one']}; language python; dataset codeforces-1.0; problems t=0: 3, t=1: 3" \
        in got.output
    # two different runs keep their labels: nothing added
    other = cli(str(runs["one"]), str(runs["two"]), "--no-published")
    assert other.exit_code == 0, other.output
    head = other.output.splitlines()[0]
    assert "replay/gpt-4-1106-preview - replay/gpt-4-1106-preview" not in head  # the old, identical headers
    assert "(one)" in head and "(two)" in head  # same model, folders differ by name
    assert "paired over the shared problems, t=0: 1" in other.output  # 1901A only
    assert "neogauge_best@2" in other.output and "neogauge_best@5" not in other.output


def test_distinct_labels_only_where_labels_clash(runs, tmp_path):
    one, two = load_run(runs["one"]), load_run(runs["two"])
    two.label = "another model"
    kept = distinct_labels([one, two])
    assert [r.label for r in kept] == ["replay/gpt-4-1106-preview", "another model"]
    same = distinct_labels([load_run(runs["one"]), load_run(runs["one"])])  # one folder given twice
    assert same[0].label != same[1].label and same[1].label.endswith("#2")
    assert one.label == "replay/gpt-4-1106-preview"  # the caller's runs are not renamed


def test_table4_is_flagged_beside_a_small_run_and_not_beside_a_full_one(runs, tmp_path):
    got = cli(str(runs["one"]))
    assert got.exit_code == 0, got.output
    flag = [line for line in got.output.splitlines() if line.startswith("beside a small run:")]
    assert flag == ["beside a small run: GPT-4 (published) is over 199, 199 problems at t=0, 1; "
                    "replay/gpt-4-1106-preview scored 3, 3: at that size its rates can differ from the published "
                    "ones by chance alone (see its ± intervals)"]
    run = load_run(runs["one"])
    full = published.table4()
    full.problems = {"0": 3, "1": 3}  # a paper over as many problems as the run: nothing to flag
    assert small_run_lines(compare([run, full], resamples=50)) == []
    assert small_run_lines(compare([run, published.table4()], resamples=50)) != []
    assert published.small_run_note({"0": 199, "1": 199}) is None
    assert "this run scored 3" in published.small_run_note({"0": 3})
    assert "beside a small run" not in cli(str(runs["one"]), "--no-published").output

    index = build_report([runs["one"], runs["two"]], tmp_path / "report")
    page = html.unescape(index.read_text())
    assert "Beside a small run: Table 4 is over 199, 199 problems at t=0, 1 (the paper's Table 1); this run " \
           "scored 3, 3" in page
    assert "best-of-2 NeoGauge" in page and "best-of-5" not in page
    assert "pass@1+ext (over those whose state has extended tests: 1 at t=0" in page
    assert "constraint following (over" not in page and "follow (over" not in page  # over n: no base


def test_the_default_diversity_measure_is_explained_where_it_is_printed(runs):
    table = eval_table(metrics(runs["one"]))
    status = [line for line in table.splitlines() if line.startswith("UNVALIDATED default measure:")]
    assert len(status) == 1 and "below 0.4" in status[0] and "The default rule" in status[0]
    assert "UNVALIDATED default measure" in cli(str(runs["one"]), "--no-published").output
    settled = default_status({"default": "operations", "validated": True})
    assert settled.startswith("default measure: operations") and "UNVALIDATED" not in settled
    assert default_status({"measures": ["technique"]}) is None  # a block naming no default: nothing to explain
    assert "default measure" not in eval_table({"model": "m", "states": {}})


class FailingQuestion(Loopback):
    """A chat endpoint on loopback that answers every question but the one naming
    ``fail`` with a fresh answer, and that one with HTTP 500."""

    def __init__(self, fail: str):
        self.count, self.lock = 0, threading.Lock()
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                if fail in json.dumps(body["messages"]):
                    send(self, 500, b'{"error": {"message": "down"}}')
                    return
                with outer.lock:
                    outer.count += 1
                    n = outer.count
                text = ["Plant street trees for shade.", "Paint roofs white.", "Plant street trees for shade."][
                    min(n - 1, 2)]
                send(self, 200, json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                            "choices": [{"index": 0, "finish_reason": "stop",
                                                         "message": {"role": "assistant", "content": text}}],
                                            "usage": {"prompt_tokens": 5, "completion_tokens": 5,
                                                      "total_tokens": 10}}).encode())

        self.serve(Handler)


def test_aidanbench_errors_say_what_was_left_out(tmp_path):
    questions = tmp_path / "q.txt"
    questions.write_text("What could cities do about heat?\nWhy do people keep diaries?\n")
    with FailingQuestion("diaries") as server:
        done = CliRunner().invoke(main, ["aidanbench", "--model", "openai/gen", "--base-url", server.url,
                                         "--api-key", "k", "--max-retries", "0", "--judge", "none",
                                         "--max-answers", "3", "--max-errors", "1", "--questions", str(questions),
                                         "--out", str(tmp_path / "run"), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "answers over 1 judged questions" in done.output  # the diaries question is not among them
    m = metrics(tmp_path / "run")
    assert m["outcome"]["errors"] == 1 and m["models"]["openai/gen"]["errors"] == 0  # unchanged numbers
    ended = RunFolder(tmp_path / "run", create=False).read(QuestionResult)
    assert sorted(q.stop_reason for q in ended) == ["error", "repetitive"]

    page = build_report([tmp_path / "run"], tmp_path / "report").read_text()
    assert "1 left out: 1 error" in page
    from neocoder.report.sections.aidanbench import totals_row
    assert totals_row("m", m["models"]["openai/gen"])["errors"] == "0"  # nothing left out: 0
    assert totals_row("m", m["models"]["openai/gen"], {"error": 1, "not ended": 2})["errors"] == \
        "3 left out: 1 error, 2 not ended"


def test_compare_of_the_same_numbers_renders_them_unchanged(runs):
    """Only labels were added: every value cell of the table is the value metrics.json holds."""
    result = compare([load_run(runs["one"]), load_run(runs["again"])], resamples=50)
    text = render(result)
    for row in result["rows"]:
        for v in row["values"]:
            if v is not None and row["metric"] not in ("semantic_entropy", "technique_entropy"):
                assert f"{100 * v['value']:.1f}%" in text
    assert json.loads(render(result, "json"))["runs"][0]["problems"] == {"0": 3, "1": 3}


def test_the_eval_command_prints_best_of_k_with_the_runs_k(runs, release_dir):
    """``neocoder eval`` on the 2-sample run's folder (resumed: nothing judged again) names best@2."""
    ran = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--temperature", "0.8",
                                    "--problems", "1901A", "--states", "0", "--samples", "2", "--bootstrap", "100",
                                    "--out", str(runs["two"]), "--release", str(release_dir), "--quiet"])
    assert ran.exit_code == 0, ran.output
    assert "best@2 NeoG" in ran.output and "best@k" not in ran.output
