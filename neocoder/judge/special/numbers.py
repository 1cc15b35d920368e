"""Checkers for problems whose answer is a number or a few numbers with a stated
property (a winning pile size, a colour, a pair (x, y), a list of jumps or spells)."""

from __future__ import annotations

import heapq

from neocoder.judge.special.base import Tokens, expect, is_prime, says_impossible, says_no, special


def _three_ok(x: int, y: int, z: int, n: int) -> bool:
    return 0 < x < y < z and x + y + z == n and all(v % 3 for v in (x, y, z))


@special("1886A")
def sum_of_three(inp: Tokens, out: Tokens) -> None:
    """1886A "Sum of Three": YES and three distinct positive integers, none divisible by 3,
    summing to n; NO only if no such triplet exists (searched with its two smallest
    numbers below 40: a complete search for n <= 60, and above that 1 + 2, 1 + 4 or
    2 + 5 leaves a third number that works)."""
    n = inp.int()
    if says_no(out, lambda: any(_three_ok(x, y, n - x - y, n) for x in range(1, 40) for y in range(x + 1, 40))):
        return
    x, y, z = sorted(out.ints(3))
    expect(_three_ok(x, y, z, n), "not three distinct positive integers, none divisible by 3, summing to n")


@special("1879A")
def rigged(inp: Tokens, out: Tokens) -> None:
    """1879A "Rigged!": a weight w in [1, 10^9] that Polycarp (athlete 1) lifts (w <= s_1)
    and with which every other athlete who lifts it (s_i >= w) has a smaller endurance;
    -1 only if w = s_1 fails (a larger w excludes Polycarp, a smaller one admits more
    rivals)."""
    n = inp.int()
    athletes = [(inp.int(), inp.int()) for _ in range(n)]
    (s1, e1), rivals = athletes[0], athletes[1:]

    def wins(w):
        return w <= s1 and all(e < e1 for s, e in rivals if s >= w)
    if says_impossible(out, wins(s1)):
        return
    w = out.int(1, 10**9)
    expect(wins(w), f"Polycarp does not win with w = {w}")


_SECOND_WINS: dict[tuple[int, int], bytearray] = {}


def _second_player_wins(a: int, b: int, n: int) -> bool:
    """Is a pile of n a losing position for the player to move (moves: take a or b)?"""
    lost = _SECOND_WINS.setdefault((a, b), bytearray())
    for m in range(len(lost), n + 1):
        lost.append(not ((m >= a and lost[m - a]) or (m >= b and lost[m - b])))
    return bool(lost[n])


@special("1844A")
def subtraction_game(inp: Tokens, out: Tokens) -> None:
    """1844A "Subtraction Game": a pile size n in [1, 10^6] from which the player to move
    loses when both take exactly a or b stones (a losing position, computed backwards
    from 0)."""
    a, b = inp.int(), inp.int()
    n = out.int(1, 10**6)
    expect(_second_player_wins(a, b, n), f"the first player wins from {n}")


@special("1837A")
def grasshopper(inp: Tokens, out: Tokens) -> None:
    """1837A "Grasshopper on a Line": the number of jumps, 1 if k does not divide x and 2 if
    it does (the fewest: one jump would be x itself), then that many jumps in [-10^9,
    10^9], none divisible by k, summing to x."""
    x, k = inp.int(), inp.int()
    count = out.int(1)
    expect(count == (1 if x % k else 2), f"{count} jumps is not the fewest")
    jumps = out.ints(count, -10**9, 10**9)
    expect(all(j % k for j in jumps), "a jump divisible by k")
    expect(sum(jumps) == x, "the jumps do not end at x")


@special("1810B")
def candies(inp: Tokens, out: Tokens) -> None:
    """1810B "Candies": m in [1, 40] spells (1: x -> 2x - 1, 2: x -> 2x + 1) that take 1
    candy to exactly n; -1 only if n is even (both spells give odd counts, and every odd
    n < 2^30 is reached by undoing spells back to 1, one halving each)."""
    n = inp.int()
    if says_impossible(out, n % 2 == 1):
        return
    m = out.int(1, 40)
    x = 1
    for spell in out.ints(m, 1, 2):
        x = 2 * x - 1 if spell == 1 else 2 * x + 1
    expect(x == n, f"the spells give {x} candies")


