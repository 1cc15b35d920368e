"""The replies of the model under test are read before they are judged (issue 56, item 2):
``program.read_program`` both ways, then ``neocoder eval`` against a scripted
OpenAI-compatible endpoint on loopback answering, one kind per problem, an empty reply, a
refusal, an echo of the prompt, a reply cut at the token limit, prose and a correct
program, judged in the real Docker sandbox; and (issue 56, item 7) a run whose every
sample the sandbox answered INFRA fails."""

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from loopback import Loopback, Quiet, RespondingServer, send

from neocoder.benchmarks.neocoder.program import looks_like, prompt_text, read_program
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.cli import main
from neocoder.dataset.shipped import load_states
from neocoder.models import Reply
from neocoder.techniques.human import solutions_by_language

PROMPT = solve_prompt("A. Sum\nPrint the sum of two integers a and b.")
SHOWN = prompt_text(PROMPT)


def reason(text, finish=None, language="python", **kw):
    reply = Reply(text=text, extra={"finish_reason": finish} if finish else {}, **kw)
    return read_program(reply, SHOWN, language).reason


@pytest.mark.parametrize("text, finish, language", [
    ("```python\ndef solve():\n    print(1)\n```", "stop", "python"),
    ("```python\nprint(1\n```", None, "python"),  # a syntax error in a tagged block: a program, judged CE
    ("def solve():\n    print(1)\n", None, "python"),
    ("\ndef solve():\n    t = int(input(", None, "python"),  # GPT-4's recorded codes: cut, no finish reason
    ("import sys\nprint(sum(map(int, sys.stdin.read().split())))", None, "python"),
    ("n = int(input())\nprint(n * 2)", None, "python"),
    ("```\ndef solve():\n    pass\n```", None, "python"),  # an untagged block that reads as Python
    ("I'm sorry for the delay, here is the code:\n```python\nprint(1)\n```", None, "python"),
    ("```python\nprint(1)\n```\nThis program reads the two numbers and", "length", "python"),  # closed: whole
    ("<think>sort it? no</think>\n```python\nprint(2)\n```", None, "python"),
    ("```cpp\nint main() { return 0; }\n```", None, "cpp"),
    ("#include <cstdio>\nint main() { puts(\"1\"); }", None, "cpp"),
], ids=["fenced", "tagged-syntax-error", "unfenced-def", "recorded-truncated", "unfenced-import",
        "unfenced-statements", "untagged-block", "sorry-but-code", "cut-after-closed-fence", "after-thinking",
        "cpp-fenced", "cpp-unfenced"])
def test_a_reply_holding_a_program_is_read_as_one(text, finish, language):
    got = read_program(Reply(text=text, extra={"finish_reason": finish}), SHOWN, language)
    assert got.readable and got.reason is None and got.value.strip(), got


@pytest.mark.parametrize("text, finish, extra, language, why", [
    ("", None, {}, "python", "empty"),
    ("  \n\t", "stop", {}, "python", "empty"),
    ("<think>what if I sort the array</think>", None, {}, "python", "reasoning only"),
    ("", None, {"reasoning": "first, read n ..."}, "python", "reasoning only"),
    ("", "length", {"reasoning": "first, read n ..."}, "python", "cut off"),  # the budget ran out thinking
    (SHOWN, None, {}, "python", "echo"),
    (PROMPT.messages[1]["content"], "stop", {}, "python", "echo"),
    ("I'm sorry, but I can't help with that.", "stop", {}, "python", "refusal"),
    ("As an AI, I cannot write code for contests.", None, {}, "python", "refusal"),
    ("```python\ndef solve():\n    n = int(inp", "length", {}, "python", "cut off"),
    ("def solve():\n    a, b = map(int, input().split())\n    print(a", "length", {}, "python", "cut off"),
    ("```python\ndef solve():\n    n = int(inp", "max_tokens", {}, "python", "cut off"),  # inspect's name
    ("You can solve this by sorting the array and taking the median.", "stop", {}, "python", "no program"),
    ("Yes", None, {}, "python", "no program"),
    ("42", None, {}, "python", "no program"),
    ("The answer for the sample:\n```text\n3\n```", None, {}, "python", "no program"),
    ("```python\nprint(1)\n```", None, {}, "cpp", "no program"),  # Python where C++ was asked
    ("```cpp\n#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\"", "length", {}, "cpp", "cut off"),
], ids=["empty", "blank", "think-only", "provider-reasoning-only", "reasoning-cut", "echo-all", "echo-user",
        "refusal", "as-an-ai", "cut-fence", "cut-unfenced", "cut-inspect", "prose", "yes", "number",
        "output-block", "wrong-language", "cpp-cut"])
