"""`neocoder eval` end to end on a real slice of the release, judged in Docker."""

import json

import pytest
from click.testing import CliRunner

from neocoder.cli import main

pytestmark = pytest.mark.docker


def test_replay_eval_writes_samples_and_metrics_and_resumes(tmp_path, release_dir, sandbox):
    out = tmp_path / "run"
    args = ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "3", "--states", "0-1",
            "--out", str(out), "--release", str(release_dir), "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = (out / "samples.jsonl").read_text().splitlines()
    samples = [json.loads(line) for line in lines]
    assert len(samples) == 6
    assert {(s["problem_id"], s["state"]) for s in samples} == {
        (p, t) for p in ("1901A", "1899A", "1898A") for t in (0, 1)}
    for s in samples:
        assert s["verdicts"] and all(v["verdict"] in ("AC", "WA", "TLE", "MLE", "RE", "OLE") for v in s["verdicts"])
        assert s["correct"] == all(v["verdict"] == "AC" for v in s["verdicts"])
        assert set(s["violated_constraints"]) <= set(s["constraints"])
        assert s["follows"] == (not s["violated_constraints"])
        assert len(s["prompt_sha256"]) == 64 and "def solve" in s["code"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["model"] == "replay/gpt-4-1106-preview"
    assert set(metrics["states"]) == {"0", "1"}
    m0 = metrics["states"]["0"]
    assert m0["n"] == 3
    assert m0["pass@1"] == pytest.approx(sum(s["correct"] for s in samples if s["state"] == 0) / 3)
    for key in ("pass@1", "constraint_following", "convergent", "divergent", "neogauge", "cumulative_neogauge"):
        assert 0.0 <= m0[key] <= 1.0 or key == "cumulative_neogauge"
    assert "NeoGauge" in result.output
    assert json.loads((out / "manifest.json").read_text())["model"] == "replay/gpt-4-1106-preview"

    # a second run over the same folder finds everything done and adds nothing
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert (out / "samples.jsonl").read_text().splitlines() == lines


def test_recorded_gpt4_state0_solution_is_accepted(release_dir, sandbox):
    """A recorded code with its own unittest.mock harness and self-call still gets AC:
    the harness is not run and solve() is called once on the statement's example."""
    from neocoder.dataset import build_from_release
    from neocoder.judge import Limits
    from neocoder.models import get_model, solve_prompt
    from neocoder.program import program_from_reply
    states, _ = build_from_release(release_dir)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    accepted = 0
    for state in [s for s in states if s["state"] == 0][:12]:
        code = program_from_reply(model.generate(solve_prompt(state["statement"]), state))
        accepted += sandbox.run(code, state["tests"], Limits.for_state(state)).accepted
    assert accepted >= 1


def test_unknown_model_provider_is_a_clear_error(tmp_path, release_dir):
    result = CliRunner().invoke(main, ["eval", "--model", "nope", "--limit", "1", "--out", str(tmp_path),
                                       "--release", str(release_dir)])
    assert result.exit_code != 0 and "PROVIDER/NAME" in result.output


def test_human_baselines_through_eval(tmp_path, release_dir):
    out = tmp_path / "human"
    result = CliRunner().invoke(main, ["eval", "--model", "human", "--limit", "2", "--out", str(out),
                                       "--release", str(release_dir)])
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["model"] == "human" and set(metrics["states"]) >= {"0", "1"}
    m0, m1 = metrics["states"]["0"], metrics["states"]["1"]
    assert m0["convergent"] == 1.0 and 0.0 <= m1["convergent"] < 1.0
    assert m0["n"] > 40  # two problems with about 30 solutions each
