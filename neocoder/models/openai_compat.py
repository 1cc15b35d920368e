"""Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, OpenRouter).

A reasoning model (``ModelConfig.is_reasoning``: declared, or recognised from its name) is
called as OpenAI's reasoning models must be: ``max_completion_tokens`` in place of
``max_tokens`` (the budget then covers the reasoning tokens too), ``reasoning_effort``
where given, and no temperature (they refuse any but the default).  Decided once, from
the config, never by trial.  A reply's reasoning tokens
(``usage.completion_tokens_details.reasoning_tokens``) and reasoning text (the message's
``reasoning_content`` or ``reasoning``) go on the ``Reply``, apart from its text.

A request the endpoint refuses as such (400, 404, 422; 401, 403 for the key) raises
``RequestRefused`` naming the parameter the endpoint named: every call built the same
way would be refused, so the run stops (runner.py).  Timeouts, 408, 409, 429 and 5xx are
retried.  Until the endpoint has answered one call the others wait for it
(``limiter.RefusalGate``), so a refused model costs one call, not ``--max-connections``.

An endpoint that cannot be reached at all (connection refused, no such host) raises
``EndpointError``: the run stops too.  A connection made and then dropped, a 200 whose body
does not parse (a proxy's HTML page, JSON cut short) or JSON that is not a completion (no
choices, no message, content or usage of the wrong type: ``read_chat``, ``read_completion``)
is retried like a 5xx, then raises ``UnusableReply`` naming the endpoint and what was wrong:
that item's error, never the end of the run (models/unusable.py draws the line).
"""

from __future__ import annotations

import copy
import json
import time
import warnings

import openai
import tenacity

from neocoder.config import ModelConfig
from neocoder.models.base import EndpointError, Model, ModelError, Prompt, Reply, RequestRefused, UnusableReply
from neocoder.models.endpoint import openai_endpoint
from neocoder.models.limiter import ConnectionLimiter, RefusalGate, retry_after
from neocoder.models.unusable import describe, dropped, not_json, snippet, unreachable
from neocoder.netpolicy import current as endpoint_policy
from neocoder.netpolicy import http_client as guarded_http_client
from neocoder.redaction import redact_url

API_CONNECTIONS = 16  # calls in flight to a hosted API when --max-connections is not given
REFUSED_STATUSES = (400, 401, 403, 404, 422)  # the request itself refused: no retry will be accepted
# Refusals that concern one prompt, not the way every call is built: that item's own error.
PROMPT_ERRORS = ("context_length_exceeded", "string_above_max_length")
# What a chat model takes and a reasoning model refuses: the hint of a refusal naming one.
SAMPLING_PARAMS = ("max_tokens", "temperature", "top_p")
REASONING_BUDGET = 1024  # tokens: below this a reasoning model's answer is likely cut (its reasoning counts)

__all__ = ["EndpointError", "NotACompletion", "OpenAICompatModel", "RequestRefused", "UnusableReply", "from_config",
           "read_chat", "read_completion", "refusal", "retryable"]

# Where a completion prompt's program is cut: the model starts writing tests,
# a main guard or prose instead of the body of solve().
COMPLETION_STOP = ["\nif __name__", "\ndef test", "\n# Test", "\n```", '\n"""']


