"""One benchmark, four surfaces, the same run: the CLI, the Python API, ``POST /v1/runs``
on a real server and the inspect_ai task, each against its own scripted OpenAI-style
endpoint on loopback that records every request body.  Every generator and judge call
must carry the same sampling parameters on all four, and the four manifests (the
inspect log's task metadata for inspect) must agree on every declared field: each
benchmark's model defaults live on its config (``Config.roles``), whoever starts it."""

import json
import os
import re

import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log
from inspect_runs import inspect_eval_task
from loopback import RespondingServer
from servers import Served

import neocoder
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.cli import main
from neocoder.config import ModelConfig, SandboxConfig

SAMPLING = ("temperature", "max_tokens", "max_completion_tokens", "top_p", "seed")  # what a benchmark decides
WHERE = ("out", "release_dir", "spec", "base_url", "api_key")  # where a run goes and which endpoint: not the run


def sent(server) -> dict[str, set[tuple]]:
    """Per model id, the sampling parameters its requests carried (the distinct sets: a
    run's call cache answers a repeated request itself, inspect's does not)."""
    calls: dict[str, set[tuple]] = {}
    for _, body in server.requests:
        calls.setdefault(body["model"], set()).add(tuple((k, body[k]) for k in SAMPLING if k in body))
    return calls


def declared(config: dict) -> dict:
    """A manifest's config without where it ran (paths, endpoint, model ids)."""
    if isinstance(config, dict):
        return {k: declared(v) for k, v in config.items() if k not in WHERE}
    if isinstance(config, list):
        return [declared(v) for v in config]
    return config


def manifest_config(folder) -> dict:
    return json.loads((folder / "manifest.json").read_text())["config"]


def inspect_config(log_path) -> dict:
    return read_eval_log(str(log_path)).eval.metadata["neocoder"]


def four_surfaces(tmp_path, release_dir, respond, cli_args, api_run, request, inspect_args, inspect_model,
                  server_options=None):
    """Run one benchmark through the four surfaces, each on its own recording endpoint;
    return ``{surface: (calls sent, declared config)}``."""
    out = {}
    with RespondingServer(respond) as endpoint:  # the command line
        result = CliRunner().invoke(main, [*cli_args(endpoint.url), "--out", str(tmp_path / "cli"), "--quiet"])
        assert result.exit_code == 0, result.output
        out["cli"] = sent(endpoint), declared(manifest_config(tmp_path / "cli"))
    with RespondingServer(respond) as endpoint:  # the Python API
        api_run(endpoint.url, tmp_path / "api")
        out["api"] = sent(endpoint), declared(manifest_config(tmp_path / "api"))
    with RespondingServer(respond) as endpoint:  # POST /v1/runs on a real server
        (tmp_path / "server").mkdir()
        server = Served(tmp_path / "server", release_dir, allow_endpoint=["127.0.0.1"], **(server_options or {}))
        try:
            job = server.call("POST", "/v1/runs", json=request(endpoint.url))
            assert job.status_code == 202, job.text
            ended = server.wait(job.json()["id"])
            assert ended["status"] == "succeeded", ended
            out["server"] = sent(endpoint), declared(manifest_config(server.run_dir(ended["id"])))
        finally:
            server.stop()
    with RespondingServer(respond) as endpoint:  # the inspect_ai task
        task, *args = inspect_args(endpoint.url)
        log = inspect_eval_task(task, tmp_path / "logs", inspect_model, *args,
                                env={"SCRIPTED_BASE_URL": endpoint.url, "SCRIPTED_API_KEY": "x",
                                     "OPENAI_API_KEY": "x"})
        out["inspect"] = sent(endpoint), declared(inspect_config(log))
    return out


def assert_same(runs: dict, roles: dict[str, str]):
    """Every surface sent each role's model (``roles``: model id -> role) the same
    parameters, and recorded the same declared config."""
    first = next(iter(runs))
    calls, config = runs[first]
    assert set(calls) == set(roles), calls
    for surface, (other_calls, other_config) in runs.items():
        for model in roles:
            assert other_calls.get(model) == calls[model], (surface, roles[model], other_calls.get(model),
                                                             calls[model])
        assert other_config == config, (surface, other_config, config)


ANSWERS = ["Deflation kept real interest rates high while banks hid bad loans.",
           "An ageing, shrinking workforce lowered growth and demand for decades.",
           "Deflation kept real interest rates high while banks hid bad loans."]


def aidan_respond(kind, body):
    if body["model"] == "judge":
        return "<score>80</score>", None
    user = body["messages"][-1]["content"]
    previous = 0 if "(none yet)" in user else len(re.findall(r"^\d+\. ", user, re.M))
    return ANSWERS[min(previous, len(ANSWERS) - 1)], None


@pytest.mark.slow
def test_aidanbench_runs_alike_on_every_surface(tmp_path, release_dir):
    def api_run(url, out):
        neocoder.run("aidanbench", AidanConfig(model=ModelConfig("openai/gen", base_url=url, api_key="x"),
                                               judge=ModelConfig("openai/judge", base_url=url, api_key="x"),
                                               out=out, limit=1, progress=False))

    runs = four_surfaces(
        tmp_path, release_dir, aidan_respond,
        cli_args=lambda url: ["aidanbench", "--model", "openai/gen", "--base-url", url, "--api-key", "x",
                              "--judge", "openai/judge", "--limit", "1"],
        api_run=api_run,
        request=lambda url: {"task": "aidanbench", "config": {
            "model": {"spec": "openai/gen", "base_url": url, "api_key": "x"},
            "judge": {"spec": "openai/judge", "base_url": url, "api_key": "x"}, "limit": 1}},
        inspect_args=lambda url: ["neocoder/aidanbench", "-T", "judge=openai/judge", "-T", f"judge_base_url={url}",
                                  "-T", "limit=1"],
        inspect_model="openai-api/scripted/gen")
    assert_same(runs, {"gen": "generator", "judge": "judge"})
    calls, config = runs["cli"]
    assert calls["gen"] == {(("temperature", 0.7), ("max_tokens", 256), ("seed", 0))}  # AidanConfig.roles
    assert calls["judge"] == {(("temperature", 0.0), ("max_tokens", 16), ("seed", 0))}
    assert config["coherence_stop"] == 15.0  # the stop in force, written out on every surface


