"""The strategies in C++ (issue 58): self-correct, self-plan, best-of-k and MCTS asked for
C++17 by a scripted OpenAI-compatible server on loopback (a stand-in for a cloud model),
every program compiled by g++ and judged in the real Docker sandbox, its techniques read
by the C++ grammar.  The endpoint misbehaves on purpose: a first program that does not
compile, one that is wrong, one that uses the forbidden technique, a reply in Python.

The problem state is made here, as in test_strategies.py (the Python strategies' tests,
which stay as they were): "print a + b", two example tests, and extended tests whose
inputs are marked, so a test can assert that no extended input ever reaches a prompt.
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from loopback import RespondingServer
from test_strategies import EXTENDED_MARK, make_state

from neocoder.benchmarks.neocoder.pipeline import judge_sample
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.benchmarks.neocoder.strategies import StrategyOptions, Trial
from neocoder.benchmarks.neocoder.strategies.feedback import ERROR_CHARS, compiler_errors, describe
from neocoder.benchmarks.neocoder.strategies.languages import comment_out, texts
from neocoder.benchmarks.neocoder.strategies.self_plan import PLAN_STOP
from neocoder.cli import main
from neocoder.judge import Limits
from neocoder.models import get_model
from neocoder.resources import prompt_text

PREFIX = solve_prompt("x", None, "cpp").code_prefix  # where a C++ completion prompt's code starts


def cpp(code: str) -> str:
    return f"```cpp\n{code}```"


HEAD = "#include <bits/stdc++.h>\nusing namespace std;\n"
UNDECLARED = "#include <cstdio>\nint main() {\n    long long a, b;\n    scanf(\"%lld %lld\", &a, &b);\n" \
             "    printf(\"%lld\\n\", a + c);\n}\n"  # 'c' is never declared: g++ fails at line 5
WRONG = HEAD + "int main() {\n    long long a, b;\n    cin >> a >> b;\n    cout << a - b << endl;\n}\n"
LOOPY = HEAD + "int main() {\n    long long v[2], s = 0;\n    cin >> v[0] >> v[1];\n" \
               "    for (int i = 0; i < 2; i++) s += v[i];\n    cout << s << endl;\n}\n"
RIGHT = HEAD + "int main() {\n    long long a, b;\n    cin >> a >> b;\n    cout << a + b << endl;\n}\n"
RIGHT_RECURSIVE = HEAD + "long long add(long long a, long long b) { return b == 0 ? a : add(a + 1, b - 1); }\n" \
                         "int main() {\n    long long a, b;\n    cin >> a >> b;\n" \
                         "    cout << (b >= 0 && b < 50 ? add(a, b) : a + b) << endl;\n}\n"
PYTHON_RIGHT = "```python\ndef solve():\n    a, b = map(int, input().split())\n    print(a + b)\n```"
TEMPLATE_ERROR = HEAD + "int main() {\n    vector<int> v{2, 1};\n    sort(v.begin(), v.end(), 5);\n}\n"
MANY_ERRORS = "int main() {\n" + "".join(f"    v{i} = {i};\n" for i in range(12)) + "}\n"
ESCAPES = "#include <cstdio>\n#error \x1b[31mred\x1b[0m \u202eflipped\u202c \x07bell\nint main() {}\n"
LONG_NAME = "int main() { " + "x" * 5000 + " = 1; }\n"


def chat_model(url):
    return get_model("openai/scripted", base_url=url, api_key="k", max_retries=0)


def completion_model(url):
    return get_model("openai/scripted", base_url=url, api_key="k", api="completion", max_retries=0)


def user_turns(server) -> list[str]:
    return [body["messages"][-1]["content"] for _, body in server.requests]


def asked(server) -> str:
    """What the prompts said, the model's own earlier turns left out (they are its words)."""
    return json.dumps([[m for m in body["messages"] if m["role"] != "assistant"] if "messages" in body
                       else body["prompt"] for _, body in server.requests])


def printable(text: str) -> bool:
    return all(ch.isprintable() or ch in "\n\t" for ch in text)