class OpenAICompatModel(Model):
    """A model behind the ``openai`` client.

    ``api`` is "chat" (chat.completions with the prompt's messages) or "completion"
    (completions with the code-prefix prompt; the reply continues ``def solve():``).
    At most ``max_connections`` calls are in flight at once (``limiter``, shared by the
    ``with_temperature`` copies; fewer while the endpoint answers 429 or 5xx, see
    limiter.py).  A call that gets no answer or a 408, 409, 429 or 5xx is tried again up to
    ``max_retries`` times (tenacity, ``_attempts``; the SDK's own retries are off, so every
    refusal reaches the limiter); ``timeout`` is in seconds per try.  Raises ModelError when
    the endpoint fails after its retries (UnusableReply when it answered with no usable
    reply, EndpointError when it cannot be reached, RequestRefused when it refuses the request).
    """

    def __init__(self, name: str, model_id: str, base_url: str | None = None,
                 api_key: str | None = None, api: str = "chat", temperature: float = 0.0,
                 max_tokens: int = 1024, timeout: float = 120.0, max_retries: int = 3,
                 seed: int | None = 0, max_connections: int = API_CONNECTIONS, http_client=None,
                 reasoning: bool = False, reasoning_effort: str | None = None, top_p: float | None = None):
        if api not in ("chat", "completion"):
            raise ModelError(f"--api must be chat or completion, not {api!r}")
        if reasoning and api != "chat":
            raise ModelError(f"{name}: a reasoning model is called through the chat API, not --api {api}")
        self.name, self.model_id, self.api = name, model_id, api
        self.temperature, self.max_tokens, self.seed = temperature, max_tokens, seed
        self.reasoning, self.reasoning_effort = reasoning, reasoning_effort
        self.top_p = top_p
        found = openai_endpoint(name, base_url, api_key)  # --base-url, else $OPENAI_BASE_URL; the key likewise
        self.max_retries = max_retries
        self.limiter = ConnectionLimiter(max_connections)
        self.gate = RefusalGate()  # one call first; after a refused request, no more calls (limiter.py)
        self.client = openai.OpenAI(base_url=found.base_url, api_key=found.api_key, timeout=timeout, max_retries=0,
                                    http_client=http_client)
        self.endpoint = redact_url(str(self.client.base_url))  # in the call cache's key and messages: no user:password

    def with_temperature(self, temperature: float) -> "OpenAICompatModel":
        """The same model and client (and, for a local model, server) sampled at
        ``temperature``: a judge at 0 beside a generator at 0.7."""
        other = copy.copy(self)
        other.temperature = temperature
        return other

    def sampling(self, prompt: Prompt) -> dict:
        """The sampling parameters of this call: the prompt's overrides over the model's own.
        A reasoning model gets ``max_completion_tokens`` (reasoning included),
        ``reasoning_effort`` where set, and no temperature (it takes only the default)."""
        pick = lambda override, own: own if override is None else override  # noqa: E731
        budget, seed = pick(prompt.max_tokens, self.max_tokens), pick(prompt.seed, self.seed)
        if self.reasoning:
            effort = {"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {}
            return {"max_completion_tokens": budget, **effort, "seed": seed}
        params = {"temperature": pick(prompt.temperature, self.temperature), "max_tokens": budget, "seed": seed}
        top_p = pick(prompt.top_p, self.top_p)
        if top_p is not None:  # sent (and in the cache key) only when asked for: older call caches stay valid
            params["top_p"] = top_p
        return params

    def request(self, prompt: Prompt) -> dict:
        """What decides this call's answer (the key of the call cache, models/cache.py)."""
        req = {"model": self.model_id, "endpoint": self.endpoint, "api": self.api, **self.sampling(prompt)}
        if self.api == "chat":
            req["messages"] = list(prompt.messages)
        else:
            req.update(prompt=prompt.completion, stop=list(prompt.stop or COMPLETION_STOP))
        if prompt.logprobs:
            req["logprobs"] = prompt.logprobs
        return req

    def generate(self, prompt: Prompt) -> Reply:
        """Answer ``prompt`` through the limiter, retrying as the class says.  Raises
        RequestRefused (the request, the model or the key refused), EndpointError
        (unreachable), UnusableReply (a connection dropped on every try, a body that is not
        a completion) or ModelError."""
        start = time.monotonic()
        try:
            with self.gate.turn():
                got = self._tries(prompt)
        except ModelError:
            raise
        except Exception as exc:  # the client's errors and what its parser lets through
            error = self.failure(exc)
            if error is None:
                raise  # a bug of ours, not the endpoint's: its traceback is what helps
            if isinstance(error, RequestRefused):
                self.gate.refuse(error)
            raise error from exc
        return Reply(text=got["text"], code_prefix=got["prefix"], prompt_tokens=got["prompt_tokens"],
                     completion_tokens=got["completion_tokens"], seconds=time.monotonic() - start,
                     extra={"finish_reason": got["finish_reason"],
                            **({"logprobs": got["logprobs"]} if got["logprobs"] else {})},
                     reasoning_tokens=got["reasoning_tokens"], reasoning=got["reasoning"],
                     sent=self.sampling(prompt))

    def failure(self, exc: BaseException) -> ModelError | None:
        """The neocoder error of an exception a call to the endpoint raised after its retries:
        RequestRefused for a refused request (``refusal``); ModelError for another status (a
        429 or 5xx burst) or a timeout; EndpointError for an endpoint that cannot be reached
        at all (``unusable.unreachable``); UnusableReply for a connection made and then
        dropped, or a body that does not parse; ModelError for another client error; None
        for anything else (a bug, raised as it is).  One line, naming the endpoint."""
        if isinstance(exc, ModelError):
            return exc
        if isinstance(exc, openai.APIStatusError):
            return refusal(self, exc) or ModelError(f"{self.name}: {type(exc).__name__}: {exc}")
        if isinstance(exc, openai.APITimeoutError):
            return ModelError(f"{self.name}: {type(exc).__name__}: no reply within the timeout after the client's "
                              f"retries: {exc}")
        if isinstance(exc, openai.APIConnectionError):
            if unreachable(exc):
                return EndpointError(f"{self.name}: cannot reach {self.endpoint} after {self.max_retries} "
                                     f"retries ({exc}); check --base-url and that the server is running")
            return UnusableReply(self.name, self.endpoint, f"{dropped(exc)} ({self.max_retries + 1} tries)")
        if not_json(exc) is not None:
            return UnusableReply(self.name, self.endpoint, not_json(exc))
        if isinstance(exc, openai.OpenAIError):
            return ModelError(f"{self.name}: {type(exc).__name__}: {exc}")
        return None

    def _tries(self, prompt: Prompt) -> dict:
        """``_create`` through the limiter, retried as the class says; the last error is raised."""
        for attempt in self._attempts():
            with attempt:
                with self.limiter.slot() as slot:
                    try:
                        return self._create(prompt)
                    except openai.APIStatusError as exc:
                        if exc.status_code == 429 or exc.status_code >= 500:  # the endpoint is overloaded
                            slot.overloaded(retry_after(exc.response.headers))
                        raise

    def _attempts(self) -> tenacity.Retrying:
        """The tries of one call: the first and ``max_retries`` more after a retryable
        error, each after the endpoint's Retry-After or an exponential backoff with jitter
        (0.5 s doubling up to 8 s, as the openai SDK's); the last error is re-raised."""
        backoff = tenacity.wait_exponential_jitter(multiplier=0.5, max=8.0)

        def wait(state: tenacity.RetryCallState) -> float:
            exc = state.outcome.exception()
            given = retry_after(exc.response.headers) if isinstance(exc, openai.APIStatusError) else None
            return backoff(state) if given is None else given

        return tenacity.Retrying(stop=tenacity.stop_after_attempt(self.max_retries + 1), wait=wait,
                                 retry=tenacity.retry_if_exception(retryable), reraise=True,
                                 before_sleep=lambda _state: self.limiter.retried())

    def _create(self, prompt: Prompt) -> dict:
        """One request to the endpoint, read (``read_chat`` or ``read_completion``).  Raises
        the openai client's errors, and UnusableReply for a body that does not parse or is not
        a completion (the client constructs its answer unchecked: a proxy's page or another
        API's JSON would otherwise pass as an empty reply, or fail later as a TypeError)."""
        params = self.sampling(prompt)
        try:
            if self.api == "chat":
                extra = {"logprobs": True, "top_logprobs": prompt.logprobs} if prompt.logprobs else {}
                resp = self.client.chat.completions.create(
                    model=self.model_id, messages=list(prompt.messages), **params, **extra)
            else:
                extra = {"logprobs": prompt.logprobs} if prompt.logprobs else {}
                resp = self.client.completions.create(
                    model=self.model_id, prompt=prompt.completion, stop=list(prompt.stop or COMPLETION_STOP),
                    **params, **extra)
        except (json.JSONDecodeError, openai.APIResponseValidationError) as exc:
            raise UnusableReply(self.name, self.endpoint, describe(exc)) from exc
        try:
            got = read_chat(resp, bool(prompt.logprobs)) if self.api == "chat" else \
                read_completion(resp, bool(prompt.logprobs))
        except NotACompletion as exc:
            raise UnusableReply(self.name, self.endpoint, str(exc)) from None
        return dict(got, prefix="" if self.api == "chat" else prompt.code_prefix)

    def close(self) -> None:
        """Close the openai client and its connections."""
        self.client.close()


class NotACompletion(Exception):
    """A 200 body that parsed but is not a completion; the message says what is wrong (the
    caller names the model and endpoint: UnusableReply)."""


_PLAIN = (str, bytes, int, float, bool, list, tuple, dict)  # what the client leaves unconstructed


def _record(value) -> bool:
    """Whether ``value`` is an object the client constructed (a choice, a message, a usage),
    not a plain JSON value left where one was expected."""
    return value is not None and not isinstance(value, _PLAIN)


def _choice(resp):
    """The first choice of a parsed body; raises NotACompletion when there is none."""
    if isinstance(resp, (str, bytes)):  # the client hands back the text of a body it could not parse
        raise NotACompletion(f"the body is not JSON: {snippet(resp)}")
    choices = getattr(resp, "choices", None) if _record(resp) else None
    if choices is None:
        got = snippet(resp.to_json(indent=None) if hasattr(resp, "to_json") else json.dumps(resp, default=str))
        raise NotACompletion(f"the body is not a completion (no choices): {got}")
    if not isinstance(choices, list):
        raise NotACompletion(f"the body is not a completion (choices is a {type(choices).__name__}, not a list)")
    if not choices or not _record(choices[0]):
        raise NotACompletion("the body is not a completion (choices is empty)" if not choices else
                             f"the body is not a completion (its choice is a {type(choices[0]).__name__})")
    return choices[0]


def _counts(resp) -> dict:
    """The token counts of a parsed body's ``usage`` (None where it reports none); raises
    NotACompletion when a count is there but not a whole number of tokens."""
    usage = getattr(resp, "usage", None)
    if usage is not None and not _record(usage):
        raise NotACompletion(f"its usage is a {type(usage).__name__}, not token counts")
    details = getattr(usage, "completion_tokens_details", None)
    counts = {"prompt_tokens": getattr(usage, "prompt_tokens", None),
              "completion_tokens": getattr(usage, "completion_tokens", None),
              "reasoning_tokens": getattr(details, "reasoning_tokens", None) if _record(details) else None}
    for name, n in counts.items():
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 0):
            raise NotACompletion(f"its usage's {name} is {snippet(json.dumps(n, default=str))}, not a count")
    return counts


