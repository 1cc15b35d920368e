"""The paper-compatible mode (neocoder/paper.py, docs/paper.md): each toggle does what it
promises on real release problems in the real Docker sandbox, and a run folder refuses to
be resumed with other toggles."""

import json
from pathlib import Path

import pytest
from checkout import CHECKOUT

from neocoder.api import evaluate
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.paper import (
    ABLATION,
    PAPER_TOGGLES,
    PaperProtocol,
    gpt4_label_sets,
    paper_human_sets,
    paper_states,
    parse_paper,
)
from neocoder.benchmarks.neocoder.pipeline import judge_reply
from neocoder.config import ModelConfig, SandboxConfig
from neocoder.dataset import shipped
from neocoder.errors import NeocoderError
from neocoder.models import Reply
from neocoder.records import Sample
from neocoder.report.compare import load_run


def state(pid: str, t: int = 0):
    return next(s for s in shipped.load_states() if s.problem_id == pid and s.state == t)


def judged(st, code: str, sandbox, toggles=()) -> Sample:
    record = Sample(problem_id=st.problem_id, state=st.state, sample=0, model="test", constraints=[], prompt_sha256="")
    protocol = PaperProtocol(frozenset(toggles)) if toggles else None
    return judge_reply(record, st, Reply(text=code), sandbox, None, judge_all_tests=True, protocol=protocol)


def test_parse_paper_and_the_option():
    assert parse_paper("all") == list(PAPER_TOGGLES)
    assert parse_paper("none") == [] and parse_paper("") == []
    assert parse_paper("gpt4_labels, exact") == ["exact", "gpt4_labels"]  # declaration order
    with pytest.raises(ValueError, match="bogus"):
        parse_paper("exact,bogus")
    config = EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=Path("x"), release_dir=Path("."),
                        paper=["bogus"])
    with pytest.raises(NeocoderError, match="paper"):
        config.check()
    assert EvalConfig(model=ModelConfig("x"), out=Path("x"), release_dir=Path(".")).public()["paper"] == []
    assert parse_paper("all,last_round") == list(PAPER_TOGGLES) + ["last_round"]  # a sensitivity, never in 'all'
    # the ablation walks from every toggle on to none, one change a step
    assert set(ABLATION[0].paper) == set(PAPER_TOGGLES) and ABLATION[-1].paper == () and ABLATION[-1].dataset is None


def test_exact_strings_fail_a_lower_case_answer_the_checker_accepts(sandbox):
    st = state("1891A")  # YES/NO in any letter case (its checker ignores case)
    expected = st.tests[0]["output"]
    lower = f"def solve():\n    print({expected.lower()!r}, end='')\n"
    assert judged(st, lower, sandbox).examples.correct
    assert not judged(st, lower, sandbox, ["exact"]).examples.correct
    verbatim = f"def solve():\n    print({expected!r}, end='')\n"
    paper = judged(st, verbatim, sandbox, ["exact"])
    assert paper.examples.correct and all("stdout" not in t for t in paper.examples.tests)  # kept output dropped


def test_solve_appended_runs_a_program_calling_solve_twice(sandbox):
    st = state("1891A")
    expected = st.tests[0]["output"]
    calls_itself = ("import sys\ndef solve():\n    t = sys.stdin.read().split()[0]\n"
                    f"    print({expected!r}, end='')\n\nsolve()\n")
    assert judged(st, calls_itself, sandbox).examples.correct  # the contract runs it as written
    paper = judged(st, calls_itself, sandbox, ["solve_appended"])
    assert not paper.examples.correct and paper.entry_rule == "script"
    assert "IndexError" in (paper.examples.tests[0]["detail"] or "")  # the appended call reads an empty stdin
    # a program cut off at the token limit fails in both, as the release's harness judged it
    truncated = "def solve():\n    t = int(input())\n    for _ in range(t):\n"
    for toggles in ((), ["solve_appended", "exact"]):
        cut = judged(st, truncated, sandbox, toggles)
        assert not cut.examples.correct and cut.compile_error


