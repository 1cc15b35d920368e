"""Checkers for problems whose answer is a permutation of 1..n (or a chain or pairing
of 1..n) with a property, often the best value some function of it can take.

Where the statement asks for the best value, the checker computes that value from the
input: from a bound the statement's definitions give (stated in the docstring), or,
for 1712B, from the construction that reaches it; tests/judge/test_special.py compares every
such optimum with a brute force over all permutations of small n.
"""

from __future__ import annotations

from math import lcm

from neocoder.judge.special.base import Tokens, expect, expect_permutation, says_impossible, says_no, special


def _permutation(inp: Tokens, out: Tokens) -> tuple[int, list[int]]:
    """n from the input, then a permutation of 1..n from the output."""
    n = inp.int()
    p = out.ints(n)
    expect_permutation(p, n)
    return n, p


@special("1867A")
def distinct_differences(inp: Tokens, out: Tokens) -> None:
    """1867A "green_gold_dog, array and permutation": a permutation b of 1..n such that the
    n differences a_i - b_i are pairwise distinct (n distinct values, the most possible)."""
    n = inp.int()
    a = inp.ints(n)
    b = out.ints(n)
    expect_permutation(b, n)
    expect(len({x - y for x, y in zip(a, b)}) == n, "the differences a_i - b_i are not all distinct")


@special("1831A")
def twin_permutations(inp: Tokens, out: Tokens) -> None:
    """1831A "Twin Permutations": a permutation b of 1..n with a_1 + b_1 <= a_2 + b_2 <= ...
    <= a_n + b_n."""
    n = inp.int()
    a = inp.ints(n)
    b = out.ints(n)
    expect_permutation(b, n)
    sums = [x + y for x, y in zip(a, b)]
    expect(all(x <= y for x, y in zip(sums, sums[1:])), "the sums a_i + b_i decrease somewhere")


