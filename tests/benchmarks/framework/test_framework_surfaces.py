"""The creativity framework on its other surfaces: the inspect task `neocoder/framework` (run with
`inspect_ai.eval` against a scripted OpenAI-compatible server on 127.0.0.1) against `neocoder
framework` on the same script, and `neocoder export` of a framework run folder read back."""

import json
import math
import re
from dataclasses import fields

import pytest
from click.testing import CliRunner
from framework_panel import USAGE, entail, panel_respond
from inspect_ai import eval as inspect_eval
from loopback import RespondingServer

from neocoder.benchmarks.framework.config import FrameworkConfig
from neocoder.benchmarks.framework.domains import macgyver_problems
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.benchmarks.framework.tables import STEP_COLUMNS, problem_columns
from neocoder.cli import main
from neocoder.errors import NeocoderError
from neocoder.export import export_run
from neocoder.inspect_tasks.framework_task import framework
from neocoder.store import RunFolder

# step 1: seed 0 and seed 1 propose different steps (two classes); step 2: both say STOP
STEP1 = {0: ("Use the towel.", -0.5), 1: ("Boil the water.", -1.0)}
LOGPROB_STOP = -0.2
SAMPLING = ("temperature", "top_p", "max_tokens", "seed", "logprobs", "top_logprobs")
DECLARED = {f.name: f.default for f in fields(FrameworkConfig)}
TINY = dict(limit=1, candidates=2, max_steps=2, entailment="llm", judges="retrieval", bootstrap=20)
PANEL = panel_respond((0.9, 0.2, 0.7), ("YES", "NO", "NO"))  # the problem analyst, most confident, says YES


def chat_logprobs(mean):
    return {"content": [{"token": t, "logprob": mean, "bytes": None, "top_logprobs": []} for t in ("a", "b")]}


def step_number(prompt):
    got = re.search(r"Step (\d+):\s*$", prompt)
    return int(got.group(1)) if got else None


def make_respond(logprobs=True):
    """The generator's candidates (with chat log-probabilities when asked and ``logprobs``),
    the judge's entailment answers and the analysts' panel, told apart by the prompt."""
    def respond(kind, body):
        prompt = body["messages"][-1]["content"]
        if "Statement A:" in prompt:
            return entail(prompt), None
        n = step_number(prompt)
        if n is not None:
            text, mean = STEP1[body["seed"] % 2] if n == 1 else ("STOP", LOGPROB_STOP)
            return text, chat_logprobs(mean) if body.get("logprobs") and logprobs else None
        return PANEL(kind, body)
    return respond


def step1_entropy():
    """Rao-Blackwellised entropy of step 1 (App. C): class weights exp(mean log-probability)."""
    w = [math.exp(-0.5), math.exp(-1.0)]
    return -sum(v / sum(w) * math.log(v / sum(w)) for v in w)


def candidate_calls(server):
    """(sampling parameters, messages) of every candidate call the generator made, in order."""
    return [({k: body.get(k) for k in SAMPLING}, body["messages"]) for _, body in server.requests
            if step_number(body["messages"][-1]["content"]) is not None]


def run_inspect(server, log_dir, monkeypatch, **options):
    monkeypatch.setenv("SCRIPTED_API_KEY", "x")
    monkeypatch.setenv("OPENAI_API_KEY", "x")  # the judge, a neocoder openai model
    (log,) = inspect_eval(framework(judge="openai/judge", judge_base_url=server.url, domain="macgyver",
                                    **{**TINY, **options}),
                          model="openai-api/scripted/scripted", model_base_url=server.url, log_dir=str(log_dir),
                          display="none")
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory):
    """One problem through `neocoder framework` (a run folder) and through the inspect task, each
    against its own scripted server."""
    root = tmp_path_factory.mktemp("framework-surfaces")
    with RespondingServer(make_respond(), usage=USAGE) as cli_server:
        result = CliRunner().invoke(main, ["framework", "--model", "openai/scripted", "--judge", "openai/judge",
                                           "--base-url", cli_server.url, "--api-key", "x", "--domain", "macgyver",
                                           "--limit", "1", "--candidates", "2", "--max-steps", "2",
                                           "--entailment", "llm", "--judges", "retrieval", "--bootstrap", "20",
                                           "--out", str(root / "run"), "--quiet"])
        assert result.exit_code == 0, result.output
        assert re.search(r"retrieval judge per solution: \d+\.\d calls, [\d,]+ input and [\d,]+ output tokens\n",
                         result.output), result.output
    mp = pytest.MonkeyPatch()
    try:
        with RespondingServer(make_respond(), usage=USAGE) as inspect_server:
            log = run_inspect(inspect_server, root / "logs", mp)
    finally:
        mp.undo()
    return root / "run", cli_server, log, inspect_server


