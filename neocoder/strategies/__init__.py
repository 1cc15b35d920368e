"""Strategies: how a sample of a problem state is solved (NeoCoder Sec. 5.3, Table 5).

Each strategy is one module with ``solve(ctx: Context) -> Solution``; the pipeline
judges the final reply like any other and keeps every intermediate attempt in the
sample record, with the calls, tokens and seconds the strategy spent (``Sample.cost``).

- ``direct``: one prompt, one reply (default).
- ``self-correct``: feedback from the example tests and the detector, up to ``rounds`` more tries.
- ``self-plan``: a numbered plan, then code that follows it.
- ``mcts``: tree search over code continuations with the example pass rate as reward.
- ``sample``: ``best_of`` programs, the best convergent x divergent kept.
"""

from __future__ import annotations

from typing import Callable

from . import direct, mcts, sample, self_correct, self_plan
from .base import Context, Solution, StrategyOptions, Trial

STRATEGIES: dict[str, Callable[[Context], Solution]] = {
    "direct": direct.solve,
    "self-correct": self_correct.solve,
    "self-plan": self_plan.solve,
    "mcts": mcts.solve,
    "sample": sample.solve,
}


def get_strategy(name: str) -> Callable[[Context], Solution]:
    """The solver called ``name``; raises ValueError naming the known ones."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


__all__ = ["Context", "STRATEGIES", "Solution", "StrategyOptions", "Trial", "get_strategy"]
