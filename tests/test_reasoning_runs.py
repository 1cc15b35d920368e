"""Reasoning models and inspect_ai's providers through whole runs: ``neocoder eval`` judged
in Docker, AidanBench and LiveIdeaBench through the Python API and the CLI.

Every endpoint is a real HTTP server on loopback (tests/support/loopback.py): ``ReasoningServer``
refuses ``max_tokens`` and non-default temperatures as OpenAI's reasoning models do and
reports reasoning tokens; ``AnthropicServer`` speaks Anthropic's Messages API.
"""

import json
import shutil

import pytest
from click.testing import CliRunner
from loopback import AnthropicServer, Loopback, Quiet, ReasoningServer, RespondingServer, send

from neocoder.api import run_aidanbench, run_ideas
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.aidanbench.records import Answer
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.records import IdeaJudgement
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.models import ModelError, Prompt, RequestRefused, get_model
from neocoder.store import RunFolder

PROBLEMS = "1901A,1899A,1898A"
DRAFT = "```python\ndef solve():\n    print('draft')\n```"
PROGRAM = "```python\ndef solve():\n    n = input()\n    print(n)\n```"


def samples(out) -> list[dict]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


@pytest.mark.docker
def test_eval_of_a_reasoning_model_stops_at_once_without_the_option_and_resumes_with_it(tmp_path, release_dir,
                                                                                         sandbox):
    server = ReasoningServer(lambda body: (f"<think>\n{DRAFT}\nno, echo it\n</think>\n{PROGRAM}", "Echo the input."))
    out = tmp_path / "run"
    args = ["eval", "--model", "openai/my-reasoner", "--base-url", server.url, "--api-key", "k",
            "--problems", PROBLEMS, "--states", "0-1", "--out", str(out), "--release", str(release_dir), "--quiet"]
    try:
        refused = CliRunner().invoke(main, args)
        assert refused.exit_code == 1
        lines = error_lines(refused.output)
        assert len(lines) == 1 and "'max_tokens'" in lines[0] and "--reasoning" in lines[0], refused.output
        assert "headline" not in refused.output and "Traceback" not in refused.output
        assert len(server.requests) == 1  # the first call was refused; no other was sent
        assert not (out / "metrics.json").exists() and (out / "manifest.json").exists()

        ran = CliRunner().invoke(main, args + ["--reasoning", "--reasoning-effort", "low"])
        assert ran.exit_code == 0, ran.output
        assert "headline: cumulative NeoGauge@1 = " in ran.output
        got = samples(out)
        assert len(got) == 6 and {s["problem_id"] for s in got} == set(PROBLEMS.split(","))
        for s in got:
            assert s["tokens"]["reasoning"] == ReasoningServer.REASONING_TOKENS
            assert s["tokens"]["completion"] == 10 + ReasoningServer.REASONING_TOKENS
            assert s["reasoning"] == "Echo the input." and "draft" not in s["code"] and "print(n)" in s["code"]
            # EvalConfig's budget for a reasoning model, which its thinking shares
            assert s["sent"] == {"max_completion_tokens": 16384, "reasoning_effort": "low", "seed": s["sample"]}
        sent = server.requests[1:]
        assert len(sent) == 6 and all("max_tokens" not in b and "temperature" not in b for b in sent)
        config = json.loads((out / "manifest.json").read_text())["config"]["model"]
        assert config["reasoning"] is True and config["reasoning_effort"] == "low"
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["states"]["0"]["n"] == 3
        assert metrics["states"]["0"]["cost"]["reasoning_tokens"] == ReasoningServer.REASONING_TOKENS

        again = CliRunner().invoke(main, args + ["--reasoning", "--reasoning-effort", "low"])
        assert again.exit_code == 0 and len(server.requests) == 7 and len(samples(out)) == 6
    finally:
        server.close()