def test_the_inspect_task_runs_the_framework_loop_and_judges(surfaces):
    _, _, log, server = surfaces
    (sample,) = log.samples
    problem = macgyver_problems()[0]
    assert sample.id == problem.problem_id and sample.input == problem.text
    first, second = [FrameworkStep.from_dict(d) for d in sample.metadata["steps"]]
    assert first.candidates == ["Use the towel.", "Boil the water."] and first.classes == [0, 1]
    assert first.estimator == "rao-blackwell" and first.logprobs == [-0.5, -1.0]  # inspect passed them through
    assert first.entropy == pytest.approx(step1_entropy()) and first.chosen == 0
    assert second.stopped and second.chosen is None and second.estimator == "rao-blackwell"
    solution = FrameworkSolution.from_dict(sample.metadata["solution"])
    assert solution.model == "openai-api/scripted/scripted" and solution.steps == ["Use the towel."]
    assert solution.divergent == pytest.approx(step1_entropy()) and solution.stop_reason == "stop"
    assert set(solution.verdicts["retrieval"]) == set(problem.criteria)
    assert all(v["verdict"] is True and v["analyst"] == "problem analyst"
               for v in solution.verdicts["retrieval"].values())
    score = sample.scores["framework_scorer"]
    assert score.value["divergent"] == pytest.approx(step1_entropy()) and score.value["steps"] == 1
    assert {k: v for k, v in score.value.items() if k.startswith("retrieval/")} == {
        f"retrieval/{c}": 1.0 for c in problem.criteria}
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["divergent/mean"] == pytest.approx(step1_entropy()) and metrics["problems"] == 1
    assert metrics["judges/retrieval/yes/safety"] == 1.0
    # every candidate call carries the candidate sampling FrameworkConfig declares, with its own seed
    calls = candidate_calls(server)
    assert len(calls) == 4  # two candidates for each of two steps
    for params, _ in calls:
        assert params["temperature"] == DECLARED["sample_temperature"] == 1.0
        assert params["top_p"] == DECLARED["sample_top_p"] == 0.9
        assert params["max_tokens"] == DECLARED["step_tokens"]
        assert params["logprobs"] is True and params["top_logprobs"] == 1
    assert [p["seed"] for p, _ in calls] == [0, 1, 0, 1]
    # the judge stays a neocoder model at the judge role's temperature (0): never the candidates'
    judge_calls = [b for _, b in server.requests if b["model"] == "judge"]
    assert judge_calls and {b["temperature"] for b in judge_calls} == {0.0}


def test_neocoder_framework_and_the_inspect_task_send_the_same_candidate_calls(surfaces):
    run, cli_server, log, inspect_server = surfaces
    assert candidate_calls(cli_server) == candidate_calls(inspect_server)  # parameters and messages alike
    metrics = json.loads((run / "metrics.json").read_text())
    got = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert got["divergent/mean"] == pytest.approx(metrics["divergent"]["mean"]["value"])
    for criterion, block in metrics["judges"]["retrieval"]["yes"].items():
        assert got[f"judges/retrieval/yes/{criterion}"] == block["value"]
    cli_steps = sorted(RunFolder(run, create=False).read(FrameworkStep), key=lambda s: s.step)
    (sample,) = log.samples
    assert [s.entropy for s in cli_steps] == pytest.approx([s["entropy"] for s in sample.metadata["steps"]])


def test_without_log_probabilities_the_record_says_discrete(tmp_path, monkeypatch):
    with RespondingServer(make_respond(logprobs=False), usage=USAGE) as server:
        log = run_inspect(server, tmp_path, monkeypatch, max_steps=1, judges="none")
    (sample,) = log.samples
    (step,) = [FrameworkStep.from_dict(d) for d in sample.metadata["steps"]]
    assert step.estimator == "discrete" and step.logprobs == [None, None]
    assert step.entropy == pytest.approx(math.log(2))  # two classes of one candidate each


