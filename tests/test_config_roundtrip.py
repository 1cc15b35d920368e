"""Every `neocoder eval` option survives CLI -> client -> server -> the config the job runs.

The option values are not written by hand per option: the test takes every option the
command builds from EvalConfig's and ModelConfig's declarations and refuses to run if one
has no non-default value below, so a new option is covered the day it is declared.  The
same command line is run twice: locally (``api.evaluate`` intercepted, so we hold the
EvalConfig the CLI built) and with ``--server`` against a real ``neocoder serve`` on
loopback, whose job records the config it ran in its run folder's manifest.  Both must
be the same, option for option (before the options were declared once, ``--logprobs``
was dropped on the way).  The declarations themselves are checked against the surfaces:
each click option's default and range, and each request field's bounds.
"""

import json
import re

import click
import pytest
from click.testing import CliRunner
from loopback import ScriptedServer
from servers import TOKEN, ServerProcess, wait_job

from neocoder import api
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.neocoder.config import ChainConfig, DatasetConfig, EvalConfig
from neocoder.cli import main
from neocoder.cli.declared import cli_fields, flag_name
from neocoder.config import ModelConfig

SECRET = "sk-roundtrip-0123456789abcdef"
# one value, never the default, for every option `neocoder eval` declares (the model's included)
VALUES = {
    "base_url": None,  # the scripted endpoint's URL, filled in below
    "api_key": SECRET, "api": "chat", "temperature": "0.5", "top_p": "0.9", "max_tokens": "300", "timeout": "30",
    "max_retries": "1", "max_connections": "7", "dataset": "release", "states": "1", "limit": "1", "samples": "2",
    "cpu_scale": "2.5", "bootstrap": "50", "bootstrap_seed": "7", "judge_all_tests": None, "strategy": "self-correct",
    "rounds": "1", "rollouts": "5", "top_k": "2", "best_of": "2", "logprobs": None, "paper": "exact,gpt4_labels",
    "reasoning": None, "reasoning_effort": "high", "problems": "1899A",
    "max_errors": "2",
    "language": "python",  # the default, unlike the rest: cpp runs without --paper (test_eval_cpp.py)
}
SERVER_OWNED = {"out", "sandbox"}  # where and how the server runs a job is its own


def eval_args(endpoint: str, release_dir) -> list[str]:
    """The command line giving every declared option its VALUES entry; fails on an option
    the table lacks (so the test cannot fall behind the declarations)."""
    declared = cli_fields(EvalConfig) + cli_fields(ModelConfig, exclude=("spec",))
    missing = [f.name for f, _, _ in declared if f.name not in VALUES]
    assert not missing, f"give the round trip a value for {missing}"
    args = ["eval", "--model", "openai/roundtrip", "--release", str(release_dir), "--quiet"]
    for f, opt, kind in declared:
        value = endpoint if f.name == "base_url" else VALUES[f.name]
        args += [flag_name(f, opt)] if kind is bool else [flag_name(f, opt), value]
    return args


def local_config(args: list[str], monkeypatch) -> EvalConfig:
    """The EvalConfig the CLI builds from ``args`` (api.evaluate stopped before it runs)."""
    seen = []

    def capture(config, stop=None):
        seen.append(config)
        raise SystemExit(0)

    monkeypatch.setattr(api, "evaluate", capture)
    CliRunner().invoke(main, args, catch_exceptions=False)
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0]