def test_the_cpp_strategy_texts_ask_for_cpp_and_pythons_stay_as_they_were():
    cpp_texts, python_texts = texts("cpp"), texts("python")
    for name in ("correct_user", "plan_code_user"):  # the turns asking for code
        text = prompt_text(getattr(cpp_texts, name))
        assert "C++17" in text and "main()" in text and "```cpp" in text
        assert "solve()" not in text and "python" not in text.lower()
    assert "C++" in prompt_text(cpp_texts.plan_user) and "Python" not in prompt_text(cpp_texts.plan_user)
    assert prompt_text(cpp_texts.plan_completion).startswith("//") and prompt_text(cpp_texts.plan_completion)[-3:] \
        == " 1."
    assert all(line.startswith("//") for line in prompt_text(cpp_texts.correct_completion).splitlines()
               if not line.startswith("{"))
    assert "\n#include" in cpp_texts.plan_stop and "\nimport" not in cpp_texts.plan_stop
    # Python's: the original files, stops and comments
    assert (python_texts.correct_user, python_texts.plan_user) == ("self_correct_user.txt", "self_plan_user.txt")
    assert PLAN_STOP == ("\nimport", "\ndef ", "\nclass ", "\n\n\n", "```")
    assert comment_out("x = 1\n\ny", "python") == "# x = 1\n#\n# y"
    assert comment_out("int x;\n\n}", "cpp") == "// int x;\n//\n// }"
    with pytest.raises(ValueError, match="'java'.*python, cpp"):
        texts("java")


def test_python_feedback_is_unchanged_by_the_cpp_one():
    trial = Trial(code="x", verdicts=["CE"], techniques=set(), violated=[], tests=[],
                  compile_error="  File \"solution.py\", line 1\n    x(\nSyntaxError: '(' was never closed")
    assert describe(trial, []) == ("The program does not compile:   File \"solution.py\", line 1\n    x(\n"
                                   "SyntaxError: '(' was never closed")
    empty = Trial(code="", verdicts=[], techniques=set(), violated=[], tests=[], no_program="no program")
    assert describe(empty, []) == ("Your reply held no program (no program). Answer with the whole program, "
                                   "in one fenced code block.")
    assert "C++" in describe(empty, [], "cpp") and "Python" not in describe(empty, [], "cpp")  # not marked wrote_python
    assert "wrote_python" not in empty.summary()


@pytest.mark.docker
def test_cpp_compile_feedback_quotes_gpp_error_lines_printable_and_bounded(sandbox):
    """Real g++ messages from the sandbox, as self-correct quotes them."""
    tests = [{"input": "1 2\n", "output": "3\n"}]
    errors = {name: sandbox.run(code, tests, Limits(cpu_seconds=2), language="cpp").compile_error
              for name, code in [("undeclared", UNDECLARED), ("template", TEMPLATE_ERROR), ("many", MANY_ERRORS),
                                 ("escapes", ESCAPES), ("long", LONG_NAME), ("right", RIGHT)]}
    assert errors["right"] is None
    shown = {name: compiler_errors(text) for name, text in errors.items() if text}
    assert all(printable(text) and len(text) < 2000 for text in shown.values()), shown
    assert all(len(line) <= ERROR_CHARS + 10 for text in shown.values() for line in text.splitlines()[1:])
    assert shown["undeclared"].startswith("The program does not compile. g++ (C++17) reported:\nline 5, column ")
    assert "‘c’ was not declared in this scope" in shown["undeclared"] and "<stdin>" not in shown["undeclared"]
    # a template error: the tail g++ keeps starts inside a library header's trace; the error line and the
    # program's line that led there are shown, not the trace's middle
    assert errors["template"].count("\n") > 3 and "error:" in shown["template"]
    assert "(line 5, column " in shown["template"] and "required from here" in shown["template"]
    assert "/usr/include" not in shown["template"] and "_RandomAccessIterator" not in shown["template"]
    # 12 errors: three quoted, the rest counted
    assert shown["many"].count("was not declared") == 3 and shown["many"].endswith("(9 more errors.)")
    assert "\x1b" not in shown["escapes"] and "\u202e" not in shown["escapes"] and "red" in shown["escapes"]
    # one line longer than g++'s kept tail: no error line left, so its end is shown, bounded
    assert shown["long"].startswith("The program does not compile: ...") and "was not declared" in shown["long"]
    # the judge's own reasons are quoted as they are
    assert compiler_errors("the compiler ran out of memory") == "The program does not compile: the compiler ran " \
                                                                "out of memory"