def _text(text, where: str) -> str:
    """``text`` ("" for None); raises NotACompletion when it is not a string."""
    if text is not None and not isinstance(text, str):
        raise NotACompletion(f"its {where} is a {type(text).__name__}, not text")
    return text or ""


def read_chat(resp, logprobs: bool) -> dict:
    """What a chat completion holds: ``text``, ``finish_reason``, ``reasoning`` (the
    message's reasoning text, or None), ``logprobs`` (``{"tokens", "token_logprobs", "top"}``
    where ``logprobs`` was asked and returned, else None) and the token counts
    (``prompt_tokens``, ``completion_tokens``, ``reasoning_tokens``; None where not
    reported).  Raises NotACompletion for a body of another shape: no choices, an empty
    list, no message, content that is not text, usage or log-probabilities of another shape."""
    choice = _choice(resp)
    message = getattr(choice, "message", None)
    if not _record(message):
        raise NotACompletion("its choice has no message")
    got = {"text": _text(getattr(message, "content", None), "message's content"),
           "finish_reason": getattr(choice, "finish_reason", None), "reasoning": reasoning_text(message),
           "logprobs": None, **_counts(resp)}
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if logprobs and content:
        try:
            got["logprobs"] = {"tokens": [_text(c.token, "token") for c in content],
                               "token_logprobs": [float(c.logprob) for c in content],
                               "top": [{t.token: float(t.logprob) for t in c.top_logprobs or []} for c in content]}
        except (AttributeError, TypeError, ValueError, NotACompletion) as exc:
            raise NotACompletion(f"its logprobs are not token log-probabilities ({exc})") from None
    return got