PROGRAM = "```python\ndef solve():\n    print(1)\n```"


@pytest.mark.docker
@pytest.mark.slow
def test_neocoder_eval_runs_alike_on_every_surface(tmp_path, release_dir):
    workers = os.cpu_count() or 1  # every surface's default sandbox

    def api_run(url, out):
        neocoder.evaluate(EvalConfig(model=ModelConfig("openai/gen", base_url=url, api_key="x"), out=out,
                                     release_dir=release_dir, limit=1, states=[0, 1], progress=False))

    runs = four_surfaces(
        tmp_path, release_dir, lambda kind, body: (PROGRAM, None),
        cli_args=lambda url: ["eval", "--model", "openai/gen", "--base-url", url, "--api-key", "x", "--limit", "1",
                              "--states", "0,1"],
        api_run=api_run,
        request=lambda url: {"task": "eval", "config": {
            "model": {"spec": "openai/gen", "base_url": url, "api_key": "x"}, "limit": 1, "states": [0, 1],
            "dataset": "validated"}},
        inspect_args=lambda url: ["neocoder/neocoder", "-T", "limit=1", "-T", "states=0,1"],
        inspect_model="openai-api/scripted/gen",
        server_options={"sandbox": SandboxConfig("docker", workers=workers)})
    assert_same(runs, {"gen": "model"})
    calls, config = runs["cli"]
    assert calls["gen"] == {(("temperature", 0.0), ("max_tokens", 1024), ("seed", 0))}  # EvalConfig.roles


JUDGE_REPLY = "originality: 8\nfeasibility: 6\nclarity: 7"


def ideas_respond(kind, body):
    text = "\n".join(m["content"] for m in body["messages"])
    if "grade: X" in text:
        return "grade: B", None
    if "originality: N" in text:
        return JUDGE_REPLY, None
    return f"Idea: measure the signal with method number {body.get('seed', 0)} against a control group.", None


@pytest.mark.slow
def test_ideas_run_alike_on_every_surface(tmp_path, release_dir):
    panel = ["openai/j1", "openai/j2", "openai/j3"]

    def api_run(url, out):
        neocoder.run("ideas", IdeasConfig(model=ModelConfig("openai/w", base_url=url, api_key="x"),
                                          judges=[ModelConfig(j, base_url=url, api_key="x") for j in panel],
                                          out=out, limit=1, progress=False))

    runs = four_surfaces(
        tmp_path, release_dir, ideas_respond,
        cli_args=lambda url: ["ideas", "--model", "openai/w", "--base-url", url, "--api-key", "x",
                              "--judges", ",".join(panel), "--limit", "1"],
        api_run=api_run,
        request=lambda url: {"task": "ideas", "config": {
            "model": {"spec": "openai/w", "base_url": url, "api_key": "x"},
            "judges": [{"spec": j, "base_url": url, "api_key": "x"} for j in panel], "limit": 1}},
        inspect_args=lambda url: ["neocoder/ideas", "-T", f"judges={','.join(panel)}", "-T", f"judge_base_url={url}",
                                  "-T", "limit=1"],
        inspect_model="openai-api/scripted/w")
    assert_same(runs, {"w": "idea model", "j1": "judge", "j2": "judge", "j3": "judge"})
    calls, config = runs["cli"]
    assert {dict(c)["max_tokens"] for c in calls["w"]} == {400} and calls["j1"] == {
        (("temperature", 0.0), ("max_tokens", 64), ("seed", 0))}  # IdeasConfig.roles


def test_sandbox_run_limits_are_declared_once_for_the_cli_and_the_server(tmp_path):
    """``neocoder sandbox run`` and ``POST /v1/run`` take ProgramLimits' fields: the same
    names, defaults and lower bounds (the server adds only its caps)."""
    from neocoder.config import ProgramLimits
    from neocoder.serve.schemas import RunRequest
    limits = ProgramLimits()
    request = RunRequest(program="print(1)")
    assert (request.cpu_seconds, request.memory_mb) == (limits.cpu_seconds, limits.memory_mb) == (2.0, 256)
    program, tests = tmp_path / "p.py", tmp_path / "t.jsonl"
    program.write_text("print(int(input()) * 2)\n")
    tests.write_text('{"input": "21", "output": "42"}\n')
    refused = CliRunner().invoke(main, ["sandbox", "run", str(program), "--tests", str(tests), "--memory-mb", "31",
                                        "--sandbox", "process"])
    assert refused.exit_code == 2 and "--memory-mb" in refused.output
    ran = CliRunner().invoke(main, ["sandbox", "run", str(program), "--tests", str(tests), "--cpu-seconds", "1",
                                    "--sandbox", "process", "--json"])
    assert ran.exit_code == 0, ran.output
    assert [t["verdict"] for t in json.loads(ran.output)["tests"]] == ["AC"]
