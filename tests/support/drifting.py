"""A misbehaving model on loopback: an OpenAI-compatible endpoint that answers each call
the way real models and servers do when they drift (issue 46).

``DriftingServer(respond)`` serves chat and text completions on 127.0.0.1; for every
call ``respond(kind, body)`` ("chat" or "completion", the request's JSON) returns what
to do: a plain string is a good 200 answer; a ``Say`` is any other behaviour.  The kinds
a test can script:

- ``EMPTY``: 200, content "";  ``cut(text)``: 200, ``finish_reason: length``;
- ``REASONING_ONLY``: 200, content "" and the thinking in ``reasoning_content``;
  ``THINK_ONLY``: the thinking inline (``<think>...</think>``) and nothing after it;
- ``echo(body)``: the prompt itself sent back;  ``REFUSAL``: "I'm sorry, ..." ;
- conflicting, other-case or other-bracket markers, JSON with text around it or broken:
  plain strings, written by the test for the grammar at hand;
- ``MALFORMED``: 200 whose body is JSON but not a completion;  ``status(429)``,
  ``status(500)``: an error answer (``retry-after: 0``);  ``DROP``: the connection closed
  with no answer;  ``RESET``: the headers and half the body sent, then the connection
  reset (TCP RST);
- ``HTML``: 200 with a proxy's error page (``text/html``); ``HTML_AS_JSON``: the same page
  sent as ``application/json``; ``TRUNCATED``: a completion's JSON cut in the middle;
  ``SHAPES``: JSON of the wrong shape, one ``Say`` per kind (no choices, an empty list, no
  message, content a number, usage a string, a negative token count), by name.

Embedding requests (``/embeddings``) are ``kind`` "embeddings": a plain string answers with
a vector drawn from its hash (``embedding_payload``), a ``Say`` as above.

``calls`` counts the requests, ``sent`` keeps what each call got (its ``Say.kind``), so a
test can assert that the unreadable counts equal the replies of each kind it sent.
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
from dataclasses import dataclass

from loopback import USAGE, Loopback, Quiet, send


@dataclass(frozen=True)
class Say:
    """One scripted answer: ``text`` with ``finish_reason`` (200), or ``reasoning`` beside
    it, or a raw ``body`` with ``status``, or ``drop`` (close the connection unanswered);
    ``kind`` names it in ``DriftingServer.sent``."""

    text: str = ""
    kind: str = "answer"
    finish_reason: str = "stop"
    reasoning: str | None = None
    status: int = 200
    body: bytes | None = None
    drop: bool = False
    content_type: str = "application/json"
    reset: bool = False


EMPTY = Say("", kind="empty")
REASONING_ONLY = Say("", kind="reasoning only", reasoning="Let me weigh both sides of this carefully first.")
THINK_ONLY = Say("<think>Let me weigh both sides of this carefully first.</think>", kind="think only")
REFUSAL = Say("I'm sorry, but I can't help with that request.", kind="refusal")
MALFORMED = Say(kind="malformed", body=b'{"result": "ok", "output": null}')
DROP = Say(kind="dropped", drop=True)
PAGE = (b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>"
        b"<hr><center>nginx</center></body></html>")
HTML = Say(kind="html", body=PAGE, content_type="text/html")
HTML_AS_JSON = Say(kind="html as json", body=PAGE)
_WHOLE = json.dumps({"id": "t", "object": "chat.completion", "created": 0, "model": "m", "usage": USAGE,
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": "print(1)"}}]})
TRUNCATED = Say(kind="truncated", body=_WHOLE[:len(_WHOLE) // 2].encode())
RESET = Say(kind="reset", body=_WHOLE.encode(), reset=True)


def _shape(kind: str, **fields) -> Say:
    body = {"id": "w", "object": "chat.completion", "created": 0, "model": "m", "usage": USAGE,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}
    body.update(fields)
    return Say(kind=kind, body=json.dumps(body).encode())


SHAPES = {
    "no choices": Say(kind="no choices", body=b'{"id": "w", "object": "chat.completion", "model": "m"}'),
    "choices empty": _shape("choices empty", choices=[]),
    "choices not a list": _shape("choices not a list", choices={"0": "hi"}),
    "no message": _shape("no message", choices=[{"index": 0, "finish_reason": "stop", "text": "hi"}]),
    "content a number": _shape("content a number", choices=[{"index": 0, "finish_reason": "stop",
                                                            "message": {"role": "assistant", "content": 42}}]),
    "usage a string": _shape("usage a string", usage="lots"),
    "negative tokens": _shape("negative tokens", usage={"prompt_tokens": -3, "completion_tokens": 5,
                                                       "total_tokens": 2}),
    "a list": Say(kind="a list", body=b'[1, 2, 3]'),
}


def cut(text: str) -> Say:
    """``text`` ending at the token limit (``finish_reason: length``)."""
    return Say(text, kind="cut off", finish_reason="length")


def status(code: int) -> Say:
    """An error answer with HTTP ``code`` (429 rate limit, 5xx server error)."""
    kind = "rate limited" if code == 429 else f"http {code}"
    return Say(kind=kind, status=code, body=json.dumps({"error": {"message": f"scripted {code}",
                                                                  "type": "server_error"}}).encode())


def prompt_text(kind: str, body: dict) -> str:
    """The text a request asked: the completion prompt, or its chat messages joined."""
    if kind == "completion":
        return body.get("prompt") or ""
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


def echo(kind: str, body: dict) -> Say:
    """The request's own prompt sent back as the answer."""
    return Say(prompt_text(kind, body), kind="echo")


