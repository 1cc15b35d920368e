"""The real local model: llama-cpp-python's server with the Gemma 3 270M GGUF from PyPI."""

import json

import pytest
from click.testing import CliRunner

from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.cli import main
from neocoder.models import get_model

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def gemma():
    with get_model("local/gemma-3-270m", max_tokens=48) as model:
        yield model


def test_completion_api_continues_solve(gemma):
    reply = gemma.generate(solve_prompt("A. Sum\nRead two integers a and b and print a+b."))
    assert reply.code_prefix.rstrip().endswith("def solve():")
    assert reply.completion_tokens and reply.completion_tokens > 0
    assert reply.prompt_tokens and reply.prompt_tokens > 20


def test_chat_api_answers(gemma):
    from neocoder.models.openai_compat import OpenAICompatModel
    chat = OpenAICompatModel("local/gemma-3-270m", "gemma-3-270m", base_url=gemma.server.base_url,
                             api_key="local", api="chat", max_tokens=32)
    reply = chat.generate(solve_prompt("A. Sum\nRead two integers a and b and print a+b."))
    assert reply.code_prefix == "" and reply.text.strip()
    assert reply.completion_tokens and reply.completion_tokens > 0
    chat.close()


def test_server_stops_on_close():
    model = get_model("local/gemma-3-270m", max_tokens=8)
    proc = model.server.proc
    model.close()
    assert proc.poll() is not None


