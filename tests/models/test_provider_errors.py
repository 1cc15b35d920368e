"""A reply that is no use is an item's error, an endpoint out of reach stops the run (issue 56,
item 3), on every provider path of neocoder/models/.

A scripted loopback endpoint (tests/support/drifting.py) answers 200 with a proxy's HTML page,
JSON cut in the middle, JSON of the wrong shape, or accepts the connection and closes it
unanswered, or resets it mid-body.  Each provider must raise UnusableReply (a ModelError, never
an EndpointError, never the raw JSONDecodeError, KeyError, TypeError or httpx error) naming the
endpoint and what was wrong, after its retries; a port where nothing listens must still raise
EndpointError."""

from __future__ import annotations

import json
import socket

import pytest
from drifting import DROP, HTML, HTML_AS_JSON, RESET, SHAPES, TRUNCATED, DriftingServer, Say

from neocoder.models import EndpointError, ModelError, Prompt, get_model
from neocoder.models.base import UnusableReply
from neocoder.models.embedders import OpenAIEmbedder
from neocoder.models.unusable import dropped, not_json, unreachable

ASKED = Prompt(messages=({"role": "user", "content": "Say hi."},), completion="def solve():\n",
               code_prefix="def solve():\n")

# each broken answer and the words its reason must hold
BROKEN = [(HTML, "the body is not JSON"), (HTML_AS_JSON, "the body is not JSON"),
          (TRUNCATED, "the body is not JSON"), (DROP, "the connection was dropped"),
          (RESET, "the connection was dropped"),
          (SHAPES["no choices"], "no choices"), (SHAPES["choices empty"], "choices is empty"),
          (SHAPES["choices not a list"], "not a list"), (SHAPES["no message"], "no message"),
          (SHAPES["content a number"], "content is a int"), (SHAPES["usage a string"], "usage is a str"),
          (SHAPES["negative tokens"], "prompt_tokens"), (SHAPES["a list"], "not a completion")]


def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def raised(call) -> BaseException:
    """What ``call()`` raised (it must raise)."""
    with pytest.raises(BaseException) as caught:
        call()
    return caught.value


def assert_unusable(error: BaseException, url: str, words: str) -> None:
    assert isinstance(error, UnusableReply) and not isinstance(error, EndpointError), repr(error)
    message = str(error)
    assert f"no usable reply from {url}" in message and words in message, message
    assert "\n" not in message, message


@pytest.mark.parametrize("say,words", BROKEN, ids=[s.kind for s, _ in BROKEN])
def test_a_chat_call_without_a_usable_reply_is_unusable_after_its_retries(say, words):
    with DriftingServer(lambda kind, body: say) as server, \
            get_model("openai/m", base_url=server.url, api_key="k", max_retries=1) as model:
        error = raised(lambda: model.generate(ASKED))
    assert_unusable(error, server.url + "/", words)
    assert error.endpoint == server.url + "/" and str(error).startswith("openai/m: ")
    assert server.calls == 2  # the call and its one retry


COMPLETION_BROKEN = [(HTML_AS_JSON, "the body is not JSON"), (TRUNCATED, "the body is not JSON"),
                     (DROP, "the connection was dropped"), (RESET, "the connection was dropped"),
                     (SHAPES["no choices"], "no choices"), (SHAPES["choices empty"], "choices is empty"),
                     (Say(kind="text a list", body=json.dumps({"choices": [{"index": 0, "text": ["a"]}]}).encode()),
                      "text is a list")]


@pytest.mark.parametrize("say,words", COMPLETION_BROKEN, ids=[s.kind for s, _ in COMPLETION_BROKEN])
def test_a_completion_call_without_a_usable_reply_is_unusable(say, words):
    with DriftingServer(lambda kind, body: say) as server, \
            get_model("openai/m", base_url=server.url, api_key="k", max_retries=0, api="completion") as model:
        error = raised(lambda: model.generate(ASKED))
    assert_unusable(error, server.url + "/", words)
    assert server.calls == 1


def _with_logprobs(kind: str, logprobs) -> Say:
    choice = {"index": 0, "finish_reason": "stop", "logprobs": logprobs}
    choice.update({"message": {"role": "assistant", "content": "hi"}} if kind == "chat" else {"text": "hi"})
    return Say(kind="bad logprobs", body=json.dumps({"choices": [choice]}).encode())


