"""``self-plan``: the model first writes a short numbered plan, then code that follows it
(self-planning code generation, Jiang et al. 2023).

Chat models get two turns (prompts/self_plan_user.txt, then
prompts/self_plan_code_user.txt after their plan); completion models continue a
"# Plan:" comment block after the problem and then the code prefix with the plan above
it (prompts/self_plan_completion.txt).  A C++ run (``--language cpp``) asks the same in
C++'s words (prompts/self_plan_cpp_*.txt, a "// Plan" block; strategies/languages.py).
"""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution, completion_head, prompt_with, reply_summary
from neocoder.benchmarks.neocoder.strategies.languages import texts
from neocoder.config import PYTHON
from neocoder.resources import prompt_text

PLAN_TOKENS = 200  # the plan is short: at most this many tokens
PLAN_STOP = texts(PYTHON).plan_stop  # where a Python plan ends (C++'s: languages.TEXTS)


def solve(ctx: Context) -> Solution:
    """Two calls: the plan, then the program; the plan is kept in ``attempts``.  The
    prompts and the plan's stop sequences are those of ``ctx.language``."""
    files = texts(ctx.language)
    first = ctx.solve_prompt()
    statement = ctx.state.statement.strip()
    plan_user = prompt_text(files.plan_user).replace("{statement}", statement)
    head = completion_head(first)
    plan_start = prompt_text(files.plan_completion)
    plan_prompt = prompt_with(first, messages=(first.messages[0], {"role": "user", "content": plan_user}),
                              completion=head + plan_start, code_prefix="", stop=files.plan_stop,
                              max_tokens=PLAN_TOKENS)
    plan_reply = ctx.call(plan_prompt)
    ctx.attempts.append({"kind": "plan", **reply_summary(plan_reply)})
    plan = plan_reply.text.strip()
    code_user = prompt_text(files.plan_code_user)
    planned = plan_start + plan_reply.text.rstrip() + "\n"
    code_prompt = prompt_with(first, messages=(first.messages[0], {"role": "user", "content": plan_user},
                                               {"role": "assistant", "content": plan},
                                               {"role": "user", "content": code_user}),
                              completion=head + planned + first.code_prefix,
                              logprobs=ctx.logprobs)
    reply = ctx.call(code_prompt)
    return Solution(reply, ctx.attempts, code_prompt)
