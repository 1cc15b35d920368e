"""Strategies: how a sample of a problem state is solved (NeoCoder Sec. 5.3, Table 5).

Each strategy is one module with ``solve(ctx: Context) -> Solution``; the pipeline
judges the final reply like any other and keeps every intermediate attempt in the
sample record, with the calls, tokens and seconds the strategy spent (``Sample.cost``).

- ``direct``: one prompt, one reply (default).
- ``self-correct``: feedback from the example tests and the detector, up to ``rounds`` more tries.
- ``self-plan``: a numbered plan, then code that follows it.
- ``mcts``: tree search over code continuations with the example pass rate as reward.
- ``sample``: ``best_of`` programs, the best convergent x divergent kept.

Their options are declared once, in ``strategies/options.py``, which config.py reads;
the solvers (which need the models and the sandbox) are imported on first use of a name
below, so reading the options never loads them.
"""

from __future__ import annotations

from importlib import import_module

from neocoder.benchmarks.neocoder.strategies.options import NAMES

_MODULES = {"direct": "direct", "self-correct": "self_correct", "self-plan": "self_plan", "mcts": "mcts",
            "sample": "sample"}
_BASE = ("Context", "Solution", "StrategyOptions", "Trial")


def _strategies() -> dict:
    return {name: import_module(f".{_MODULES[name]}", __name__).solve for name in NAMES}


def get_strategy(name: str):
    """The solver called ``name`` (``Context -> Solution``); raises ValueError naming the known ones."""
    if name not in _MODULES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(NAMES)}")
    return import_module(f".{_MODULES[name]}", __name__).solve


def __getattr__(name: str):
    """``STRATEGIES`` (name -> solver) and the types of strategies/base.py, imported on first use."""
    if name == "STRATEGIES":
        return _strategies()
    if name in _BASE:
        return getattr(import_module(".base", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Context", "NAMES", "STRATEGIES", "Solution", "StrategyOptions", "Trial", "get_strategy"]
