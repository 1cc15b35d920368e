"""Real OpenAI-style HTTP endpoints on loopback, for the retry, timeout, cache and judge
tests (a cloud API cannot run here; these servers do)."""

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _completion(text: str) -> bytes:
    return json.dumps({
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}).encode()


class Loopback:
    """What every scripted endpoint here shares: a real ``ThreadingHTTPServer`` on a free
    port of 127.0.0.1, serving in a daemon thread, ``url`` its base (``/v1`` appended
    unless ``suffix`` says otherwise), stopped by ``close()`` or at the end of a ``with``."""

    def serve(self, handler: type[BaseHTTPRequestHandler], suffix: str = "/v1") -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{suffix}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Quiet(BaseHTTPRequestHandler):
    """A request handler that logs nothing (the test's output stays the test's)."""

    def log_message(self, *args):
        pass


def send(handler: BaseHTTPRequestHandler, code: int, body: bytes, content_type: str = "application/json",
         **headers) -> None:
    """Answer the request ``handler`` holds: status ``code``, the ``body`` (JSON unless
    ``content_type`` says otherwise) and any ``headers`` (``retry_after=1`` sends
    ``retry-after: 1``).  A client that already left (it timed out) is no error."""
    try:
        handler.send_response(code)
        handler.send_header("content-type", content_type)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), str(value))
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass


class FlakyServer(Loopback):
    """A real OpenAI-style endpoint on loopback: answers 429 ``fail_first`` times, then
    200 with a chat completion; ``delay`` seconds before each answer."""

    def __init__(self, fail_first=1, delay=0.0):
        self.requests, self.fail_first, self.delay = 0, fail_first, delay
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.requests += 1
                time.sleep(outer.delay)
                if outer.requests <= outer.fail_first:
                    body, code = b'{"error": {"message": "slow down", "type": "rate_limit"}}', 429
                else:
                    body, code = _completion(outer.next_reply()), 200
                send(self, code, body, retry_after=0)

        self.serve(Handler)

    def next_reply(self) -> str:
        return "```python\ndef solve():\n    print(1)\n```"


class ScriptedServer(FlakyServer):
    """Answers 200 with the given chat replies in order ("no idea" when they run out)."""

    def __init__(self, replies):
        self.replies = list(replies)
        super().__init__(fail_first=0)

    def next_reply(self) -> str:
        return self.replies.pop(0) if self.replies else "no idea"


class PacedServer(Loopback):
    """A real OpenAI-style endpoint on loopback that answers each chat call after
    ``delay`` seconds with ``respond(body) -> text``, taking at most ``capacity`` calls at
    once (None: any number): a call beyond them is answered 429 at once, with a
    ``Retry-After`` of ``retry_after`` seconds.  It counts what a rate-limit test needs:
    ``attempts`` per distinct request body, ``refused`` (429s sent) and ``most_active``
    (the most calls it held at once)."""

    def __init__(self, respond, delay=1.0, capacity=None, retry_after=1.0):
        self.respond, self.delay, self.capacity, self.retry_after = respond, delay, capacity, retry_after
        self.attempts: dict[str, int] = {}
        self.refused = self.active = self.most_active = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(Quiet):
            protocol_version = "HTTP/1.1"  # keep-alive, as an API serves

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body, code = outer.answer(raw)
                send(self, code, body, **({"retry_after": outer.retry_after} if code == 429 else {}))

        self.serve(Handler)

    def answer(self, raw: bytes) -> tuple[bytes, int]:
        """The response body and status for the request body ``raw``."""
        key = hashlib.sha256(raw).hexdigest()
        with self.lock:
            self.attempts[key] = self.attempts.get(key, 0) + 1
            if self.capacity is not None and self.active >= self.capacity:
                self.refused += 1
                return b'{"error": {"message": "too many requests", "type": "rate_limit"}}', 429
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        try:
            time.sleep(self.delay)
            return _completion(self.respond(json.loads(raw))), 200
        finally:
            with self.lock:
                self.active -= 1

    def retried_more_than_once(self) -> int:
        """Distinct requests that needed more than two attempts."""
        return sum(1 for n in self.attempts.values() if n > 2)


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def completion_payload(kind: str, model: str, text: str, logprobs: dict | None = None, usage: dict = USAGE) -> bytes:
    """The body of a 200 answer: a chat completion (``kind`` "chat"; with ``logprobs`` in
    the chat form ``{"content": [{"token", "logprob", ...}]}`` where given so) or a text
    completion with its ``logprobs``, reporting ``usage``."""
    choice: dict = {"index": 0, "finish_reason": "stop"}
    if kind == "chat":
        choice["message"] = {"role": "assistant", "content": text}
        if isinstance(logprobs, dict) and "content" in logprobs:
            choice["logprobs"] = logprobs
    else:
        choice.update(text=text, logprobs=logprobs)
    return json.dumps({"id": "x", "object": "chat.completion" if kind == "chat" else "text_completion",
                       "created": 0, "model": model, "usage": usage, "choices": [choice]}).encode()


