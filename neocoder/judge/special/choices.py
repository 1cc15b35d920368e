"""Checkers for problems whose answer picks indices of the input: a video, three
numbers, a swap, a subarray."""

from __future__ import annotations

from neocoder.judge.special.base import Tokens, expect, says_impossible, says_no, special


@special("1822A")
def tubetube_feed(inp: Tokens, out: Tokens) -> None:
    """1822A "TubeTube Feed": the index i of a video that fits in t seconds (i - 1 seconds of
    skipping plus a_i) with the largest entertainment b_i among those that fit; -1 only if
    none fits."""
    n, t = inp.int(), inp.int()
    a, b = inp.ints(n), inp.ints(n)
    fits = [i for i in range(n) if i + a[i] <= t]
    if says_impossible(out, bool(fits)):
        return
    i = out.int(1, n) - 1
    expect(i in fits, f"video {i + 1} does not fit in t seconds")
    expect(b[i] == max(b[j] for j in fits), f"video {i + 1} is not the most entertaining that fits")


@special("1780A")
def hayato_and_school(inp: Tokens, out: Tokens) -> None:
    """1780A "Hayato and School": YES and three distinct indices in [1, n] whose numbers
    have an odd sum; NO only if there are neither three odd numbers nor one odd and two
    even."""
    n = inp.int()
    a = inp.ints(n)
    odd = sum(v % 2 for v in a)
    if says_no(out, odd >= 3 or (odd >= 1 and n - odd >= 2)):
        return
    chosen = out.ints(3, 1, n)
    expect(len(set(chosen)) == 3, "the indices are not distinct")
    expect(sum(a[i - 1] for i in chosen) % 2 == 1, "the sum is even")


def _all_lit(lamps: str) -> bool:
    """Every trophy has an R lamp to its left or an L lamp to its right."""
    n = len(lamps)
    r_before = [False] * n
    for i in range(1, n):
        r_before[i] = r_before[i - 1] or lamps[i - 1] == "R"
    l_after = False
    for i in range(n - 1, -1, -1):
        if not (r_before[i] or l_after):
            return False
        l_after = l_after or lamps[i] == "L"
    return True


@special("1779A")
def hall_of_fame(inp: Tokens, out: Tokens) -> None:
    """1779A "Hall of Fame": 0 (no swap) or an index i in [1, n-1] (swap lamps i and i+1)
    after which every trophy is lit; -1 only if all lamps point the same way (otherwise
    an "RL" is there or one swap of an "LR" makes it, and R then L lights everything)."""
    n = inp.int()
    lamps = inp.word()
    if says_impossible(out, len(set(lamps)) > 1):
        return
    i = out.int(0, n - 1)
    if i:
        lamps = lamps[:i - 1] + lamps[i] + lamps[i - 1] + lamps[i + 1:]
    expect(_all_lit(lamps), "a trophy stays dark")


@special("1764A")
def doremys_paint(inp: Tokens, out: Tokens) -> None:
    """1764A "Doremy's Paint": l <= r in [1, n] with r - l - c(l, r) as large as possible:
    n - 1 - c(1, n) (widening a segment by one adds 1 to r - l and at most 1 to c)."""
    n = inp.int()
    a = inp.ints(n)
    left, right = out.int(1, n), out.int(1, n)
    expect(left <= right, "l > r")
    expect(right - left - len(set(a[left - 1:right])) == n - 1 - len(set(a)), "r - l - c(l, r) is not the maximum")