@pytest.mark.parametrize("api,logprobs", [("chat", {"content": [{"token": "hi", "logprob": "very"}]}),
                                          ("chat", {"content": ["hi"]}),
                                          ("completion", {"tokens": ["hi"], "token_logprobs": ["x"]}),
                                          ("completion", {"tokens": 7})])
def test_log_probabilities_of_the_wrong_shape_are_unusable(api, logprobs):
    wanted = Prompt(messages=ASKED.messages, completion=ASKED.completion, code_prefix="", logprobs=2)
    with DriftingServer(lambda kind, body: _with_logprobs(kind, logprobs)) as server, \
            get_model("openai/m", base_url=server.url, api_key="k", max_retries=0, api=api) as model:
        error = raised(lambda: model.generate(wanted))
    assert_unusable(error, server.url + "/", "logprobs are not token log-probabilities")


def test_a_broken_answer_then_a_good_one_is_a_reply_and_a_missing_usage_is_no_error():
    says = iter([HTML_AS_JSON, DROP, Say(kind="no usage", body=json.dumps(
        {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}
    ).encode())])
    with DriftingServer(lambda kind, body: next(says)) as server, \
            get_model("openai/m", base_url=server.url, api_key="k", max_retries=2) as model:
        reply = model.generate(ASKED)
    assert reply.text == "hi" and reply.prompt_tokens is None  # a server that reports no usage: tokens unknown
    assert server.sent == ["html as json", "dropped", "no usage"]


def test_an_endpoint_where_nothing_listens_still_stops_the_run():
    url = closed_port_url()
    with get_model("openai/m", base_url=url, api_key="k", max_retries=0) as model:
        error = raised(lambda: model.generate(ASKED))
    assert isinstance(error, EndpointError) and "cannot reach" in str(error), repr(error)
    embedder = OpenAIEmbedder("e", base_url=url, api_key="k", max_retries=0)
    error = raised(lambda: embedder.embed(["a"]))
    assert isinstance(error, EndpointError) and "cannot reach" in str(error), repr(error)


def test_the_line_between_out_of_reach_and_dropped_is_read_from_the_causes():
    def chained(*errors):
        for outer, inner in zip(errors, errors[1:]):
            outer.__cause__ = inner
        return errors[0]
    ConnectError = type("ConnectError", (Exception,), {})
    RemoteProtocolError = type("RemoteProtocolError", (Exception,), {})
    assert unreachable(chained(RuntimeError("Connection error."), ConnectError("[Errno 111] refused")))
    assert unreachable(chained(RuntimeError("x"), socket.gaierror(-2, "Name or service not known")))
    assert unreachable(chained(RuntimeError("x"), ConnectionRefusedError(111, "refused")))
    lost = chained(RuntimeError("Connection error."), RemoteProtocolError("Server disconnected"))
    assert not unreachable(lost)
    assert dropped(lost) == "the connection was dropped: Server disconnected"
    silent = chained(RuntimeError("x"), RemoteProtocolError())
    assert dropped(silent) == "the connection was dropped: RemoteProtocolError"
    try:
        json.loads("<html>" + "x" * 100)
    except json.JSONDecodeError as exc:
        reason = not_json(chained(RuntimeError("wrapped"), exc))
    assert reason.startswith("the body is not JSON (Expecting value at character 0 of 106): '<html>xxx")
    assert reason.endswith("'...")


EMBEDDINGS_BROKEN = [(HTML, "the body is not JSON"), (HTML_AS_JSON, "the body is not JSON"),
                     (TRUNCATED, "the body is not JSON"), (DROP, "the connection was dropped"),
                     (RESET, "the connection was dropped"),
                     (Say(kind="no data", body=b'{"object": "list"}'), "not a list of embeddings"),
                     (Say(kind="too few", body=b'{"data": []}'), "0 embeddings for 2 texts"),
                     (Say(kind="not numbers", body=json.dumps({"data": [{"index": 0, "embedding": "abc"},
                                                                          {"index": 1, "embedding": "abd"}]}).encode()),
                      "not lists of numbers")]


@pytest.mark.parametrize("say,words", EMBEDDINGS_BROKEN, ids=[s.kind for s, _ in EMBEDDINGS_BROKEN])
def test_an_embeddings_endpoint_without_usable_embeddings_is_unusable(say, words):
    with DriftingServer(lambda kind, body: say) as server:
        embedder = OpenAIEmbedder("e", base_url=server.url, api_key="k", max_retries=1)
        error = raised(lambda: embedder.embed(["a", "b"]))
    assert_unusable(error, server.url + "/", words)
    assert server.calls == 2 and str(error).startswith("openai/e: ")


