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
    lines = (out / "records.jsonl").read_text().splitlines()
    samples = [json.loads(line) for line in lines]
    assert len(samples) == 6 and all(s["type"] == "sample" and s["format_version"] == 2 for s in samples)
    assert {(s["problem_id"], s["state"]) for s in samples} == {
        (p, t) for p in ("1901A", "1899A", "1898A") for t in (0, 1)}
    for s in samples:
        verdicts = [t["verdict"] for t in s["examples"]["tests"]]
        assert verdicts and all(v in ("AC", "WA", "TLE", "MLE", "RE", "OLE") for v in verdicts)
        assert s["examples"]["correct"] == all(v == "AC" for v in verdicts)
        assert s["plus"] is not None  # the validated dataset: an extended tier too
        assert s["plus"]["tests"] if s["examples"]["correct"] else s["plus"]["skipped"] > 0  # fail fast
        assert set(s["violated_constraints"]) <= set(s["constraints"])
        assert s["follows"] == (not s["violated_constraints"])
        assert len(s["prompt_sha256"]) == 64 and "def solve" in s["code"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["model"] == "replay/gpt-4-1106-preview" and metrics["format_version"] == 2
    assert set(metrics["states"]) == {"0", "1"}
    m0 = metrics["states"]["0"]
    assert m0["n"] == 3
    assert m0["pass@1"] == pytest.approx(sum(s["examples"]["correct"] for s in samples if s["state"] == 0) / 3)
    for key in ("pass@1", "constraint_following", "convergent", "divergent", "neogauge", "cumulative_neogauge"):
        assert 0.0 <= m0[key] <= 1.0 or key == "cumulative_neogauge"
    assert "NeoGauge" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "eval" and manifest["config"]["model"]["spec"] == "replay/gpt-4-1106-preview"

    # a second run over the same folder finds everything done and adds nothing
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert (out / "records.jsonl").read_text().splitlines() == lines


def test_recorded_gpt4_state0_solution_is_accepted(release_dir, sandbox):
    """A recorded code with its own unittest.mock harness and self-call still gets AC:
    the harness is not run and solve() is called once on the statement's example."""
    from neocoder.benchmarks.neocoder.program import program_from_reply
    from neocoder.benchmarks.neocoder.solve import solve_prompt
    from neocoder.dataset import build_from_release
    from neocoder.judge import Limits
    from neocoder.models import ReplayKey, get_model
    states, _ = build_from_release(release_dir)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    accepted = 0
    for state in [s for s in states if s["state"] == 0][:12]:
        prompt = solve_prompt(state["statement"], ReplayKey(state["problem_id"], 0, 0, state["source_index"]))
        code = program_from_reply(model.generate(prompt))
        accepted += sandbox.run(code, state["tests"], Limits.for_cpu(state["time_limit_s"])).accepted
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


def test_the_python_api_gives_the_metrics_the_cli_writes(tmp_path, release_dir, sandbox):
    """An eval of 3 real problems through neocoder.evaluate (no CLI), then the same run
    through the CLI: the same metrics, key for key."""
    from neocoder import EvalConfig, ModelConfig, SandboxConfig, evaluate
    config = EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "api",
                        release_dir=release_dir, limit=3, sandbox=SandboxConfig(workers=2), progress=False)
    result = evaluate(config)
    assert result.run == tmp_path / "api" and set(result.metrics["states"]) == {"0", "1", "2", "3", "4", "5"}
    from neocoder.api import select_states
    assert sum(m["n"] for m in result.metrics["states"].values()) == len(select_states(config)) == 15
    cli = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "3", "--out",
                                    str(tmp_path / "cli"), "--release", str(release_dir), "--quiet"])
    assert cli.exit_code == 0, cli.output
    written = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    assert written == json.loads((tmp_path / "api" / "metrics.json").read_text())
    assert {k: v for k, v in written.items() if k != "format_version"} == result.metrics


def test_an_unreachable_endpoint_stops_the_run_with_one_message(tmp_path, release_dir, sandbox):
    result = CliRunner().invoke(main, ["eval", "--model", "openai/x", "--base-url", "http://127.0.0.1:9/v1",
                                       "--api-key", "k", "--max-retries", "1", "--limit", "2", "--states", "0",
                                       "--out", str(tmp_path / "run"), "--release", str(release_dir), "--quiet"])
    assert result.exit_code == 1
    assert "cannot reach http://127.0.0.1:9/v1" in result.output and "--base-url" in result.output
    assert result.output.count("Error") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "run" / "metrics.json").exists()  # no table of dashes


def test_replay_of_a_run_folder_rejudges_its_recorded_replies(tmp_path, release_dir, sandbox):
    first = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "2", "--states",
                                      "0-1", "--out", str(tmp_path / "a"), "--release", str(release_dir), "--quiet"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(main, ["eval", "--model", f"replay/{tmp_path / 'a'}", "--limit", "2", "--states",
                                      "0-1", "--out", str(tmp_path / "b"), "--release", str(release_dir), "--quiet"])
    assert again.exit_code == 0, again.output
    a = json.loads((tmp_path / "a" / "metrics.json").read_text())["states"]
    b = json.loads((tmp_path / "b" / "metrics.json").read_text())["states"]
    assert a == b


