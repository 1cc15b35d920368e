"""Output checkers: does a program's stdout answer the test?

A checker is the dataset record's ``checker`` field (see
neocoder.dataset.statement.choose_checker):

- ``tokens``: the whitespace-separated tokens equal the expected ones;
- ``float``: same token count, numeric tokens equal within an absolute *or* relative
  error of ``tolerance`` (Codeforces: |a - b| / max(1, |b|) <= tolerance), other
  tokens equal;
- ``consensus`` (several valid answers): the tokens equal those of any output in the
  test's ``accepted_outputs`` (outputs of accepted human solutions on that input, plus
  the statement's own answer) or the expected output;
- ``special``: a problem-specific checker (neocoder/judge/special/) decides from the
  test's input what the statement defines as a valid answer, for every problem that
  accepts several answers;

and ``ignore_case`` compares letters without case (YES/yes/Yes).  The legacy string
"tokens" means ``{"kind": "tokens"}``.
"""

from __future__ import annotations

import math

from neocoder.judge.special import SPECIAL

TOKENS = {"kind": "tokens", "ignore_case": False, "tolerance": None}


def as_checker(checker) -> dict:
    """Normalise a record's checker field (a dict, the legacy string "tokens", or None)."""
    if checker is None or checker == "tokens":
        return dict(TOKENS)
    if isinstance(checker, dict) and checker.get("kind") == "special" and checker.get("special") not in SPECIAL:
        raise ValueError(f"unknown special checker {checker.get('special')!r}")
    if isinstance(checker, dict) and checker.get("kind") in ("tokens", "float", "consensus", "special"):
        return {**TOKENS, **checker}
    raise ValueError(f"unknown checker {checker!r}")


def _tokens(data: bytes | str, ignore_case: bool) -> list[bytes]:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return (data.lower() if ignore_case else data).split()


def _float_equal(actual: bytes, expected: bytes, tolerance: float) -> bool:
    if actual == expected:
        return True
    try:
        a, b = float(actual), float(expected)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= tolerance * max(1.0, abs(b)) + 1e-12


def check(checker, actual: bytes, test: dict) -> bool:
    """True if ``actual`` (raw stdout bytes) answers ``test`` (``{"output": str,
    "accepted_outputs": [str, ...]?}``) under ``checker``.  Raises ValueError for an
    unknown checker kind."""
    spec = as_checker(checker)
    if spec["kind"] == "special":
        return SPECIAL[spec["special"]](test["input"], actual)
    case = bool(spec["ignore_case"])
    got = _tokens(actual, case)
    if spec["kind"] == "float":
        want = _tokens(test["output"], case)
        tol = float(spec["tolerance"] or 1e-6)
        return len(got) == len(want) and all(_float_equal(a, b, tol) for a, b in zip(got, want))
    if got == _tokens(test["output"], case):
        return True
    if spec["kind"] == "consensus":
        return any(got == _tokens(o, case) for o in test.get("accepted_outputs") or [])
    return False
