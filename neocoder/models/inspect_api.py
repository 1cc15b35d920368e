"""``inspect-api/<provider>/<model>``: every model API inspect_ai implements, as a neocoder model.

inspect_ai (already the dependency of the inspect tasks) speaks the native APIs of
Anthropic, Google, Bedrock, Mistral, Groq, vLLM, Hugging Face, Ollama, Together, ...
(``inspect_ai.model.get_model("anthropic/claude-sonnet-4-0")``).  This module puts one
of them behind neocoder's ``Model``: the run's call cache (``request``), the connection
limiter and the refusal gate of our own provider (limiter.py), the retries (inspect's,
bounded by ``--max-retries`` and ``--timeout``), and the token accounting (input, output
and reasoning tokens from inspect's ``ModelUsage``).  ``openai/<name>`` stays the way to
an OpenAI-compatible endpoint (docs/models.md says which to pick when).

inspect's models are asynchronous; neocoder's runner calls ``generate`` from worker
threads.  Each model owns one event loop on a thread of its own, where inspect's model
(and its HTTP client) is built and every call runs, so the client never crosses loops.

A request the provider refuses as such (400, 404, 422; 401, 403 for the key) raises
``RequestRefused`` naming the parameter where the provider names one (OpenAI's
``param``; Anthropic's messages start with it, e.g. ``max_tokens: ...``), and for a 404 the
URL that was tried; the run stops, as it does for an endpoint that cannot be reached at all
(``EndpointError``).  A connection made and then dropped, or a body that does not parse or
is not a completion, is ``UnusableReply`` (after inspect's retries): that item's error.

``inspect-api/openai/<name>`` at a base URL (``--base-url`` or ``$OPENAI_BASE_URL``, as for
``openai/``: models/endpoint.py) is an OpenAI-compatible server (llama.cpp's, vLLM's, ...):
it goes through inspect's provider for compatible servers over the chat completions API,
which those serve, instead of the Responses API inspect's OpenAI provider picks for names it
takes for OpenAI's own reasoning models; ``inspect-api/openai-api/<service>/<name>``
(inspect's provider for compatible services) works too.  Without a base URL inspect chooses,
as for OpenAI itself.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from urllib.parse import urlparse

from neocoder.config import ModelConfig
from neocoder.models.base import EndpointError, Model, ModelError, Prompt, Reply, RequestRefused, UnusableReply
from neocoder.models.endpoint import OPENAI_HOSTS, openai_endpoint
from neocoder.models.limiter import ConnectionLimiter, RefusalGate
from neocoder.models.unusable import causes, describe, dropped, not_json, unreachable
from neocoder.redaction import redact_url

API_CONNECTIONS = 16  # calls in flight when --max-connections is not given (as openai/)
REFUSED_STATUSES = (400, 401, 403, 404, 422)
_NAMED_PARAM = re.compile(r"^\s*([A-Za-z_][\w.\[\]]*)\s*:")  # Anthropic: "max_tokens: Field required"


class InspectAPIModel(Model):
    """A chat model behind inspect_ai's provider ``inspect_spec`` (``PROVIDER/MODEL`` as
    inspect spells it), with ``config``'s base URL, key, sampling and budget.  A reasoning
    model (``config.is_reasoning()``) is sent no temperature, and ``reasoning_effort``
    where given; ``max_tokens`` is the whole budget (reasoning included).  Raises
    ModelError when inspect cannot build the model (an unknown provider, its client
    package missing: ``pip install anthropic`` for ``anthropic/``)."""

    api = "chat"

    def __init__(self, spec: str, inspect_spec: str, config: ModelConfig):
        self.name, self.inspect_spec, self.config = spec, inspect_spec, config
        self.reasoning = config.is_reasoning()
        self.base_url, self.api_key = self.connection()
        self.endpoint = redact_url(self.base_url) or f"{inspect_spec.split('/', 1)[0]} (the provider's default)"
        self.limiter = ConnectionLimiter(config.max_connections or API_CONNECTIONS)
        self.gate = RefusalGate()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"inspect-api {spec}", daemon=True)
        self._thread.start()
        try:
            self.model = self._run(self._open())
        except Exception as exc:  # inspect's errors for an unknown provider or a missing client package
            self.close()
            raise ModelError(f"{spec}: inspect_ai cannot build {inspect_spec!r}: {type(exc).__name__}: {exc}") from exc

    def connection(self) -> tuple[str | None, str | None]:
        """The base URL and key this model is reached with.  ``openai/<name>``: by the rule
        every OpenAI-compatible provider and role follows (models/endpoint.py: ``--base-url``,
        else $OPENAI_BASE_URL; ``--api-key``, else $OPENAI_API_KEY, else "none" at a base URL
        given).  Another provider: ``--base-url`` and ``--api-key`` as given (None: inspect
        reads the provider's own variables, e.g. ANTHROPIC_API_KEY).  Raises ModelError for
        ``openai/<name>`` with no key and no base URL."""
        if self.inspect_spec.split("/", 1)[0] == "openai":
            found = openai_endpoint(self.name, self.config.base_url, self.config.api_key)
            return found.base_url, found.api_key
        return self.config.base_url, self.config.api_key

    def model_args(self) -> dict:
        """The provider arguments beyond the endpoint and key: chat completions for
        ``openai/<name>`` at a base URL (an OpenAI-compatible server serves no Responses API)."""
        if self.inspect_spec.split("/", 1)[0] == "openai" and self.base_url:
            return {"responses_api": False}
        return {}

    def provider_spec(self) -> str:
        """inspect's model spec for this model.  ``openai/<name>`` at a base URL (``--base-url``
        or $OPENAI_BASE_URL) that is not OpenAI's own goes to inspect's provider for compatible
        servers (``openai-api/compatible/<name>``): inspect's ``openai/`` provider takes a
        name it does not know (``gemma-3-270m``) for an unreleased frontier model and sends
        it to the Responses API (404 at these servers), the ``developer`` role and no
        temperature, which llama.cpp's server refuses (422) and vLLM's ignores."""
        provider, _, name = self.inspect_spec.partition("/")
        if provider == "openai" and self.base_url and urlparse(self.base_url).hostname not in OPENAI_HOSTS:
            return f"openai-api/compatible/{name}"
        return self.inspect_spec

    async def _open(self):
        from inspect_ai.model import get_model
        return get_model(self.provider_spec(), base_url=self.base_url, api_key=self.api_key, memoize=False,
                         **self.model_args())

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def sampling(self, prompt: Prompt) -> dict:
        """The generation parameters of this call (inspect's ``GenerateConfig`` fields): the
        prompt's overrides over the model's own; no temperature for a reasoning model."""
        pick = lambda override, own: own if override is None else override  # noqa: E731
        out = {"max_tokens": pick(prompt.max_tokens, self.config.max_tokens),
               "seed": pick(prompt.seed, self.config.seed)}
        if not self.reasoning:
            out["temperature"] = pick(prompt.temperature, self.config.temperature)
        if self.config.reasoning_effort:
            out["reasoning_effort"] = self.config.reasoning_effort
        return {k: v for k, v in out.items() if v is not None}

    def request(self, prompt: Prompt) -> dict:
        """What decides this call's answer (the call cache's key, models/cache.py)."""
        return {"provider": "inspect-api", "model": self.inspect_spec, "endpoint": redact_url(self.base_url),
                "api": "chat", **self.sampling(prompt), "messages": list(prompt.messages)}

    def generate(self, prompt: Prompt) -> Reply:
        """Answer ``prompt`` through inspect's model, within the limiter.  Raises
        RequestRefused, EndpointError (unreachable after the retries) or ModelError."""
        start = time.monotonic()
        sent = self.sampling(prompt)
        try:
            with self.gate.turn(), self.limiter.slot():
                output = self._run(self._generate(prompt, sent))
        except (RequestRefused, EndpointError, ModelError):
            raise
        except Exception as exc:  # the provider SDK's own error types: classified by status
            error = self._classify(exc)
            if isinstance(error, RequestRefused):
                self.gate.refuse(error)
            raise error from exc
        if output.error or not output.choices:
            raise UnusableReply(self.name, self.endpoint, output.error or "no choices in the reply")
        usage = output.usage
        return Reply(text=output.completion, prompt_tokens=usage.input_tokens if usage else None,
                     completion_tokens=usage.output_tokens if usage else None, seconds=time.monotonic() - start,
                     extra={"finish_reason": output.stop_reason},
                     reasoning_tokens=usage.reasoning_tokens if usage else None,
                     reasoning=reasoning_of(output.choices[0].message), sent=sent)

    async def _generate(self, prompt: Prompt, sent: dict):
        from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig
        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
        messages = [kinds[m["role"]](content=m["content"]) for m in prompt.messages]
        config = GenerateConfig(**sent, max_retries=self.config.max_retries, timeout=self.config.timeout,
                                max_connections=self.limiter.most)
        return await self.model.generate(messages, config=config)

    def _classify(self, exc: BaseException) -> ModelError:
        """The neocoder error of a provider SDK's exception: RequestRefused for a refused
        request (by its HTTP status), EndpointError for an endpoint that cannot be reached at
        all (``unusable.unreachable``: refused, no such host), ModelError for another status
        (a 429 or 5xx after inspect's retries), UnusableReply for the rest (a connection made
        and then dropped, a body that does not parse or is not a completion, a timeout), naming
        the endpoint."""
        status = getattr(exc, "status_code", None)  # anthropic's, openai's, mistral's, ... status errors
        said = provider_message(exc)
        if status in REFUSED_STATUSES:
            param = getattr(exc, "param", None) or named_param(said)
            named = f"parameter {param!r} refused" if param else "request refused"
            tried = request_url(exc)
            hint = {401: "check --api-key", 403: "check --api-key",
                    404: f"check the model name and --base-url{f' (tried {tried})' if tried else ''}"}.get(
                status, "fix the option that sends it" if param else "fix the options (docs/models.md)")
            return RequestRefused(f"{self.name}: {named} by {self.endpoint} ({status}: {said}); {hint}; the run "
                                  "folder resumes once it is fixed", param=param, status=status)
        if status is None and unreachable(exc):
            return EndpointError(f"{self.name}: cannot reach {self.endpoint} after {self.config.max_retries} "
                                 f"retries ({type(exc).__name__}: {said}); check --base-url and that the server runs")
        if status is None and "connection" in " ".join(type(e).__name__.lower() for e in causes(exc)) \
                and not_json(exc) is None:  # the SDKs' APIConnectionError over a transport's Read/ProtocolError
            return UnusableReply(self.name, self.endpoint, dropped(exc))
        if status is not None:
            return ModelError(f"{self.name}: no usable reply from {self.endpoint} ({type(exc).__name__}: {said})")
        return UnusableReply(self.name, self.endpoint, describe(exc))

    def close(self) -> None:
        """Close the provider's client and stop the event loop's thread (waiting up to 10 s); an
        error while closing is ignored."""
        model = getattr(self, "model", None)
        if model is not None and self._loop.is_running():
            try:
                self._run(model.__aexit__(None, None, None))  # closes the provider's client
            except Exception:  # noqa: BLE001 - closing never hides what the run did
                pass
            self.model = None
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)


def provider_message(exc: BaseException) -> str:
    """The provider's own message of an SDK error: ``body.error.message`` (Anthropic's and
    OpenAI's error bodies) where there is one, else the exception's text; one line."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str):
            return " ".join(inner["message"].split())
    return " ".join(str(exc).split())


