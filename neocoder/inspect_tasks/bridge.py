"""inspect's model seen as a neocoder ``Model``, for the benchmarks whose loop calls the model
many times between its own steps (AidanBench's answer loop, LiveIdeaBench's ideas).

The loop runs in a worker thread (``run_loop``: ``anyio.to_thread.run_sync``); each
``generate`` there hands the prompt back to inspect's event loop
(``anyio.from_thread.run``), so every call is inspect's own (its log, its connection
limits, its retries) and the benchmark's code runs unchanged.  Per-call temperature,
max tokens, seed, top_p and log-probabilities of a ``Prompt`` become inspect's
``GenerateConfig`` (``logprobs``/``top_logprobs``, as neocoder's own chat provider asks
them); the token log-probabilities inspect returns come back in ``Reply.extra["logprobs"]``
(``{"tokens", "token_logprobs", "top"}``, as neocoder's providers give them), so
``Reply.mean_logprob`` works; a provider that returns none leaves them out.  The stop
sequences are not sent: inspect speaks chat, and neocoder's chat provider sends none either.
"""

from __future__ import annotations

import time
from functools import lru_cache

from neocoder.models.base import Model, ModelError, Prompt, Reply


class InspectModel(Model):
    """A neocoder ``Model`` answering through an inspect ``Model`` (chat messages only:
    inspect speaks chat).  Raises ModelError when inspect's call fails or returns no text."""

    api = "chat"

    def __init__(self, model, name: str | None = None):
        self.inspect_model = model
        self.name = name or f"inspect/{model}"

    def generate(self, prompt: Prompt) -> Reply:
        """One call through inspect's model, from a worker thread: ``prompt``'s messages and sampling, the reply with
        its tokens and log-probabilities."""
        import anyio.from_thread
        from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig
        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
        messages = [kinds[m["role"]](content=m["content"]) for m in prompt.messages]
        config = GenerateConfig(**sampling(prompt))
        t0 = time.monotonic()
        try:
            output = anyio.from_thread.run(lambda: self.inspect_model.generate(messages, config=config))
        except Exception as exc:  # inspect's provider errors, whatever their type, are the model's failure
            raise ModelError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        if output.error or not output.choices:
            raise ModelError(f"{self.name}: {output.error or 'no reply'}")
        usage = output.usage
        logprobs = token_logprobs(output.choices[0].logprobs)
        return Reply(text=output.completion, prompt_tokens=usage.input_tokens if usage else None,
                     completion_tokens=usage.output_tokens if usage else None, seconds=time.monotonic() - t0,
                     extra={"logprobs": logprobs} if logprobs else {}, sent=sampling(prompt))


def sampling(prompt: Prompt) -> dict:
    """The ``GenerateConfig`` fields of one call from ``prompt``'s per-call overrides (those
    set): ``temperature``, ``max_tokens``, ``seed``, ``top_p``, and for ``prompt.logprobs``
    = N > 0 ``logprobs=True, top_logprobs=N`` (the chat API's form)."""
    out = {k: v for k, v in (("temperature", prompt.temperature), ("max_tokens", prompt.max_tokens),
                             ("seed", prompt.seed), ("top_p", prompt.top_p)) if v is not None}
    if prompt.logprobs:
        out.update(logprobs=True, top_logprobs=prompt.logprobs)
    return out


def token_logprobs(logprobs) -> dict | None:
    """inspect's ``Logprobs`` of a choice as neocoder's ``{"tokens", "token_logprobs", "top"}``
    (log-probabilities in nats, one per generated token); None when there are none."""
    content = getattr(logprobs, "content", None)
    if not content:
        return None
    return {"tokens": [c.token for c in content], "token_logprobs": [c.logprob for c in content],
            "top": [{t.token: t.logprob for t in c.top_logprobs or []} for c in content]}


def generate_config(model):
    """inspect's ``GenerateConfig`` for the resolved ``model`` (a ModelConfig whose
    benchmark filled its role's defaults): the temperature, token budget and seed that
    neocoder's own provider sends with every call, so both surfaces ask the same."""
    from inspect_ai.model import GenerateConfig
    return GenerateConfig(**{k: v for k, v in (("temperature", model.temperature), ("max_tokens", model.max_tokens),
                                                ("seed", model.seed)) if v is not None})


async def run_loop(loop, *args) -> list:
    """Run the generator function ``loop(*args)`` to the end in a worker thread; return what it yielded."""
    import anyio.to_thread
    return await anyio.to_thread.run_sync(lambda: list(loop(*args)))


@lru_cache(maxsize=2)
def shared_embedder(spec: str):
    """The embedder ``spec`` names (``local/all-MiniLM-L6-v2``, ...), loaded once per process
    and kept for the task's samples.  Raises NeocoderError as ``get_embedder`` does."""
    from neocoder.models.embedders import get_embedder
    return get_embedder(spec)


_MODELS: dict = {}


def shared_model(config):
    """The neocoder model ``config`` (a ModelConfig) names, built once per distinct config
    and kept for the task's samples: the judges, which stay neocoder models inside inspect.
    None for None.  Raises NeocoderError as ``get_model`` does."""
    from dataclasses import astuple

    from neocoder.models import get_model
    if config is None:
        return None
    key = astuple(config)
    if key not in _MODELS:
        _MODELS[key] = get_model(config)
    return _MODELS[key]
