"""``direct``: one prompt, one reply (the paper's main setting and the default)."""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution


def solve(ctx: Context) -> Solution:
    """Ask once with the problem-solving prompt; no attempts besides the reply itself."""
    prompt = ctx.solve_prompt(logprobs=ctx.logprobs)
    return Solution(ctx.call(prompt), prompt=prompt)
