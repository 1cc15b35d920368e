"""Reasoning models, refused requests and --problems, with no sandbox.

The endpoint is a real HTTP server on loopback behaving as OpenAI's reasoning models do
(tests/support/loopback.py ``ReasoningServer``: ``max_tokens`` and non-default temperatures refused
with 400 and ``error.param``, reasoning tokens in the usage).
"""

import json

import click
import pytest
from click.testing import CliRunner
from loopback import ReasoningServer

from neocoder.benchmarks.aidanbench.scoring import parse_score, parse_verdict
from neocoder.benchmarks.ideas.scoring import parse_grade, parse_scores
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.evaluation import select_states
from neocoder.benchmarks.neocoder.program import program_from_reply
from neocoder.cli.declared import declared_options
from neocoder.config import ModelConfig, reasoning_model
from neocoder.errors import NeocoderError
from neocoder.models import Prompt, Reply, get_model
from neocoder.models.base import EndpointError, ModelError, RequestRefused, strip_thinking
from neocoder.models.cache import CachedModel, CallCache
from neocoder.options import parse_problems
from neocoder.report.text import eval_table

PROMPT = Prompt(messages=({"role": "user", "content": "Write solve()."},), completion="", code_prefix="")


@pytest.fixture
def server():
    with ReasoningServer(lambda body: ("```python\ndef solve():\n    print(1)\n```", "I think, then answer.")) as s:
        yield s


# ---------------------------------------------------------------- which models reason
@pytest.mark.parametrize("spec,reasons", [
    ("openai/o1", True), ("openai/o1-mini", True), ("openai/o3-mini-2025-01-31", True), ("openai/o4-mini", True),
    ("openai/gpt-5", True), ("openai/gpt-5-mini", True), ("openai/gpt-5-chat-latest", False),
    ("openai/deepseek-reasoner", True), ("openai/openrouter/o3", True), ("openai/gpt-4o", False),
    ("openai/gpt-4.1-mini", False), ("local/gemma-3-270m", False), ("openai/o4", False), ("openai/foo1", False),
])
def test_well_known_reasoning_models_are_recognised_by_name(spec, reasons):
    assert reasoning_model(spec) is reasons
    assert ModelConfig(spec).is_reasoning() is reasons
    assert ModelConfig(spec, reasoning=not reasons).is_reasoning() is (not reasons)  # the option decides


def test_the_manifest_says_how_the_model_is_called():
    assert ModelConfig("openai/o3").public()["reasoning"] is True
    assert ModelConfig("openai/m", reasoning=True, reasoning_effort="low").public()["reasoning_effort"] == "low"
    with pytest.raises(NeocoderError, match="reasoning_effort"):
        ModelConfig("openai/o3", reasoning_effort="extreme").check()


def test_the_command_line_leaves_reasoning_undecided_unless_given():
    @click.command()
    @declared_options(ModelConfig, "fields", only=["reasoning", "reasoning_effort"])
    def cmd(fields):
        click.echo(json.dumps(fields))
    runner = CliRunner()
    assert json.loads(runner.invoke(cmd, []).output) == {"reasoning": None, "reasoning_effort": None}
    assert json.loads(runner.invoke(cmd, ["--reasoning", "--reasoning-effort", "high"]).output) == \
        {"reasoning": True, "reasoning_effort": "high"}
    assert json.loads(runner.invoke(cmd, ["--no-reasoning"]).output)["reasoning"] is False


# ---------------------------------------------------------------- the request and the reply
def test_a_reasoning_model_sends_max_completion_tokens_and_no_temperature(server, tmp_path):
    config = ModelConfig("openai/o3-mini", base_url=server.url, api_key="k", temperature=0.7, max_tokens=4000,
                         reasoning_effort="low")
    model = CachedModel(get_model(config), CallCache(tmp_path / "calls.jsonl"))
    reply = model.generate(PROMPT)
    sent = server.requests[-1]
    assert sent["max_completion_tokens"] == 4000 and sent["reasoning_effort"] == "low"
    assert "max_tokens" not in sent and "temperature" not in sent and server.refused == 0
    assert reply.reasoning_tokens == ReasoningServer.REASONING_TOKENS and reply.reasoning == "I think, then answer."
    assert reply.sent == {"max_completion_tokens": 4000, "reasoning_effort": "low", "seed": 0}
    assert "I think" not in reply.text
    # the cache keeps all of it: a rerun gets the same reply with no call
    again = CachedModel(get_model(config), CallCache(tmp_path / "calls.jsonl")).generate(PROMPT)
    assert len(server.requests) == 1 and again.extra["cached"]
    assert (again.reasoning_tokens, again.reasoning, again.sent) == (reply.reasoning_tokens, reply.reasoning,
                                                                      reply.sent)
    # a per-call temperature (a judge's) is not sent either
    get_model(config).generate(Prompt(PROMPT.messages, "", "", temperature=0.0, max_tokens=50))
    assert "temperature" not in server.requests[-1] and server.requests[-1]["max_completion_tokens"] == 50


