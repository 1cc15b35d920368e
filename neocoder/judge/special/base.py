"""What every problem-specific checker shares: token readers, the verdict, the registry.

A checker body reads the test's input and the program's output with two ``Tokens``
readers and raises ``Reject`` at the first thing that does not answer the input; the
``special`` decorator turns it into the registered function ``(input_text, output) ->
bool``: it loops over the input's test cases (``cases=True``: the first input token is
their count), requires the output to end where the last answer ends, and never raises
on malformed output (a wrong answer, not an error).  Output is read as
whitespace-separated tokens, as Codeforces' checkers read it: line breaks and spacing
do not matter, but every number must be a plain decimal integer and every word exact.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Callable

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_LOOSE_INTEGER = re.compile(r"[-+]?[0-9]+")
_MAX_DIGITS = 40  # no answer of these problems is longer; keeps int() cheap on garbage


class Reject(Exception):
    """The output does not answer the input: the reason is the message."""


def expect(condition, reason: str) -> None:
    """Reject with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise Reject(reason)


class Tokens:
    """Whitespace-separated tokens of a text, read front to back.  ``separators`` are
    characters that form tokens of their own even when written without spaces (the
    ``:`` of a score ``2:1``).  An output's integers must be written plainly (``strict``);
    an input's are read as Python reads them (a mutated extended-test input may carry a
    leading zero, and the humans' programs read it)."""

    def __init__(self, text: str, separators: str = "", strict: bool = True):
        for char in separators:
            text = text.replace(char, f" {char} ")
        self._tokens = text.split()
        self._next = 0
        self._strict = strict

    def peek(self) -> str | None:
        """The next token without reading it (None at the end)."""
        return self._tokens[self._next] if self._next < len(self._tokens) else None

    def word(self) -> str:
        """The next token; Reject if there is none."""
        if self._next >= len(self._tokens):
            raise Reject(f"ends after {len(self._tokens)} tokens: an answer is missing")
        self._next += 1
        return self._tokens[self._next - 1]

    def literal(self, *allowed: str) -> str:
        """The next token, which must be one of ``allowed``."""
        token = self.word()
        expect(token in allowed, f"{token!r} where {' or '.join(map(repr, allowed))} is expected")
        return token

    def int(self, lo: int | None = None, hi: int | None = None) -> int:
        """The next token as a decimal integer within [lo, hi] (bounds optional)."""
        token = self.word()
        pattern = _INTEGER if self._strict else _LOOSE_INTEGER
        expect(len(token) <= _MAX_DIGITS and pattern.fullmatch(token), f"{token[:20]!r} is not an integer")
        value = int(token)
        expect((lo is None or value >= lo) and (hi is None or value <= hi),
               f"{value} is outside [{lo}, {hi}]")
        return value

    def ints(self, count: int, lo: int | None = None, hi: int | None = None) -> list[int]:
        """The next ``count`` integers, each within [lo, hi]."""
        return [self.int(lo, hi) for _ in range(count)]

    def yes_no(self, any_case: bool = False) -> bool:
        """The next token as YES (True) or NO (False); in any letter case if ``any_case``."""
        token = self.word()
        word = token.upper() if any_case else token
        expect(word in ("YES", "NO"), f"{token!r} where YES or NO is expected")
        return word == "YES"

    def end(self) -> None:
        """Reject if tokens are left over (an extra answer, a wrong count)."""
        left = len(self._tokens) - self._next
        expect(left == 0, f"{left} tokens after the last answer")


class SpecialChecker:
    """A registered checker: ``checker(input_text, output) -> bool``; ``checker.why(...)``
    gives the reason for a rejection (None when the output is accepted)."""

    def __init__(self, problem_id: str, body: Callable[[Tokens, Tokens], None], cases: bool, separators: str):
        self.problem_id, self.body, self.cases, self.separators = problem_id, body, cases, separators
        self.__doc__ = body.__doc__
        self.__name__ = body.__name__

    def why(self, input_text: str, output: bytes | str) -> str | None:
        """The reason ``output`` (bytes are decoded as UTF-8) is rejected on ``input_text``, with
        the failing test case's number; None when it is accepted.  An input outside the
        statement's limits (an arithmetic, index or value error in the body) is a reason too."""
        if isinstance(output, bytes):
            output = output.decode("utf-8", "replace")
        inp, out = Tokens(input_text, strict=False), Tokens(output, self.separators)
        try:
            for case in range(inp.int(1) if self.cases else 1):
                try:
                    self.body(inp, out)
                except Reject as exc:
                    raise Reject(f"test case {case + 1}: {exc}") from None
            out.end()
        except Reject as exc:
            return str(exc)
        except (ArithmeticError, IndexError, ValueError) as exc:  # an input outside the statement's limits
            return f"cannot be judged on this input ({type(exc).__name__}: {exc})"
        return None

    def __call__(self, input_text: str, output: bytes | str) -> bool:
        """Whether ``output`` is accepted on ``input_text`` (``why`` gives no reason)."""
        return self.why(input_text, output) is None

    def __repr__(self) -> str:
        return f"<special checker {self.problem_id} {self.__name__}>"


SPECIAL: dict[str, SpecialChecker] = {}


def special(problem_id: str, cases: bool = True, separators: str = ""):
    """Register the decorated body ``(inp, out) -> None`` as ``problem_id``'s checker.
    With ``cases`` the body checks one test case and is called once per case."""
    def register(body):
        assert problem_id not in SPECIAL, f"two checkers for {problem_id}"
        SPECIAL[problem_id] = SpecialChecker(problem_id, body, cases, separators)
        return body
    return register


# ------------------------------------------------------------------ facts several checkers need

Possible = bool | Callable[[], bool]


def says_impossible(out: Tokens, possible: Possible, marker: str = "-1") -> bool:
    """Read the answer "impossible" (``marker``) if it comes next: True if it did (and it
    is right), False if an answer follows, which the caller then checks on its own merits
    (so ``possible`` only ever judges the marker); Reject if the marker is printed where
    an answer exists.  ``possible`` may be a function, called only for the marker."""
    if out.peek() != marker:
        return False
    out.word()
    expect(not (possible() if callable(possible) else possible), f"{marker} (impossible), but an answer exists")
    return True


def says_no(out: Tokens, possible: Possible, any_case: bool = False) -> bool:
    """Read YES or NO: True for NO (and it is right: no answer exists), False for YES,
    whose answer the caller then checks on its own merits."""
    if out.yes_no(any_case):
        return False
    expect(not (possible() if callable(possible) else possible), "NO, but an answer exists")
    return True


def expect_permutation(values: list[int], n: int) -> None:
    """Reject unless ``values`` is a permutation of 1..n."""
    expect(sorted(values) == list(range(1, n + 1)), "not a permutation of 1..n")


def expect_rearrangement(values: list, original: list) -> None:
    """Reject unless ``values`` holds exactly the elements of ``original`` (any order)."""
    expect(Counter(values) == Counter(original), "not a rearrangement of the given elements")


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin (exact for every n below 3.3 * 10^24)."""
    if n < 2:
        return False
    witnesses = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in witnesses:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in witnesses:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True
