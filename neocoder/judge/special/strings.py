"""Checkers for problems whose answer is a string built from the input's string."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from neocoder.judge.special.base import Tokens, expect, is_prime, says_impossible, special


@special("1758A")
def palindromic_double(inp: Tokens, out: Tokens) -> None:
    """1758A "SSeeeeiinngg DDoouubbllee": per test case one word, a palindrome that
    rearranges the double of s (every letter of s twice)."""
    s, answer = inp.word(), out.word()
    expect(answer == answer[::-1], "not a palindrome")
    expect(Counter(answer) == Counter(s + s), "not a rearrangement of the double of s")


def _capybara_split_ok(a: str, b: str, c: str) -> bool:
    return (a <= b and c <= b) or (b <= a and b <= c)


@special("1775A1")
def capybara_names(inp: Tokens, out: Tokens) -> None:
    """1775A1 "Gardener and the Capybaras (easy version)": three non-empty words a b c
    whose concatenation is s, with b lexicographically not smaller than both a and c or
    not greater than both; ":(" only if no split of s has that property (all splits are
    tried)."""
    s = inp.word()
    def possible():
        return any(_capybara_split_ok(s[:i], s[i:j], s[j:])
                   for i in range(1, len(s) - 1) for j in range(i + 1, len(s)))
    if says_impossible(out, possible, ":("):
        return
    a, b, c = out.word(), out.word(), out.word()
    expect(a + b + c == s, "the three names do not spell s")
    expect(_capybara_split_ok(a, b, c), "b is neither the largest nor the smallest name")


@special("1774A")
def plus_minus_signs(inp: Tokens, out: Tokens) -> None:
    """1774A "Add Plus Minus Sign": a string of n - 1 signs (+ or -) such that the
    expression a_1 +- a_2 ... +- a_n has the smallest absolute value any choice of signs
    gives (computed over every reachable value)."""
    n, digits = inp.int(), [int(ch) for ch in inp.word()]
    signs = out.word()
    expect(len(signs) == n - 1 and set(signs) <= {"+", "-"}, "not n - 1 signs")
    value = digits[0] + sum(d if s == "+" else -d for s, d in zip(signs, digits[1:]))
    reachable = {digits[0]}
    for d in digits[1:]:
        reachable = {v + d for v in reachable} | {v - d for v in reachable}
    expect(abs(value) == min(abs(v) for v in reachable), f"|{value}| is not the smallest possible")


def _is_subsequence(part: str, whole: str) -> bool:
    rest = iter(whole)
    return all(ch in rest for ch in part)


@special("1861A")
def prime_deletion(inp: Tokens, out: Tokens) -> None:
    """1861A "Prime Deletion": a prime of at least two digits (deleting stops at two)
    whose digits are a subsequence of the given nine digits; -1 only if no subsequence of
    two or more digits is prime."""
    s = inp.word()
    def possible():
        return any(is_prime(int("".join(sub))) for k in range(2, len(s) + 1) for sub in combinations(s, k))
    if says_impossible(out, possible):
        return
    answer = out.word()
    expect(answer.isdigit() and len(answer) >= 2, f"{answer!r} is not a number of two or more digits")
    expect(_is_subsequence(answer, s), "not obtained by deleting digits")
    expect(is_prime(int(answer)), f"{answer} is not prime")


@special("1898A")
def milica_and_string(inp: Tokens, out: Tokens) -> None:
    """1898A "Milica and String": the number of operations m, then m operations "i c"
    (1 <= i <= n, c is A or B: set the first i characters to c); applied in order they
    leave exactly k letters B, and m is the minimum: 0 if s already has k, else 1 (one
    prefix assignment always reaches k: the count moves by at most 1 as i grows)."""
    n, k = inp.int(), inp.int()
    s = list(inp.word())
    m = out.int(0, n)
    expect(m == (0 if s.count("B") == k else 1), f"{m} operations is not the minimum")
    for _ in range(m):
        i, c = out.int(1, n), out.literal("A", "B")
        s[:i] = [c] * i
    expect(s.count("B") == k, "the operations do not leave exactly k letters B")
