"""``neocoder leaderboard``: the static site from suite runs, opened from disk in headless
Chromium with the network off; ties; published rows beside ours; Parquet downloads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cdp import Chromium
from checkout import CHECKOUT
from suite_runs import liveideabench_dir, make_runs

from neocoder.report.leaderboard.collect import Row, collect
from neocoder.report.leaderboard.ties import ties


def row(rid: str, value: float, low: float, high: float) -> Row:
    return Row(id=rid, model=rid, values={"ideas.originality": {"value": value, "low": low, "high": high}})


def test_ties_are_rows_whose_intervals_reach_the_best():
    rows = [row("a", 7.0, 6.5, 7.5), row("b", 6.8, 6.0, 6.6), row("c", 6.0, 5.5, 6.4),
            Row(id="p", model="p", published=True, values={"ideas.originality": {"value": 9.0}})]
    marks = ties(rows, ["ideas.originality"])["ideas.originality"]
    assert marks["best"] == "a"  # published rows are never ranked against ours
    assert marks["tied"] == {"a": "best", "b": "intervals overlap"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, release_dir):
    return make_runs(tmp_path_factory.mktemp("suites"), release_dir)


@pytest.fixture(scope="module")
def site(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "board"
    env = dict(os.environ, PYTHONPATH=str(CHECKOUT), LIVEIDEABENCH_DIR=liveideabench_dir())
    done = subprocess.run([sys.executable, "-m", "neocoder.cli", "leaderboard", str(runs[0].parent), "--out",
                           str(out)], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.mark.docker
def test_rows_pair_shared_items_and_keep_stand_ins_apart(runs):
    rows = {r.model: r for r in collect([runs[0].parent])}
    assert set(rows) == {"replay/gpt-4-1106-preview", "openai/other"}
    gpt4 = rows["replay/gpt-4-1106-preview"]
    assert gpt4.stand_in == {"aidanbench": "openai/stand-in", "ideas": "openai/stand-in"}
    assert "eval.pass@1_t0" in gpt4.values and "eval.pass@1_t0" not in rows["openai/other"].values
    from neocoder.report.leaderboard.ties import tied
    same, how = tied(gpt4, rows["openai/other"], "aidanbench.answers")
    assert how.startswith("paired over 5 shared items")  # the quick preset's 5 questions, both runs


@pytest.mark.docker
def test_static_leaderboard_opens_offline_with_published_rows_beside_ours(site, runs, tmp_path):
    index = site / "index.html"
    browser = Chromium(tmp_path / "profile", size="1500,1100")
    try:
        page = browser.page()
        page.call("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1,
                  uploadThroughput=-1)
        page.goto(index.as_uri())
        page.wait_for("document.getElementById('shown') && document.getElementById('shown').textContent")
        ours = page.evaluate("[...document.querySelectorAll('#board tbody tr[data-published=\"0\"]')]"
                             ".map(r => r.dataset.model)")
        published = page.evaluate("[...document.querySelectorAll('#board tbody tr[data-published=\"1\"]')]"
                                  ".map(r => r.dataset.model)")
        assert sorted(ours) == ["openai/other", "replay/gpt-4-1106-preview"]
        assert "gpt-4-1106-preview" in published and len(published) > 10  # Table 4 and LiveIdeaBench's rows
        requested = [e["params"]["request"]["url"] for e in browser.events
                     if e["method"] == "Network.requestWillBeSent"]
        assert any(u.endswith("static/leaderboard.js") for u in requested), requested
        assert all(u.startswith("file://") for u in requested), requested  # nothing from a network
        assert page.evaluate("getComputedStyle(document.querySelector('th')).backgroundColor") == "rgb(242, 244, 247)"
        # sort by originality: descending, unmeasured rows last
        page.evaluate("document.querySelector('th[data-col=\"ideas.originality\"]').click()")
        values = page.evaluate("[...document.querySelectorAll('#board tbody tr')].map(r => "
                               "r.querySelector('td[data-col=\"ideas.originality\"]').dataset.value)")
        numbers = [float(v) for v in values if v != ""]
        assert numbers == sorted(numbers, reverse=True) and values[:len(numbers)] == [str(v) for v in values
                                                                                     if v != ""]
        # filter: only published rows hidden
        page.evaluate("{ const b = document.getElementById('filter-published'); b.checked = false;"
                      "b.dispatchEvent(new Event('change')) }")
        shown = page.evaluate("[...document.querySelectorAll('#board tbody tr')].filter(r => !r.hidden).length")
        assert shown == 2
        page.evaluate("{ const b = document.getElementById('filter-published'); b.checked = true;"
                      "b.dispatchEvent(new Event('change')) }")
        shot = page.screenshot(tmp_path / "leaderboard.png")
        assert shot.stat().st_size > 20_000
        # a model's page: its profile figure, its run's report and downloads, all on disk
        page.goto((site / "models" / "replay-gpt-4-1106-preview.html").as_uri())
        assert page.evaluate("document.querySelectorAll('svg').length") >= 1
        links = page.evaluate("[...document.querySelectorAll('a')].map(a => a.getAttribute('href'))")
        report = next(h for h in links if h.endswith("index.html") and "reports/" in h)
        assert (site / "models" / report).resolve().is_file()
        downloads = [h for h in links if h.endswith(".parquet")]
        assert len(downloads) == 3
    finally:
        browser.close()
    table = pq.read_table(site / "models" / next(d for d in downloads if d.endswith("-eval.parquet")))
    assert "type" in table.column_names and set(table.column("type").to_pylist()) == {"sample"}
    copy = os.environ.get("NEOCODER_SCREENSHOT_DIR")
    if copy:
        (Path(copy) / "leaderboard.png").write_bytes(shot.read_bytes())


def test_the_site_never_shows_the_operators_paths(site, runs):
    """A board is shown to others: its pages and reports name run folders, never where
    they lie on the machine that built it (issue 47, item 7)."""
    secrets = {str(runs[0].parent.resolve()), str(Path(liveideabench_dir()).resolve())}
    pages = [p for p in site.rglob("*.html")]
    assert any("reports" in p.parts for p in pages)  # the runs' reports are part of the site
    leaks = [(p.relative_to(site), s) for p in pages for s in secrets if s in p.read_text(encoding="utf-8")]
    assert not leaks, leaks
