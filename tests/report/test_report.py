"""The HTML report (issue 12, item 3): built over a real replay eval, the human baseline and
an AidanBench re-scoring, then opened in a real headless Chromium, whose DOM must hold the
plots, every drill-down row, and rows hidden by a preselected filter."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import dump_dom, screenshot

from neocoder.api import evaluate, run_aidanbench
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError
from neocoder.records import Manifest, Sample
from neocoder.report.html import build_report
from neocoder.report.sections.neocoder import top_techniques
from neocoder.report.verdicts import sample_verdict
from neocoder.store import RunFolder


class DomCounts(HTMLParser):
    """Counts what the checks need in a dumped DOM: svg elements, sample rows (hidden or
    shown, by state), sample sections and the statements inside them."""

    def __init__(self):
        super().__init__()
        self.svgs, self.sections, self.statements = 0, 0, 0
        self.rows: list[tuple[str, str, bool]] = []  # (state, verdict, hidden)
        self.shown_text, self._in_shown = "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs += 1
        elif tag == "tr" and "data-state" in a:
            self.rows.append((a["data-state"], a["data-verdict"], "hidden" in a))
        elif tag == "section" and "sample" in (a.get("class") or "").split():
            self.sections += 1
        elif tag == "pre" and a.get("class") == "statement":
            self.statements += 1
        elif a.get("id") == "shown":
            self._in_shown = True

    def handle_endtag(self, tag):
        self._in_shown = False

    def handle_data(self, data):
        if self._in_shown:
            self.shown_text += data


def dom(url: str, profile: Path) -> DomCounts:
    """The DOM after the page's scripts ran (a virtual-time budget lets them finish)."""
    counts = DomCounts()
    counts.feed(dump_dom(url, profile))
    return counts


@pytest.fixture
def recorded_answers(tmp_path) -> Path:
    """Two models' recorded answers to two questions; "b" repeats itself at its second answer."""
    rows = {"What could cities do about heat?": ["Plant street trees for shade.", "Paint roofs white.",
                                                 "Open cooling centres in libraries."],
            "Why do people keep diaries?": ["To remember what happened.", "To sort out their feelings."]}
    path = tmp_path / "answers.jsonl"
    with path.open("w") as f:
        for question, answers in rows.items():
            for i, answer in enumerate(answers, 1):
                f.write(json.dumps({"model": "a", "question": question, "answer_num": i, "answer": answer}) + "\n")
                f.write(json.dumps({"model": "b", "question": question, "answer_num": i,
                                    "answer": answer if i == 1 else answers[0]}) + "\n")
    return path


@pytest.mark.docker
def test_report_opens_in_chromium_with_plots_rows_and_a_working_filter(tmp_path, release_dir, sandbox,
                                                                       recorded_answers):
    gpt4 = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "gpt4",
                               release_dir=release_dir, limit=3, progress=False))
    human = evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "human", release_dir=release_dir,
                                limit=3, progress=False))
    aidan = run_aidanbench(AidanConfig(model=ModelConfig(f"replay/{recorded_answers}"), judge=None,
                                       out=tmp_path / "aidan", progress=False))
    samples = RunFolder(gpt4.run, create=False).read(Sample)
    assert len(samples) >= 12  # 3 problems, up to 6 states each

    index = build_report([gpt4.run, human.run, aidan.run], tmp_path / "report")
    assert index == tmp_path / "report" / "index.html" and index.is_file()
    # the humans' technique sets are the shipped ones (no release detection at report time)
    assert "technique sets shipped with the codeforces-" in index.read_text()
    pages = sorted(p.name for p in index.parent.glob("run*.html"))
    assert pages == ["run1-gpt4.html"]  # one drill-down page, for the model run only

    profile = tmp_path / "chromium-profile"
    front = dom(index.as_uri(), profile)
    # NeoGauge (Fig. 4), convergent/divergent (Fig. 6/8), verdicts, pass@1; AidanBench totals, answers, curves
    assert front.svgs >= 7, f"{front.svgs} svg elements in index.html"
    text = index.read_text()
    for heading in ("NeoGauge@t", "Top-5 techniques per state", "Verdicts per state", "AidanBench",
                    "humans top 5", "replay/", "#a", "#b"):
        assert heading in text, heading

    drill = index.parent / pages[0]
    everything = dom(drill.as_uri(), profile)
    assert len(everything.rows) == len(samples) and not any(hidden for *_, hidden in everything.rows)
    assert everything.sections == len(samples) and everything.statements == len(samples)
    assert everything.shown_text == f"showing {len(samples)} of {len(samples)} samples"
    assert sorted(v for _, v, _ in everything.rows) == sorted(sample_verdict(s) for s in samples)

    in_state_1 = sum(1 for s in samples if s.state == 1)
    filtered = dom(drill.as_uri() + "?state=1", profile)
    shown = [r for r in filtered.rows if not r[2]]
    assert len(filtered.rows) == len(samples)  # the rows stay, the filter hides them
    assert len(shown) == in_state_1 and 0 < in_state_1 < len(samples)
    assert all(state == "1" for state, _, _ in shown)
    assert filtered.shown_text == f"showing {in_state_1} of {len(samples)} samples"
    verdict = sample_verdict(samples[0])
    by_verdict = dom(drill.as_uri() + f"#verdict={verdict}", profile)
    assert sum(1 for r in by_verdict.rows if not r[2]) == sum(1 for s in samples if sample_verdict(s) == verdict)

    for name, page in (("index", index), ("drill", drill)):
        shot = tmp_path / f"{name}.png"
        screenshot(page.as_uri(), shot, profile, size="1400,2000")
        assert shot.stat().st_size > 10_000  # a rendered page, not a blank one


def test_a_folder_that_is_not_a_run_is_refused_by_name(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(NeocoderError, match="empty.*not a run folder"):
        build_report([empty], tmp_path / "out")
    with pytest.raises(NeocoderError, match="nowhere.*no such run folder"):
        build_report([tmp_path / "nowhere"], tmp_path / "out")
    (empty / "manifest.json").write_text("{not json")
    with pytest.raises(NeocoderError, match="empty"):
        build_report([empty], tmp_path / "out")
    with pytest.raises(NeocoderError):
        build_report([], tmp_path / "out")
    dataset = RunFolder(tmp_path / "dataset")
    dataset.write_manifest(Manifest.capture("dataset", {}))
    with pytest.raises(NeocoderError, match="dataset.*'dataset' run folder; the report covers eval, human"):
        build_report([dataset.path], tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing written before every folder was read


def test_top_techniques_weighs_each_problem_the_same():
    # problem 1: 2 of 2 solutions use "set"; problem 2: 1 of 4 uses it, all use "for loop"
    groups = [[{"set"}, {"set", "tuple"}], [{"for loop", "set"}, {"for loop"}, {"for loop"}, {"for loop"}]]
    top = dict(top_techniques(groups, k=3))
    assert top["set"] == pytest.approx((1 + 0.25) / 2)
    assert top["for loop"] == pytest.approx(0.5) and top["tuple"] == pytest.approx(0.25)
    assert top_techniques([[], []]) == []
