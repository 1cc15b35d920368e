"""Checkers for problems whose answer is an array (or a multiset split into arrays)
with a stated property."""

from __future__ import annotations

from collections import Counter

from neocoder.judge.special.base import Tokens, expect, expect_rearrangement, says_impossible, says_no, special


@special("1878B")
def aleksa_and_stack(inp: Tokens, out: Tokens) -> None:
    """1878B "Aleksa and Stack": n strictly increasing integers in [1, 10^9] such that
    3 * a_{i+2} is not divisible by a_i + a_{i+1} for every i."""
    n = inp.int()
    a = out.ints(n, 1, 10**9)
    expect(all(x < y for x, y in zip(a, a[1:])), "not strictly increasing")
    expect(all(3 * a[i + 2] % (a[i] + a[i + 1]) for i in range(n - 2)), "3 * a_{i+2} divisible by a_i + a_{i+1}")


@special("1864A")
def increasing_and_decreasing(inp: Tokens, out: Tokens) -> None:
    """1864A "Increasing and Decreasing": n integers from x to y, strictly increasing with
    strictly decreasing differences; -1 only if y - x < n(n-1)/2 (the differences are
    distinct positive integers, so they sum to at least 1 + ... + (n-1), and any larger
    sum goes to the first)."""
    x, y, n = inp.int(), inp.int(), inp.int()
    if says_impossible(out, y - x >= n * (n - 1) // 2):
        return
    a = out.ints(n)
    expect(a[0] == x and a[-1] == y, "does not run from x to y")
    steps = [q - p for p, q in zip(a, a[1:])]
    expect(all(s > 0 for s in steps), "not strictly increasing")
    expect(all(s > t for s, t in zip(steps, steps[1:])), "the differences do not strictly decrease")


@special("1862B")
def sequence_game(inp: Tokens, out: Tokens) -> None:
    """1862B "Sequence Game": a length m with n <= m <= 2n, then m integers in [1, 10^9]
    from which Vika's rule (keep a_1 and every a_i >= a_{i-1}) writes exactly b."""
    n = inp.int()
    b = inp.ints(n)
    m = out.int(n, 2 * n)
    a = out.ints(m, 1, 10**9)
    kept = a[:1] + [v for u, v in zip(a, a[1:]) if u <= v]
    expect(kept == b, "Vika's rule does not give b")


@special("1859A")
def united_we_stand(inp: Tokens, out: Tokens) -> None:
    """1859A "United We Stand": the lengths l_b, l_c (both >= 1), then b and c, which
    together hold exactly the elements of a, with no c_j dividing any b_i; -1 only if all
    elements are equal (otherwise c = the copies of the maximum works)."""
    n = inp.int()
    a = inp.ints(n)
    if says_impossible(out, len(set(a)) > 1):
        return
    lb, lc = out.int(1, n), out.int(1, n)
    expect(lb + lc == n, "l_b + l_c is not n")
    b, c = out.ints(lb), out.ints(lc)
    expect_rearrangement(b + c, a)
    expect(not any(x % y == 0 for x in set(b) for y in set(c)), "some c_j divides some b_i")


@special("1845A")
def forbidden_integer(inp: Tokens, out: Tokens) -> None:
    """1845A "Forbidden Integer": YES, a count m, then m integers in [1, k], none equal to
    x, summing to n; NO only if no such multiset exists (decided by a knapsack over the
    sums 0..n)."""
    n, k, x = inp.int(), inp.int(), inp.int()

    def possible():
        reach = [True] + [False] * n
        for total in range(1, n + 1):
            reach[total] = any(reach[total - v] for v in range(1, min(k, total) + 1) if v != x)
        return reach[n]
    if says_no(out, possible):
        return
    m = out.int(1, n)
    taken = out.ints(m, 1, k)
    expect(x not in taken, "uses the forbidden integer")
    expect(sum(taken) == n, "the sum is not n")


@special("1828A")
def divisible_array(inp: Tokens, out: Tokens) -> None:
    """1828A "Divisible Array": n integers in [1, 1000], a_i divisible by i, their sum
    divisible by n."""
    n = inp.int()
    a = out.ints(n, 1, 1000)
    expect(all(v % i == 0 for i, v in enumerate(a, 1)), "some a_i is not divisible by i")
    expect(sum(a) % n == 0, "the sum is not divisible by n")


def _same_sign_pairs(ones: int, n: int) -> int:
    return ones * (ones - 1) // 2 + (n - ones) * (n - ones - 1) // 2


@special("1823A")
def a_characteristic(inp: Tokens, out: Tokens) -> None:
    """1823A "A-characteristic": YES and n numbers, each 1 or -1, with exactly k pairs i < j
    of equal sign; NO only if no count of ones gives k pairs (all counts are tried)."""
    n, k = inp.int(), inp.int()
    if says_no(out, any(_same_sign_pairs(ones, n) == k for ones in range(n + 1))):
        return
    a = out.ints(n)
    expect(set(a) <= {1, -1}, "a number other than 1 and -1")
    expect(_same_sign_pairs(a.count(1), n) == k, "the A-characteristic is not k")


@special("1790B")
def taisia_and_dice(inp: Tokens, out: Tokens) -> None:
    """1790B "Taisia and Dice": n dice values in [1, 6], in any order, summing to s, whose
    maximum is s - r (the stolen die is a maximum and the rest sum to r)."""
    n, s, r = inp.int(), inp.int(), inp.int()
    a = out.ints(n, 1, 6)
    expect(sum(a) == s, "the values do not sum to s")
    expect(max(a) == s - r, "the largest value is not s - r")


@special("1783A")
def make_it_beautiful(inp: Tokens, out: Tokens) -> None:
    """1783A "Make it Beautiful": YES and a reordering of a in which no element equals the
    sum of the elements before it, or NO only if all elements are equal (then the second
    equals the first; otherwise the largest first, then the rest ascending, works).  YES
    and NO in any letter case: an accepted human solution prints "Yes"."""
    n = inp.int()
    a = inp.ints(n)
    if says_no(out, len(set(a)) > 1, any_case=True):
        return
    b = out.ints(n)
    expect_rearrangement(b, a)
    before = 0
    for v in b:
        expect(v != before, f"{v} equals the sum before it")
        before += v


def _generated_from(first: int, second: int, rest: Counter) -> bool:
    """Can the numbers ``rest`` be written, one by one, each as |u - v| of two numbers
    already on the board (two different entries), starting from ``first`` and ``second``?
    Writing a number never prevents a later one, so writing whatever can be written until
    nothing more can is exact."""
    board, todo = Counter([first, second]), Counter(rest)
    while todo:
        ready = [v for v in todo if (v == 0 and max(board.values()) >= 2)
                 or (v > 0 and any(u + v in board for u in board))]
        if not ready:
            return False
        for v in ready:
            board[v] += todo.pop(v)
    return True


@special("1838A")
def blackboard_list(inp: Tokens, out: Tokens) -> None:
    """1838A "Blackboard List": one integer x that can be one of the two initial numbers:
    x is on the list and, with some other entry y as its partner, every remaining number
    can be written as the absolute difference of two numbers already written."""
    n = inp.int()
    a = inp.ints(n)
    x = out.int()
    expect(x in a, f"{x} is not on the list")
    rest = Counter(a)
    rest[x] -= 1
    negatives = [v for v in rest.elements() if v < 0]  # a difference is never negative
    partners = set(negatives) if negatives else set(rest.elements())
    expect(any(_generated_from(x, y, rest - Counter([y])) for y in partners),
           f"{x} cannot be one of the initial numbers")