@pytest.mark.docker
def test_an_eval_through_inspect_ais_anthropic_provider_is_cached_and_resumes(tmp_path, release_dir, sandbox):
    server = AnthropicServer(lambda body: (PROGRAM, "I will echo it."),
                             refuse=lambda body: (404, "not_found_error", f"model: {body['model']}")
                             if body["model"] == "claude-nope" else None)
    out = tmp_path / "run"
    args = ["eval", "--model", "inspect-api/anthropic/claude-test", "--base-url", server.url, "--api-key", "k",
            "--problems", PROBLEMS, "--states", "0", "--out", str(out), "--release", str(release_dir), "--quiet"]
    try:
        first = CliRunner().invoke(main, args)
        assert first.exit_code == 0, first.output
        got = samples(out)
        assert len(got) == 3 and {s["problem_id"] for s in got} == set(PROBLEMS.split(","))
        assert all(s["tokens"]["prompt"] == 30 and s["tokens"]["completion"] == 12 for s in got)
        assert all(s["reasoning"] == "I will echo it." and "print(n)" in s["code"] for s in got)
        assert len(server.requests) == 3 and all(b["max_tokens"] == 1024 for b in server.requests)
        assert all(b["messages"][-1]["role"] == "user" for b in server.requests)

        # cached: the same command again makes no call and appends nothing
        again = CliRunner().invoke(main, args)
        assert again.exit_code == 0 and len(server.requests) == 3 and len(samples(out)) == 3

        # resumable: a run cut after its first sample finishes the other two, from the call cache
        cut = tmp_path / "cut"
        shutil.copytree(out, cut)
        (cut / "records.jsonl").write_text((out / "records.jsonl").read_text().splitlines()[0] + "\n")
        resumed = CliRunner().invoke(main, args[:-5] + ["--out", str(cut), "--release", str(release_dir), "--quiet"])
        assert resumed.exit_code == 0, resumed.output
        assert len(samples(cut)) == 3 and len(server.requests) == 3
        whole, finished = (json.loads((f / "metrics.json").read_text()) for f in (out, cut))
        assert finished["states"] == whole["states"] and finished["calls"]["cache_hits"] == 2

        # a model the provider does not know stops the run with one line naming what it refused
        unknown = CliRunner().invoke(main, ["eval", "--model", "inspect-api/anthropic/claude-nope", "--base-url",
                                            server.url, "--api-key", "k", "--problems", PROBLEMS, "--states", "0",
                                            "--out", str(tmp_path / "nope"), "--release", str(release_dir),
                                            "--quiet"])
        assert unknown.exit_code == 1 and "--base-url" in unknown.output and "404" in unknown.output
        assert len([line for line in unknown.output.splitlines() if line.startswith("Error")]) == 1
        assert len(server.requests) == 4  # one call of the unknown model, then the run stopped
    finally:
        server.close()


class ChatOnlyServer(Loopback):
    """An OpenAI-compatible server as llama.cpp's and vLLM's are: chat completions at
    ``/v1/chat/completions`` (every reply ``PROGRAM``, usage 21 + 9 tokens), 404 for any
    other path, the Responses API included, and 500 for a message role other than system,
    user or assistant (llama.cpp's server fails so on OpenAI's ``developer`` role);
    ``paths`` lists every path asked for, ``bodies`` every request.  ``malformed``: every
    chat call is answered 200 with a body that is not a completion."""

    def __init__(self, chat: bool = True, malformed: bool = False):
        self.paths, self.bodies, outer = [], [], self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                outer.paths.append(self.path)
                outer.bodies.append(body)
                if chat and any(m.get("role") not in ("system", "user", "assistant") for m in body.get("messages", [])):
                    send(self, 500, b'{"error": {"message": "Input should be \'system\'", "type": "server_error"}}')
                elif chat and malformed:
                    send(self, 200, b'{"result": "ok", "output": null}')
                elif chat and self.path == "/v1/chat/completions":
                    send(self, 200, json.dumps({
                        "id": "c", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": PROGRAM}}],
                        "usage": {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30}}).encode())
                else:
                    send(self, 404, b'{"error": {"message": "File Not Found", "type": "not_found_error"}}')

        self.serve(Handler)