@pytest.mark.docker
def test_eval_through_the_local_server(tmp_path, release_dir, sandbox):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["eval", "--model", "local/gemma-3-270m", "--limit", "1", "--states", "0-1",
                                       "--max-tokens", "200", "--out", str(out), "--release", str(release_dir),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    samples = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(samples) == 2
    for s in samples:
        assert not s.get("error"), s.get("error")
        assert s["tokens"]["completion"] > 0
        assert s["code"].startswith("import sys") and "def solve():" in s["code"]
        tests = s["examples"]["tests"]
        assert len(tests) >= 1 and all(t["verdict"] != "INFRA" for t in tests)


def test_llm_detector_through_the_local_model(tmp_path, monkeypatch):
    """``neocoder detect --detector llm --json`` on the real server keeps the reply grammar's
    contract (issue 46): the program is really sent to the model (its source in the prompt,
    the server's token counts on every reply), and the command prints either a non-empty
    list of taxonomy names that the model's last reply names, or fails with the named
    error giving the unreadable reason of that reply after 1 + 2 retries.  An empty list
    fails this test: the program has a for loop, so "no technique" is never its answer, and
    an unreadable reply must leave the techniques unknown, not empty.  (The 270M base model
    answers at temperature 0 with an echo of the prompt cut at the token limit: the error.)"""
    import re

    from neocoder.models.local import LocalModel
    from neocoder.replies import REASONS
    from neocoder.techniques import TAXONOMY
    from neocoder.techniques.llm import parse_labels

    asked = []  # (prompt, reply) of every call the detector made, as the real server answered it
    generate = LocalModel.generate

    def recorded(self, prompt):
        reply = generate(self, prompt)
        asked.append((prompt, reply))
        return reply
    monkeypatch.setattr(LocalModel, "generate", recorded)
    source = "for i in range(3):\n    print(i)\n"
    prog = tmp_path / "a.py"
    prog.write_text(source)
    out = CliRunner().invoke(main, ["detect", str(prog), "--detector", "llm", "--model", "local/gemma-3-270m",
                                    "--api", "chat", "--json"])

    assert asked, "the model was never asked"
    for prompt, reply in asked:
        assert source in prompt.messages[0]["content"] and "- for loop" in prompt.messages[0]["content"]
        assert reply.prompt_tokens > 100 and reply.completion_tokens > 0  # the server read it and answered
    last_prompt, last = asked[-1]
    reading = parse_labels(last.text, last_prompt.messages[0]["content"], last.extra.get("finish_reason"))
    if out.exit_code == 0:
        line = next(li for li in out.output.splitlines() if li.startswith("{"))
        found = json.loads(line)
        assert found["file"] == str(prog) and found["language"] == "python"
        assert found["techniques"], "an empty technique list: the detector lost or guessed the model's answer"
        assert set(found["techniques"]) <= set(TAXONOMY) and found["techniques"] == sorted(found["techniques"])
        assert reading.readable and set(found["techniques"]) == reading.value[0], last.text
    else:
        assert out.exit_code == 1 and len(asked) == 3, out.output  # the first reply and two retries
        said = re.fullmatch(r"Error: technique detector: no usable technique list after 3 replies, each "
                            r"unreadable \(last: ([a-zA-Z ]+)\): .*", out.output.strip(), re.S)
        assert said and said.group(1) in REASONS, out.output
        assert not reading.readable and said.group(1) == reading.reason, (reading, last.text)
        assert repr(last.text[:200]) in out.output  # the reply it could not read, quoted
        assert not any(li.startswith("{") for li in out.output.splitlines())  # no list beside the error


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) process ``pid`` has used, from /proc."""
    import os
    from pathlib import Path
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def test_a_killed_run_takes_its_server_with_it():
    """A process that started the local server and is then killed (SIGKILL: no atexit,
    no close) leaves no server decoding on the machine, even while the server is busy
    decoding a long reply (a graceful SIGTERM would let it finish that reply first).

    The kill comes only once decoding is proven: a streamed request's first token has
    arrived, and then a plain (unstreamed, as neocoder asks) request of up to 1500 tokens
    has made the server spend 2 CPU seconds beyond that (an idle server spends none).  The
    plain request matters: on SIGTERM the server cuts a stream at once but finishes a plain
    reply first, so only it tells SIGKILL from SIGTERM.  Afterwards that reply never came:
    the server died mid-reply."""
    import http.client
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time
    from urllib.parse import urlparse
    code = ("from neocoder.models.local import LlamaServer, gguf_path; "
            "s = LlamaServer(gguf_path('gemma-3-270m'), n_ctx=2048); print(s.proc.pid, s.base_url, flush=True); "
            "import time; time.sleep(600)")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid, base_url = parent.stdout.readline().split()
    server = int(pid)
    os.kill(server, 0)  # running
    url = urlparse(base_url)

    def post(body: dict) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=300)
        conn.request("POST", url.path + "/completions", json.dumps(body), {"Content-Type": "application/json"})
        return conn.getresponse()

    # 1. the server decodes: a streamed reply's first token (server-sent events: a "data:" line)
    streamed = post({"prompt": "Once upon a time", "max_tokens": 8, "temperature": 0.0, "stream": True})
    assert streamed.status == 200, streamed.read()[:500]
    line = b""
    while not line.startswith(b"data:"):
        line = streamed.readline()
        assert line, "the stream ended before its first token"
    assert "text" in json.loads(line[len(b"data:"):])["choices"][0]
    streamed.read()  # the rest of those 8 tokens: the model is free again

    # 2. the long plain reply is being decoded: the server is spending CPU on it
    ended = []

    def decode():
        try:
            ended.append(("reply", post({"prompt": "Once upon a time", "max_tokens": 1500, "temperature": 0.8,
                                         "seed": 1}).read()))
        except (OSError, http.client.HTTPException) as exc:
            ended.append(("cut", exc))  # the server was killed mid-reply: expected
    idle = _cpu_seconds(server)
    plain = threading.Thread(target=decode, daemon=True)
    plain.start()
    deadline = time.monotonic() + 120
    while _cpu_seconds(server) - idle < 2.0:
        assert time.monotonic() < deadline and not ended, f"the server did not decode the long reply: {ended}"
        time.sleep(0.1)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(server, signal.SIGKILL)
        pytest.fail("the local model server outlived the run that started it")
    plain.join(timeout=10)
    assert ended and ended[0][0] == "cut", ended  # killed mid-reply, not after finishing it
