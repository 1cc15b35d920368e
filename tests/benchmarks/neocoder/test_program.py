from neocoder.benchmarks.neocoder.program import extract_code, program_from_reply
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.models import Reply


def test_fenced_python_block_defining_solve_wins():
    text = "Here:\n```\nnot this\n```\n```python\nx = 1\n```\n```python\ndef solve():\n    pass\n```\nDone."
    assert extract_code(text) == "def solve():\n    pass\n"


def test_unclosed_fence_runs_to_the_end_and_no_fence_takes_all():
    assert extract_code("```python\ndef solve():\n    print(1") == "def solve():\n    print(1"
    assert extract_code("def solve():\n    pass\n") == "def solve():\n    pass\n"


def test_completion_reply_continues_the_code_prefix():
    prompt = solve_prompt("A. Sum\nPrint a+b.")
    assert prompt.completion.endswith(prompt.code_prefix)
    assert prompt.code_prefix.rstrip().endswith("def solve():")
    reply = Reply(text="    print(3)\n", code_prefix=prompt.code_prefix)
    assert program_from_reply(reply) == prompt.code_prefix + "    print(3)\n"


def test_prompt_carries_the_statement_and_the_contract():
    prompt = solve_prompt("A. Sum\nPrint a+b.")
    user = prompt.messages[1]["content"]
    assert "A. Sum\nPrint a+b." in user and "solve()" in user
    assert len(prompt.sha256()) == 64
