"""C++ visible and never mixed in the outputs (issue 58, F1).

Two scripted models on loopback (``openai/strong`` answers every problem with an accepted
human solution of the release, ``openai/weak`` only the first two, then a program that is
wrong: WA in Python, a compile error in C++) are evaluated with ``neocoder eval`` in
Python and in C++ on a dataset file of four problems at t = 0, judged in the real Docker
sandbox.  From those four run folders: the report labels each run with its language and
shows and filters the CE verdict; the leaderboard puts a language on every row and stars
and ties each language apart (a star and a tie within one language still happen; none
across languages).  The verdict styles and filters are checked for every verdict the
judge gives (``neocoder.judge.VERDICTS``) on a hand-written run, in Chromium.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import dump_dom, screenshot
from cdp import Chromium
from click.testing import CliRunner
from loopback import RespondingServer

from neocoder.cli import main
from neocoder.dataset.shipped import load_states
from neocoder.judge import VERDICTS
from neocoder.records import Manifest, Sample, TierResult
from neocoder.report.html import build_report
from neocoder.report.leaderboard.collect import collect, source_language
from neocoder.report.leaderboard.site import build_leaderboard
from neocoder.report.leaderboard.ties import ties
from neocoder.report.verdicts import NO_PROGRAM, NO_REPLY, SHOWN, VERDICT_COLORS, badge_class, sample_verdict
from neocoder.store import RunFolder
from neocoder.techniques.human import solutions_by_language

SHOTS = Path("/work/briefs/shots")  # where the brief asks for the screenshots (never in the repository)
PASS = "eval.pass@1_t0"
WRONG = {"python": "```python\nprint(-1)\n```", "cpp": "```cpp\nint main( {\n```"}  # WA, and a CE


def four_problems(release_dir) -> list:
    """The first four t = 0 states of the shipped dataset whose problem has an accepted human
    solution in both languages, and those solutions ``{problem: {language: source}}``."""
    states = [s for s in load_states() if s.state == 0]
    humans = solutions_by_language(release_dir, [s.problem_id for s in states[:40]])
    chosen = []
    for s in states[:40]:
        by = {}
        for language, source in humans.get(s.problem_id, []):
            by.setdefault(language, source)
        if {"python", "cpp"} <= set(by):
            chosen.append((s, by))
        if len(chosen) == 4:
            return chosen
    raise AssertionError("fewer than four problems with a human solution in Python and in C++")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, release_dir):
    """{(model, language): run folder} of the four runs, on a dataset file of four problems."""
    root = tmp_path_factory.mktemp("language-rows")
    chosen = four_problems(release_dir)
    dataset = root / "four.jsonl"
    dataset.write_text("".join(json.dumps(s.to_dict()) + "\n" for s, _ in chosen))

    def respond(kind, body):
        asked = body["messages"][-1]["content"]
        language = "cpp" if "C++17" in asked else "python"
        for i, (state, sources) in enumerate(chosen):
            if state.statement.strip() in asked:
                if "weak" in body["model"] and i >= 2:
                    return WRONG[language], None
                return f"```{language}\n{sources[language]}\n```", None
        raise AssertionError("a prompt for none of the four problems")

    out = {}
    with RespondingServer(respond) as server:
        for model in ("strong", "weak"):
            for language in ("python", "cpp"):
                folder = root / f"{model}-{language}"
                ran = CliRunner().invoke(main, [
                    "eval", "--model", f"openai/{model}", "--base-url", server.url, "--api-key", "k",
                    "--language", language, "--dataset", str(dataset), "--states", "0", "--out", str(folder),
                    "--release", str(release_dir), "--quiet"])
                assert ran.exit_code == 0, ran.output
                out[(model, language)] = folder
    return out


class Cells(HTMLParser):
    """The text of every row of every table of a page, table by table."""

    def __init__(self):
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._row, self._cell = None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def table(path: Path, *head: str) -> list[list[str]]:
    """The first table of the page at ``path`` whose header row starts with ``head``."""
    parsed = Cells()
    parsed.feed(path.read_text(encoding="utf-8"))
    return next(rows for rows in parsed.tables if rows and rows[0][:len(head)] == list(head))


@pytest.mark.docker
def test_a_report_of_a_cpp_and_a_python_run_of_one_model_labels_both_and_shows_ce(runs, tmp_path):
    python, cpp = runs[("weak", "python")], runs[("weak", "cpp")]
    index = build_report([python, cpp], tmp_path / "report")
    runs_table = table(index, "run", "kind", "language")
    assert [row[:3] for row in runs_table[1:]] == [["openai/weak [python]", "eval", "python"],
                                                   ["openai/weak [cpp]", "eval", "cpp"]]
    text = index.read_text(encoding="utf-8")
    assert "<h4>openai/weak [python]</h4>" in text and "<h4>openai/weak [cpp]</h4>" in text
    verdicts = table(index, "run", "state")
    head = verdicts[0]
    assert "CE" in head and "WA" in head  # the C++ run's compile errors have a column of their own
    counts = {row[0]: dict(zip(head[2:], row[2:])) for row in verdicts[1:]}
    assert counts["openai/weak [cpp]"]["CE"] == "2" and counts["openai/weak [python]"]["CE"] == "0"
    assert counts["openai/weak [python]"]["WA"] == "2"

    drill = index.parent / "run2-weak-cpp.html"
    assert 'class="lang lang-cpp">cpp</span>' in drill.read_text(encoding="utf-8")
    profile = tmp_path / "profile"
    filtered = dump_dom(drill.as_uri() + "?verdict=CE", profile)
    options = re.findall(r'<option value="([^"]*)"', filtered)
    assert "CE" in options and "AC" in options
    shown = re.findall(r'<tr data-state="0" data-verdict="([^"]+)"( hidden="")?', filtered)
    assert sorted(v for v, hidden in shown if not hidden) == ["CE", "CE"] and len(shown) == 4
    assert 'data-shown="2"' in filtered

    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in (("f1-report-index.png", index), ("f1-report-cpp-ce.png", drill)):
        shot = screenshot(page.as_uri() + ("?verdict=CE" if page == drill else ""), SHOTS / name, profile,
                          size="1400,1300")
        assert shot.stat().st_size > 10_000


@pytest.mark.docker
def test_a_report_of_python_runs_only_keeps_its_labels(runs, tmp_path):
    index = build_report([runs[("strong", "python")], runs[("weak", "python")]], tmp_path / "report")
    text = index.read_text(encoding="utf-8")
    assert "<h4>openai/strong</h4>" in text and "<h4>openai/weak</h4>" in text and "[python]" not in text
    runs_table = table(index, "run", "kind", "language")
    assert [row[2] for row in runs_table[1:]] == ["python", "python"]  # the language is still shown, as a column


@pytest.mark.docker
def test_stars_and_ties_stay_within_a_language(runs):
    rows = collect(list(runs.values()))
    assert len(rows) == 4 and {(r.model, r.language) for r in rows} == {
        (f"openai/{m}", lang) for m in ("strong", "weak") for lang in ("python", "cpp")}
    ids = {(r.model.split("/")[1], r.language): r.id for r in rows}
    assert [r.values[PASS]["value"] for r in rows if r.model == "openai/strong"] == [1.0, 1.0]

    marks = ties(rows, [PASS])[PASS]
    assert marks["best"] is None  # one best per language, none across
    assert marks["languages"] == {"python": ids[("strong", "python")], "cpp": ids[("strong", "cpp")]}
    assert marks["tied"] == {ids[("strong", "python")]: "best", ids[("strong", "cpp")]: "best",
                             ids[("weak", "python")]: "paired over 4 shared items",
                             ids[("weak", "cpp")]: "paired over 4 shared items"}

    # within one language, as before: the strong run starred, the weak one tied with it
    python = [r for r in rows if r.language == "python"]
    assert ties(python, [PASS])[PASS] == {"best": ids[("strong", "python")], "tied": {
        ids[("strong", "python")]: "best", ids[("weak", "python")]: "paired over 4 shared items"}}
    # a C++ row next to one Python row: neither has a second row of its language, so no star at all
    lone = [r for r in rows if r.id in (ids[("strong", "python")], ids[("weak", "cpp")])]
    assert ties(lone, [PASS]) == {}


@pytest.mark.docker
def test_the_leaderboard_labels_every_row_and_never_stars_across_languages(runs, tmp_path):
    index = build_leaderboard(list(runs.values()), tmp_path / "site", published=False, reports=False)
    profile = tmp_path / "profile"
    browser = Chromium(profile, size="1500,900")
    try:
        page = browser.page()
        page.goto(index.as_uri())
        page.wait_for("document.getElementById('shown') && document.getElementById('shown').textContent")
        got = page.evaluate(
            "[...document.querySelectorAll('#board tbody tr')].map(r => [r.dataset.model, r.dataset.language,"
            " r.querySelector('.badge.lang') ? r.querySelector('.badge.lang').textContent : '',"
            " !!r.querySelector('td[data-col=\"eval.pass@1_t0\"] .best'),"
            " r.querySelector('td[data-col=\"eval.pass@1_t0\"]').title])")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(SHOTS / "f1-leaderboard.png")
    finally:
        browser.close()
    by = {(model, language): (badge, best, tie) for model, language, badge, best, tie in got}
    assert len(got) == 4
    tie = "tied with the best {} run: paired over 4 shared items"  # each tie names its language's best
    assert by == {("openai/strong", "python"): ("python", True, ""), ("openai/strong", "cpp"): ("cpp", True, ""),
                  ("openai/weak", "python"): ("python", False, tie.format("python")),
                  ("openai/weak", "cpp"): ("cpp", False, tie.format("cpp"))}
    model_pages = sorted((tmp_path / "site" / "models").glob("*.html"))
    assert len(model_pages) == 4 and all("Programs in" in p.read_text() for p in model_pages)


def test_the_language_of_a_source_is_its_benchmarks_only_where_it_has_programs():
    assert source_language("eval", {}) == "python"  # a NeoCoder run from before C++
    assert source_language("eval", {"language": "cpp"}) == "cpp"
    assert source_language("aidanbench", {"language": "cpp"}) is None  # a C++ suite's AidanBench has no language
    assert source_language("ideas", {}) is None
    assert source_language("no-such-benchmark", {"language": "cpp"}) is None


def sample_with(verdict: str, i: int) -> Sample:
    """A t = 0 sample whose report verdict is ``verdict``: a test of that verdict for the
    judge's, a model error for "no reply", a reply without a program for "no program"."""
    base = dict(problem_id=f"P{i:02d}", state=0, sample=0, model="openai/m", constraints=[], prompt_sha256="0" * 64,
                reply="print(1)", code="print(1)", entry="script")
    if verdict == NO_REPLY:
        return Sample(**{**base, "reply": None, "code": None}, error="HTTP 500 from the endpoint")
    if verdict == NO_PROGRAM:
        return Sample(**{**base, "code": None, "reply": ""}, no_program="empty", examples=TierResult([], False))
    test = {"verdict": verdict, "cpu_seconds": 0.01, "wall_seconds": 0.02, "detail": ""}
    return Sample(**base, examples=TierResult(tests=[test], correct=verdict == "AC", infra=verdict == "INFRA"),
                  plus=TierResult(tests=[], correct=False, skipped=3))


