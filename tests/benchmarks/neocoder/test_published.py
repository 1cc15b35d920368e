"""The paper's published figures beside every run (issue 23): the shipped Table 4 and Table 5
(Lu et al., NAACL 2025) read as package data, added by `neocoder compare` beside a GPT-4 run
and a strategy run, dataset versions checked before runs are paired, and the HTML report
showing the figures beside the measured ones in a real headless Chromium.

The runs are real: replayed GPT-4 answers judged in the Docker sandbox, directly and with
the self-correct strategy; variants of them (another model name, dataset versions) are
written with the record classes (store.RunFolder, records.Manifest)."""

import json
import shutil
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest
from browser import dump_dom, screenshot
from click.testing import CliRunner

from neocoder.api import evaluate
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError
from neocoder.report import published
from neocoder.report.compare import compare, load_run, render
from neocoder.report.html import build_report
from neocoder.store import RunFolder

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def runs(tmp_path_factory, release_dir, sandbox) -> dict[str, Path]:
    """Real eval runs of replayed GPT-4 on 3 release problems at states 0-2: ``gpt4``
    (direct) and ``sc`` (self-correct)."""
    root = tmp_path_factory.mktemp("paper-runs")  # compare prints run folders: no "published" in their names
    out = {}
    for name, strategy in (("gpt4", "direct"), ("sc", "self-correct")):
        done = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=root / name,
                                   release_dir=release_dir, dataset="release", states=[0, 1, 2], limit=3,
                                   strategy=strategy, bootstrap=100, progress=False))
        out[name] = done.run
    return out


def variant(src: Path, dst: Path, version: str | None = None, model: str | None = None) -> Path:
    """A copy of run folder ``src`` whose manifest names dataset ``version`` (None: no
    version, as in runs written before it was recorded) and whose metrics name ``model``."""
    shutil.copytree(src, dst)
    folder = RunFolder(dst, create=False)
    manifest = folder.read_manifest()
    manifest.extra.pop("dataset_version", None)
    if version is not None:
        manifest.extra["dataset_version"] = version
    folder.write_manifest(manifest)
    if model is not None:
        metrics = folder.read_metrics()
        metrics["model"] = model
        metrics.pop("format_version", None)
        folder.write_metrics(metrics)
    return dst


def cli(*args: str):
    return CliRunner().invoke(main, ["compare", *args, "--bootstrap", "100"])


def test_the_shipped_figures_are_read_as_package_data():
    raw4 = json.loads(resources.files("neocoder.codeforces").joinpath("published", published.TABLE4_FILE).read_text())
    t4 = published.table4()
    assert t4.published and "Table 4" in t4.published and t4.model == "gpt-4-1106-preview"
    assert sorted(t4.metrics["states"], key=int) == ["0", "1", "2", "3", "4", "5"]
    assert t4.value(0, "pass@1") == (0.161, None) and t4.value(1, "constraint_following") == (0.754, None)
    assert t4.metrics["states"] == raw4["states"] and not t4.ratios
    for ours, paper in (("mcts", "MCTS"), ("self-correct", "Self-Correction"), ("self-plan", "Planning"),
                        ("sample", "Sampling")):
        row = published.table5_for(ours)
        assert row["strategy"] == paper and "Table 5" in row["source"]
        assert set(row["states"]) == {"0", "1", "2", "3", "4", "5"}
        for cells in row["states"].values():
            for c in cells.values():
                assert c["delta"] == pytest.approx(c["new"] - c["old"], abs=1.5e-4)
    assert published.table5_for("direct") is None and published.table5_for(None) is None
    assert published.table5_states("mcts")["0"]["convergent"] == 0.1212


@pytest.mark.parametrize("model, expected", [
    ("replay/gpt-4-1106-preview", True), ("openai/gpt-4-1106-preview", True), ("openai/gpt-4", True),
    ("openai/gpt-4-turbo", True), ("replay//data/answers.jsonl#gpt-4-0613", True), ("gpt-4-1106-preview", True),
    ("openai/gpt-4o", False), ("openai/gpt-4o-mini", False), ("openai/gpt-4.1", False), ("human", False),
    ("openai/gpt-3.5-turbo", False), ("", False), (None, False)])