def test_a_reply_holding_no_program_gets_its_reason(text, finish, extra, language, why):
    got = read_program(Reply(text=text, extra={"finish_reason": finish} if finish else {}, **extra), SHOWN, language)
    assert not got.readable and got.value is None and got.reason == why


def test_a_completion_reply_continues_the_prefix_and_an_empty_one_holds_nothing():
    prefix = PROMPT.code_prefix
    assert read_program(Reply(text="    print(3)\n", code_prefix=prefix), SHOWN).value == prefix + "    print(3)\n"
    assert read_program(Reply(text="", code_prefix=prefix), SHOWN).reason == "empty"
    cut = Reply(text="    a, b = map(int, inp", code_prefix=prefix, extra={"finish_reason": "length"})
    assert read_program(cut, SHOWN).reason == "cut off"


def test_looks_like_tells_code_from_prose():
    assert looks_like("x = 1") and looks_like("print(input())") and looks_like("from math import gcd")
    assert not looks_like("Sort the array.") and not looks_like("solve") and not looks_like('"text"')
    assert looks_like("#include <bits/stdc++.h>", "cpp") and not looks_like("x = 1", "cpp")


def test_no_program_samples_count_wrong_everywhere_but_the_follow_base():
    from neocoder.metrics.rates import score_samples
    from neocoder.records import Sample, TierResult

    def sample(i, correct, follows, no_program=None):
        return Sample(problem_id=f"P{i}", state=1, sample=0, model="m", constraints=["for loop"], prompt_sha256="x",
                      reply="r", examples=TierResult([] if no_program else [{"verdict": "AC" if correct else "WA"}],
                                                     correct, skipped=2 if no_program else 0),
                      follows=follows, human_techniques=[], divergent=0.0 if no_program else 0.5,
                      no_program=no_program)
    kept = [sample(0, True, True), sample(1, False, False), sample(2, False, False, "empty"),
            sample(3, False, False, "cut off")]
    state = score_samples("m", kept, resamples=50).to_dict()["states"]["1"]
    assert state["n"] == 4 and state["n_program"] == 2 and state["no_program"] == {"cut off": 1, "empty": 1}
    assert state["constraint_following"] == 0.5  # 1 of the 2 replies holding a program, not 3 of 4
    assert state["pass@1"] == 0.25 and state["convergent"] == 0.25  # the empty ones are wrong, in the base
    assert state["divergent"] == 0.25 and state["neogauge"] == 0.125  # 0 each, over every reply (Eq. 3, 4)
    every = score_samples("m", kept[2:], resamples=50).to_dict()["states"]["1"]
    assert every["constraint_following"] is None and every["n_program"] == 0  # no base: unknown, never 100%
    assert "no_program" not in score_samples("m", kept[:2], resamples=50).to_dict()["states"]["1"]


# ----------------------------------------------------------------------------- end to end


class FinishingServer(Loopback):
    """An OpenAI-compatible chat endpoint on loopback answering ``respond(body) -> (text,
    finish_reason)``, with that finish reason in the choice, as a real endpoint sends it."""

    def __init__(self, respond):
        self.requests = []
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                outer.requests.append(body)
                text, finish = respond(body)
                send(self, 200, json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": text}}]}).encode())

        self.serve(Handler)


def _first(n):
    states = [s for s in load_states() if s.state == 0]
    return states[:n]


def _with_human(n, language, release_dir):
    """The first ``n`` state-0 problem states, the first of them with an accepted human
    solution in ``language``, and that solution."""
    states = _first(n)
    humans = solutions_by_language(release_dir, [s.problem_id for s in states])
    chosen = next(s for s in states if any(lang == language for lang, _ in humans[s.problem_id]))
    return states, chosen, next(src for lang, src in humans[chosen.problem_id] if lang == language)


def _records(out):
    return {r["problem_id"]: r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())}


