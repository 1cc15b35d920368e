"""The leaderboard's cells carry their items (issue 47): a test board of GPT-4's full replay
run, a later 2-problem run of the same model (two problems it solves: 100%), a 2-problem
run of a scripted model and a quick suite, built by ``neocoder leaderboard`` and looked
at in Chromium.

What must hold: the full run keeps its row (22.6% pass@1 on all 199 problems, as in the
paper's setting); no star goes to a 2-problem run or to the quick suite's cells; every
cell of ours shows its n; the quick suite's and the 2-problem runs' NeoCoder cells are
marked as a subset; two runs of one model with other settings are two rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cdp import Chromium
from checkout import CHECKOUT
from click.testing import CliRunner
from loopback import RespondingServer
from suite_runs import liveideabench_dir, make_runs

from neocoder.cli import main
from neocoder.report.leaderboard.collect import collect
from neocoder.report.leaderboard.ties import ties

GPT4 = "replay/gpt-4-1106-preview"
SOLVED = "1884A,1878A"  # two problems GPT-4's recorded t=0 replies solve
PASS = "eval.pass@1_t0"


def evaluate(*args: str) -> None:
    done = CliRunner().invoke(main, ["eval", "--states", "0", "--quiet", *args])
    assert done.exit_code == 0, done.output


@pytest.fixture(scope="module")
def board(tmp_path_factory, release_dir):
    """The four runs, in the order a user made them, and the site built from them."""
    root = tmp_path_factory.mktemp("board")
    evaluate("--model", GPT4, "--out", str(root / "gpt4-full"))
    evaluate("--model", GPT4, "--problems", SOLVED, "--out", str(root / "gpt4-two"))
    server = RespondingServer(lambda kind, body: ("```python\ndef solve():\n    print(0)\n```", None))
    try:
        evaluate("--model", "openai/scripted", "--base-url", server.url, "--api-key", "k", "--problems", SOLVED,
                 "--out", str(root / "scripted-two"))
    finally:
        server.close()
    suite, _ = make_runs(root / "suites", release_dir)
    runs = [root / "gpt4-full", root / "gpt4-two", root / "scripted-two", suite]
    out = root / "site"
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT), LIVEIDEABENCH_DIR=liveideabench_dir())
    done = subprocess.run([sys.executable, "-m", "neocoder.cli", "leaderboard", *map(str, runs), "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return runs, out


@pytest.mark.docker
def test_the_full_run_keeps_its_row_and_cells_carry_their_items(board):
    runs, _ = board
    rows = collect(runs)
    gpt4 = [r for r in rows if r.model == GPT4]
    by_folder = {r.sources["eval"].folder.name: r for r in gpt4 if "eval" in r.sources}
    assert set(by_folder) == {"gpt4-full", "gpt4-two", "eval"}  # the suite's eval sub-run is a row of its own
    full, two, quick = by_folder["gpt4-full"], by_folder["gpt4-two"], by_folder["eval"]
    assert full.values[PASS]["n"] == 199 and not full.values[PASS]["subset"]
    assert round(100 * full.values[PASS]["value"], 1) == 22.6
    assert two.values[PASS]["value"] == 1.0 and two.values[PASS]["n"] == 2
    assert two.values[PASS]["subset"] and quick.values[PASS]["subset"] and quick.values[PASS]["n"] == 5
    assert full.settings != quick.settings  # a standalone run and the suite's: told apart by their settings
    marks = ties(rows, [PASS, "eval.convergent_t5"])
    assert PASS not in marks  # one run covers all 199 problems: nothing to rank it against, no star


def test_a_subset_run_is_starred_only_beside_runs_on_the_same_full_set(board):
    """The rule itself, on the collected rows: give the two 2-problem runs a default set of
    2 problems and they are ranked (the better one starred); with 199, they are not."""
    runs, _ = board
    rows = collect(runs[1:3])
    assert PASS not in ties(rows, [PASS])
    for r in rows:
        r.sources["eval"].default = 2
    marks = ties(rows, [PASS])
    best = next(r for r in rows if r.model == GPT4)
    assert marks[PASS]["best"] == best.id


@pytest.mark.docker
def test_the_board_in_chromium_shows_n_subsets_and_no_star_on_a_subset(board, tmp_path):
    _, site = board
    browser = Chromium(tmp_path / "profile", size="1600,1100")
    try:
        page = browser.page()
        page.goto((site / "index.html").as_uri())
        page.wait_for("document.getElementById('shown') && document.getElementById('shown').textContent")
        cells = page.evaluate(
            "[...document.querySelectorAll('#board tbody tr[data-published=\"0\"]')].map(r => ["
            " r.dataset.model, r.querySelector('.settings') ? r.querySelector('.settings').textContent : '',"
            " [...r.querySelectorAll('td[data-col]')].filter(td => td.dataset.value !== '').map(td => ["
            "   td.dataset.col, !!td.querySelector('.best'), !!td.querySelector('.tie'),"
            "   !!td.querySelector('.subset'), td.querySelector('.n') ? td.querySelector('.n').textContent : ''])])")
        shot = page.screenshot(tmp_path / "board.png")
        assert shot.stat().st_size > 20_000
        copy = os.environ.get("NEOCODER_SCREENSHOT_DIR")
        if copy:
            Path(copy).mkdir(parents=True, exist_ok=True)
            shot.replace(Path(copy) / "leaderboard-items.png")
    finally:
        browser.close()
    models = [m for m, _, _ in cells]
    assert models.count(GPT4) == 3 and "openai/scripted" in models
    for model, settings, measured in cells:
        assert settings, model  # every row of ours says how it was run and when
        for col, best, tie, subset, n in measured:
            assert n.startswith("n="), (model, col)  # every cell shows its n
            if col.startswith("eval."):
                assert not best and not tie, (model, col)  # nothing in NeoCoder's columns shares the full set
                assert subset == (n != "n=199"), (model, col, n)


def test_the_framework_papers_tables_are_published_rows_macgyver_in_its_columns_the_rest_apart():
    from neocoder.report.leaderboard.collect import published_rows
    from neocoder.report.leaderboard.site import board_html
    rows = [r for r in published_rows() if r.id.startswith("published-framework-")]
    assert len(rows) == 14 + 4 + 4  # Tables 3, 4 and 5 of the paper
    gpt4o = next(r for r in rows if r.model == "GPT 4o" and "Table 3" in r.origin)
    assert gpt4o.values["framework.overall"]["value"] == 0.63 and gpt4o.values["framework.entropy"]["value"] == 2.08
    assert gpt4o.other == {"safety": 0.86}
    # the paper's Overall is the mean of its three criteria (to the table's rounding)
    for r in rows:
        criteria = [v for k, v in r.other.items() if k not in ("semantic entropy", "overall")]
        if "Table 3" in r.origin:
            criteria += [r.values["framework.feasible"]["value"], r.values["framework.effective"]["value"]]
        overall = r.values.get("framework.overall", {}).get("value", r.other.get("overall"))
        assert len(criteria) == 3 and abs(sum(criteria) / 3 - overall) <= 0.011, (r.model, r.origin)
    html = str(board_html(rows))
    main, apart = html.split('id="apart"')
    assert "Vicuna 7B" in main and "Table 4 (hypogen)" not in main  # HypoGen's figures never in MacGyver's columns
    assert "Table 4 (hypogen)" in apart and "Table 5 (bookmia)" in apart and "scientific accuracy 0.21" in apart


def _framework_run(out: Path) -> Path:
    """A standalone ``neocoder framework`` run on one MacGyver problem, judged, against the
    framework tests' scripted server (tests/benchmarks/framework/test_framework_surfaces.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "framework_surfaces", CHECKOUT / "tests" / "benchmarks" / "framework" / "test_framework_surfaces.py")
    surfaces = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(surfaces)
    with RespondingServer(surfaces.make_respond(), usage=surfaces.USAGE) as server:
        done = CliRunner().invoke(main, ["framework", "--model", "openai/scripted", "--judge", "openai/judge",
                                         "--base-url", server.url, "--api-key", "x", "--domain", "macgyver",
                                         "--limit", "1", "--candidates", "2", "--max-steps", "2", "--entailment",
                                         "llm", "--judges", "retrieval", "--bootstrap", "20", "--out", str(out),
                                         "--quiet"])
    assert done.exit_code == 0, done.output
    return out


@pytest.mark.docker
def test_each_benchmarks_own_run_makes_a_board_alone(board, tmp_path):
    """A framework run, an AidanBench run and an ideas run, each given alone (the latter two
    the quick suite's own run folders of those benchmarks), each make a board with its row."""
    runs, _ = board
    suite = runs[3]
    alone = {"framework": _framework_run(tmp_path / "framework"), "aidanbench": suite / "aidanbench",
             "ideas": suite / "ideas"}
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT), LIVEIDEABENCH_DIR=liveideabench_dir())
    for bench, folder in alone.items():
        (row,) = collect([folder])
        assert bench in row.sources and any(k.startswith(bench + ".") and v["value"] is not None
                                            for k, v in row.values.items()), (bench, row.values)
        out = tmp_path / f"site-{bench}"
        done = subprocess.run([sys.executable, "-m", "neocoder.cli", "leaderboard", str(folder), "--out", str(out),
                               "--no-reports"], capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        html = (out / "index.html").read_text()
        assert f'data-published="0" data-id="{row.id}"' in html, bench
    overall = collect([alone["framework"]])[0].values["framework.overall"]
    assert overall["value"] is not None and overall["n"] == 1  # Overall beside the criteria, on 1 problem

