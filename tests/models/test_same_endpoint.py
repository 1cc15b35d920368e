"""One endpoint rule for every OpenAI-compatible provider and role (issue 58, part E):
``--base-url``, else ``$OPENAI_BASE_URL``; ``--api-key``, else ``$OPENAI_API_KEY``, else
"none" at a base URL given (neocoder/models/endpoint.py, docs/models.md).

Against a real chat-completions-only server on loopback (``HeardModels``: the scripted
endpoint of tests/support/scripted_models.py, answering 404 on ``/v1/responses`` as
llama.cpp's and vLLM's servers do, and keeping the path and ``Authorization`` header of
every request): ``openai/``, ``inspect-api/openai/`` and the ``openai/`` embedder reach it
from the environment alone, the options win over the environment, no key and no endpoint is
refused with one line, and a shared server never lends its own environment.
``neocoder eval --model inspect-api/openai/...`` and ``neocoder framework --embedder
openai/...`` run as a user runs them (a subprocess, in a folder of their own).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import CHECKOUT
from loopback import send
from scripted_models import ScriptedModels

from neocoder import netpolicy
from neocoder.models import ModelError, Prompt, get_model
from neocoder.models.embedders import get_embedder
from neocoder.models.endpoint import DEFAULT_BASE_URL, openai_endpoint
from neocoder.netpolicy import EndpointPolicy

ENV_KEY, OPTION_KEY = "env-key-0123456789", "option-key-0123456789"
ASKED = Prompt(messages=({"role": "user", "content": "Say hi."},), completion="def solve():\n", code_prefix="")
NOT_FOUND = b'{"error": {"message": "Not Found", "type": "not_found_error", "code": null}}'


class HeardModels(ScriptedModels):
    """The scripted endpoint, chat completions only: ``/v1/responses`` is answered 404, and
    ``/v1/embeddings`` 401 unless the bearer key is one of ``embedding_keys`` (None: any).
    ``heard`` keeps ``(path, Authorization header)`` of every request, in order."""

    def __init__(self, embedding_keys: set[str] | None = None, **options):
        super().__init__(**options)
        self.heard: list[tuple[str, str | None]] = []
        outer, scripted = self, self.httpd.RequestHandlerClass

        class Heard(scripted):
            def do_POST(self):
                key = self.headers.get("authorization")
                outer.heard.append((self.path, key))
                if self.path.endswith("/responses"):
                    self.rfile.read(int(self.headers.get("content-length", 0)))
                    send(self, 404, NOT_FOUND)
                elif self.path.endswith("/embeddings") and embedding_keys is not None \
                        and (key or "").removeprefix("Bearer ") not in embedding_keys:
                    self.rfile.read(int(self.headers.get("content-length", 0)))
                    send(self, 401, b'{"error": {"message": "bad key", "type": "invalid_request_error"}}')
                else:
                    super().do_POST()

        self.httpd.RequestHandlerClass = Heard


@pytest.fixture
def server():
    with HeardModels(programs_for={"coder"}) as endpoint:
        yield endpoint


@pytest.fixture
def bare_env(monkeypatch):
    """No OpenAI variable of the caller's reaches the test."""
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def closed_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def call(kind: str, **options) -> str:
    """One call through the provider ``kind``, with ``options`` as its model options: the reply's text."""
    if kind == "embedder":
        vectors = get_embedder("openai/embed", **options).embed(["a", "b"])
        return f"{vectors.shape[0]} vectors"
    with get_model(kind, max_retries=0, **options) as model:
        return model.generate(ASKED).text


PROVIDERS = {"openai/coder": "/v1/chat/completions", "inspect-api/openai/coder": "/v1/chat/completions",
             "embedder": "/v1/embeddings"}


@pytest.mark.parametrize("kind", PROVIDERS)
def test_every_provider_reaches_the_endpoint_of_OPENAI_BASE_URL_alone(kind, server, bare_env):
    bare_env.setenv("OPENAI_BASE_URL", server.url)
    bare_env.setenv("OPENAI_API_KEY", ENV_KEY)
    assert call(kind) in ("```python\ndef solve():\n    print(1)\n```", "2 vectors")
    assert server.heard == [(PROVIDERS[kind], f"Bearer {ENV_KEY}")]  # never /v1/responses


@pytest.mark.parametrize("kind", PROVIDERS)
def test_the_options_win_over_the_environment(kind, server, bare_env):
    bare_env.setenv("OPENAI_BASE_URL", closed_url())
    bare_env.setenv("OPENAI_API_KEY", ENV_KEY)
    call(kind, base_url=server.url, api_key=OPTION_KEY)
    assert server.heard == [(PROVIDERS[kind], f"Bearer {OPTION_KEY}")]