@pytest.mark.docker
def test_cpp_self_correct_sees_a_compile_error_then_a_wrong_answer_then_the_forbidden_loop(sandbox):
    replies = [cpp(UNDECLARED), cpp(WRONG), cpp(LOOPY), cpp(RIGHT)]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server, chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-correct",
                              options=StrategyOptions(rounds=3), seed=3, language="cpp")
        asked = user_turns(server)
        shown = server.prompts_text()
    assert len(asked) == 4 and [a["kind"] for a in record.attempts] == ["attempt"] * 4
    assert "C++17" in asked[0] and all("```cpp" in turn and "solve()" not in turn for turn in asked)
    compile_fb = asked[1]
    assert "g++ (C++17) reported:\nline 5, column " in compile_fb and "‘c’ was not declared" in compile_fb
    assert printable(compile_fb) and "Input:" not in compile_fb  # a compile error is no test's fault
    assert "passed 0 of 2 example tests" in asked[2] and "Your output:\n-1" in asked[2]
    assert "for loop" in asked[3] and "Input:" not in asked[3]
    assert str(EXTENDED_MARK) not in shown
    assert [a["verdicts"] for a in record.attempts[:2]] == [["CE", "CE"], ["WA", "WA"]]
    assert "not declared" in record.attempts[0]["compile_error"] and record.attempts[2]["violated"] == ["for loop"]
    assert record.attempts[3]["feedback"] is None and record.attempts[3]["reward"] == 1.0
    assert record.correct and record.follows and record.plus.correct and record.entry_rule == "compiled"
    assert record.code == RIGHT and record.cost["calls"] == 4


@pytest.mark.docker
def test_cpp_self_correct_tells_a_python_reply_to_write_cpp(sandbox):
    replies = ["I would read both numbers and add them.", PYTHON_RIGHT, cpp(RIGHT)]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server, chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-correct",
                              options=StrategyOptions(rounds=2), language="cpp")
        asked = user_turns(server)
    prose, python, right = record.attempts
    assert prose["no_program"] == python["no_program"] == "no program" and prose["verdicts"] == []
    assert "wrote_python" not in prose and python["wrote_python"] is True  # prose is no Python program
    assert "no C++ program" in asked[1] and "Python" not in asked[1]
    assert "It is written in Python, but this problem asks for C++." in asked[2] and "```cpp block" in asked[2]
    assert right["reward"] == 1.0 and record.correct


@pytest.mark.docker
def test_cpp_self_correct_on_a_completion_model_quotes_the_attempt_in_line_comments(sandbox):
    body = UNDECLARED.split("int main() {\n", 1)[1]  # a continuation of the prompt's code prefix
    replies = [body, RIGHT.split("int main() {\n", 1)[1]]
    with RespondingServer(lambda kind, b: (replies.pop(0), None)) as server, completion_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-correct",
                              options=StrategyOptions(rounds=2), language="cpp")
        first, second = (b["prompt"] for _, b in server.requests)
    assert first.endswith(PREFIX) and second.endswith(PREFIX)
    quoted = second[len(first) - len(PREFIX):-len(PREFIX)]  # between the problem and the fresh code prefix
    assert all(line.startswith("//") for line in quoted.splitlines()), quoted
    assert "//     printf(\"%lld\\n\", a + c);" in quoted and "was not declared" in quoted and "#" not in \
        quoted.replace("// #include", "")
    assert record.attempts[0]["verdicts"] == ["CE", "CE"] and record.correct