def request_url(exc: BaseException) -> str | None:
    """The URL of the request an SDK error answered (openai's and anthropic's status errors
    carry their ``response``), or None."""
    response = getattr(exc, "response", None)
    request = getattr(exc, "request", None) or getattr(response, "request", None)
    url = getattr(request, "url", None)
    return str(url) if url is not None else None


def named_param(message: str) -> str | None:
    """The parameter a refusal's message starts with (Anthropic: ``max_tokens: Field
    required``; ``temperature: range: 0..1``), else None."""
    m = _NAMED_PARAM.match(message or "")
    return m.group(1) if m else None


def reasoning_of(message) -> str | None:
    """The reasoning text of inspect's assistant message (its ``ContentReasoning`` parts,
    summaries where the text is redacted), None when it has none."""
    from inspect_ai._util.content import ContentReasoning
    parts = [c.summary if c.redacted else c.reasoning for c in message.content
             if isinstance(c, ContentReasoning)] if isinstance(message.content, list) else []
    text = "\n\n".join(p for p in parts if p)
    return text or None


def from_config(name: str, config: ModelConfig) -> InspectAPIModel:
    """``inspect-api/<provider>/<model>``: ``name`` is inspect's ``<provider>/<model>``.
    Raises ModelError when it has no provider part."""
    if "/" not in name:
        raise ModelError(f"{config.spec}: use inspect-api/<provider>/<model>, e.g. "
                         "inspect-api/anthropic/claude-sonnet-4-0 (docs/models.md)")
    return InspectAPIModel(config.spec, name, config)
