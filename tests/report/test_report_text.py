"""The printed ``headline:`` line (issue 22, defect B): what "correct" means depends on the
dataset the run was judged on.  With ``--dataset release`` the examples are the release's
statement examples judged by plain checkers, not the human-validated ones of the default
dataset; the headline must say which.  Checked on a real replay run through the CLI."""

import json

import pytest
from click.testing import CliRunner

from neocoder.cli import main
from neocoder.report.text import eval_table

VALIDATED = "every human-validated example AC"


def headline(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("headline:"))


@pytest.mark.docker
def test_the_headline_of_a_release_run_names_the_release_examples(tmp_path, release_dir):
    out = tmp_path / "gpt4"
    done = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--dataset", "release",
                                     "--limit", "1", "--release", str(release_dir), "--out", str(out)])
    assert done.exit_code == 0, done.output
    line = headline(done.output)
    assert VALIDATED not in line and "human-validated" not in line, line
    assert "the release's statement examples" in line and "plain checkers" in line, line

    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["dataset"] == "release examples (plain checkers)"
    assert headline(eval_table(metrics)) == line  # the saved metrics print the same line


def test_the_headline_of_a_validated_run_keeps_the_validated_examples(tmp_path):
    states = {"0": {"n": 2, "excluded": 0, "pass@1": 0.5, "neogauge": 0.25, "cumulative_neogauge": 0.25}}
    metrics = {"model": "replay/gpt-4-1106-preview", "states": states,
               "dataset": "validated (shipped codeforces-1.0)"}
    assert VALIDATED in headline(eval_table(metrics))
    assert VALIDATED in headline(eval_table({"model": "m", "states": states}))  # a run from before the field


def test_the_human_baseline_keeps_its_colour_when_labelled_with_its_language():
    from neocoder.report.plots import HUMAN_COLOR, palette
    colors = palette(["gpt-4 [cpp]", "human [python]", "human", "humane [python]"])
    assert colors["human [python]"] == colors["human"] == HUMAN_COLOR
    assert HUMAN_COLOR not in (colors["gpt-4 [cpp]"], colors["humane [python]"])  # only the baseline is near-black
