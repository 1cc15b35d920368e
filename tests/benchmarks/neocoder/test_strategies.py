"""The strategies (neocoder/strategies/) against a scripted OpenAI-compatible server on
loopback (a stand-in for a cloud model) and the real Docker sandbox.

The problem state is made here: "print the sum of two numbers", two example tests and
extended tests whose inputs are marked, so a test can assert that no extended input
ever reaches a prompt.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner
from loopback import RespondingServer

from neocoder.benchmarks.neocoder.pipeline import judge_sample
from neocoder.benchmarks.neocoder.strategies import StrategyOptions
from neocoder.benchmarks.neocoder.strategies.mcts import Node, backpropagate, beta, children_from, p_ucb, select
from neocoder.benchmarks.neocoder.strategies.sample import pick
from neocoder.cli import main
from neocoder.metrics.rates import best_of_k, state_metrics
from neocoder.models import get_model
from neocoder.records import ProblemState

STATEMENT = "Read two integers a and b on one line. Print a + b.\n\nProgramming constraints: do not use a for loop."
EXTENDED_MARK = 917_253  # appears only in the extended tests' inputs


def make_state() -> ProblemState:
    return ProblemState(
        problem_id="9999Z", state=1, constraints=["for loop"], statement=STATEMENT,
        tests=[{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}],
        extended_tests=[{"input": f"{EXTENDED_MARK} 1\n", "output": f"{EXTENDED_MARK + 1}\n"},
                        {"input": f"{EXTENDED_MARK} {EXTENDED_MARK}\n", "output": f"{2 * EXTENDED_MARK}\n"}])


def fenced(code: str) -> str:
    return f"```python\n{code}```"


WRONG = "def solve():\n    a, b = map(int, input().split())\n    print(a - b)\n"
LOOPY = ("def solve():\n    a, b = map(int, input().split())\n    s = 0\n    for x in (a, b):\n        s += x\n"
         "    print(s)\n")
RIGHT = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"
RIGHT_RECURSIVE = ("def add(a, b):\n    return a if b == 0 else add(a + 1, b - 1) if b > 0 else a + b\n\n"
                   "def solve():\n    a, b = map(int, input().split())\n    print(add(a, b) if b < 50 else a + b)\n")


ScriptedEndpoint = RespondingServer  # answers with respond(kind, body) -> (text, logprobs | None)


@pytest.fixture
def endpoint_factory():
    made = []

    def make(respond):
        server = ScriptedEndpoint(respond)
        made.append(server)
        return server
    yield make
    for server in made:
        server.close()


def chat_model(url):
    return get_model("openai/scripted", base_url=url, api_key="k", max_retries=0)


def test_self_correct_sends_example_feedback_and_violated_constraints_never_extended_tests(endpoint_factory, sandbox):
    replies = [fenced(WRONG), fenced(LOOPY), fenced(RIGHT)]
    server = endpoint_factory(lambda kind, body: (replies.pop(0), None))
    state = make_state()
    with chat_model(server.url) as model:
        record = judge_sample(state, 0, model, sandbox, human=set(), strategy="self-correct",
                              options=StrategyOptions(rounds=3), seed=7)
    assert [a["kind"] for a in record.attempts] == ["attempt"] * 3 and len(server.requests) == 3
    first, second, third = (body["messages"] for _, body in server.requests)
    # round 1's feedback: the failing examples with input, expected and produced output
    feedback = second[-1]["content"]
    assert second[-2] == {"role": "assistant", "content": fenced(WRONG)}
    assert "passed 0 of 2 example tests" in feedback
    assert "Input:\n1 2" in feedback and "Expected output:\n3" in feedback and "Your output:\n-1" in feedback
    # round 2: the examples pass, but the detector found the forbidden for loop
    assert "for loop" in third[-1]["content"] and "Input:" not in third[-1]["content"]
    # the held-out extended tests never reach any prompt
    assert str(EXTENDED_MARK) not in server.prompts_text()
    assert record.correct and record.follows and record.plus.correct
    assert record.attempts[0]["verdicts"] == ["WA", "WA"] and record.attempts[1]["violated"] == ["for loop"]
    assert record.attempts[2]["feedback"] is None and record.attempts[2]["reward"] == 1.0
    assert record.cost["calls"] == 3 and record.tokens == {"prompt": 30, "completion": 15}
    assert record.strategy == "self-correct" and record.seed == 7
    assert all(body["seed"] == 7 for _, body in server.requests)


def test_self_correct_stops_at_its_round_budget(endpoint_factory, sandbox):
    server = endpoint_factory(lambda kind, body: (fenced(WRONG), None))
    with chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-correct",
                              options=StrategyOptions(rounds=1))
    assert len(server.requests) == 2 and len(record.attempts) == 2 and not record.correct
    assert record.attempts[-1]["feedback"]  # the last attempt failed too: kept, with what it would have been told


def test_self_plan_asks_for_a_plan_then_code_that_follows_it(endpoint_factory, sandbox):
    plan = "1. Read a and b.\n2. Add them.\n3. Print the sum."
    replies = [plan, fenced(RIGHT)]
    server = endpoint_factory(lambda kind, body: (replies.pop(0), None))
    with chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-plan")
    plan_turn, code_turn = (body["messages"] for _, body in server.requests)
    assert "numbered list" in plan_turn[-1]["content"] and STATEMENT.split("\n")[0] in plan_turn[-1]["content"]
    assert code_turn[-2] == {"role": "assistant", "content": plan}
    assert "carries out your plan" in code_turn[-1]["content"]
    assert server.requests[0][1]["max_tokens"] == 200  # the plan is short
    assert record.attempts == [{"kind": "plan", "reply": plan, "code_prefix": "", "prompt_tokens": 10,
                                "completion_tokens": 5}]
    assert record.correct and record.cost["calls"] == 2


def test_self_plan_on_a_completion_model_continues_a_plan_comment(endpoint_factory, sandbox):
    replies = [" Read a and b.\n# 2. Print a + b.", "    a, b = map(int, input().split())\n    print(a + b)\n"]
    server = endpoint_factory(lambda kind, body: (replies.pop(0), None))
    with get_model("openai/scripted", base_url=server.url, api_key="k", api="completion") as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="self-plan")
    plan_prompt, code_prompt = (body["prompt"] for _, body in server.requests)
    assert plan_prompt.endswith("# 1.") and "\nimport" in server.requests[0][1]["stop"]
    assert "# 2. Print a + b.\nimport sys\n\n\ndef solve():\n" in code_prompt
    assert record.correct


def test_best_of_k_keeps_the_highest_convergent_times_divergent(endpoint_factory, sandbox):
    assert pick([0.0, 0.5, 0.5, 0.2]) == 1  # the first on ties
    # candidates: wrong; right but only human techniques (divergent 0); right with recursion,
    # which no human used (divergent 1/2: {if statement, recursion} minus {if statement})
    replies = [fenced(WRONG), fenced(RIGHT), fenced(RIGHT_RECURSIVE)]
    server = endpoint_factory(lambda kind, body: (replies.pop(0), None))
    with chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human={"if statement"}, strategy="sample",
                              options=StrategyOptions(best_of=3), seed=100)
    products = [a["product"] for a in record.attempts]
    assert products[0] == 0.0 and products[1] == 0.0 and products[2] == pytest.approx(0.5)
    assert [a.get("chosen", False) for a in record.attempts] == [False, False, True]
    assert record.code.endswith(RIGHT_RECURSIVE) and record.divergent == pytest.approx(0.5)
    assert [body["seed"] for _, body in server.requests] == [100, 100 + 10_007, 100 + 2 * 10_007]


def test_best_of_k_estimator_by_hand():
    # values 0, 0.5, 1 and k = 2: subsets {0,.5} {0,1} {.5,1} have maxima .5, 1, 1 -> 2.5 / 3
    assert best_of_k([1.0, 0.0, 0.5], 2) == pytest.approx(2.5 / 3)
    assert best_of_k([0.2, 0.9, 0.4], 3) == pytest.approx(0.9)  # k = n: the maximum
    assert best_of_k([0.2, 0.9, 0.4], 1) == pytest.approx(0.5)  # k = 1: the mean
    with pytest.raises(ValueError):
        best_of_k([0.1], 2)


def test_mcts_p_ucb_and_selection_on_a_hand_checked_tree():
    # beta(s) = log((N + 11) / 10) + 4
    assert beta(9) == pytest.approx(math.log(2.0) + 4)
    root = Node("", visits=9)
    a = Node("a", prior=0.6, visits=5, value=0.5)
    b = Node("b", prior=0.4, visits=1, value=0.0)
    root.children = [a, b]
    # P-UCB(a) = 0.5 + beta(9) * 0.6 * sqrt(ln 9) / 6 ; P-UCB(b) = 0 + beta(9) * 0.4 * sqrt(ln 9) / 2
    pa = 0.5 + (math.log(2) + 4) * 0.6 * math.sqrt(math.log(9)) / 6
    pb = (math.log(2) + 4) * 0.4 * math.sqrt(math.log(9)) / 2
    assert p_ucb(root, a) == pytest.approx(pa) and p_ucb(root, b) == pytest.approx(pb)
    assert pb > pa  # 1.3904 > 0.9952: the less visited child is explored
    assert select(root) == [root, b]
    b.children = [Node("b1", prior=1.0)]
    path = select(root)
    assert [n.text for n in path] == ["", "b", "b1"]
    backpropagate(path, 0.75)
    assert (root.visits, b.visits, path[-1].visits) == (10, 2, 1)
    assert b.value == 0.75 and root.value == 0.75 and a.value == 0.5  # max backup, off-path untouched
    kids = children_from({"x": math.log(0.5), "y": math.log(0.3), "z": math.log(0.1), "w": math.log(0.05)}, 3)
    assert [k.text for k in kids] == ["x", "y", "z"]
    assert [k.prior for k in kids] == pytest.approx([0.5 / 0.9, 0.3 / 0.9, 0.1 / 0.9])


def completion_script(kind, body):
    """A completion model for MCTS: after the code prefix it prefers printing a - b
    (wrong) over a + b (right); rollouts finish whichever line was started."""
    prompt = body["prompt"]
    body_start = prompt.rindex("def solve():\n") + len("def solve():\n")
    written = prompt[body_start:]
    line = "    a, b = map(int, input().split())\n"
    if body.get("max_tokens") == 1:  # expansion: the top next tokens
        if written == "":
            top = {line: -0.05, "    x = 1\n": -3.5}
        elif written == line:
            top = {"    print(a - b)\n": math.log(0.7), "    print(a + b)\n": math.log(0.3)}
        else:
            return "", {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
        token = max(top, key=top.get)
        return token, {"tokens": [token], "token_logprobs": [top[token]], "top_logprobs": [top],
                       "text_offset": [0]}
    if written in ("", line):  # greedy rollout
        return (line if written == "" else "") + "    print(a - b)\n", None
    return "", None  # the program is complete


def test_mcts_finds_the_correct_program_the_greedy_rollout_misses(endpoint_factory, sandbox):
    server = endpoint_factory(completion_script)
    with get_model("openai/scripted", base_url=server.url, api_key="k", api="completion") as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="mcts",
                              options=StrategyOptions(rollouts=8, top_k=2))
    rollouts = [a for a in record.attempts if a["kind"] == "rollout"]
    tree = [a for a in record.attempts if a["kind"] == "tree"][0]["tree"]
    # 1: root expanded; rollout from its likely child (the input line): greedy -> a - b, reward 0
    # 2: P-UCB ties at the root (ln 1 = 0), so the input line again: expanded (a - b: 0.7, a + b: 0.3),
    #    rollout from "print(a - b)", reward 0
    # 3: under the line (2 visits) P-UCB: a - b 0.7 * sqrt(ln 2) / 2 = 0.291 > a + b 0.3 * sqrt(ln 2) = 0.250;
    #    expanding "print(a - b)" finds the program's end (terminal), reward 0
    # 4: under the line (3 visits): a - b 0.7 * sqrt(ln 3) / 3 = 0.245 < a + b 0.3 * sqrt(ln 3) = 0.314:
    #    the rollout from "print(a + b)" is right, reward 1, and the search stops
    assert [r["reward"] for r in rollouts] == [0.0, 0.0, 0.0, 1.0]
    assert rollouts[-1]["prefix"].endswith("print(a + b)\n") and rollouts[-1].get("chosen")
    assert record.correct and record.plus.correct and record.code.endswith("print(a + b)\n")
    assert tree["visits"] == 4 and tree["value"] == 1.0
    expansions = [b for _, b in server.requests if b.get("max_tokens") == 1]
    assert len(expansions) == 3 and all(b["logprobs"] == 2 and b["temperature"] == 0.0 for b in expansions)
    assert len(server.requests) == 3 + 3  # three rollouts called the model; the terminal one did not
    assert str(EXTENDED_MARK) not in server.prompts_text()


def test_mcts_refuses_a_chat_model_with_a_clear_error(endpoint_factory, sandbox):
    server = endpoint_factory(lambda kind, body: (fenced(RIGHT), None))
    with chat_model(server.url) as model:
        record = judge_sample(make_state(), 0, model, sandbox, human=set(), strategy="mcts")
    assert "completions API" in record.error and not server.requests


def test_samples_get_their_own_seeds_and_semantic_entropy(endpoint_factory, sandbox):
    """Four samples: two alike, two different behaviours -> entropy of (2, 1, 1)/4."""
    programs = {0: RIGHT, 1: RIGHT.replace("print(a + b)", "print(b + a)"), 2: WRONG,
                3: "def solve():\n    print(0)\n"}
    server = endpoint_factory(lambda kind, body: (fenced(programs[body["seed"] - 50]), None))
    state = make_state()
    with chat_model(server.url) as model:
        records = [judge_sample(state, i, model, sandbox, human={"if statement"}, seed=50 + i) for i in range(4)]
    m = state_metrics(records)
    expected = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    assert m["semantic_entropy"] == pytest.approx(expected)  # a + b and b + a behave alike
    assert m["technique_entropy"] == pytest.approx(0.0)  # none of the four uses a detected technique
    assert m["pass@1"] == pytest.approx(0.5) and "pass@5" not in m
    assert m["cost"] == {"calls": 1.0, "prompt_tokens": 10.0, "completion_tokens": 5.0, "tokens": 15.0}


@pytest.mark.docker
def test_eval_cli_runs_a_strategy_and_compare_prints_the_table5_layout(endpoint_factory, tmp_path, release_dir):
    """Two real evals through the CLI on 2 release problems at state 0 (direct, then
    self-correct with every attempt wrong), then `neocoder compare` in the paper's layout."""
    server = endpoint_factory(lambda kind, body: (fenced(WRONG), None))
    base = ["eval", "--model", "openai/scripted", "--base-url", server.url, "--api-key", "k", "--limit", "2",
            "--states", "0", "--dataset", "release", "--release", str(release_dir), "--quiet", "--bootstrap", "50"]
    direct = CliRunner().invoke(main, base + ["--out", str(tmp_path / "direct")])
    assert direct.exit_code == 0, direct.output
    corrected = CliRunner().invoke(main, base + ["--out", str(tmp_path / "sc"), "--strategy", "self-correct",
                                                 "--rounds", "1"])
    assert corrected.exit_code == 0, corrected.output
    assert "strategy self-correct: 2.0 model calls" in corrected.output
    again = CliRunner().invoke(main, base + ["--out", str(tmp_path / "sc"), "--strategy", "sample"])
    assert again.exit_code != 0 and "holds samples of --strategy self-correct" in again.output
    compared = CliRunner().invoke(main, ["compare", str(tmp_path / "direct"), str(tmp_path / "sc"),
                                         "--bootstrap", "50"])
    assert compared.exit_code == 0, compared.output
    assert "Table 5 layout" in compared.output and "openai/scripted [self-correct]" in compared.output
    assert "+0.0 (0.0 -> 0.0)" in compared.output  # wrong either way: no change in convergent
    assert "2.0 calls, 30 tokens" in compared.output and "1.0 calls, 15 tokens" in compared.output
