"""``self-correct``: attempt, see feedback from the example tests, try again (Reflexion,
Shinn et al. 2023, with the test feedback of self-debugging).

Round 0 is the direct prompt.  After each attempt the program is judged on the example
tests; if it passes them all and violates no constraint the loop ends, otherwise the
model sees ``feedback.describe`` (examples and violated constraints only: the extended
tests stay held out for the score) and writes a new program, up to ``rounds`` more
times.  The last attempt is the answer.
"""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution, completion_head, prompt_with, reply_summary
from neocoder.benchmarks.neocoder.strategies.feedback import describe
from neocoder.models import Prompt
from neocoder.resources import prompt_text


def _comment(text: str) -> str:
    return "\n".join("# " + line if line else "#" for line in text.splitlines())


def followup(ctx: Context, first: Prompt, last_reply_text: str, last_code: str, feedback: str) -> Prompt:
    """The next attempt's prompt: for chat models the conversation so far plus a user turn
    with the feedback (prompts/self_correct_user.txt); for completion models the problem
    with the failed program and the feedback as comments, then a fresh code prefix
    (prompts/self_correct_completion.txt)."""
    user = prompt_text("self_correct_user.txt").replace("{feedback}", feedback)
    messages = tuple(first.messages) + ({"role": "assistant", "content": last_reply_text},
                                        {"role": "user", "content": user})
    head = completion_head(first)
    middle = prompt_text("self_correct_completion.txt").replace("{previous}", _comment(last_code)).replace(
        "{feedback}", _comment(feedback))
    return prompt_with(first, messages=messages, completion=head + middle + first.code_prefix)


def solve(ctx: Context) -> Solution:
    """Up to 1 + ``ctx.options.rounds`` attempts; each kept in ``attempts`` with its
    example verdicts and the feedback it got."""
    first = ctx.solve_prompt(logprobs=ctx.logprobs)
    prompt, attempts = first, ctx.attempts
    for round_ in range(ctx.options.rounds + 1):
        reply = ctx.call(prompt)
        code = ctx.program(reply)
        trial = ctx.attempt(reply, prompt)  # a reply with no program is not judged; its feedback says so
        feedback = describe(trial, ctx.state.tests)
        attempts.append({"kind": "attempt", "round": round_, **reply_summary(reply), **trial.summary(),
                         "feedback": feedback or None})
        if not feedback or round_ == ctx.options.rounds:
            return Solution(reply, attempts, prompt)
        prompt = followup(ctx, first, reply.text, code, feedback)
    raise AssertionError("unreachable")
