"""One interface for every model: a prompt in, a reply (text and token counts) out.

Nothing here knows a benchmark: a ``Prompt`` is messages and completion text, a
``ReplayKey`` names a recorded reply by item, step and sample.  Each benchmark builds its
own prompts (NeoCoder's solve prompt: ``neocoder/solve.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ..errors import NeocoderError

__all__ = ["Model", "ModelError", "NoRecordedReply", "Prompt", "ReplayKey", "Reply"]


class ModelError(NeocoderError):
    """A model could not be reached, started, or gave no usable reply."""


class NoRecordedReply(ModelError):
    """A replayed source holds no reply for this prompt (a recorded answer list ended)."""


@dataclass(frozen=True)
class ReplayKey:
    """Which recorded reply answers a prompt, for replay models (never sent to a model).

    ``item`` is what is asked (a problem id, a question, a keyword); ``step`` the position
    within that item (a state t, a 1-based answer or idea number); ``sample`` which of
    several draws at that step (0-based); ``source_index``, where the recorded source is a
    list per item whose position differs from ``step``, that position (None: ``step``).
    """

    item: str
    step: int
    sample: int = 0
    source_index: int | None = None


@dataclass(frozen=True)
class Prompt:
    """A prompt in both shapes a model may need.

    ``messages`` is for chat APIs; ``completion`` is plain text for completions APIs
    and ends with ``code_prefix``, the start of the answer the model continues (the
    start of a program for NeoCoder's solve prompt; "" when there is none).
    """

    messages: tuple
    completion: str
    code_prefix: str
    stop: tuple | None = None  # completions API stop sequences (default: the code ones)
    replay_key: ReplayKey | None = None  # which recorded reply a replay model gives (not sent anywhere)
    # Per-call sampling overrides (None: the model's own setting).  ``seed`` gives each of
    # a state's samples its own draw; ``logprobs`` asks for the top-N log-probabilities of
    # every generated token (completions API), returned in ``Reply.extra["logprobs"]``.
    seed: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    logprobs: int | None = None
    top_p: float | None = None  # nucleus sampling (None: the model's own, else the endpoint's default)

    def sha256(self) -> str:
        """Stable hash of the prompt (both shapes; not the replay key), for the records."""
        blob = json.dumps([list(self.messages), self.completion], sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class Reply:
    """What a model returned for one prompt.

    ``text`` is the raw reply; ``code_prefix`` is what the program starts with when
    the reply continues a completion prompt ("" for chat replies).  Token counts are
    None where the provider does not report them; ``seconds`` is wall time.
    """

    text: str
    code_prefix: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)  # finish_reason, cache key; logprobs: {"tokens", "token_logprobs", "top"}

    @property
    def mean_logprob(self) -> float | None:
        """Length-normalised log-probability of the reply: the mean of its tokens' log-probabilities
        (nats per token), or None where the endpoint returned none (semantic entropy's
        length normalisation, Kuhn et al. 2023; docs/entropy.md)."""
        values = [v for v in (self.extra.get("logprobs") or {}).get("token_logprobs") or [] if v is not None]
        return sum(values) / len(values) if values else None


class Model:
    """Base class of every provider: ``name`` is the ``PROVIDER/NAME`` of the model.

    Subclasses implement ``generate``; the optional abilities below are declared here
    with their defaults, so callers never probe with ``hasattr``.
    """

    name: str = "?"
    api: str | None = None  # "chat" or "completion" where the model is behind an API; None for replays
    # the calls in flight to its endpoint (a limiter.ConnectionLimiter); None where a reply
    # costs no wait (replays)
    limiter = None

    def generate(self, prompt: Prompt) -> Reply:  # pragma: no cover - interface
        """Answer ``prompt``.  Raises ModelError when no usable reply can be had."""
        raise NotImplementedError

    def request(self, prompt: Prompt) -> dict | None:
        """What decides this call's answer (the call cache's key, models/cache.py), or
        None when calls need no caching (replayed replies cost nothing)."""
        return None

    def with_temperature(self, temperature: float) -> "Model | None":
        """The same model (and server) sampled at ``temperature``, or None when a second
        model must be built for that (a judge at 0 beside a generator at 0.7)."""
        return None

    def variants(self) -> list["Model"]:
        """The separate models this one stands for: a recorded file holding several
        models' answers gives one replay model per recorded model.  Default: ``[self]``."""
        return [self]

    def recorded_items(self) -> list[str]:
        """The items (AidanBench questions) a recorded source holds, in order; [] for live models."""
        return []

    def close(self) -> None:
        """Release resources (servers, connections)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
