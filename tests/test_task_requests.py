"""What a task's config becomes on its way to a server and back (neocoder/client.py,
neocoder/serve/derive.py), and what the runner refuses before anything is written.

Each test is a defect a review of the task/runner refactor found: the server's own
$OPENAI_API_KEY lent to an endpoint a /v1/runs caller chose, a client body the server
refused for a path field, a task the server accepted but could never run, and the eval
task taking ``--model human`` only after building the dataset and opening the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neocoder.api import run
from neocoder.benchmarks.aidanbench.config import AidanConfig, RescoreConfig
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.neocoder.config import ChainConfig, EvalConfig
from neocoder.client import request_body
from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError
from neocoder.serve.derive import to_config, unsendable
from neocoder.serve.schemas import config_request

LOOPBACK = "http://127.0.0.1:9/v1"  # never called: only the request is built and validated


def test_a_run_jobs_openai_model_without_a_key_never_gets_the_servers_own(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "the-servers-own-key")
    body = request_body(AidanConfig(model=ModelConfig("openai/gen", base_url=LOOPBACK),
                                    judge=ModelConfig("openai/judge", base_url=LOOPBACK), out=Path("unused")))
    request = config_request(AidanConfig).model_validate(body)
    config = to_config(AidanConfig, request, out=Path("x"))
    assert config.model.api_key == "none" and config.judge.api_key == "none"
    keyed = to_config(AidanConfig, request, api_key="callers-key", out=Path("x"))
    assert keyed.model.api_key == "callers-key"


@pytest.mark.parametrize("config", [
    AidanConfig(model=ModelConfig("openai/g", base_url=LOOPBACK), judge=None, out=Path("o"),
                questions=Path("/etc/questions.txt")),
    IdeasConfig(model=ModelConfig("openai/g", base_url=LOOPBACK), judges=[ModelConfig("openai/j", base_url=LOOPBACK)],
                out=Path("o"), keywords=Path("/etc/keywords.csv")),
    ChainConfig(model=ModelConfig("openai/g", base_url=LOOPBACK), release_dir=Path("r"), out=Path("o"),
                problems=Path("/etc/p.json")),
])
def test_the_clients_body_is_what_the_servers_schema_accepts(config):
    body = request_body(config)
    assert not any(isinstance(v, str) and v.startswith("/etc/") for v in body.values())  # no path of the caller's
    config_request(type(config)).model_validate(body)  # no 422 for a field the server leaves out


def test_a_task_that_needs_a_servers_path_is_named_as_such():
    assert unsendable(RescoreConfig) == ["run"]
    assert unsendable(EvalConfig) == [] and unsendable(AidanConfig) == []


def test_the_eval_task_of_the_human_model_runs_the_human_baselines(tmp_path):
    """``EvalTask.for_config``: every surface that runs ``eval`` by name with ``--model human``
    runs the human task, as ``neocoder eval --model human`` does (no release, no sandbox)."""
    config = EvalConfig(model=ModelConfig("human"), out=tmp_path / "run", release_dir=tmp_path / "no-release",
                        limit=2, states=[0], progress=False)
    result = run("eval", config)
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["kind"] == "human"
    assert set(result.metrics["states"]) == {"0"}


def test_the_runner_refuses_a_value_outside_its_declaration(tmp_path):
    config = EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "run",
                        release_dir=tmp_path / "no-release", samples=0)
    with pytest.raises(NeocoderError, match="samples"):
        run("eval", config)
    assert not (tmp_path / "run").exists()