def test_an_embeddings_endpoint_answering_well_gives_unit_rows():
    with DriftingServer(lambda kind, body: "ok") as server:
        vectors = OpenAIEmbedder("e", base_url=server.url, api_key="k", max_retries=0).embed(["a", "b"])
    assert vectors.shape == (2, 16) and abs(float(vectors[0] @ vectors[0]) - 1) < 1e-5


INSPECT_BROKEN = [(HTML, None), (HTML_AS_JSON, "the body is not JSON"), (TRUNCATED, "the body is not JSON"),
                  (DROP, "the connection was dropped"), (RESET, "the connection was dropped"),
                  (SHAPES["no choices"], None), (SHAPES["choices empty"], None), (SHAPES["no message"], None),
                  (SHAPES["content a number"], None), (SHAPES["usage a string"], None)]


@pytest.mark.parametrize("say,words", INSPECT_BROKEN, ids=[s.kind for s, _ in INSPECT_BROKEN])
def test_inspect_api_openai_compatible_without_a_usable_reply_is_unusable(say, words):
    pytest.importorskip("inspect_ai")
    with DriftingServer(lambda kind, body: say) as server, \
            get_model("inspect-api/openai/m", base_url=server.url, api_key="k", max_retries=0) as model:
        error = raised(lambda: model.generate(ASKED))
    assert isinstance(error, ModelError) and not isinstance(error, EndpointError), repr(error)
    assert isinstance(error, UnusableReply), repr(error)
    assert f"no usable reply from {server.url}" in str(error) and "\n" not in str(error), error
    if words:
        assert words in str(error), error


ANTHROPIC_BROKEN = [(HTML_AS_JSON, "the body is not JSON"), (TRUNCATED, "the body is not JSON"),
                    (DROP, "the connection was dropped"), (RESET, "the connection was dropped"),
                    (Say(kind="not a message", body=b'{"type": "message", "content": 5}'), None)]


@pytest.mark.parametrize("say,words", ANTHROPIC_BROKEN, ids=[s.kind for s, _ in ANTHROPIC_BROKEN])
def test_inspect_api_anthropic_without_a_usable_reply_is_unusable(say, words):
    pytest.importorskip("anthropic")
    with DriftingServer(lambda kind, body: say) as server:
        base = server.url.removesuffix("/v1")
        with get_model("inspect-api/anthropic/claude-test", base_url=base, api_key="k", max_tokens=50,
                       max_retries=0) as model:
            error = raised(lambda: model.generate(ASKED))
    assert isinstance(error, UnusableReply), repr(error)
    assert f"no usable reply from {base}" in str(error) and "\n" not in str(error), error
    if words:
        assert words in str(error), error


def test_inspect_api_where_nothing_listens_still_stops_the_run():
    pytest.importorskip("inspect_ai")
    with get_model("inspect-api/openai/m", base_url=closed_port_url(), api_key="k", max_retries=0) as model:
        error = raised(lambda: model.generate(ASKED))
    assert isinstance(error, EndpointError) and "cannot reach" in str(error), repr(error)


class StandInServer:
    """Where LocalModel would start llama.cpp's server: the scripted endpoint instead (a
    llama.cpp server cannot be made to misbehave on cue)."""

    url = None

    def __init__(self, model_path, n_ctx=8192):
        self.base_url = StandInServer.url

    def stop(self):
        pass


@pytest.mark.parametrize("broken", ["reset request", "call"])
def test_the_local_model_without_a_usable_reply_is_unusable(monkeypatch, broken):
    from neocoder.models import local
    says = iter([HTML_AS_JSON] if broken == "reset request" else ["x", TRUNCATED])
    with DriftingServer(lambda kind, body: next(says)) as server:
        monkeypatch.setattr(StandInServer, "url", server.url)
        monkeypatch.setattr(local, "LlamaServer", StandInServer)
        monkeypatch.setattr(local, "gguf_path", lambda name: "/models/gemma.gguf")
        with get_model("local/gemma-3-270m", max_retries=0) as model:
            error = raised(lambda: model.generate(ASKED))
    assert_unusable(error, "llama.cpp:gemma.gguf", "the body is not JSON")
