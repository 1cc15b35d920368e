"""``self-correct``: attempt, see feedback from the example tests, try again (Reflexion,
Shinn et al. 2023, with the test feedback of self-debugging).

Round 0 is the direct prompt.  After each attempt the program is judged on the example
tests; if it passes them all and violates no constraint the loop ends, otherwise the
model sees ``feedback.describe`` (examples and violated constraints only: the extended
tests stay held out for the score) and writes a new program, up to ``rounds`` more
times.  The last attempt is the answer.

The follow-up prompt is in the run's language (strategies/languages.py): Python's
prompts/self_correct_*.txt, C++'s prompts/self_correct_cpp_*.txt (a complete program
with main(); a compile error is shown as g++'s own error lines, feedback.py).
"""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution, completion_head, prompt_with, reply_summary
from neocoder.benchmarks.neocoder.strategies.feedback import describe
from neocoder.benchmarks.neocoder.strategies.languages import comment_out, texts
from neocoder.models import Prompt
from neocoder.resources import prompt_text


def followup(ctx: Context, first: Prompt, last_reply_text: str, last_code: str, feedback: str) -> Prompt:
    """The next attempt's prompt: for chat models the conversation so far plus a user turn
    with the feedback (prompts/self_correct_user.txt); for completion models the problem
    with the failed program and the feedback as comments, then a fresh code prefix
    (prompts/self_correct_completion.txt).  In C++ (``ctx.language``) the files are
    self_correct_cpp_*.txt and the comments ``//`` (strategies/languages.py)."""
    files = texts(ctx.language)
    user = prompt_text(files.correct_user).replace("{feedback}", feedback)
    messages = tuple(first.messages) + ({"role": "assistant", "content": last_reply_text},
                                        {"role": "user", "content": user})
    head = completion_head(first)
    middle = prompt_text(files.correct_completion).replace(
        "{previous}", comment_out(last_code, ctx.language)).replace("{feedback}", comment_out(feedback, ctx.language))
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
        feedback = describe(trial, ctx.state.tests, ctx.language)
        attempts.append({"kind": "attempt", "round": round_, **reply_summary(reply), **trial.summary(),
                         "feedback": feedback or None})
        if not feedback or round_ == ctx.options.rounds:
            return Solution(reply, attempts, prompt)
        prompt = followup(ctx, first, reply.text, code, feedback)
    raise AssertionError("unreachable")