@pytest.mark.docker
def test_every_eval_option_reaches_the_server_job_unchanged(tmp_path, release_dir, monkeypatch):
    endpoint = ScriptedServer(["```python\ndef solve():\n    print(1)\n```"] * 20)
    server = ServerProcess(tmp_path / "data", release_dir, "--workers", "1", "--dataset", "release",
                    "--allow-endpoint", "127.0.0.1").start()  # the scripted endpoint is on loopback
    try:
        args = eval_args(endpoint.url, release_dir)
        local = local_config(args + ["--out", str(tmp_path / "local")], monkeypatch)
        assert local.logprobs and local.strategy == "self-correct" and local.model.api_key == SECRET
        assert local.problems == ["1899A"] and local.model.reasoning is True
        remote = CliRunner().invoke(main, args + ["--server", server.url, "--token", TOKEN])
        jobs = server.call("GET", "/v1/evals").json()["jobs"]
        assert len(jobs) == 1, remote.output
        job = wait_job(server, jobs[0]["id"])
        manifest = json.loads((server.data_dir / "runs" / job["id"] / "manifest.json").read_text())
        served = {k: v for k, v in manifest["config"].items() if k not in SERVER_OWNED}
        expected = {k: v for k, v in local.public().items() if k not in SERVER_OWNED}
        for name in expected:
            assert served.get(name) == expected[name], (name, served.get(name), expected[name])
        assert served == expected
        judged = [json.loads(line) for line in (server.data_dir / "runs" / job["id"] / "records.jsonl").read_text()
                  .splitlines()]
        assert {r["problem_id"] for r in judged} == {"1899A"}  # --problems chose the job's problem
        assert SECRET not in json.dumps(manifest) and SECRET not in json.dumps(job)
    finally:
        assert server.stop(), server.log.read_text()
        endpoint.close()


def _click_params(command: click.Command) -> dict:
    return {p.name: p for p in command.params}


COMMANDS = [  # (command path, config, fields the command gives by hand or shares with another config)
    (("eval",), EvalConfig, ()), (("eval",), ModelConfig, ("spec",)),
    (("aidanbench",), AidanConfig, ()), (("ideas",), IdeasConfig, ()), (("build-dataset",), DatasetConfig, ()),
    (("build-dataset",), ChainConfig, ("limit", "seed")),
]


@pytest.mark.parametrize("path,config_type,exclude", COMMANDS)
def test_click_options_are_the_declarations(path, config_type, exclude):
    """Every declared option of a command: its flag, help, default, range and choices as declared."""
    command = main
    for name in path:  # get_command loads a benchmark's commands the way the CLI does
        command = command.get_command(click.Context(command), name)
    params = _click_params(command)
    for f, opt, kind in cli_fields(config_type, exclude=exclude):
        param = params[f.name]
        assert param.opts[0] == flag_name(f, opt) and param.help == opt.help, f.name
        default = opt.text if opt.text is not None else opt.default
        assert param.default == (str(default) if opt.choices and default is not None else default), f.name
        low = opt.ge if opt.ge is not None else opt.gt
        if low is not None and opt.parse is None:  # a parsed option is checked after parsing
            assert param.type.min == low and param.type.min_open == (opt.gt is not None), f.name
        if opt.le is not None:
            assert param.type.max == opt.le, f.name
        if opt.choices is not None and opt.parse is None:  # a parsed list (--paper) checks its items after parsing
            assert list(param.type.choices) == [str(c) for c in opt.choices], f.name


def test_request_schema_is_the_declarations():
    """Every option the client sends is a request field with the declared default and bounds
    (the server's cap as its maximum), and a value outside them is a 422 naming it."""
    from neocoder.options import sent
    from neocoder.serve.routes.evals import EvalRequest

    fields = EvalRequest.model_fields
    assert set(fields) == {f.name for f, _ in sent(EvalConfig)}
    for f, opt in sent(EvalConfig):
        if opt.required or f.name == "dataset":
            continue
        default = fields[f.name].get_default(call_default_factory=True)
        assert default == (opt.factory() if opt.factory else opt.default), f.name
    schema = EvalRequest.model_json_schema()["properties"]
    assert schema["rounds"]["minimum"] == 0 and schema["rounds"]["maximum"] == 20
    assert schema["states"]["items"] == {"maximum": 20, "minimum": 0, "type": "integer"}
    assert "logprobs" in schema and re.search("log-prob", schema["logprobs"]["description"])
