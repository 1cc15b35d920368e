"""Each strategy's options, declared once (neocoder/options.py): the strategy that reads
an option declares it here, and ``EvalConfig`` (config.py), ``StrategyOptions``
(strategies/base.py), ``neocoder eval``'s options and the HTTP eval request all take it
from this declaration.

This module imports nothing but the declaration type, so config.py can read it without
loading the strategies themselves (they need the models and the sandbox).
"""

from __future__ import annotations

from neocoder.options import Option

# The strategies by name (strategies/__init__.py maps each to its solver; a test checks they agree).
NAMES = ("direct", "self-correct", "self-plan", "mcts", "sample")

STRATEGY = Option("direct", "How each sample is solved (docs/strategies.md).", choices=NAMES)

# self-correct (strategies/self_correct.py)
ROUNDS = Option(3, "self-correct: retries after the first attempt, each with the example tests' feedback.",
                ge=0, cap=20)

# mcts (strategies/mcts.py)
ROLLOUTS = Option(16, "mcts: rollouts per problem state.", ge=1, cap=256)
TOP_K = Option(3, "mcts: children per expansion (the most likely next tokens).", ge=1, cap=20)

# sample (strategies/sample.py)
BEST_OF = Option(5, "sample: programs drawn per state; the best convergent x divergent is kept.", ge=1, cap=50)

# every strategy, for its final reply (strategies/base.py Context.logprobs)
LOGPROBS = Option(False, "Ask for the final reply's token log-probabilities: adds the Rao-Blackwellised semantic "
                  "entropy (slow on llama-cpp-python, whose logprobs are computed in Python).")