def test_which_models_are_the_papers_gpt4(model, expected):
    assert published.is_gpt4(model) is expected


def test_for_run_puts_table4_beside_gpt4_without_a_strategy_and_table5_beside_a_strategy():
    assert published.for_run("replay/gpt-4-1106-preview", "direct") == {"table4": True, "table5": None}
    assert published.for_run("openai/other", "direct") == {"table4": False, "table5": None}
    mcts = published.for_run("replay/gpt-4-1106-preview", "mcts")
    assert mcts["table4"] is False and mcts["table5"]["strategy"] == "MCTS"
    assert published.for_run("openai/other", "self-plan")["table5"]["strategy"] == "Planning"
    # the paper's figures are of Python programs: none beside a C++ run (a run with no language is Python)
    assert published.for_run("replay/gpt-4-1106-preview", "direct", None) == {"table4": True, "table5": None}
    assert published.for_run("replay/gpt-4-1106-preview", "direct", "cpp") == {"table4": False, "table5": None}
    assert published.for_run("openai/other", "self-plan", "cpp") == {"table4": False, "table5": None}


def test_compare_shows_table4_beside_a_gpt4_run_unless_told_not_to(runs, tmp_path):
    got = cli(str(runs["gpt4"]))
    assert got.exit_code == 0, got.output
    lines = got.output.splitlines()
    assert lines[0].split()[-3:] == ["replay/gpt-4-1106-preview", "GPT-4", "(published)"]
    pass0 = next(line.split() for line in lines if line.split()[:2] == ["0", "pass@1"])
    assert pass0[-1] == "16.1%"  # Table 4, state 0, pass@1: the published column, last
    assert not any(line.split()[:1] == ["3"] for line in lines)  # only beside the states the run has
    assert any(line.startswith("published (not re-measured): GPT-4 (published): Lu et al., NAACL 2025, Table 4")
               for line in lines)
    off = cli(str(runs["gpt4"]), "--no-published")
    assert off.exit_code == 0 and "published" not in off.output and "16.1%" not in off.output

    data = json.loads(cli(str(runs["gpt4"]), "--format", "json").output)
    assert [bool(r["published"]) for r in data["runs"]] == [False, True]
    assert all(row["diffs"] == [None] for row in data["rows"])  # published figures are never paired
    other = variant(runs["gpt4"], tmp_path / "other", model="openai/some-other-model")
    assert "published" not in cli(str(other)).output  # not GPT-4: nothing added

    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"label": "My table", "source": "a notebook", "states": {"0": {"pass@1": 0.5}}}))
    both = cli(str(runs["gpt4"]), "--published", str(mine))
    assert both.exit_code == 0 and "My table (published)" in both.output and "GPT-4 (published)" in both.output
    assert "My table (published): a notebook" in both.output


def test_compare_shows_table5_of_the_same_strategy_beside_the_measured_deltas(runs):
    got = cli(str(runs["gpt4"]), str(runs["sc"]))
    assert got.exit_code == 0, got.output
    assert "Table 5 layout" in got.output
    paper_rows = [line for line in got.output.splitlines() if "paper: GPT-4 + Self-Correction (published)" in line]
    assert len(paper_rows) == 3  # states 0-2, beside the measured rows
    assert "+12.1 (2.5 -> 14.6)" in paper_rows[0] and "-0.4 (5.4 -> 5.0)" in paper_rows[0]
    assert "Table 5 (difference before and after" in got.output
    alone = cli(str(runs["gpt4"]), str(runs["sc"]), "--format", "table5")
    rows = alone.output.splitlines()
    measured = [i for i, line in enumerate(rows)
                if line.strip().startswith("replay/gpt-4-1106-preview [self-correct]") and "calls" not in line]
    assert len(measured) == 3 and all("paper: GPT-4 + Self-Correction" in rows[i + 1] for i in measured)
    off = cli(str(runs["gpt4"]), str(runs["sc"]), "--format", "table5", "--no-published")
    assert off.exit_code == 0 and "paper:" not in off.output and "+0.0 (0.0 -> 0.0)" in off.output