def read_completion(resp, logprobs: bool) -> dict:
    """What a text completion holds, as ``read_chat`` returns it (``reasoning`` None; the
    log-probabilities of the completions API's ``tokens``, ``token_logprobs`` and
    ``top_logprobs``).  Raises NotACompletion for a body of another shape."""
    choice = _choice(resp)
    got = {"text": _text(getattr(choice, "text", None), "text"),
           "finish_reason": getattr(choice, "finish_reason", None), "reasoning": None, "logprobs": None,
           **_counts(resp)}
    lp = getattr(choice, "logprobs", None)
    if logprobs and lp is not None:
        try:
            got["logprobs"] = {"tokens": [_text(t, "token") for t in lp.tokens or []],
                               "token_logprobs": [None if v is None else float(v) for v in lp.token_logprobs or []],
                               "top": [{str(k): float(v) for k, v in dict(t or {}).items()}
                                       for t in lp.top_logprobs or []]}
        except (AttributeError, TypeError, ValueError, NotACompletion) as exc:
            raise NotACompletion(f"its logprobs are not token log-probabilities ({exc})") from None
    return got


def reasoning_text(message) -> str | None:
    """The reasoning a chat message carries apart from its content: ``reasoning_content``
    (DeepSeek, vLLM) or ``reasoning`` (OpenRouter, Ollama), fields the openai client keeps
    as extras; None when there is none."""
    if message is None:
        return None
    extra = getattr(message, "model_extra", None) or {}
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None) or extra.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def refusal(model: OpenAICompatModel, exc: "openai.APIStatusError") -> RequestRefused | None:
    """The ``RequestRefused`` of an error status that refuses the request itself (400,
    404, 422: a parameter, the model; 401, 403: the key), one line naming the parameter
    the endpoint named (OpenAI's ``error.param``); None for any other status, and for a
    refusal of one prompt's length (that item's own error, ``PROMPT_ERRORS``)."""
    status, code, param = exc.status_code, getattr(exc, "code", None), getattr(exc, "param", None)
    if status not in REFUSED_STATUSES or code in PROMPT_ERRORS:
        return None
    body = exc.body if isinstance(exc.body, dict) else {}  # the client keeps the body's "error" object
    said = body.get("message") or str(exc)
    named = f"parameter {param!r} refused" if param else "request refused"
    if status in (401, 403):
        hint = "check --api-key"
    elif status == 404:
        hint = "check the model name and --base-url"
    elif param in SAMPLING_PARAMS and not model.reasoning:
        hint = "a reasoning model? pass --reasoning (docs/models.md)"
    else:
        hint = f"fix the option that sends {param!r}" if param else "fix the options (docs/models.md)"
    return RequestRefused(f"{model.name}: {named} by {model.endpoint} ({status} {code or type(exc).__name__}: "
                          f"{said}); {hint}; the run folder resumes once it is fixed",
                          param=param, status=status, code=code)