@special("1805A")
def we_need_the_zero(inp: Tokens, out: Tokens) -> None:
    """1805A "We Need the Zero": x in [0, 2^8) with (a_1 xor x) xor ... xor (a_n xor x) = 0;
    -1 only if no x in [0, 2^8) gives 0 (all are tried)."""
    n = inp.int()
    a = inp.ints(n)

    def zero(x):
        total = 0
        for v in a:
            total ^= v ^ x
        return total == 0
    if says_impossible(out, lambda: any(zero(x) for x in range(256))):
        return
    x = out.int(0, 255)
    expect(zero(x), f"x = {x} does not give 0")


def _power_at_most(base: int, exponent: int, cap: int) -> int:
    """base ** exponent, or cap + 1 once it exceeds cap (base >= 1)."""
    if base == 1:
        return 1
    value = 1
    for _ in range(exponent):
        value *= base
        if value > cap:
            return cap + 1
    return value


@special("1787A")
def exponential_equation(inp: Tokens, out: Tokens) -> None:
    """1787A "Exponential Equation": x, y in [1, n] with x^y * y + y^x * x = n; -1 only if
    n is odd (x = 1, y = n/2 solves every even n, and the left side is even for every
    x, y: both terms are even unless x and y are both odd, and then both are odd)."""
    n = inp.int()
    if says_impossible(out, n % 2 == 0):
        return
    x, y = out.int(1, n), out.int(1, n)
    total = _power_at_most(x, y, n) * y + _power_at_most(y, x, n) * x
    expect(total == n, "x^y * y + y^x * x is not n")


@special("1740A")
def factorise_n_plus_m(inp: Tokens, out: Tokens) -> None:
    """1740A "Factorise N+M": a prime m in [2, 10^5] such that n + m is not prime."""
    n = inp.int()
    m = out.int(2, 10**5)
    expect(is_prime(m), f"{m} is not prime")
    expect(not is_prime(n + m), f"n + m = {n + m} is prime")


def _can_remain(cnt: list[int], colour: int) -> bool:
    """Can the balls of ``colour`` (index) be the last ones left?  Taking k of its balls
    with others (k < its count), from the largest other colours, the other balls must pair
    off among themselves: an even number of them, no colour more than half of them."""
    others = [-c for i, c in enumerate(cnt) if i != colour]
    heapq.heapify(others)
    rest = -sum(others)
    for _ in range(cnt[colour]):
        largest = -others[0] if others else 0
        if rest % 2 == 0 and largest * 2 <= rest:
            return True
        heapq.heapreplace(others, others[0] + 1)
        rest -= 1
    return False


@special("1728A")
def colored_balls(inp: Tokens, out: Tokens) -> None:
    """1728A "Colored Balls: Revisited": a colour in [1, n] whose balls can be the ones
    left when no two balls of different colours remain."""
    n = inp.int()
    cnt = inp.ints(n)
    colour = out.int(1, n)
    expect(_can_remain(cnt, colour - 1), f"colour {colour} cannot be the one left")


def _fewest_draws(n: int, a: int, b: int) -> int:
    """The fewest draws in n matches with a goals scored and b conceded: w wins and l
    losses fit iff (w, l >= 1: a >= w and b >= l), (l = 0: a - b >= w), (w = 0: b - a >=
    l), (none: a = b, all draws); the other matches are 0:0 draws."""
    def fits(wins, losses):
        if wins and losses:
            return a >= wins and b >= losses
        if wins or losses:
            return a - b >= wins if wins else b - a >= losses
        return a == b
    return min(n - wins - losses for wins in range(n + 1) for losses in range(n + 1 - wins) if fits(wins, losses))


@special("1773F", cases=False, separators=":")
def football(inp: Tokens, out: Tokens) -> None:
    """1773F "Football": the number of draws d, the fewest possible, then n scores "x:y"
    (x, y >= 0) with a goals scored and b conceded in all, exactly d of them draws."""
    n, a, b = inp.int(), inp.int(), inp.int()
    d = out.int(0, n)
    expect(d == _fewest_draws(n, a, b), f"{d} draws is not the fewest")
    scores = []
    for _ in range(n):
        x = out.int(0)
        out.literal(":")
        scores.append((x, out.int(0)))
    expect(sum(x for x, _ in scores) == a and sum(y for _, y in scores) == b, "the goals do not add up to a and b")
    expect(sum(x == y for x, y in scores) == d, f"not exactly {d} draws")