def test_compare_refuses_runs_of_different_dataset_versions(runs, tmp_path):
    a = variant(runs["gpt4"], tmp_path / "a", version="codeforces-1.0")
    b = variant(runs["sc"], tmp_path / "b", version="codeforces-1.1")
    refused = cli(str(a), str(b))
    assert refused.exit_code == 1  # the CLI's NeocoderError exit, with its message
    message = " ".join(refused.output.split())
    for part in (str(a), str(b), "codeforces-1.0", "codeforces-1.1", "--allow-dataset-mismatch"):
        assert part in message, part
    allowed = cli(str(a), str(b), "--allow-dataset-mismatch")
    assert allowed.exit_code == 0, allowed.output
    assert "compared anyway (--allow-dataset-mismatch)" in allowed.output.splitlines()[-1]

    same = variant(runs["sc"], tmp_path / "same", version="codeforces-1.0")
    ok = cli(str(a), str(same))
    assert ok.exit_code == 0 and "note:" not in ok.output  # same version; Table 4 has none and is exempt

    old = variant(runs["sc"], tmp_path / "old")  # written before versions were recorded
    noted = cli(str(a), str(old))
    assert noted.exit_code == 0, noted.output
    note = [line for line in noted.output.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and str(old) in note[0] and "no dataset version" in note[0] and "codeforces-1.0" in note[0]
    assert '"dataset_version": "release-examples-' in runs["gpt4"].joinpath("manifest.json").read_text()
    older = variant(runs["gpt4"], tmp_path / "older")
    assert "note:" not in cli(str(older), str(old)).output  # neither has one: nothing to say

    with pytest.raises(NeocoderError, match="codeforces-1.0.*codeforces-1.1"):
        compare([load_run(a), load_run(b)], resamples=50)
    result = compare([load_run(a), load_run(b)], resamples=50, allow_dataset_mismatch=True)
    assert result["runs"][0]["dataset_version"] == "codeforces-1.0" and len(result["notes"]) == 1
    assert result["notes"][0] in render(result, "markdown")


class Beside(HTMLParser):
    """The published cells of the dumped DOM (``td.published``) and its ``.tag`` badges."""

    def __init__(self):
        super().__init__()
        self.cells: list[str] = []
        self.tags = 0
        self._in = False

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "td" and "published" in classes:
            self._in = True
            self.cells.append("")
        self.tags += "tag" in classes

    def handle_endtag(self, tag):
        if tag == "td":
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.cells[-1] += data


def test_report_shows_the_papers_figures_beside_the_runs_in_chromium(runs, tmp_path):
    index = build_report([runs["gpt4"], runs["sc"]], tmp_path / "report")
    dumped = dump_dom(index.as_uri(), tmp_path / "profile")
    page = Beside()
    page.feed(dumped)
    # Table 4 beside the GPT-4 run: 3 states x 5 rates; Table 5 beside self-correct: 3 x 3 x (value, change)
    assert len(page.cells) == 15 + 18 and page.tags == 2
    assert page.cells[:5] == ["16.1%", "100.0%", "16.2%", "4.5%", "1.0%"]  # Table 4, state 0
    assert page.cells[15:17] == ["14.6%", "+12.1 (2.5 → 14.6)"]  # Table 5, Self-Correction, state 0, convergent
    for needle in ("GPT-4 (published, Table 4)", "GPT-4 + Self-Correction (published, Table 5)",
                   "Lu et al., NAACL 2025, Table 4", "neocoder.codeforces/published/neocoder_table5_strategies.json"):
        assert needle in dumped, needle
    shot = tmp_path / "index.png"
    screenshot(index.as_uri(), shot, tmp_path / "profile", size="1400,2000")
    assert shot.stat().st_size > 10_000