class RespondingServer(Loopback):
    """A real OpenAI-compatible endpoint on 127.0.0.1 answering chat and completion requests
    with ``respond(kind, body) -> (text, logprobs | None)`` (``kind`` "chat" or
    "completion"), reporting ``usage``; ``log(kind, body)`` keeps each request in
    ``requests`` (as ``(kind, body)``; a subclass may keep something else).  ``url`` ends in
    ``/v1``; ``close()`` or a ``with`` block stops it.  ``usage_of(kind, body) -> dict``,
    where given, reports each request's own usage instead."""

    def __init__(self, respond, usage: dict = USAGE, usage_of=None):
        self.requests: list = []
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                kind = "chat" if self.path.endswith("/chat/completions") else "completion"
                outer.log(kind, body)
                text, logprobs = respond(kind, body)
                send(self, 200, completion_payload(kind, body.get("model", "m"), text, logprobs,
                                                   usage if usage_of is None else usage_of(kind, body)))

        self.serve(Handler)

    def log(self, kind: str, body: dict) -> None:
        self.requests.append((kind, body))

    def prompts_text(self) -> str:
        """Everything the model was shown, as one string (requests kept as ``(kind, body)``)."""
        return json.dumps([body.get("messages") or body.get("prompt") for _, body in self.requests])


def refusal_body(param: str, code: str, message: str) -> bytes:
    """An OpenAI error body: ``{"error": {message, type, param, code}}``."""
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", "param": param,
                                 "code": code}}).encode()


class ReasoningServer(Loopback):
    """A real OpenAI-style chat endpoint on 127.0.0.1 behaving as OpenAI's reasoning models
    do: a request carrying ``max_tokens`` is refused (400, ``error.param`` "max_tokens",
    code ``unsupported_parameter``), and so is a ``temperature`` other than 1 (400,
    ``unsupported_value``); otherwise it answers ``respond(body) -> (text, reasoning or
    None)`` with ``reasoning_tokens`` in ``usage.completion_tokens_details`` and the
    reasoning as the message's ``reasoning_content``.  ``reasoning_models`` (None: every
    model) are the model ids that behave so; others are chat models taking any parameter
    (as OpenAI serves both on one endpoint).  ``requests`` keeps every body received
    (refused ones too), ``refused`` counts the 400s."""

    REASONING_TOKENS = 64

    def __init__(self, respond, reasoning_models=None):
        self.reasoning_models = reasoning_models
        self.requests: list[dict] = []
        self.refused = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                data, code = outer.answer(body)
                send(self, code, data)

        self.respond = respond
        self.serve(Handler)

    def answer(self, body: dict) -> tuple[bytes, int]:
        with self.lock:
            self.requests.append(body)
        if self.reasoning_models is not None and body.get("model") not in self.reasoning_models:
            text, _ = self.respond(body)
            return completion_payload("chat", body.get("model", "m"), text), 200
        if "max_tokens" in body:
            with self.lock:
                self.refused += 1
            return refusal_body("max_tokens", "unsupported_parameter",
                                "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                "'max_completion_tokens' instead."), 400
        if body.get("temperature") not in (None, 1, 1.0):
            with self.lock:
                self.refused += 1
            return refusal_body("temperature", "unsupported_value",
                                f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                                "model. Only the default (1) value is supported."), 400
        text, reasoning = self.respond(body)
        message = {"role": "assistant", "content": text}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        usage = {"prompt_tokens": 20, "completion_tokens": 10 + self.REASONING_TOKENS, "total_tokens": 94,
                 "completion_tokens_details": {"reasoning_tokens": self.REASONING_TOKENS}}
        return json.dumps({"id": "r", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                           "usage": usage, "choices": [{"index": 0, "finish_reason": "stop",
                                                        "message": message}]}).encode(), 200


class AnthropicServer(Loopback):
    """A real endpoint on 127.0.0.1 speaking Anthropic's Messages API (``POST
    /v1/messages``): each request is answered with ``respond(body) -> (text, thinking or
    None)`` as a message whose content is a thinking block (when given) and a text block,
    with ``usage`` input and output tokens.  A request without ``max_tokens`` is refused
    as Anthropic does (400 ``invalid_request_error``, "max_tokens: Field required"), and
    so is one ``refuse(body) -> (status, error type, message) | None`` refuses.
    ``/v1/messages/count_tokens`` counts words.  ``requests`` keeps every body sent to
    /v1/messages; ``url`` is the base URL (the SDK adds /v1/messages)."""

    def __init__(self, respond, refuse=None):
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if self.path.startswith("/v1/messages/count_tokens"):
                    words = len(json.dumps(body.get("messages")).split())
                    send(self, 200, json.dumps({"input_tokens": words}).encode())
                    return
                with outer.lock:
                    outer.requests.append(body)
                refused = refuse(body) if refuse is not None else None
                if refused is not None:
                    code, data = refused[0], {"type": "error", "error": {"type": refused[1], "message": refused[2]}}
                elif self.path != "/v1/messages" or "max_tokens" not in body:
                    code, data = 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                  "message": "max_tokens: Field required"}}
                else:
                    text, thinking = respond(body)
                    content = ([{"type": "thinking", "thinking": thinking, "signature": "sig"}] if thinking else [])
                    content.append({"type": "text", "text": text})
                    code, data = 200, {"id": f"msg_{len(outer.requests)}", "type": "message", "role": "assistant",
                                       "model": body.get("model", "claude"), "content": content,
                                       "stop_reason": "end_turn", "stop_sequence": None,
                                       "usage": {"input_tokens": 30, "output_tokens": 12}}
                send(self, code, json.dumps(data).encode())

        self.serve(Handler, suffix="")
