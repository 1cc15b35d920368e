"""Problem-specific checkers: every release problem that accepts several answers ("print
any of them") is judged by what its statement defines, from the test's input alone.

``SPECIAL`` maps a problem id to its checker, a function ``(input_text, output) ->
bool`` that says whether the output answers every test case of the input (and
``checker.why(input_text, output)`` says what is wrong).  The dataset build
(neocoder/oracle.py) sets ``{"kind": "special", "special": problem_id}`` for every
problem registered here.  The modules group the problems by the kind of answer; their
shared readers and registry are in ``base``.  Each checker's docstring names its problem
and states what it checks; tests/judge/test_special.py runs every one on real human outputs
and on mutants of them.
"""

from neocoder.judge.special import arrays, choices, geometry, numbers, permutations, strings  # noqa: F401  (they register)
from neocoder.judge.special.base import SPECIAL, Reject, SpecialChecker, Tokens

__all__ = ["SPECIAL", "Reject", "SpecialChecker", "Tokens"]