def test_a_chat_model_sent_to_a_reasoning_endpoint_is_refused_once_naming_the_parameter(server):
    model = get_model(ModelConfig("openai/custom-name", base_url=server.url, api_key="k", max_retries=3))
    with pytest.raises(RequestRefused) as got:
        model.generate(PROMPT)
    assert got.value.param == "max_tokens" and got.value.status == 400 and got.value.code == "unsupported_parameter"
    assert "'max_tokens'" in str(got.value) and "--reasoning" in str(got.value) and "\n" not in str(got.value)
    assert len(server.requests) == 1  # refused, never retried
    assert isinstance(got.value, EndpointError) and isinstance(got.value, ModelError)


def test_a_refused_temperature_names_temperature(server):
    # a reasoning model told it is not one, given --max-tokens through a proxy that renames it: the
    # temperature is what the endpoint names
    model = get_model(ModelConfig("openai/custom", base_url=server.url, api_key="k", temperature=0.5))
    model.sampling = lambda prompt: {"temperature": 0.5, "max_completion_tokens": 10}
    with pytest.raises(RequestRefused) as got:
        model.generate(PROMPT)
    assert got.value.param == "temperature" and got.value.code == "unsupported_value"


def test_a_reasoning_model_takes_the_chat_api_only():
    with pytest.raises(ModelError, match="chat API"):
        get_model(ModelConfig("openai/o3", base_url="http://127.0.0.1:9/v1", api_key="k", api="completion"))


# ---------------------------------------------------------------- thinking is never judged
DRAFT = "```python\ndef solve():\n    print('draft')\n```"
FINAL = "```python\ndef solve():\n    print('final')\n```"


def test_a_draft_program_in_the_thinking_is_not_the_program_judged():
    reply = Reply(text=f"<think>\nFirst try:\n{DRAFT}\nNo, that is wrong.\n</think>\nHere it is:\n{FINAL}")
    assert "final" in program_from_reply(reply) and "draft" not in program_from_reply(reply)
    # an unclosed thinking block (cut at the token limit) holds no answer at all
    assert "draft" not in program_from_reply(Reply(text=f"<think>\n{DRAFT}\nstill thinking"))
    # a reply whose opening tag was in the chat template: everything up to </think> is thinking
    assert "final" in program_from_reply(Reply(text=f"{DRAFT}\n</think>\n{FINAL}"))
    # the separate reasoning text is never read
    assert "final" in program_from_reply(Reply(text=FINAL, reasoning=DRAFT))
    assert strip_thinking("no thinking here") == "no thinking here"


@pytest.mark.parametrize("parse,reply,value", [
    (parse_score, "<think>maybe <score>20</score>? no, better</think><score>85</score>", 85.0),
    # two scores outside a think block disagree: unreadable (issue 46), never the last one guessed
    (parse_score, "Reasoning: it reads well, though <score>40</score> came to mind.\n<score>70</score>", None),
    (parse_verdict, "<think>at first <verdict>no</verdict></think>\n<verdict>yes</verdict>", True),
    (parse_grade, "<think>grade: D? they overlap</think>\ngrade: A", "A"),
    (parse_scores, "<think>originality: 2 perhaps</think>\noriginality: 8\nfeasibility: 6\nclarity: 7",
     {"originality": 8.0, "feasibility": 6.0, "clarity": 7.0}),
])
def test_judge_parsers_read_the_answer_after_the_reasoning(parse, reply, value):
    assert parse(reply) == value


# ---------------------------------------------------------------- --problems
def test_problems_parse_from_a_list_or_a_file(tmp_path):
    assert parse_problems("1873C, 1875A,1873C") == ["1873C", "1875A"]
    ids = tmp_path / "ids.txt"
    ids.write_text("# the three I am debugging\n1873C\n1875A  # slow\n\n1881B\n")
    assert parse_problems(f"@{ids}") == ["1873C", "1875A", "1881B"]
    assert parse_problems("") is None and parse_problems(None) is None
    with pytest.raises(ValueError, match="not a problem id"):
        parse_problems("18 73C")
    with pytest.raises(ValueError, match="cannot read"):
        parse_problems(f"@{tmp_path / 'missing.txt'}")
    secret = tmp_path / "secret.txt"
    secret.write_text("1873C\nsecretword:x:0:0\n")
    with pytest.raises(ValueError, match="line 2: not a problem id") as got:  # never quotes the file
        parse_problems(f"@{secret}")
    assert "secretword" not in str(got.value)