def test_a_format_1_run_folder_is_refused_then_converted(tmp_path, release_dir):
    """A run folder as neocoder wrote it before typed records: refused with the command
    that converts it; after conversion it loads and scores the same."""
    old = tmp_path / "old"
    old.mkdir()
    row = {"problem_id": "1901A", "state": 0, "sample": 0, "model": "replay/gpt-4-1106-preview",
           "constraints": [], "prompt_sha256": "a" * 64, "reply": "x", "code": "print(1)", "code_sha256": "b" * 64,
           "entry": "script", "compile_error": None,
           "verdicts": [{"verdict": "AC", "cpu_seconds": 0.01}], "correct": True, "correct_extended": False,
           "extended_verdicts": ["AC", "WA"], "techniques": ["for loop"], "violated_constraints": [],
           "unchecked_constraints": [], "follows": True, "human_techniques": ["if statement"],
           "new_techniques": ["for loop"], "divergent": 1.0, "excluded": False,
           "tokens": {"prompt": None, "completion": None}, "timings": {}}
    (old / "samples.jsonl").write_text(json.dumps(row) + "\n")
    (old / "manifest.json").write_text(json.dumps({"command": ["neocoder"], "model": row["model"]}))
    refused = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "1",
                                        "--out", str(old), "--release", str(release_dir), "--quiet"])
    assert refused.exit_code == 1 and f"neocoder upgrade-run {old}" in refused.output
    converted = CliRunner().invoke(main, ["upgrade-run", str(old)])
    assert converted.exit_code == 0, converted.output
    from neocoder.records import Sample
    from neocoder.store import RunFolder
    [sample] = RunFolder(old).read(Sample)
    assert sample.correct and sample.correct_plus is False and sample.plus.verdicts == ["AC", "WA"]
    metrics = json.loads((old / "metrics.json").read_text())["states"]["0"]
    assert metrics["pass@1"] == 1.0 and metrics["pass@1_plus"] == 0.0 and metrics["neogauge"] == 1.0
    assert (old / "samples.jsonl.v1").exists()
    assert json.loads((old / "manifest.json").read_text())["config"]["model"] == row["model"]


def test_compare_prints_every_state_with_intervals_and_paired_differences(tmp_path, release_dir, sandbox):
    for model, out in (("replay/gpt-4-1106-preview", "gpt4"), ("human", "human")):
        ran = CliRunner().invoke(main, ["eval", "--model", model, "--limit", "4", "--out", str(tmp_path / out),
                                        "--release", str(release_dir), "--quiet", "--bootstrap", "500"])
        assert ran.exit_code == 0, ran.output
        assert f"neocoder report {tmp_path / out}" in ran.output
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "gpt4"), str(tmp_path / "human"),
                                       "--bootstrap", "500"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines() if " neogauge " in f" {line} "]
    assert [r[0] for r in rows] == ["0", "1", "2", "3", "4", "5"]
    for r in rows:  # state, metric, "x.x%", "±y.y", "x.x%", "±y.y", "+d.d", "[+l.l,", "+h.h]"
        assert r[2].endswith("%") and r[3].startswith("±") and r[5].startswith("±")
        assert r[7].startswith("[") and r[8].rstrip("*").endswith("]")
    as_json = CliRunner().invoke(main, ["compare", str(tmp_path / "gpt4"), str(tmp_path / "human"), "--format",
                                        "json", "--bootstrap", "500"])
    data = json.loads(as_json.output)
    row = next(r for r in data["rows"] if r["state"] == 1 and r["metric"] == "constraint_following")
    diff = row["diffs"][0]
    assert diff["units"] == 4 and diff["low"] <= diff["diff"] <= diff["high"]
    assert diff["diff"] == pytest.approx(row["values"][1]["value"] - row["values"][0]["value"])
    again = CliRunner().invoke(main, ["compare", str(tmp_path / "gpt4"), str(tmp_path / "human"), "--format",
                                      "json", "--bootstrap", "500"])
    assert again.output == as_json.output  # the same seed, the same intervals


def test_fail_fast_judging_changes_no_rate(tmp_path, release_dir, sandbox):
    """By default a sample stops at its first failing test and runs the extended tests
    only when every example passed; --judge-all-tests judges everything. Same metrics."""
    runs = {}
    for name, extra in (("fast", []), ("all", ["--judge-all-tests"])):
        got = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "3", "--states",
                                        "0-1", "--out", str(tmp_path / name), "--release", str(release_dir),
                                        "--quiet", "--bootstrap", "200"] + extra)
        assert got.exit_code == 0, got.output
        runs[name] = json.loads((tmp_path / name / "metrics.json").read_text())["states"]
    assert runs["fast"] == runs["all"]
    fast = [json.loads(line) for line in (tmp_path / "fast" / "records.jsonl").read_text().splitlines()]
    wrong = [s for s in fast if not s["examples"]["correct"]]
    assert wrong and all(s["plus"]["tests"] == [] and s["plus"]["skipped"] > 0 for s in wrong)
    everything = [json.loads(line) for line in (tmp_path / "all" / "records.jsonl").read_text().splitlines()]
    assert all(s["plus"]["skipped"] == 0 and s["plus"]["tests"] for s in everything)