@pytest.mark.docker
def test_inspect_openai_at_an_openai_compatible_server_uses_chat_completions(tmp_path, release_dir, sandbox):
    """``inspect-api/openai/<name> --base-url`` talks chat completions to a compatible server
    (issue 46) as inspect's provider for compatible servers does: inspect's openai/ provider
    takes an unknown name for an unreleased frontier model (the Responses API, which
    llama.cpp answers 404; the ``developer`` role, on which it fails 500; no temperature).
    A server answering 200s that are not completions loses every sample: exit 1, one line.
    A server that serves nothing says which URL was tried."""
    args = ["eval", "--model", "inspect-api/openai/gemma-local", "--temperature", "0", "--api-key", "k",
            "--problems", PROBLEMS, "--states", "0", "--release", str(release_dir), "--quiet"]
    with ChatOnlyServer() as server:
        done = CliRunner().invoke(main, args + ["--base-url", server.url, "--out", str(tmp_path / "run")])
    assert done.exit_code == 0, done.output
    assert set(server.paths) == {"/v1/chat/completions"} and len(server.paths) == 3
    got = samples(tmp_path / "run")
    assert len(got) == 3 and all(s["tokens"]["prompt"] == 21 and s["tokens"]["completion"] == 9 for s in got)
    assert all("print(n)" in s["code"] for s in got)
    # a compatible server gets what it understands: the system role, and the temperature asked for
    assert all(m["role"] in ("system", "user") for b in server.bodies for m in b["messages"])
    assert all(b.get("temperature") == 0.0 for b in server.bodies), server.bodies[0]
    with ChatOnlyServer(malformed=True) as broken:  # 200s that are not completions: every sample lost
        lost = CliRunner().invoke(main, args + ["--base-url", broken.url, "--out", str(tmp_path / "broken"),
                                                "--max-retries", "0"])
    assert lost.exit_code == 1, lost.output
    assert len(error_lines(lost.output)) == 1 and "3 of 3 samples ended in error" in lost.output, lost.output
    assert len(samples(tmp_path / "broken")) == 3  # kept, with their errors
    with ChatOnlyServer(chat=False) as nothing:
        refused = CliRunner().invoke(main, args + ["--base-url", nothing.url, "--out", str(tmp_path / "none")])
    assert refused.exit_code == 1 and "404" in refused.output
    assert f"tried {nothing.url}/chat/completions" in refused.output, refused.output
    assert len(error_lines(refused.output)) == 1


# ---------------------------------------------------------------- inspect-api without the sandbox
ASKED = Prompt(messages=({"role": "system", "content": "Answer with a program."},
                         {"role": "user", "content": "Echo the input."}), completion="", code_prefix="")


def test_inspect_api_provider_called_directly_without_the_sandbox():
    """``inspect-api/PROVIDER/NAME`` is a working Model with no Docker in the way: through
    inspect's Anthropic provider the loopback server gets the model name, the messages (the
    system one apart, as Anthropic's API takes it) and the token budget, and the reply's text,
    thinking and token counts come back; through inspect's provider for OpenAI-compatible
    servers the same holds for chat completions.  A model the server does not know (404)
    is a RequestRefused naming the status and the URL tried, and a 200 that is not a
    completion is a ModelError naming the endpoint: never an empty reply taken for an answer."""
    anthropic = AnthropicServer(lambda body: (PROGRAM, "I will echo it."),
                                refuse=lambda body: (404, "not_found_error", f"model: {body['model']}")
                                if body["model"] == "claude-nope" else None)
    options = dict(base_url=anthropic.url, api_key="k", max_tokens=300, max_retries=0)
    try:
        with get_model("inspect-api/anthropic/claude-test", **options) as model:
            reply = model.generate(ASKED)
        (body,) = anthropic.requests
        assert body["model"] == "claude-test" and body["max_tokens"] == 300
        assert body["messages"] == [{"role": "user", "content": "Echo the input."}]
        assert [part["text"] for part in body["system"]] == ["Answer with a program."]
        assert reply.text == PROGRAM and reply.reasoning == "I will echo it."
        assert (reply.prompt_tokens, reply.completion_tokens) == (30, 12)  # AnthropicServer's usage
        assert reply.extra["finish_reason"] == "stop" and reply.sent["max_tokens"] == 300

        with get_model("inspect-api/anthropic/claude-nope", **options) as unknown:
            with pytest.raises(RequestRefused) as refused:
                unknown.generate(ASKED)
        assert refused.value.status == 404 and len(anthropic.requests) == 2
        assert "(404: model: claude-nope)" in str(refused.value)
        assert f"tried {anthropic.url}/v1/messages" in str(refused.value), refused.value
    finally:
        anthropic.close()

    compatible = dict(api_key="k", max_tokens=50, temperature=0.0, max_retries=0)
    with ChatOnlyServer() as server, get_model("inspect-api/openai/gemma-local", base_url=server.url,
                                               **compatible) as model:
        reply = model.generate(ASKED)
    assert server.paths == ["/v1/chat/completions"]
    (body,) = server.bodies
    assert body["model"] == "gemma-local" and body["max_tokens"] == 50 and body["temperature"] == 0.0
    assert body["messages"] == [dict(m) for m in ASKED.messages]
    assert reply.text == PROGRAM and (reply.prompt_tokens, reply.completion_tokens) == (21, 9)

    with ChatOnlyServer(malformed=True) as broken, get_model("inspect-api/openai/gemma-local", base_url=broken.url,
                                                             **compatible) as model:
        with pytest.raises(ModelError) as lost:
            model.generate(ASKED)
    assert len(broken.bodies) == 1 and str(lost.value).startswith("inspect-api/openai/gemma-local: ")
    assert broken.url in str(lost.value), lost.value  # which server gave the answer that is no completion