@special("1754B")
def kevin_and_permutation(inp: Tokens, out: Tokens) -> None:
    """1754B "Kevin and Permutation": a permutation of 1..n whose smallest difference
    between neighbours is floor(n/2), the largest possible (the value floor(n/2) + 1
    has no partner that far away in 1..n, so no arrangement does better)."""
    n, p = _permutation(inp, out)
    expect(min(abs(x - y) for x, y in zip(p, p[1:])) == n // 2, "the smallest neighbour difference is not n/2")


def _segments_that_are_permutations(p: list[int]) -> int:
    count = 0
    for left in range(len(p)):
        high = 0
        for right in range(left, len(p)):
            high = max(high, p[right])
            count += high == right - left + 1  # distinct values, the largest equal to the length
    return count


@special("1743B")
def permutation_value(inp: Tokens, out: Tokens) -> None:
    """1743B "Permutation Value": a permutation of 1..n with exactly 2 subsegments that are
    permutations, the fewest possible ([1] and the whole array always are)."""
    _, p = _permutation(inp, out)
    expect(_segments_that_are_permutations(p) == 2, "more than 2 subsegments are permutations")


@special("1741B")
def funny_permutation(inp: Tokens, out: Tokens) -> None:
    """1741B "Funny Permutation": a permutation of 1..n without fixed points where every
    element has a neighbour differing from it by 1; -1 only for n = 3 (both derangements,
    2 3 1 and 3 1 2, put 1 beside 3 only; every other n >= 2 has one)."""
    n = inp.int()
    if says_impossible(out, n != 3):
        return
    p = out.ints(n)
    expect_permutation(p, n)
    expect(all(x != i for i, x in enumerate(p, 1)), "a fixed point")
    expect(all(any(abs(p[j] - x) == 1 for j in (i - 1, i + 1) if 0 <= j < n) for i, x in enumerate(p)),
           "an element without a neighbour differing by 1")


@special("1728B")
def best_permutation(inp: Tokens, out: Tokens) -> None:
    """1728B "Best Permutation": a permutation of 1..n whose value (x = 0; x += p_i if
    x < p_i, else x = 0) is 2n - 1, the largest possible (the last step adds p_n to an
    x below p_n, and p_n <= n)."""
    n, p = _permutation(inp, out)
    x = 0
    for v in p:
        x = x + v if x < v else 0
    expect(x == 2 * n - 1, f"value {x}, not the maximum {2 * n - 1}")


@special("1716B")
def permutation_chain(inp: Tokens, out: Tokens) -> None:
    """1716B "Permutation Chain": the length k = n (the longest: fixedness starts at n,
    the first swap takes it to n - 2 and every later one lowers it by at least 1), then k
    permutations, the first the identity, each the previous with two elements swapped and
    strictly fewer fixed points."""
    n = inp.int()
    k = out.int(1, n)
    expect(k == n, f"a chain of {k} permutations, the longest has {n}")
    previous = out.ints(n)
    expect(previous == list(range(1, n + 1)), "the chain does not start with the identity")
    for _ in range(k - 1):
        current = out.ints(n)
        moved = [i for i in range(n) if current[i] != previous[i]]
        expect(len(moved) == 2 and current[moved[0]] == previous[moved[1]] and current[moved[1]] == previous[moved[0]],
               "not one swap away from the previous permutation")
        fixed = [sum(v == i for i, v in enumerate(q, 1)) for q in (previous, current)]
        expect(fixed[1] < fixed[0], "the fixedness does not decrease")
        previous = current


def _lcm_sum(p: list[int]) -> int:
    return sum(lcm(i, v) for i, v in enumerate(p, 1))


@special("1712B")
def woeful_permutation(inp: Tokens, out: Tokens) -> None:
    """1712B "Woeful Permutation": a permutation p of 1..n whose sum lcm(1, p_1) + ... +
    lcm(n, p_n) is the largest possible, the sum of the construction that swaps
    neighbours (2 1 4 3 ...; for odd n, 1 first: 1 3 2 5 4 ...), which is optimal."""
    n, p = _permutation(inp, out)
    best = list(range(1, n + 1))
    for i in range(n % 2, n - 1, 2):
        best[i], best[i + 1] = best[i + 1], best[i]
    expect(_lcm_sum(p) == _lcm_sum(best), "the lcm sum is not the maximum")


@special("1711A")
def perfect_permutation(inp: Tokens, out: Tokens) -> None:
    """1711A "Perfect Permutation": a permutation of 1..n with weight 1 (exactly one i
    divides p_i), the least possible (1 divides p_1)."""
    _, p = _permutation(inp, out)
    expect(sum(v % i == 0 for i, v in enumerate(p, 1)) == 1, "weight above 1")


@special("1701B")
def permutation_and_d(inp: Tokens, out: Tokens) -> None:
    """1701B "Permutation": a positive integer d, then a permutation of 1..n with
    floor(n/2) indices where p_i * d = p_{i+1}, the largest cost (each such p_i is at
    most n/d and distinct, and d = 1 gives none)."""
    d = out.int(1)
    n, p = _permutation(inp, out)
    cost = sum(x * d == y for x, y in zip(p, p[1:]))
    expect(cost == n // 2, f"cost {cost}, not the maximum {n // 2}")


@special("1719B")
def mathematical_circus(inp: Tokens, out: Tokens) -> None:
    """1719B "Mathematical Circus": YES and n/2 pairs (a, b) using each of 1..n once with
    (a + k) * b divisible by 4, or NO only if k is divisible by 4 (then (a + k) * b = a * b
    mod 4 and the n/2 odd numbers need n/2 multiples of 4; otherwise pairs exist)."""
    n, k = inp.int(), inp.int()
    if says_no(out, k % 4 != 0):
        return
    pairs = [(out.int(), out.int()) for _ in range(n // 2)]
    expect_permutation([v for pair in pairs for v in pair], n)
    expect(all((a + k) * b % 4 == 0 for a, b in pairs), "a pair with (a + k) * b not divisible by 4")