def retryable(exc: BaseException) -> bool:
    """Worth another try: no answer (a timeout, a lost connection), a body that is not a
    completion (UnusableReply: a proxy's page may pass), or 408, 409, 429 or 5xx (the
    statuses the openai SDK retries)."""
    if isinstance(exc, (openai.APIConnectionError, UnusableReply)):  # timeouts included
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code in (408, 409, 429) or exc.status_code >= 500)


def warn_small_budget(config: ModelConfig) -> None:
    """Warn when a reasoning model's ``--max-tokens`` (which covers its reasoning too) is
    below ``REASONING_BUDGET``: its answer would likely be cut or empty."""
    if config.is_reasoning() and config.max_tokens < REASONING_BUDGET:
        warnings.warn(f"{config.spec} is called as a reasoning model: its budget of {config.max_tokens} tokens "
                      f"covers its reasoning too (give it several thousand; docs/models.md)", stacklevel=3)


def from_config(name: str, config: ModelConfig) -> OpenAICompatModel:
    """``openai/<name>``: the chat API unless ``config.api`` says otherwise.  Warns when a
    reasoning model's budget is small (``warn_small_budget``)."""
    warn_small_budget(config)
    return OpenAICompatModel(config.spec, name, base_url=config.base_url, api_key=config.api_key,
                             api=config.api or "chat", temperature=config.temperature,
                             max_tokens=config.max_tokens, max_retries=config.max_retries, seed=config.seed,
                             max_connections=config.max_connections or API_CONNECTIONS,
                             reasoning=config.is_reasoning(), reasoning_effort=config.reasoning_effort,
                             top_p=config.top_p,
                             # a server's endpoint policy (neocoder/netpolicy.py) checks every connection
                             http_client=guarded_http_client(config.timeout) if endpoint_policy() else None,
                             **({"timeout": config.timeout} if config.timeout else {}))