def test_every_verdict_the_judge_gives_has_a_style_and_a_filter_entry(tmp_path, release_dir):
    assert set(VERDICT_COLORS) == set(SHOWN) and set(VERDICTS) <= set(SHOWN)
    sample_verdicts = [*VERDICTS, NO_REPLY, NO_PROGRAM]
    samples = [sample_with(v, i) for i, v in enumerate(sample_verdicts)]
    assert [sample_verdict(s) for s in samples] == sample_verdicts
    folder = RunFolder(tmp_path / "every")
    folder.write_manifest(Manifest.capture("eval", {"model": {"spec": "openai/m"}, "dataset": "release",
                                                    "release_dir": str(release_dir), "language": "cpp"}))
    for sample in samples:
        folder.append(sample)
    folder.write_metrics({"model": "openai/m", "states": {"0": {"n": len(samples), "excluded": 2, "pass@1": 0.1}}})
    index = build_report([folder.path], tmp_path / "report")
    drill = index.parent / "run1-every.html"
    browser = Chromium(tmp_path / "profile", size="1400,1200")
    try:
        page = browser.page()
        page.goto(drill.as_uri())
        page.wait_for("document.getElementById('shown') && document.getElementById('shown').textContent")
        options = page.evaluate("[...document.querySelectorAll('#f-verdict option')].map(o => o.value)")
        styles = page.evaluate(
            "(() => { const out = {}; for (const v of " + json.dumps(list(SHOWN)) + ") {"
            " const b = document.createElement('span'); b.className = 'v v-' + v.replace(/ /g, '-');"
            " b.textContent = v; document.body.appendChild(b); const s = getComputedStyle(b);"
            " out[v] = [s.backgroundColor, s.color, s.borderTopStyle, b.className]; } return out; })()")
        shown = {}
        for verdict in sample_verdicts:
            shown[verdict] = page.evaluate(
                "(() => { const f = document.getElementById('f-verdict'); f.value = " + json.dumps(verdict) + ";"
                " f.dispatchEvent(new Event('change')); return [...document.querySelectorAll('#samples tbody tr')]"
                ".filter(r => !r.hidden).map(r => r.dataset.verdict); })()")
    finally:
        browser.close()
    assert options == ["", *[v for v in VERDICT_COLORS if v in sample_verdicts]]  # every verdict, in figure order
    for verdict in sample_verdicts:
        assert shown[verdict] == [verdict], verdict  # the filter keeps exactly that verdict's row
    white = "rgb(255, 255, 255)"
    for verdict, (background, color, border, css) in styles.items():
        assert css == f"v {badge_class(verdict)}"
        assert background != "rgba(0, 0, 0, 0)", verdict  # a background of its own (unstyled: transparent)
        assert background != color, (verdict, background, color)  # never white on white
        assert background != white or border == "dashed", (verdict, border)  # white only for "not run", outlined


@pytest.mark.docker
def test_a_suite_runs_language_is_the_suites_for_every_benchmark_of_it(runs):
    from neocoder.benchmarks import benchmark
    from neocoder.report.leaderboard.collect import _source
    suite = {"model": {"spec": "openai/strong"}, "preset": "quick"}
    step = runs[("strong", "python")]
    in_cpp = _source(benchmark("eval"), step, "openai/strong", "openai/strong", step.parent,
                     {**suite, "language": "cpp"})
    assert in_cpp.settings["language"] == "cpp" and in_cpp.language == "cpp"
    in_python = _source(benchmark("eval"), runs[("strong", "cpp")], "openai/strong", "openai/strong", step.parent,
                        {**suite, "language": "python"})
    assert "language" not in in_python.settings and in_python.language == "python"
