"""Model stage: every provider behind one interface, chosen by ``PROVIDER/NAME``.

A provider is one module and one line in ``PROVIDERS``: a factory that takes the NAME
part and the ``ModelConfig`` and returns a ``Model``.  Modules are imported only when
their provider is used.  The layer knows no benchmark: prompts are built by the benchmarks
(NeoCoder's solve prompt is ``neocoder.benchmarks.neocoder.solve.solve_prompt``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Callable

from neocoder.config import CHAT_DEFAULTS, ModelConfig
from neocoder.models.base import (
    EndpointError,
    Model,
    ModelError,
    NoRecordedReply,
    Prompt,
    ReplayKey,
    Reply,
    RequestRefused,
)


def _lazy(module: str, factory: str) -> Callable[[str, ModelConfig], Model]:
    def build(name: str, config: ModelConfig) -> Model:
        return getattr(import_module(module, __name__), factory)(name, config)
    build.__doc__ = f"{module}.{factory}"
    return build


# provider -> factory(NAME, config).  openai/<model>: any OpenAI-compatible endpoint;
# local/gemma-3-270m: a llama.cpp server started here; replay/<source>: recorded replies;
# inspect/<log file>: the completions an inspect_ai log holds.
PROVIDERS: dict[str, Callable[[str, ModelConfig], Model]] = {
    "openai": _lazy(".openai_compat", "from_config"),
    "local": _lazy(".local", "from_config"),
    "replay": _lazy(".replay", "from_config"),
    "inspect": _lazy(".inspect_log", "from_config"),  # inspect/<log file>: an inspect_ai log's replies
    "inspect-api": _lazy(".inspect_api", "from_config"),  # inspect-api/anthropic/<model>: inspect_ai's providers
}


def get_model(config: ModelConfig | str, **options) -> Model:
    """Build the model ``config.spec`` = ``PROVIDER/NAME`` names.

    A bare spec string is accepted with ``options`` as ``ModelConfig`` fields; a
    temperature or token budget left None is the chat default (0, 1024 tokens).  Raises
    ModelError for an unknown provider, an unknown model, or a model that cannot start.
    """
    if isinstance(config, str):
        config = ModelConfig(config, **options)
    provider, sep, name = config.spec.partition("/")
    if not sep or not name or provider not in PROVIDERS:
        raise ModelError(f"--model must be PROVIDER/NAME with PROVIDER in {tuple(PROVIDERS)}, got {config.spec!r}")
    # a model called outside a benchmark (whose runner fills its roles' defaults) gets the chat defaults
    return PROVIDERS[provider](name, config.filled(CHAT_DEFAULTS))


__all__ = ["EndpointError", "Model", "ModelConfig", "ModelError", "RequestRefused", "NoRecordedReply", "PROVIDERS",
           "Prompt", "ReplayKey", "Reply", "get_model"]