@pytest.mark.docker
def test_eval_records_replies_without_a_program_and_fails_when_most_hold_none(tmp_path, release_dir, sandbox):
    states, right, program = _with_human(6, "python", release_dir)
    ids = [s.problem_id for s in states]
    kinds = iter([("", "stop"), ("I'm sorry, but I can't help with that.", "stop"), ("echo", "stop"),
                  ("```python\ndef solve():\n    n = int(input())\n    for i in range(n):\n        a = inp", "length"),
                  ("Read the numbers, sort them and print the middle one.", "stop")])
    script = {s.problem_id: (f"```python\n{program}\n```", "stop") if s is right else next(kinds) for s in states}

    def respond(body):
        asked = body["messages"][-1]["content"]
        pid = next(s.problem_id for s in states if s.statement.strip() in asked)
        text, finish = script[pid]
        return (asked if text == "echo" else text), finish

    out = tmp_path / "run"
    with FinishingServer(respond) as server:
        ran = CliRunner().invoke(main, ["eval", "--model", "openai/m", "--base-url", server.url, "--api-key", "k",
                                        "--problems", ",".join(ids), "--states", "0", "--out", str(out),
                                        "--release", str(release_dir), "--quiet"])
    lines = [line for line in ran.output.splitlines() if line.strip()]
    assert ran.exit_code == 1 and len(lines) == 1, ran.output
    assert lines[0].startswith("Error: 5 of 6 replies of the model under test held no program (1 x cut off, "), lines
    assert "Traceback" not in ran.output and isinstance(ran.exception, SystemExit)

    got = _records(out)
    expected = dict(zip([s.problem_id for s in states if s is not right],
                        ["empty", "refusal", "echo", "cut off", "no program"]), **{right.problem_id: None})
    assert {pid: r["no_program"] for pid, r in got.items()} == expected
    reasons = sorted(r["no_program"] for r in got.values() if r["no_program"])
    assert reasons == ["cut off", "echo", "empty", "no program", "refusal"]
    for r in got.values():
        if r["no_program"]:  # never judged, never correct, never following
            assert r["code"] is None and r["examples"]["tests"] == [] and r["examples"]["skipped"] >= 1
            assert not r["examples"]["correct"] and r["follows"] is False and r["techniques"] == []
    cut = next(r for r in got.values() if r["no_program"] == "cut off")
    assert cut["finish_reason"] == "length" and cut["reply"].startswith("```python")  # kept in the record
    assert got[right.problem_id]["no_program"] is None and got[right.problem_id]["examples"]["correct"]
    assert got[right.problem_id]["finish_reason"] == "stop"

    metrics = json.loads((out / "metrics.json").read_text())
    outcome = metrics["outcome"]
    assert (outcome["answer"], outcome["replies"], outcome["no_answer"]) == ("program", 6, 5)
    assert outcome["no_answer_reasons"] == {"cut off": 1, "echo": 1, "empty": 1, "no program": 1, "refusal": 1}
    assert (outcome["judged"], outcome["errors"]) == (6, 0)
    state = metrics["states"]["0"]
    assert state["n"] == 6 and state["n_program"] == 1 and state["pass@1"] == pytest.approx(1 / 6)
    assert state["constraint_following"] == 1.0 and state["convergent"] == pytest.approx(1 / 6)

    from neocoder.report.text import eval_table
    table = eval_table(metrics)
    assert ("(5 of 6 replies held no program: 1 x cut off, 1 x echo, 1 x empty, 1 x no program, 1 x refusal;"
            in table), table

    compared = CliRunner().invoke(main, ["compare", str(out), "--no-published"])
    assert compared.exit_code == 0, compared.output
    assert "5 of 6 replies held no program (1 x cut off, 1 x echo, 1 x empty, 1 x no program, 1 x refusal)" \
        in compared.output

    report = tmp_path / "report"
    made = CliRunner().invoke(main, ["report", str(out), "--out", str(report)])
    assert made.exit_code == 0, made.output
    index = (report / "index.html").read_text() if (report / "index.html").is_file() else ""
    pages = "\n".join(p.read_text() for p in report.rglob("*.html"))
    assert "no program (never judged" in pages and "1 x cut off" in pages, index[:300]
    assert 'data-verdict="no program"' in pages and "<b>cut off</b>" in pages and "<code>length</code>" in pages
    assert '<option>no program</option>' in pages or ">no program<" in pages


@pytest.mark.docker
def test_cpp_reply_cut_at_the_limit_is_cut_off_not_a_compile_error(tmp_path, release_dir, sandbox):
    states, whole, program = _with_human(2, "cpp", release_dir)
    ids = [s.problem_id for s in states]

    def respond(body):
        asked = body["messages"][-1]["content"]
        if whole.statement.strip() in asked:
            return f"```cpp\n{program}\n```", "stop"
        return "```cpp\n#include <cstdio>\nint main() {\n    int t; scanf(\"%d\", &t);\n    while (t--) {", "length"

    out = tmp_path / "run"
    with FinishingServer(respond) as server:
        ran = CliRunner().invoke(main, ["eval", "--model", "openai/m", "--base-url", server.url, "--api-key", "k",
                                        "--language", "cpp", "--problems", ",".join(ids), "--states", "0",
                                        "--max-tokens", "256", "--out", str(out), "--release", str(release_dir),
                                        "--quiet"])
    assert ran.exit_code == 0, ran.output  # 1 of 2 without a program: counted, not most
    assert "(1 of 2 replies held no program: 1 x cut off;" in ran.output
    got = _records(out)
    cut = next(r for r in got.values() if r["problem_id"] != whole.problem_id)
    assert cut["no_program"] == "cut off" and cut["finish_reason"] == "length"
    assert cut["compile_error"] is None and cut["code"] is None and cut["examples"]["tests"] == []
    assert got[whole.problem_id]["examples"]["correct"] and got[whole.problem_id]["no_program"] is None
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["outcome"]["no_answer_reasons"] == {"cut off": 1}
    assert metrics["states"]["0"]["n_program"] == 1 and metrics["states"]["0"]["pass@1"] == 0.5


