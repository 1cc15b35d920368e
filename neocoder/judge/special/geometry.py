"""Checkers for problems whose answer is made of points, cells or a board."""

from __future__ import annotations

from math import gcd

from neocoder.judge.special.base import Tokens, expect, expect_rearrangement, special


@special("1895B")
def points_and_minimum_distance(inp: Tokens, out: Tokens) -> None:
    """1895B "Points and Minimum Distance": the shortest path length, then n points whose
    2n coordinates are exactly the given numbers, whose path in the printed order has that
    length; the shortest is (a_n - a_1) + (a_2n - a_n+1) over the sorted numbers (the
    smaller half as x, the larger as y, points sorted: x and y each only ever grow)."""
    n = inp.int()
    a = sorted(inp.ints(2 * n))
    length = out.int()
    expect(length == a[n - 1] - a[0] + a[2 * n - 1] - a[n], f"{length} is not the shortest path length")
    points = [(out.int(), out.int()) for _ in range(n)]
    expect_rearrangement([v for point in points for v in point], a)
    walked = sum(abs(x1 - x2) + abs(y1 - y2) for (x1, y1), (x2, y2) in zip(points, points[1:]))
    expect(walked == length, f"the path through the points is {walked} long, not {length}")


@special("1816A")
def ian_visits_mary(inp: Tokens, out: Tokens) -> None:
    """1816A "Ian Visits Mary": 1 or 2 jumps, then the positions after each, with
    coordinates in [0, 10^9], the last (a, b); no lattice point lies strictly inside a
    jump from (0, 0) through the positions (gcd of the coordinate differences at most 1;
    a jump may stay in place)."""
    a, b = inp.int(), inp.int()
    jumps = out.int(1, 2)
    path = [(0, 0)] + [(out.int(0, 10**9), out.int(0, 10**9)) for _ in range(jumps)]
    expect(path[-1] == (a, b), "the last position is not (a, b)")
    expect(all(gcd(x2 - x1, y2 - y1) <= 1 for (x1, y1), (x2, y2) in zip(path, path[1:])),
           "a jump passes over a lattice point")


_KNIGHT = [(dr, dc) for dr in (-2, -1, 1, 2) for dc in (-2, -1, 1, 2) if abs(dr) != abs(dc)]


@special("1739A")
def immobile_knight(inp: Tokens, out: Tokens) -> None:
    """1739A "Immobile Knight": a cell (row in [1, n], column in [1, m]) from which a knight
    has no move on the board, or any cell if the board has no such cell."""
    n, m = inp.int(), inp.int()

    def isolated(r, c):
        return not any(1 <= r + dr <= n and 1 <= c + dc <= m for dr, dc in _KNIGHT)
    r, c = out.int(1, n), out.int(1, m)
    some = any(isolated(i, j) for i in range(1, n + 1) for j in range(1, m + 1))
    expect(isolated(r, c) or not some, f"({r}, {c}) is not isolated, but an isolated cell exists")


@special("1734B")
def bright_nice_brilliant(inp: Tokens, out: Tokens) -> None:
    """1734B "Bright, Nice, Brilliant": n rows of 0/1 torches, row i with i of them, such
    that every room of floor i has brightness i: the pyramid is nice, and its brilliance
    is n(n+1)/2, the largest (room (i, 1) is reached from i rooms only)."""
    n = inp.int()
    torch = [out.ints(i, 0, 1) for i in range(1, n + 1)]
    # lit[i][j]: torches in the cone above room (i, j), 1-based with zero borders; the cone
    # of (i, j) is (i, j) with the cones of (i-1, j-1) and (i-1, j), which share (i-2, j-1)'s
    lit = [[0] * (n + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            above = lit[i - 1][j - 1] + lit[i - 1][j] - (lit[i - 2][j - 1] if i >= 2 else 0)
            lit[i][j] = above + (torch[i - 1][j - 1] if j <= i else 0)
        expect(all(lit[i][j] == i for j in range(1, i + 1)), f"floor {i} is not uniformly lit with brightness {i}")
