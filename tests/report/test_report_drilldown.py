"""The drill-down page's ``+ext`` column (issue 22, defect A): a sample whose extended tests
were skipped after a failed example (the pipeline's fail-fast rule, pipeline.judge_sample)
must say so, never show AC.  The run folder is written through the real ``RunFolder`` with
the records the pipeline writes for GPT-4's replay at t = 0 (1704A wrong on an example,
1713A not compiling), and the report is built from it like ``neocoder report`` does."""

from html.parser import HTMLParser

import pytest

from neocoder.errors import NeocoderError
from neocoder.records import Manifest, Sample, TierResult
from neocoder.report.html import build_report
from neocoder.report.verdicts import tier_verdict
from neocoder.store import RunFolder

MODEL = "replay/gpt-4-1106-preview"


class Rows(HTMLParser):
    """The drill-down table's rows as {problem: [cell texts]}, and every element's tag."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.rows: dict[str, list[str]] = {}
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr" and "data-state" in dict(attrs):
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows[self._row[0]] = self._row
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def failed_sample(problem: str, verdict: str, compile_error: str | None = None) -> Sample:
    """A t = 0 sample whose first example failed, so its 20 extended tests were never run."""
    test = {"verdict": verdict, "cpu_seconds": 0.02, "wall_seconds": 0.05, "detail": compile_error or ""}
    return Sample(problem_id=problem, state=0, sample=0, model=MODEL, constraints=[], prompt_sha256="0" * 64,
                  reply="print(1)", code="print(1)", entry="script", compile_error=compile_error,
                  examples=TierResult(tests=[test], correct=False),
                  plus=TierResult(tests=[], correct=False, skipped=20), techniques=["print"])


def eval_run(path, release_dir, samples: list[Sample], kind: str = "eval") -> RunFolder:
    """A run folder of ``samples`` as ``neocoder eval --dataset release`` writes it."""
    folder = RunFolder(path)
    folder.write_manifest(Manifest.capture(kind, {"model": {"spec": MODEL}, "dataset": "release",
                                                  "release_dir": str(release_dir)}))
    for sample in samples:
        folder.append(sample)
    folder.write_metrics({"model": MODEL, "states": {"0": {"n": len(samples), "excluded": 0, "pass@1": 0.0}}})
    return folder


def drilldown(index) -> Rows:
    rows = Rows()
    rows.feed((index.parent / "run1-gpt4.html").read_text())
    return rows


def test_extended_tests_skipped_after_a_failed_example_are_shown_skipped_not_ac(tmp_path, release_dir):
    folder = eval_run(tmp_path / "gpt4", release_dir,
                      [failed_sample("1704A", "WA"), failed_sample("1713A", "CE", "SyntaxError: invalid syntax")])
    rows = drilldown(build_report([folder.path], tmp_path / "report"))
    assert set(rows.rows) == {"1704A", "1713A"}
    for problem, row in rows.rows.items():
        plus = row[3]  # problem, state, verdict, +ext
        assert plus == "skipped", f"{problem}: +ext shows {plus!r} for extended tests that never ran"
    assert rows.rows["1704A"][2] == "WA"


def test_a_tier_verdict_is_ac_only_when_tests_ran_and_passed():
    assert tier_verdict(TierResult(tests=[], correct=False, skipped=20)) == "skipped"
    assert tier_verdict(TierResult(tests=[{"verdict": "AC"}] * 3, correct=True)) == "AC"
    assert tier_verdict(TierResult(tests=[{"verdict": "AC"}, {"verdict": "TLE"}, {"verdict": "SKIPPED"}],
                                   correct=False, skipped=1)) == "TLE"
    assert tier_verdict(TierResult(tests=[{"verdict": "INFRA"}], correct=False, infra=True)) == "INFRA"


def test_text_from_a_model_or_a_statement_is_escaped_never_markup(tmp_path, release_dir):
    sample = failed_sample("1704A", "WA", compile_error="<script>alert(1)</script>")
    sample.code = sample.reply = "print('<img src=x onerror=alert(2)>')"
    sample.techniques = ["<b>bold</b>"]
    index = build_report([eval_run(tmp_path / "gpt4", release_dir, [sample]).path], tmp_path / "report")
    page = drilldown(index)
    assert page.tags.count("script") == 1 and "img" not in page.tags and "b" not in page.tags  # filter.js only
    text = (index.parent / "run1-gpt4.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "&lt;b&gt;bold&lt;/b&gt;" in text


def test_a_run_of_a_kind_no_section_shows_is_refused_naming_it(tmp_path, release_dir):
    from neocoder.benchmarks.aidanbench.descriptor import AIDANBENCH
    from neocoder.benchmarks.framework.descriptor import FRAMEWORK
    from neocoder.benchmarks.ideas.descriptor import IDEAS
    from neocoder.benchmarks.neocoder.descriptor import CHAINS, EVAL
    from neocoder.records import HUMAN
    from neocoder.report.sections import kinds, section_for

    assert {EVAL, HUMAN, AIDANBENCH, IDEAS, FRAMEWORK} <= set(kinds()) and CHAINS not in kinds()
    assert section_for(EVAL) is section_for(HUMAN)  # model runs and human baselines are drawn together
    with pytest.raises(NeocoderError, match="'chains'"):
        section_for(CHAINS)
    folder = eval_run(tmp_path / "chains", release_dir, [], kind=CHAINS)
    with pytest.raises(NeocoderError, match="chains.*'chains' run folder; the report covers eval, human"):
        build_report([folder.path], tmp_path / "report")
