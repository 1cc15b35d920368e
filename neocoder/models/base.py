"""One interface for every model: a prompt in, a reply (text and token counts) out.

Nothing here knows a benchmark: a ``Prompt`` is messages and completion text, a
``ReplayKey`` names a recorded reply by item, step and sample.  Each benchmark builds its
own prompts (NeoCoder's solve prompt: ``neocoder/solve.py``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from neocoder.errors import NeocoderError

__all__ = ["EndpointError", "Model", "ModelError", "NoRecordedReply", "Prompt", "ReplayKey", "Reply",
           "RequestRefused", "UnusableReply", "strip_thinking"]


class ModelError(NeocoderError):
    """A model could not be reached, started, or gave no usable reply."""


class EndpointError(ModelError):
    """The endpoint cannot be reached or refuses the key or model: every call would fail
    the same way, so the run stops with this one message instead of recording errors.
    Every loop that records a ModelError per item re-raises this one."""


class RequestRefused(EndpointError):
    """The endpoint refused the request itself (400, 404 or 422: a parameter it does not
    take, an unknown model; 401 or 403: the key): it will refuse every call built the same
    way, so the run stops at once.  ``param`` is the parameter the endpoint named (OpenAI's
    ``error.param``, e.g. ``max_tokens``; None when it named none), ``status`` the HTTP
    status, ``code`` the endpoint's error code (e.g. ``unsupported_parameter``).  The
    message is one line."""

    def __init__(self, message: str, param: str | None = None, status: int | None = None, code: str | None = None):
        super().__init__(" ".join(str(message).split()))
        self.param, self.status, self.code = param, status, code


class UnusableReply(ModelError):
    """The endpoint was reached but gave no usable reply: a 200 whose body is not JSON (a
    proxy's HTML page, a body cut short), JSON that is not a completion (no choices, no
    message, content or usage of the wrong type), or a connection dropped after it was made.
    Another call may fare better, so it is retried as the provider retries, then recorded
    as that item's error: never the end of the run (unlike EndpointError).  The message is
    one line: ``"<model>: no usable reply from <endpoint> (<what was wrong>)"``."""

    def __init__(self, model: str, endpoint: str, reason: str):
        self.model, self.endpoint, self.reason = model, endpoint, " ".join(str(reason).split())
        super().__init__(f"{model}: no usable reply from {endpoint} ({self.reason})")


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

    def shown(self) -> str:
        """Every text of the prompt a model may be shown (the chat messages' contents and
        the completion prompt), joined by newlines: what an echo of the prompt is read
        against (``replies.read_answer``)."""
        return "\n".join([str(m.get("content") or "") for m in self.messages] + [self.completion or ""])

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
    # A reasoning model's thinking: the tokens it spent on it (OpenAI's
    # usage.completion_tokens_details.reasoning_tokens, a part of ``completion_tokens``) and
    # its text where the provider returns it apart from the answer (``reasoning_content`` or
    # ``reasoning``); None where not reported.  Never part of ``text``: no program or
    # technique is read from it.
    reasoning_tokens: int | None = None
    reasoning: str | None = None
    # The parameters sent with the call besides the prompt (e.g. {"max_completion_tokens":
    # 4096, "reasoning_effort": "low", "seed": 0}): what the endpoint was asked, for the records.
    sent: dict = field(default_factory=dict)

    @property
    def mean_logprob(self) -> float | None:
        """Length-normalised log-probability of the reply: the mean of its tokens' log-probabilities
        (nats per token), or None where the endpoint returned none (semantic entropy's
        length normalisation, Kuhn et al. 2023; docs/entropy.md)."""
        values = [v for v in (self.extra.get("logprobs") or {}).get("token_logprobs") or [] if v is not None]
        return sum(values) / len(values) if values else None


_THINK = re.compile(r"<(think|thinking)>.*?(?:</\1>|\Z)", re.S | re.I)
_CLOSE = re.compile(r"</think(?:ing)?>", re.I)


def strip_thinking(text: str) -> str:
    """``text`` without inline thinking: every ``<think>...</think>`` (or ``<thinking>``)
    block, an unclosed one running to the end, as reasoning models that think in the reply
    itself write them (DeepSeek-R1, QwQ).  What remains is the answer."""
    low = text.lower()
    if "<think" not in low and "</think" not in low:
        return text
    text = _THINK.sub("", text)
    closes = list(_CLOSE.finditer(text))  # a reply whose opening tag was in the prompt (a chat template's)
    return text[closes[-1].end():].strip() if closes else text.strip()


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

    @property
    def recorded_models(self) -> set[str]:
        """The models whose outputs a recorded source holds (never judges of them); empty for live models."""
        return set()

    def close(self) -> None:
        """Release resources (servers, connections)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