@pytest.mark.docker
def test_cpp_self_plan_asks_for_a_plan_then_cpp_that_follows_it(sandbox):
    plan = "1. Read a and b.\n2. Print their sum."
    replies = [plan, cpp(RIGHT)]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server, chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-plan", language="cpp")
        (_, plan_body), (_, code_body) = server.requests
    assert "C++" in plan_body["messages"][-1]["content"] and "numbered list" in plan_body["messages"][-1]["content"]
    assert "C++" in plan_body["messages"][0]["content"]  # the C++ system prompt
    assert plan_body["max_tokens"] == 200  # (stop sequences go to the completions API only, below)
    assert code_body["messages"][-2] == {"role": "assistant", "content": plan}
    assert "```cpp" in code_body["messages"][-1]["content"] and "solve()" not in code_body["messages"][-1]["content"]
    assert record.attempts[0]["kind"] == "plan" and record.correct and record.cost["calls"] == 2

    replies = [" Read a and b.\n// 2. Print a + b.", RIGHT.split("int main() {\n", 1)[1]]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server, completion_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-plan", language="cpp")
        plan_prompt, code_prompt = (body["prompt"] for _, body in server.requests)
    assert plan_prompt.endswith("// 1.") and "\n#include" in server.requests[0][1]["stop"]
    assert "// 2. Print a + b.\n" + PREFIX in code_prompt and record.correct


@pytest.mark.docker
def test_cpp_best_of_k_keeps_the_highest_convergent_times_divergent(sandbox):
    # candidates: Python (no C++ program), not compiling, right with no technique (divergent 0 against the human
    # "if statement"), right with recursion, which no human used (divergent 1/2)
    replies = [PYTHON_RIGHT, cpp(UNDECLARED), cpp(RIGHT), cpp(RIGHT_RECURSIVE)]
    with RespondingServer(lambda kind, body: (replies.pop(0), None)) as server, chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human={"if statement"}, strategy="sample",
                              options=StrategyOptions(best_of=4), seed=100, language="cpp")
        seeds = [body["seed"] for _, body in server.requests]
    python, broken, plain, recursive = record.attempts
    assert python["no_program"] == "no program" and python["wrote_python"] and python["verdicts"] == []
    assert broken["verdicts"] == ["CE", "CE"] and broken["product"] == 0.0 and plain["product"] == 0.0
    assert recursive["techniques"] == ["if statement", "recursion"] and recursive["product"] == pytest.approx(0.5)
    assert [a.get("chosen", False) for a in record.attempts] == [False, False, False, True]
    assert record.code == RIGHT_RECURSIVE and record.divergent == pytest.approx(0.5) and record.correct
    assert seeds == [100 + 10_007 * j for j in range(4)]


LINE = "    long long a, b;\n    cin >> a >> b;\n"
MINUS, PLUS = "    cout << a - b << endl;\n}\n", "    cout << a + b << endl;\n}\n"


def mcts_script(kind, body):
    """A completion model for MCTS in C++: after the code prefix it prefers printing
    a - b (wrong) over a + b (right); rollouts finish whichever line was started."""
    prompt = body["prompt"]
    written = prompt[prompt.rindex(PREFIX) + len(PREFIX):]
    if body.get("max_tokens") == 1:  # expansion: the top next tokens
        if written == "":
            top = {LINE: -0.05, "    int x = 1;\n": -3.5}
        elif written == LINE:
            top = {MINUS: math.log(0.7), PLUS: math.log(0.3)}
        else:
            return "", {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
        token = max(top, key=top.get)
        return token, {"tokens": [token], "token_logprobs": [top[token]], "top_logprobs": [top], "text_offset": [0]}
    if written in ("", LINE):  # greedy rollout
        return (LINE if written == "" else "") + MINUS, None
    return "", None  # the program is complete


@pytest.mark.docker
def test_cpp_mcts_finds_the_correct_program_the_greedy_rollout_misses(sandbox):
    with RespondingServer(mcts_script) as server, completion_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="mcts",
                              options=StrategyOptions(rollouts=8, top_k=2), language="cpp")
        shown = server.prompts_text()
    rollouts = [a for a in record.attempts if a["kind"] == "rollout"]
    # the same search as Python's (test_strategies.py): a - b twice, the terminal node, then a + b
    assert [r["reward"] for r in rollouts] == [0.0, 0.0, 0.0, 1.0]
    assert rollouts[-1]["prefix"].endswith(PLUS) and rollouts[-1].get("chosen")
    assert record.correct and record.plus.correct and record.code == PREFIX + LINE + PLUS
    assert str(EXTENDED_MARK) not in shown and "def solve" not in shown


