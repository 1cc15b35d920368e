"""inspect's model seen as a neocoder ``Model``, for the benchmarks whose loop calls the model
many times between its own steps (AidanBench's answer loop, LiveIdeaBench's ideas).

The loop runs in a worker thread (``run_loop``: ``anyio.to_thread.run_sync``); each
``generate`` there hands the prompt back to inspect's event loop
(``anyio.from_thread.run``), so every call is inspect's own (its log, its connection
limits, its retries) and the benchmark's code runs unchanged.  Per-call temperature,
max tokens and seed of a ``Prompt`` become inspect's ``GenerateConfig``.
"""

from __future__ import annotations

import time

from ..models.base import Model, ModelError, Prompt, Reply


class InspectModel(Model):
    """A neocoder ``Model`` answering through an inspect ``Model`` (chat messages only:
    inspect speaks chat).  Raises ModelError when inspect's call fails or returns no text."""

    api = "chat"

    def __init__(self, model, name: str | None = None):
        self.inspect_model = model
        self.name = name or f"inspect/{model}"

    def generate(self, prompt: Prompt) -> Reply:
        import anyio.from_thread
        from inspect_ai.model import (ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig)
        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
        messages = [kinds[m["role"]](content=m["content"]) for m in prompt.messages]
        config = GenerateConfig(**{k: v for k, v in (("temperature", prompt.temperature),
                                                      ("max_tokens", prompt.max_tokens), ("seed", prompt.seed))
                                   if v is not None})
        t0 = time.monotonic()
        try:
            output = anyio.from_thread.run(lambda: self.inspect_model.generate(messages, config=config))
        except Exception as exc:  # inspect's provider errors, whatever their type, are the model's failure
            raise ModelError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        if output.error or not output.choices:
            raise ModelError(f"{self.name}: {output.error or 'no reply'}")
        usage = output.usage
        return Reply(text=output.completion, prompt_tokens=usage.input_tokens if usage else None,
                     completion_tokens=usage.output_tokens if usage else None, seconds=time.monotonic() - t0)


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