@pytest.mark.parametrize("kind", PROVIDERS)
def test_a_base_url_without_a_key_sends_none_and_no_key_nor_base_url_is_refused(kind, server, bare_env):
    bare_env.setenv("OPENAI_BASE_URL", server.url)
    call(kind)
    assert server.heard == [(PROVIDERS[kind], "Bearer none")]
    bare_env.delenv("OPENAI_BASE_URL")
    with pytest.raises(ModelError, match="no API key .*OPENAI_API_KEY.*OPENAI_BASE_URL") as refused:
        call(kind)
    assert "\n" not in str(refused.value) and len(server.heard) == 1


def test_inspect_api_openai_keeps_inspects_own_provider_at_openai_itself(bare_env):
    """The compatible provider is for another server's URL, from the option or the
    environment alike; OpenAI's own URL keeps inspect's ``openai/`` provider."""
    bare_env.setenv("OPENAI_API_KEY", ENV_KEY)
    for url, spec in ((DEFAULT_BASE_URL, "openai/gpt-4o"), ("http://127.0.0.1:9/v1", "openai-api/compatible/gpt-4o")):
        bare_env.setenv("OPENAI_BASE_URL", url)
        with get_model("inspect-api/openai/gpt-4o") as model:
            assert (model.provider_spec(), model.base_url, model.api_key) == (spec, url, ENV_KEY)
            assert model.request(ASKED)["endpoint"] == url  # the call cache tells the two endpoints apart


def test_a_shared_server_never_lends_its_own_environment(server, bare_env):
    bare_env.setenv("OPENAI_BASE_URL", server.url)
    bare_env.setenv("OPENAI_API_KEY", ENV_KEY)
    previous = netpolicy.install(EndpointPolicy.from_entries(["127.0.0.1"]))
    try:
        with pytest.raises(ModelError, match="the job's model must carry one"):
            openai_endpoint("openai/m", None, None)
        given = openai_endpoint("openai/m", server.url, None)
        assert (given.base_url, given.api_key, given.source) == (server.url, "none", "--base-url")
    finally:
        netpolicy.install(previous)
    lent = openai_endpoint("openai/m", None, None)
    assert (lent.base_url, lent.api_key, lent.source) == (server.url, ENV_KEY, "$OPENAI_BASE_URL")


def neocoder(args: list, cwd: Path, **env) -> subprocess.CompletedProcess:
    """``neocoder ARGS`` as a user runs it, in ``cwd``, with no OpenAI variable but ``env``'s."""
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env={**base, "PYTHONPATH": str(CHECKOUT), **env})


def test_eval_through_inspect_api_openai_reaches_a_chat_only_server_from_OPENAI_BASE_URL(tmp_path, server):
    args = ["eval", "--model", "inspect-api/openai/coder", "--limit", "1", "--states", "0", "--workers", "1",
            "--bootstrap", "100", "--quiet"]
    done = neocoder([*args, "--out", tmp_path / "run"], tmp_path, OPENAI_BASE_URL=server.url)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {path for path, _ in server.heard} == {"/v1/chat/completions"}
    assert {key for _, key in server.heard} == {"Bearer none"}
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    samples = [r for r in records if r.get("type") == "sample"]
    assert samples and all(s["error"] is None and "print(1)" in s["code"] for s in samples), records
    # the other direction: neither --base-url nor $OPENAI_BASE_URL (nor a key): one line, no call
    heard = len(server.heard)
    done = neocoder([*args, "--out", tmp_path / "run2"], tmp_path)
    assert done.returncode == 1 and "no API key" in done.stderr and "OPENAI_BASE_URL" in done.stderr
    assert "Traceback" not in done.stderr and len(server.heard) == heard


def test_framework_embedder_takes_the_base_url_and_api_key_of_the_command(tmp_path):
    data = tmp_path / "hypogen.jsonl"
    data.write_text('{"bit": "Bit 0 holds.", "flip": "Flip 0 holds."}\n', encoding="utf-8")
    with HeardModels(embedding_keys={OPTION_KEY}) as endpoint:
        def framework(key: str, out: str) -> subprocess.CompletedProcess:
            return neocoder(["framework", "--domain", "hypogen", "--data", data, "--model", "openai/gen",
                             "--base-url", endpoint.url, "--api-key", key, "--api", "completion",
                             "--embedder", "openai/embed", "--entailment", "embedding", "--judges", "none",
                             "--candidates", "2", "--max-steps", "3", "--limit", "1", "--bootstrap", "100",
                             "--out", tmp_path / out, "--quiet"], tmp_path, OPENAI_BASE_URL=closed_url())
        done = framework(OPTION_KEY, "run")
        assert done.returncode == 0, done.stderr[-3000:]
        embedded = [key for path, key in endpoint.heard if path == "/v1/embeddings"]
        assert embedded and set(embedded) == {f"Bearer {OPTION_KEY}"}
        # the other direction: the embedder carries --api-key, so a key the endpoint refuses stops the run
        endpoint.heard.clear()
        done = framework("another-key-0123456789", "run2")
        assert done.returncode == 1 and "openai/embed: request refused" in done.stderr, done.stderr[-3000:]
        assert ("/v1/embeddings", "Bearer another-key-0123456789") in endpoint.heard
