"""The board's re-judging of a submitted NeoCoder run (neocoder/benchmarks/neocoder/verify.py
``rejudge``) with the settings its manifest records, in the Docker sandbox, in this process:
one run of GPT-4's recorded program for the shipped dataset's first problem at t=0 (one
sample, every setting its default), re-judged with the settings given and each other
setting's default; the re-judged run (``<scratch>/rejudge``) records in its manifest the
settings it was judged with, and its samples are compared with the run's.

A setting that asks for a sample the run did not record is answered by the replay with no
reply (a model error): the board names the first sample missing from records.jsonl, or,
when more samples are in error than the run recorded plus one, refuses the run as lost
(runner.py ``LostItems``).  Each re-judging opens the sandbox again (a few seconds), so
each test here asks one."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.neocoder.verify import rejudge
from neocoder.cli import main
from neocoder.dataset import default_release_dir, shipped
from neocoder.runner import LostItems

MODEL = "replay/gpt-4-1106-preview"
PROBLEM = shipped.problem_ids()[0]

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """GPT-4's recorded reply for the first shipped problem at t=0, judged with every default."""
    out = tmp_path_factory.mktemp("runs") / "gpt4"
    done = CliRunner().invoke(main, ["eval", "--model", MODEL, "--states", "0", "--problems", PROBLEM, "--quiet",
                                     "--out", str(out)])
    assert done.exit_code == 0, done.output
    return out


def judged_with(scratch) -> dict:
    """The settings the re-judged run in ``scratch`` records (its manifest's config)."""
    config = json.loads((scratch / "rejudge" / "manifest.json").read_text())["config"]
    return {k: config[k] for k in ("states", "problems", "samples", "cpu_scale", "judge_all_tests", "release_dir",
                                   "strategy", "language", "paper")}


DEFAULTS = {"states": [0], "problems": [PROBLEM], "samples": 1, "cpu_scale": 1.0, "judge_all_tests": False,
            "strategy": "direct", "language": "python", "paper": []}


def test_a_run_is_rejudged_from_its_records_with_each_default_its_manifest_leaves(run, tmp_path):
    assert rejudge(run, MODEL, {}, tmp_path) == "re-judged: 1 of 1 samples agree"
    assert judged_with(tmp_path) == {**DEFAULTS, "release_dir": str(default_release_dir())}
    config = json.loads((tmp_path / "rejudge" / "manifest.json").read_text())["config"]
    assert config["model"]["spec"] == f"replay/{run.resolve()}"


def test_the_runs_samples_cpu_scale_and_judging_of_every_test_are_the_rejudgings(run, tmp_path):
    config = {"samples": 2, "cpu_scale": 2.0, "judge_all_tests": True}
    with pytest.raises(RecordsDisagree) as got:
        rejudge(run, MODEL, config, tmp_path)
    assert str(got.value) == f"problem {PROBLEM} state 0 sample 1: missing from records.jsonl"
    assert judged_with(tmp_path) == {**DEFAULTS, **config, "release_dir": str(default_release_dir())}


def test_more_samples_in_error_than_the_run_recorded_and_one_are_refused_as_lost(run, tmp_path):
    with pytest.raises(LostItems) as got:  # no recorded reply for 3 of the 4 samples these states ask: 3 > 1 + 1
        rejudge(run, MODEL, {"states": [0, 1], "samples": 2}, tmp_path)
    assert str(got.value).startswith("3 of 4 samples ended in error")
    assert (judged_with(tmp_path)["states"], judged_with(tmp_path)["samples"]) == ([0, 1], 2)
