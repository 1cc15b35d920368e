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
  with no answer.

``calls`` counts the requests, ``sent`` keeps what each call got (its ``Say.kind``), so a
test can assert that the unreadable counts equal the replies of each kind it sent.
"""

from __future__ import annotations

import json
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


EMPTY = Say("", kind="empty")
REASONING_ONLY = Say("", kind="reasoning only", reasoning="Let me weigh both sides of this carefully first.")
THINK_ONLY = Say("<think>Let me weigh both sides of this carefully first.</think>", kind="think only")
REFUSAL = Say("I'm sorry, but I can't help with that request.", kind="refusal")
MALFORMED = Say(kind="malformed", body=b'{"result": "ok", "output": null}')
DROP = Say(kind="dropped", drop=True)


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
                kind = "chat" if self.path.endswith("/chat/completions") else "completion"
                say = outer.respond(kind, body)
                if isinstance(say, str):
                    say = Say(say)
                with outer.lock:
                    outer.calls += 1
                    outer.sent.append(say.kind)
                if say.drop:
                    self.close_connection = True
                    self.connection.close()
                    return
                if say.body is not None:
                    send(self, say.status, say.body, **({"retry_after": 0} if say.status >= 400 else {}))
                    return
                send(self, 200, _payload(kind, body.get("model", "m"), say))

        self.serve(Handler)

    def count(self, kind: str) -> int:
        """How many calls were answered with ``kind`` (a ``Say.kind``)."""
        return self.sent.count(kind)