# ------------------------------------------------------------------ strategies

ADD = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"


def _add_state():
    from neocoder.records import ProblemState
    return ProblemState(problem_id="9999Z", state=1, constraints=["for loop"],
                        statement="Read two integers a and b on one line. Print a + b.",
                        tests=[{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}])


@pytest.mark.docker
def test_self_correct_is_told_its_empty_reply_held_no_program_and_tries_again(sandbox):
    from neocoder.benchmarks.neocoder.pipeline import judge_sample
    from neocoder.benchmarks.neocoder.strategies import StrategyOptions
    from neocoder.models import get_model
    replies = ["", f"```python\n{ADD}```"]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server:
        with get_model("openai/m", base_url=server.url, api_key="k", max_retries=0) as model:
            record = judge_sample(_add_state(), 0, model, sandbox, human=set(), strategy="self-correct",
                                  options=StrategyOptions(rounds=2))
        followup = server.requests[1][1]["messages"][-1]["content"]
    first, second = record.attempts
    assert first["no_program"] == "empty" and first["verdicts"] == [] and "held no program (empty)" in followup
    assert "no_program" not in second and record.correct and record.no_program is None


@pytest.mark.docker
def test_best_of_k_never_prefers_a_reply_with_no_program(sandbox):
    from neocoder.benchmarks.neocoder.pipeline import judge_sample
    from neocoder.benchmarks.neocoder.strategies import StrategyOptions
    from neocoder.models import get_model
    replies = ["I'm sorry, but I can't help with that.", f"```python\n{ADD}```"]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server:
        with get_model("openai/m", base_url=server.url, api_key="k", max_retries=0) as model:
            record = judge_sample(_add_state(), 0, model, sandbox, human={"if statement"}, strategy="sample",
                                  options=StrategyOptions(best_of=2))
    assert [a["product"] for a in record.attempts] == [0.0, 0.0]  # both 0: no human-unused technique
    assert record.attempts[0]["no_program"] == "refusal" and record.attempts[1].get("chosen")
    assert record.correct and record.no_program is None


# ------------------------------------------------------------------ issue 56, item 7


@pytest.mark.docker
def test_a_run_whose_every_sample_the_sandbox_failed_exits_non_zero(tmp_path, release_dir, sandbox, monkeypatch):
    """The real sandbox judges, and every verdict it gives is turned into INFRA (a node that
    went away): ``sample_outcome`` must count those samples as errors, so the run fails."""
    from neocoder import executors
    from neocoder.config import LOCAL
    real = executors.EXECUTORS[LOCAL]

    class Failing:
        def __init__(self, box):
            self.box = box

        def __getattr__(self, name):
            return getattr(self.box, name)

        def run(self, *args, **kwargs):
            result = self.box.run(*args, **kwargs)
            return replace(result, tests=[replace(t, verdict="INFRA", detail="node lost") for t in result.tests])

    monkeypatch.setitem(executors.EXECUTORS, LOCAL, lambda config, n: Failing(real(config, n)))
    pid = _first(1)[0].problem_id
    out = tmp_path / "run"
    ran = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--problems", pid,
                                    "--states", "0", "--out", str(out), "--release", str(release_dir), "--quiet"])
    assert ran.exit_code == 1, ran.output
    assert ran.output.strip().startswith("Error: 1 of 1 samples ended in error (1 x sandbox INFRA failure)")
    metrics = json.loads((out / "metrics.json").read_text())
    assert (metrics["outcome"]["errors"], metrics["outcome"]["judged"]) == (1, 0)
    assert metrics["states"]["0"]["excluded"] == 1


def test_the_echo_check_reads_what_the_model_was_shown_not_its_own_earlier_turns():
    from neocoder.models import Prompt
    program = "```python\ndef solve():\n    print(1)\n```"
    asked = Prompt(messages=({"role": "user", "content": "Solve it."}, {"role": "assistant", "content": program},
                             {"role": "user", "content": "It failed the examples. Try again."}),
                   completion="", code_prefix="")
    assert read_program(Reply(text=program), prompt_text(asked)).readable  # the same program again: an answer
    assert read_program(Reply(text="It failed the examples. Try again."), prompt_text(asked)).reason == "echo"
