"""What went wrong with a call to a model endpoint over HTTP: no connection at all, or no usable reply.

Every provider that speaks HTTP (``openai_compat`` and ``local``, the OpenAI embedder,
``inspect_api``) draws the same line with these (docs/models.md, "Which failures stop the
run"):

- the endpoint cannot be reached at all (connection refused, no such host, a connection the
  endpoint policy refuses: ``unreachable``): every call would fail alike, so the provider
  raises ``EndpointError`` and the run stops;
- a connection that was made and then dropped (closed with no answer, reset mid-body:
  ``dropped``), a 200 whose body is not JSON (a proxy's HTML page, a body cut short:
  ``not_json``) or JSON that is not what the API answers: ``UnusableReply``, retried as the
  provider retries, then that item's error.

Nothing here imports an SDK: the SDKs' errors are read by their chain of causes, so httpx's,
httpx2's and httpcore's errors (the openai and anthropic clients') are all recognised.
"""

from __future__ import annotations

import json
import socket

SNIPPET = 60  # characters of a body quoted in a reason

# the transport errors (httpx, httpx2, httpcore, httpcore2 spell them alike) that mean no
# connection was ever made; ConnectTimeout is a timeout, reported as such by the SDKs
CONNECT_ERRORS = ("ConnectError",)

__all__ = ["SNIPPET", "causes", "describe", "dropped", "not_json", "snippet", "unreachable"]


def causes(exc: BaseException | None) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from (``__cause__``, else ``__context__``),
    outermost first, each once."""
    chain: list[BaseException] = []
    while exc is not None and all(exc is not seen for seen in chain):
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    return chain


def snippet(text) -> str:
    """The first ``SNIPPET`` characters of a body (str or bytes), whitespace collapsed to one
    line, quoted as Python quotes a string; ``...`` after the quote marks a longer body."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    flat = " ".join(str(text).split())
    return repr(flat[:SNIPPET]) + ("..." if len(flat) > SNIPPET else "")


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (an SDK's connection error) comes from a connection that was never
    made: a transport ``ConnectError`` (refused, no such host, the endpoint policy's refusal,
    a failed TLS handshake), ``ConnectionRefusedError`` or a failed name lookup
    (``socket.gaierror``) anywhere in its chain of causes."""
    return any(isinstance(e, (ConnectionRefusedError, socket.gaierror)) or type(e).__name__ in CONNECT_ERRORS
               for e in causes(exc))


def not_json(exc: BaseException) -> str | None:
    """The reason of a body that does not parse, when a ``json.JSONDecodeError`` is in
    ``exc``'s chain: ``"the body is not JSON (Expecting value at character 0): '<html>...'"``
    (the parser's complaint, where it stopped, the body's start); None otherwise."""
    for e in causes(exc):
        if isinstance(e, json.JSONDecodeError):
            return f"the body is not JSON ({e.msg} at character {e.pos} of {len(e.doc)}): {snippet(e.doc)}"
    return None


def dropped(exc: BaseException) -> str:
    """The reason of a connection that was made and then lost, from the innermost error of
    ``exc``'s chain (its message, else its type): ``"the connection was dropped: Server
    disconnected without sending a response."``."""
    inner = causes(exc)[-1]
    return f"the connection was dropped: {' '.join(str(inner).split()) or type(inner).__name__}"


def describe(exc: BaseException) -> str:
    """A one-line reason for an exception a provider's SDK raised after the endpoint was
    reached: the body not JSON (``not_json``), else the exception's type and message."""
    said = " ".join(str(exc).split()) or "no message"
    return not_json(exc) or f"{type(exc).__name__}: {said}"