# ---------------------------------------------------------------- AidanBench with a reasoning judge
JUDGE_REPLY = "<think>Is it coherent? At first I thought <score>10</score>, but it answers.</think>\n<score>80</score>"


def coherence_or_entailment(body: dict):
    return JUDGE_REPLY, "The answer is on topic and plausible."


ANSWERS = ["Plant street trees for shade.", "Paint roofs white to reflect sunlight.",
           "Open cooling centres in libraries during heat waves."]


@pytest.fixture
def aidan_servers():
    count = iter(range(100))
    generator = RespondingServer(lambda kind, body: (ANSWERS[next(count) % 3], None))
    judge = ReasoningServer(coherence_or_entailment)
    yield generator, judge
    generator.close()
    judge.close()


def aidan_config(tmp_path, generator, judge, **judge_options) -> AidanConfig:
    questions = tmp_path / "q.txt"
    questions.write_text("What could cities do about heat?\n")
    return AidanConfig(model=ModelConfig("openai/gen", base_url=generator.url, api_key="k", temperature=0.7,
                                         max_tokens=256),
                       judge=ModelConfig("openai/judge", base_url=judge.url, api_key="k", temperature=0.0,
                                         max_tokens=2048, **judge_options),
                       out=tmp_path / "run", questions=questions, max_answers=3, bootstrap=50, progress=False)


def test_aidanbench_with_a_reasoning_judge_through_the_python_api(tmp_path, aidan_servers):
    generator, judge = aidan_servers
    with pytest.raises(RequestRefused) as refused:  # the judge as a chat model: refused at its first call
        run_aidanbench(aidan_config(tmp_path, generator, judge))
    assert refused.value.param == "max_tokens" and len(judge.requests) == 1

    result = run_aidanbench(aidan_config(tmp_path, generator, judge, reasoning=True))
    answers = sorted(RunFolder(tmp_path / "run").read(Answer), key=lambda a: a.answer_num)
    assert [a.answer for a in answers] == ANSWERS and all(a.coherence == 80.0 for a in answers)
    assert all(a.tokens["judge"]["reasoning"] == ReasoningServer.REASONING_TOKENS for a in answers)
    assert result.totals["openai/gen"]["answers"] == 3
    assert all(b["max_completion_tokens"] == 2048 and "temperature" not in b for b in judge.requests[1:])