def _payload(kind: str, model: str, say: Say) -> bytes:
    choice: dict = {"index": 0, "finish_reason": say.finish_reason}
    if kind == "chat":
        message = {"role": "assistant", "content": say.text}
        if say.reasoning is not None:
            message["reasoning_content"] = say.reasoning
        choice["message"] = message
    else:
        choice.update(text=say.text, logprobs=None)
    return json.dumps({"id": "d", "object": "chat.completion" if kind == "chat" else "text_completion",
                       "created": 0, "model": model, "usage": USAGE, "choices": [choice]}).encode()


def reset_midway(handler, body: bytes) -> None:
    """Send a 200's headers (announcing all of ``body``) and its first half, then reset the
    connection (SO_LINGER 0: a TCP RST, as a crashed proxy or a killed server leaves it)."""
    handler.close_connection = True
    try:
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[:len(body) // 2])
        handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        return
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()


def embedding_payload(body: dict, dims: int = 16) -> bytes:
    """An embeddings answer for the request ``body``: one vector per input text, drawn from
    the text's SHA-256 (the same text, the same vector; distinct texts far apart)."""
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = []
    for i, text in enumerate(texts):
        digest = hashlib.sha256(str(text).encode()).digest()
        data.append({"object": "embedding", "index": i, "embedding": [b / 255 - 0.5 for b in digest[:dims]]})
    return json.dumps({"object": "list", "model": body.get("model", "e"), "data": data,
                       "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()


class DriftingServer(Loopback):
    """The misbehaving endpoint (see the module): ``respond(kind, body) -> str | Say``."""

    def __init__(self, respond):
        self.respond = respond
        self.calls = 0
        self.sent: list[str] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}"
                body = json.loads(raw)
                kind = "chat" if self.path.endswith("/chat/completions") else \
                    "embeddings" if self.path.endswith("/embeddings") else "completion"
                say = outer.respond(kind, body)
                if isinstance(say, str) and kind == "embeddings":
                    say = Say(kind="embeddings", body=embedding_payload(body))
                if isinstance(say, str):
                    say = Say(say)
                with outer.lock:
                    outer.calls += 1
                    outer.sent.append(say.kind)
                if say.drop:
                    self.close_connection = True
                    self.connection.close()
                    return
                if say.reset:
                    reset_midway(self, say.body)
                    return
                if say.body is not None:
                    send(self, say.status, say.body, content_type=say.content_type,
                         **({"retry_after": 0} if say.status >= 400 else {}))
                    return
                send(self, 200, _payload(kind, body.get("model", "m"), say))

        self.serve(Handler)

    def count(self, kind: str) -> int:
        """How many calls were answered with ``kind`` (a ``Say.kind``)."""
        return self.sent.count(kind)
