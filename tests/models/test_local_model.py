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
                                       "--max-tokens", "96", "--out", str(out), "--release", str(release_dir),
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


def test_llm_detector_through_the_local_model(tmp_path):
    """--detector llm end to end on the real server; a 270M base model's answer is
    poor, but it must come back as taxonomy names or as a clear error, never a guess."""
    from neocoder.techniques import TAXONOMY
    prog = tmp_path / "a.py"
    prog.write_text("for i in range(3):\n    print(i)\n")
    out = CliRunner().invoke(main, ["detect", str(prog), "--detector", "llm", "--model", "local/gemma-3-270m",
                                    "--api", "chat", "--json"])
    if out.exit_code == 0:
        line = next(li for li in out.output.splitlines() if li.startswith("{"))
        found = json.loads(line)["techniques"]
        assert set(found) <= set(TAXONOMY)
    else:
        assert "no usable technique list after 3 replies" in out.output


def test_a_killed_run_takes_its_server_with_it():
    """A process that started the local server and is then killed (SIGKILL: no atexit,
    no close) leaves no server decoding on the machine, even while the server is busy
    decoding a long reply (a graceful SIGTERM would let it finish that reply first)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time
    import urllib.request
    code = ("from neocoder.models.local import LlamaServer, gguf_path; "
            "s = LlamaServer(gguf_path('gemma-3-270m'), n_ctx=2048); print(s.proc.pid, s.base_url, flush=True); "
            "import time; time.sleep(600)")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pid, base_url = parent.stdout.readline().split()
    server = int(pid)
    os.kill(server, 0)  # running
    body = json.dumps({"prompt": "Once upon a time", "max_tokens": 1500, "temperature": 0.8}).encode()
    request = urllib.request.Request(base_url + "/completions", body, {"Content-Type": "application/json"})

    def decode():
        try:
            urllib.request.urlopen(request, timeout=120).read()
        except OSError:
            pass  # the server was killed mid-reply: expected
    threading.Thread(target=decode, daemon=True).start()
    time.sleep(2)  # the server is now decoding a reply of up to 1500 tokens
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(server, signal.SIGKILL)
    pytest.fail("the local model server outlived the run that started it")