def test_aidanbench_command_with_o1_mini_as_the_judge(tmp_path):
    count = iter(range(100))
    judge = ReasoningServer(lambda body: coherence_or_entailment(body) if body["model"] == "o1-mini"
                            else (ANSWERS[next(count) % 3], None), reasoning_models={"o1-mini"})
    generator = judge  # the command's models share --base-url: one endpoint serves both, as OpenAI does
    questions = tmp_path / "q.txt"
    questions.write_text("What could cities do about heat?\n")
    # the AidanBench README's judge, recognised by its name: no temperature, max_completion_tokens
    # its budget is AidanConfig's for a reasoning judge (4096 tokens: its thinking fits), not the 16 of a chat judge
    result = CliRunner().invoke(main, ["aidanbench", "--model", "openai/gen", "--base-url", generator.url,
                                       "--api-key", "k", "--judge", "openai/o1-mini", "--questions",
                                       str(questions), "--max-answers", "2", "--out", str(tmp_path / "cli"),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    answers = RunFolder(tmp_path / "cli").read(Answer)
    assert len(answers) == 2 and all(a.tokens["judge"]["reasoning"] == 64 for a in answers)
    assert json.loads((tmp_path / "cli" / "manifest.json").read_text())["config"]["judge"]["reasoning"] is True
    judged = [b for b in judge.requests if b["model"] == "o1-mini"]
    assert judge.refused == 0 and len(judged) == 2 and all("max_tokens" not in b for b in judged)
    assert all(b["max_completion_tokens"] == 4096 for b in judged)
    judge.close()


# ---------------------------------------------------------------- LiveIdeaBench with reasoning judges
def ideas_judge(body: dict):
    text = "\n".join(m["content"] for m in body["messages"])
    if "grade: X" in text:
        return "<think>grade: D? No, they differ.</think>\ngrade: B", "Two distinct ideas."
    return ("<think>originality: 2 at first glance</think>\noriginality: 8\nfeasibility: 6\nclarity: 7",
            "Novel enough, testable, clearly put.")


def test_ideas_with_reasoning_judges_through_the_python_api_and_the_command(tmp_path):
    def respond(body):  # one endpoint serves the writer (a chat model) and the reasoning judges, as OpenAI does
        if body["model"] == "writer":
            return (f"Idea: measure soil moisture with method {body.get('seed')} and compare it with a control "
                    "plot."), None
        return ideas_judge(body)
    judge = writer = ReasoningServer(respond, reasoning_models={"j1", "j2", "o3-mini"})
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("soil\n")
    try:
        model = ModelConfig("openai/writer", base_url=writer.url, api_key="k", temperature=0.7)
        judges = [ModelConfig(f"openai/j{i}", base_url=judge.url, api_key="k", max_tokens=2048, reasoning=True)
                  for i in (1, 2)]
        result = run_ideas(IdeasConfig(model=model, judges=judges, out=tmp_path / "api", keywords=keywords,
                                       ideas_per_keyword=2, judges_per_idea=2, bootstrap=50, progress=False))
        judged = RunFolder(tmp_path / "api").read(IdeaJudgement)
        assert len(judged) == 4 and all(j.scores == {"originality": 8.0, "feasibility": 6.0, "clarity": 7.0}
                                        for j in judged)
        assert all(j.tokens["reasoning"] == ReasoningServer.REASONING_TOKENS for j in judged)
        assert result.models["openai/writer"]["fluency"] is not None
        assert judge.refused == 0

        # the command, with two o3-mini seats (recognised by name) on the same endpoint
        cli = CliRunner().invoke(main, ["ideas", "--model", "openai/writer", "--base-url", writer.url, "--api-key",
                                        "k", "--judges", "a=openai/o3-mini,b=openai/o3-mini", "--judge-max-tokens",
                                        "2048", "--keywords", str(keywords), "--ideas-per-keyword", "2",
                                        "--judges-per-idea", "2", "--out", str(tmp_path / "cli"), "--quiet"])
        assert cli.exit_code == 0, cli.output
        judged = RunFolder(tmp_path / "cli").read(IdeaJudgement)
        assert len(judged) == 4 and all(j.tokens["reasoning"] == 64 and j.scores["originality"] == 8.0
                                        for j in judged)
        assert judge.refused == 0
    finally:
        judge.close()


# ---------------------------------------------------------------- --problems on the inspect surface
@pytest.mark.docker
def test_inspect_task_takes_problems(tmp_path, sandbox):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from inspect_ai.log import read_eval_log
    inspect = str(Path(sys.executable).with_name("inspect"))
    done = subprocess.run([inspect, "eval", "neocoder/neocoder", "--model", "neocoder-replay/gpt-4-1106-preview",
                           "-T", "problems=1899A,1898A", "-T", "states=0-1", "--log-dir", str(tmp_path),
                           "--display", "none"], capture_output=True, text=True, timeout=900, env=dict(os.environ))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = read_eval_log(str(next(tmp_path.glob("*.eval"))))
    assert sorted(s.id for s in log.samples) == ["1898A/t0/s0", "1898A/t1/s0", "1899A/t0/s0", "1899A/t1/s0"]
    refused = subprocess.run([inspect, "eval", "neocoder/neocoder", "--model", "neocoder-replay/gpt-4-1106-preview",
                              "-T", "problems=1899A,9999Z", "--log-dir", str(tmp_path / "refused"),
                              "--display", "none"], capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 and "9999Z" in refused.stdout + refused.stderr
