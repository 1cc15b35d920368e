"""The drill-down page's ``+ext`` column (issue 22, defect A): a sample whose extended tests
were skipped after a failed example (the pipeline's fail-fast rule, pipeline.judge_sample)
must say so, never show AC.  The run folder is written through the real ``RunFolder`` with
the records the pipeline writes for GPT-4's replay at t = 0 (1704A wrong on an example,
1713A not compiling), and the report is built from it like ``neocoder report`` does."""

from html.parser import HTMLParser

from neocoder.records import Manifest, Sample, TierResult
from neocoder.report.html import build_report, tier_verdict
from neocoder.store import RunFolder

MODEL = "replay/gpt-4-1106-preview"


class Rows(HTMLParser):
    """The drill-down table's rows as {problem: [cell texts]}."""

    def __init__(self):
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
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


def test_extended_tests_skipped_after_a_failed_example_are_shown_skipped_not_ac(tmp_path, release_dir, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = RunFolder(tmp_path / "gpt4")
    folder.write_manifest(Manifest.capture("eval", {"model": {"spec": MODEL}, "dataset": "release",
                                                    "release_dir": str(release_dir)}))
    for sample in (failed_sample("1704A", "WA"), failed_sample("1713A", "CE", "SyntaxError: invalid syntax")):
        folder.append(sample)
    folder.write_metrics({"model": MODEL, "states": {"0": {"n": 2, "excluded": 0, "pass@1": 0.0}}})

    index = build_report([folder.path], tmp_path / "report")
    rows = Rows()
    rows.feed((index.parent / "run1-gpt4.html").read_text())
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
