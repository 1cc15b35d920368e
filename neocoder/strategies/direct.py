"""``direct``: one prompt, one reply (the paper's main setting and the default)."""

from __future__ import annotations

from .base import Context, Solution


def solve(ctx: Context) -> Solution:
    """Ask once with the problem-solving prompt; no attempts besides the reply itself."""
    logprobs = 1 if ctx.options.logprobs else None
    return Solution(ctx.call(ctx.solve_prompt(logprobs=logprobs)))