def test_problems_select_exactly_the_named_problems_and_refuse_unknown_ones(tmp_path):
    def config(**kw):
        return EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path, release_dir=tmp_path, **kw)
    every = select_states(config(states=[0]))
    named = [every[5].problem_id, every[2].problem_id, every[9].problem_id]
    got = select_states(config(problems=named))
    assert {s.problem_id for s in got} == set(named) and {s.state for s in got} == set(range(6))
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(named))
    assert {s.problem_id for s in select_states(config(problems=f"@{ids}", states=[0]))} == set(named)
    with pytest.raises(NeocoderError, match="no problem 9999Z, 9999Y"):
        select_states(config(problems=[named[0], "9999Z", "9999Y"]))
    with pytest.raises(NeocoderError, match="problems"):
        config(problems=["bad id"]).check()


# ---------------------------------------------------------------- a state with no judged sample
def test_a_state_with_no_judged_sample_shows_no_samples_never_zero():
    from neocoder.metrics.rates import sample_states
    from neocoder.records import Sample, TierResult
    ok = TierResult(tests=[], correct=True)
    samples = [Sample(problem_id="1A", state=0, sample=0, model="m", constraints=[], prompt_sha256="x",
                      examples=ok, follows=True, divergent=0.5),
               Sample(problem_id="1A", state=1, sample=0, model="m", constraints=[], prompt_sha256="y",
                      error="refused")]
    states, _ = sample_states(samples)
    assert states["0"].cumulative_neogauge == 0.5 and states["1"].n == 0 and states["1"].pass_at_1 is None
    table = eval_table({"model": "m", "states": {t: m.to_dict() for t, m in states.items()}})
    row = table.split("\n")[3]
    assert row.split()[:3] == ["1", "0", "no"] and "%" not in row
    assert "headline: cumulative NeoGauge@1: no samples judged at t=1" in table and "= " not in table
    # every sample of every state refused (the 161): no number at all
    refused = sample_states([samples[1]])[0]
    table = eval_table({"model": "m", "states": {t: m.to_dict() for t, m in refused.items()}})
    assert "%" not in table and "no samples" in table


def test_calls_in_flight_wait_for_the_first_so_a_refused_model_costs_one_call(server):
    from concurrent.futures import ThreadPoolExecutor
    model = get_model(ModelConfig("openai/custom", base_url=server.url, api_key="k", max_connections=16))
    judge = model.with_temperature(0.0)  # a copy shares the gate

    def call(m):
        try:
            m.generate(PROMPT)
        except RequestRefused as exc:
            return exc.param
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(call, [model, judge] * 8))
    assert got == ["max_tokens"] * 16 and len(server.requests) == 1
    # a model the endpoint accepts goes on at full concurrency after its first answer
    ok = get_model(ModelConfig("openai/o3", base_url=server.url, api_key="k", max_connections=16))
    with ThreadPoolExecutor(16) as pool:
        assert all(r.reasoning_tokens for r in pool.map(lambda _: ok.generate(PROMPT), range(16)))
    assert len(server.requests) == 17


def test_the_drilldown_shows_reasoning_tokens_and_text_escaped(tmp_path, release_dir):
    from neocoder.records import Manifest, Sample, TierResult
    from neocoder.report.html import build_report
    from neocoder.store import RunFolder
    folder = RunFolder(tmp_path / "run")
    folder.write_manifest(Manifest.capture("eval", {"model": {"spec": "openai/o3"}, "dataset": "release",
                                                    "release_dir": str(release_dir)}))
    test = {"verdict": "WA", "cpu_seconds": 0.02, "wall_seconds": 0.05, "detail": ""}
    base = dict(state=0, sample=0, model="openai/o3", constraints=[], prompt_sha256="0" * 64, reply="print(1)",
                code="print(1)", entry="script", examples=TierResult(tests=[test], correct=False))
    folder.append(Sample(problem_id="1899A", tokens={"prompt": 20, "completion": 74, "reasoning": 64},
                         reasoning="<b>first</b> I try a loop", sent={"max_completion_tokens": 4096}, **base))
    folder.append(Sample(problem_id="1898A", tokens={"prompt": 20, "completion": 7}, **base))
    folder.write_metrics({"model": "openai/o3", "states": {"0": {"n": 2, "excluded": 0, "pass@1": 0.0}}})
    index = build_report([folder.path], tmp_path / "report")
    page = next(p for p in index.parent.glob("run1-*.html")).read_text()
    assert page.count("reasoning (never judged)") == 1  # the sample without reasoning shows none
    assert "64 reasoning tokens of 74 completion tokens" in page and "max_completion_tokens=4096" in page
    assert "&lt;b&gt;first&lt;/b&gt; I try a loop" in page and "<b>first</b>" not in page
