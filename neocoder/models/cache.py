"""An on-disk cache of model calls, so an interrupted run never pays for a call twice.

A call is keyed by the SHA-256 of what determines its answer: the model, the endpoint,
the API, the sampling parameters and the full messages (or completion prompt), as the
model's ``request(prompt)`` describes them.  Replies are appended to a JSONL file
(one line per call, flushed at once), so a run killed at any point keeps every call
it finished.  Hits, misses and token totals (reasoning tokens among the completion
tokens) are counted for the run's report.  A line keeps the reply's reasoning (tokens and
text) and the parameters sent beside its text.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from neocoder.models.base import Model, Prompt, Reply
from neocoder.store import JsonlStore


def request_key(request: dict) -> str:
    """SHA-256 hex of a request description (sorted-key JSON)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class CallCache:
    """The replies of model calls by request key (a JsonlStore of ``reply`` lines), with
    hits, calls made and their tokens counted."""

    def __init__(self, path: Path):
        self.store = JsonlStore(path, "reply")
        self.path = self.store.path
        self.misses = 0
        self.prompt_tokens = self.completion_tokens = self.reasoning_tokens = 0

    @property
    def replies(self) -> dict:
        """The cached replies by request key (the store's entries; a reply is a dict of text, tokens, ...)."""
        return self.store.entries

    @property
    def hits(self) -> int:
        """Calls answered from the cache so far."""
        return self.store.hits

    def get(self, key: str) -> dict | None:
        """The cached reply of request ``key`` (a dict), counted as a hit; None when not cached."""
        return self.store.get(key)

    def put(self, key: str, reply: dict) -> None:
        """Keep ``reply`` (a dict) for ``key`` on disk and count it as a call made, with its tokens."""
        self.store.put(key, reply)
        with self.store.lock:
            self.misses += 1
            self.prompt_tokens += reply.get("prompt_tokens") or 0
            self.completion_tokens += reply.get("completion_tokens") or 0
            self.reasoning_tokens += reply.get("reasoning_tokens") or 0

    def stats(self) -> dict:
        """Calls answered from the cache, calls made, and tokens of the calls made (the
        reasoning tokens, counted where a reasoning model reported any, are a part of the
        completion tokens)."""
        return {"cache_hits": self.hits, "calls_made": self.misses,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                **({"reasoning_tokens": self.reasoning_tokens} if self.reasoning_tokens else {})}


class CachedModel(Model):
    """Wrap a model so each call it can describe (``request(prompt)``) is made once;
    calls it cannot describe (replayed replies) go straight through."""

    def __init__(self, inner: Model, cache: CallCache):
        self.inner, self.cache, self.name, self.api = inner, cache, inner.name, inner.api
        self.limiter = inner.limiter  # a cached reply takes no connection: the inner call does

    def request(self, prompt: Prompt) -> dict | None:
        """The wrapped model's request description (the cache key's source); None: not cached."""
        return self.inner.request(prompt)

    def generate(self, prompt: Prompt) -> Reply:
        """The cached reply to ``prompt`` (0 seconds, ``extra["cached"]`` True) when the call was
        made before; else the wrapped model's reply, kept in the cache first.  Each reply's
        ``extra["key"]`` is its request key.  A call the model cannot describe goes straight
        through.  Raises what the wrapped model raises."""
        request = self.inner.request(prompt)
        if request is None:
            return self.inner.generate(prompt)
        key = request_key(request)
        hit = self.cache.get(key)
        if hit is not None:
            return Reply(text=hit["text"], code_prefix=hit.get("code_prefix", ""),
                         prompt_tokens=hit.get("prompt_tokens"), completion_tokens=hit.get("completion_tokens"),
                         seconds=0.0, extra=dict(hit.get("extra") or {}, cached=True, key=key),
                         reasoning_tokens=hit.get("reasoning_tokens"), reasoning=hit.get("reasoning"),
                         sent=dict(hit.get("sent") or {}))
        reply = self.inner.generate(prompt)
        self.cache.put(key, {"text": reply.text, "code_prefix": reply.code_prefix,
                             "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                             "reasoning_tokens": reply.reasoning_tokens, "reasoning": reply.reasoning,
                             "sent": reply.sent, "seconds": round(reply.seconds, 3), "extra": reply.extra})
        reply.extra = dict(reply.extra, cached=False, key=key)
        return reply

    def close(self) -> None:
        """Close the wrapped model."""
        self.inner.close()