def test_annotated_tests_are_the_flattened_cases(release_dir):
    st = state("1879A")  # the annotated file flattens its rows (release README)
    [paper] = paper_states([st], ["annotated"], release_dir)
    assert paper.tests != st.tests and paper.extended_tests == [] and paper.tests_source == "annotated"
    assert paper.tests[0]["input"].startswith("3\n4\n7 4 9 3 4 6 2 2\n")  # one row where the statement has four
    assert paper_states([st], ["exact"], release_dir) == [st]


def test_gpt4_labels_give_the_human_sets(release_dir):
    labels = json.loads((release_dir / "human_solution_techniques.json").read_text())
    sets = gpt4_label_sets(release_dir, ["1901A", "1899A"])
    assert "1899A" not in labels and set(sets) == {"1901A"}
    assert sets["1901A"] == {x for s in labels["1901A"] for x in s}
    human = paper_human_sets({"1901A": {"techniques": {"recursion"}}, "1899A": {"techniques": {"if statement"}}},
                             ["gpt4_labels"], release_dir)
    assert human["1901A"] == {"techniques": sets["1901A"], "source": "gpt4"}
    assert human["1899A"] == {"techniques": {"if statement"}, "source": "detector"}


@pytest.mark.docker
def test_paper_mode_eval_and_resume_refuses_other_toggles(tmp_path, release_dir):
    def config(paper):
        return EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "run", release_dir=release_dir,
                          dataset="release", paper=paper, limit=2, states=[0], progress=False,
                          sandbox=SandboxConfig(workers=2))
    result = evaluate(config(list(PAPER_TOGGLES)))
    samples = {s.problem_id: s for s in (Sample.from_dict(json.loads(line)) for line in
                                         (result.run / "records.jsonl").read_text().splitlines())
               if s.problem_id}
    labels = gpt4_label_sets(release_dir, ["1901A"])["1901A"]
    assert set(samples["1901A"].human_techniques) == labels  # GPT-4 labels for the divergent score
    assert samples["1901A"].entry_rule == "script"
    manifest = json.loads((result.run / "manifest.json").read_text())
    assert manifest["config"]["paper"] == list(PAPER_TOGGLES)
    # compare's column names the toggles
    assert load_run(result.run).label.endswith("[paper: " + ",".join(PAPER_TOGGLES) + " on release]")
    with pytest.raises(NeocoderError, match="--paper"):
        evaluate(config(["exact"]))
    from click.testing import CliRunner

    from neocoder.cli import main
    shown = CliRunner().invoke(main, ["compare", str(result.run)])
    assert shown.exit_code == 0 and "GPT-4 (published)" in shown.output  # Table 4 beside it ...
    assert "one change at a time: docs/paper.md" in shown.output  # ... and where the gap is accounted for
    from neocoder.report.html import build_report
    page = build_report([result.run], tmp_path / "report").read_text()
    beside = page[page.index("Beside the paper: GPT-4"):]
    following = min([beside.find(tag) for tag in ("<h3", "<h4") if tag in beside] or [len(beside)])
    assert "docs/paper.md" in beside[:following]  # the link sits with the published rows


def test_last_round_answers_a_repeated_list_with_its_last_code(release_dir):
    first = [state("1901A", 1), state("1901A", 0)]  # round 2 found nothing new: rounds 1 and 2 hold one list
    moved = paper_states(first, ["last_round"], release_dir)
    assert [s.source_index for s in first] == [1, 0] and [s.source_index for s in moved] == [2, 0]
    assert moved[0].tests == first[0].tests  # only the program answering it changes


@pytest.mark.docker
def test_ablation_script_runs_every_step_into_its_own_folder(tmp_path, release_dir):
    import subprocess
    import sys
    script = CHECKOUT / "scripts" / "paper_ablation.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(tmp_path), "--limit", "1",
                           "--release", str(release_dir)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for step in ABLATION:
        manifest = json.loads((tmp_path / step.name / "manifest.json").read_text())
        assert manifest["config"]["paper"] == list(step.paper) and manifest["config"]["dataset"] == step.dataset
        assert step.flags() in done.stderr  # each step's command is printed
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 0 |")]
    assert [r.split("|")[2].strip() for r in rows] == ["Table 4 (paper)"] + [s.name for s in ABLATION]
    assert rows[0].split("|")[3].strip() == "16.1"  # the published pass@1 at t = 0