# ---- the CLI end to end: `neocoder eval --language cpp --strategy S` on a release problem ----

GRASS = HEAD + "int main() {\n    int t;\n    cin >> t;\n    while (t--) {\n        int s = 0;\n" \
               "        for (int i = 0; i < 4; i++) { int x; cin >> x; s += x; }\n" \
               "        cout << (s == 0 ? 0 : s == 4 ? 2 : 1) << \"\\n\";\n    }\n}\n"  # 1701A, accepted
GRASS_BODY = GRASS.split("int main() {\n", 1)[1]
GRASS_WRONG_BODY = GRASS_BODY.replace("s == 4 ? 2 : 1", "1")


def cli_reply(strategy: str):
    """What the scripted endpoint answers under each strategy (a few misbehaving first)."""
    script = {"self-correct": [cpp(UNDECLARED), PYTHON_RIGHT, cpp(GRASS)],
              "self-plan": ["1. Count the grass.\n2. Print 0, 1 or 2.", cpp(GRASS)],
              "sample": [PYTHON_RIGHT, cpp(GRASS)]}

    def respond(kind, body):
        if strategy != "mcts":
            return script[strategy].pop(0), None
        written = body["prompt"][body["prompt"].rindex(PREFIX) + len(PREFIX):]
        if body.get("max_tokens") == 1:
            top = {GRASS_WRONG_BODY: math.log(0.7), GRASS_BODY: math.log(0.3)}
            if written:
                return "", {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
            return GRASS_WRONG_BODY, {"tokens": [GRASS_WRONG_BODY], "token_logprobs": [math.log(0.7)],
                                      "top_logprobs": [top], "text_offset": [0]}
        return ("" if written else GRASS_WRONG_BODY), None
    return respond


@pytest.mark.docker
@pytest.mark.parametrize("strategy,extra,calls", [
    ("self-correct", [], 3), ("self-plan", [], 2), ("sample", ["--best-of", "2", "--temperature", "0.8"], 2),
    ("mcts", ["--api", "completion", "--rollouts", "4", "--top-k", "2"], 4)])
def test_eval_cli_runs_the_strategy_in_cpp(tmp_path, release_dir, strategy, extra, calls):
    out = tmp_path / "run"
    with RespondingServer(cli_reply(strategy)) as server:
        ran = CliRunner().invoke(main, ["eval", "--model", "openai/cpp-writer", "--base-url", server.url,
                                        "--api-key", "k", "--language", "cpp", "--problems", "1701A", "--states",
                                        "0", "--strategy", strategy, "--out", str(out), "--release",
                                        str(release_dir), "--quiet", "--bootstrap", "20", *extra])
        shown = asked(server)
    assert ran.exit_code == 0, ran.output
    (sample,) = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert sample["strategy"] == strategy and sample["examples"]["correct"] and sample["code"].endswith(GRASS_BODY)
    assert sample["entry_rule"] == "compiled" and sample["cost"]["calls"] == calls
    assert "def solve" not in shown and "solve()" not in shown  # nothing of Python's prompts
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["language"] == "cpp" and manifest["config"]["strategy"] == strategy
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["language"] == "cpp" and metrics["states"]["0"]["pass@1"] == 1.0
    if strategy == "self-correct":
        first, python, right = sample["attempts"]
        assert first["verdicts"] == ["CE"] and "line 5, column" in first["feedback"]
        assert python["wrote_python"] and "written in Python" in python["feedback"] and right["reward"] == 1.0
    if strategy == "mcts":
        assert [a["reward"] for a in sample["attempts"] if a["kind"] == "rollout"] == [0.0, 0.0, 1.0]