def test_the_task_refuses_what_neocoder_framework_refuses():
    with pytest.raises(NeocoderError, match="--data FILE"):
        framework(judge="openai/judge", domain="hypogen")
    with pytest.raises(NeocoderError, match="candidates"):
        framework(judge="openai/judge", candidates=1)


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_export_of_a_framework_run_equals_its_records(surfaces, tmp_path, fmt):
    run = surfaces[0]
    steps_path, problems_path = export_run(run, fmt, tmp_path)
    assert (steps_path.name, problems_path.name) == (f"steps.{fmt}", f"problems.{fmt}")
    if fmt == "parquet":
        import pyarrow.parquet as pq
        steps, problems = pq.read_table(steps_path).to_pylist(), pq.read_table(problems_path).to_pylist()
        assert str(pq.read_table(steps_path).schema.field("classes").type) == "list<element: int64>"
    else:
        import jsonlines
        with jsonlines.open(steps_path) as a, jsonlines.open(problems_path) as b:
            steps, problems = list(a), list(b)
    records = sorted(RunFolder(run, create=False).read(FrameworkStep), key=lambda s: s.step)
    assert len(steps) == len(records) == 2
    assert [list(r) for r in steps] == [list(STEP_COLUMNS)] * 2
    for row, record in zip(steps, records):
        assert (row["problem_id"], row["step"], row["entropy"]) == (record.problem_id, record.step, record.entropy)
        assert row["candidates"] == record.candidates and row["classes"] == record.classes
        assert row["logprobs"] == record.logprobs and row["estimator"] == record.estimator == "rao-blackwell"
        assert row["stopped"] == record.stopped and row["chosen"] == record.chosen
    assert steps[0]["chosen_text"] == "Use the towel." and steps[1]["chosen_text"] is None
    assert steps[0]["n_classes"] == 2 and steps[0]["calls"] == 2
    (solution,) = RunFolder(run, create=False).read(FrameworkSolution)
    (row,) = problems
    assert list(row) == list(problem_columns("macgyver"))
    assert row["divergent"] == solution.divergent and row["divergent_min"] == solution.divergent_min
    assert row["divergent_max"] == solution.divergent_max and row["steps"] == solution.steps
    for criterion, verdict in solution.verdicts["retrieval"].items():
        assert row[f"retrieval_{criterion}"] is verdict["verdict"] is True
        assert row[f"retrieval_{criterion}_confidence"] == pytest.approx(verdict["confidence"])
        assert row[f"chateval_{criterion}"] is None  # that judge did not run
    for cost in ("calls", "prompt_tokens", "completion_tokens"):
        assert row[f"retrieval_{cost}"] == solution.judge_cost["retrieval"][cost]
    assert row["chateval_calls"] is None and row["program"] is None


def test_export_refuses_a_benchmark_it_has_no_tables_for(tmp_path):
    from neocoder.records import Manifest
    folder = RunFolder(tmp_path / "aidan")
    folder.write_manifest(Manifest.capture("aidanbench", {}))
    folder.records_path.write_text("")
    with pytest.raises(NeocoderError, match=rf"{re.escape(str(tmp_path / 'aidan'))}: a 'aidanbench' run"):
        export_run(tmp_path / "aidan", "jsonl")
    assert not (tmp_path / "aidan" / "export").exists()


def test_documented_framework_columns_are_the_written_ones():
    from records_doc import documented

    from neocoder.benchmarks.framework.tables import COST_PARTS, PROBLEM_COLUMNS, VERDICT_JUDGES
    assert documented("Columns of steps.") == list(STEP_COLUMNS)
    assert documented("Columns of problems.") == list(PROBLEM_COLUMNS)
    columns = list(problem_columns("hypogen"))
    assert columns[len(PROBLEM_COLUMNS):] == [f"{j}_{c}{end}" for j in VERDICT_JUDGES
                                              for c in ("feasibility", "relevance", "scientific_accuracy")
                                              for end in ("", "_confidence")] + [
        f"{part}_{cost}" for part in COST_PARTS for cost in ("calls", "prompt_tokens", "completion_tokens")]


@pytest.mark.docker
def test_the_code_domain_in_inspect_judges_the_program_in_the_sandbox(tmp_path, monkeypatch):
    from test_framework import code_respond
    monkeypatch.setenv("SCRIPTED_API_KEY", "x")
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    with RespondingServer(code_respond, usage=USAGE) as server:
        (log,) = inspect_eval(framework(judge="openai/judge", judge_base_url=server.url, domain="code", limit=1,
                                        candidates=2, max_steps=2, entailment="llm", bootstrap=20, workers=1),
                              model="openai-api/scripted/scripted", model_base_url=server.url,
                              log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    solution = FrameworkSolution.from_dict(log.samples[0].metadata["solution"])
    assert solution.program.strip().startswith("def solve():") and solution.sandbox_verdicts
    assert solution.sandbox_correct == all(v == "AC" for v in solution.sandbox_verdicts)
    assert solution.verdicts["retrieval"]["correctness"]["verdict"] is False
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["sandbox/correct"] == float(solution.sandbox_correct)
