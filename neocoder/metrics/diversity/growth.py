"""Inputs of growing size made from a problem's example inputs (issue 25, classes by execution).

The extended-test mutator (``neocoder.dataset.mutate``) keeps every length fixed, so it
cannot show how a program's cost grows.  This generator grows one example test case:

1. **cases**: an example input whose first row is a lone integer ``t`` is read as ``t``
   test cases.  The rows after it are split either by a header rule (a case is its first
   row plus ``v`` or ``v + 1`` rows, ``v`` an integer of that first row, the same position
   for every case) or, failing that, into ``t`` equal chunks.  Anything else is one case
   with no test count.  The *template* is the case with the most tokens over all
   examples (larger cases make fewer coincidental size matches).
2. **structural sizes** (the size parameter ``n``): an integer ``v >= 2`` of a case row
   that equals the number of rows after it in the case (``rows``), the token count of a
   later row of at least three tokens, or half of it, or one more (``len``: ``n``, ``2n`` or
   ``n - 1`` tokens), the length of a later one-token row (``chars``: a string), or, as
   the first token, the count of the other tokens of its own row (``n a1 .. an``).  Every
   structural integer is set to ``n``; every row it sizes is resized to ``n`` tokens
   (integers drawn uniformly from the row's own range; a row that is a permutation of
   ``1..k`` becomes a permutation of ``1..n``) or ``n`` characters (from the string's own
   alphabet); a ``rows`` size repeats the rows after it cyclically to ``n`` rows.  A grid
   ``n m`` therefore grows as ``n x n``: its input has ``n^2`` cells and ``n`` means its
   side.
3. **no structural size**: a one-token string row grows to ``n`` characters; failing
   that, the integer with the largest absolute value in the case is set to ``n`` (the
   problems whose only size is a value, "loop to n").
4. The grown input keeps the test count, as ``1`` (one case), when the example had one.

``n`` runs over ``DEFAULT_SIZES`` (powers of two from 8) and stops at the first input over
``MAX_INPUT_BYTES``.  Relations the examples cannot show (``k <= n``, "an answer exists")
are not modelled: ``validate.validated_inputs`` keeps a size only where accepted human
solutions run it cleanly and agree, as the oracle does for extended tests.

A problem cannot be grown (``growth_inputs`` returns ``[]``) when its examples have no
usable row (empty input), or when the grown inputs are all equal (nothing to grow, e.g. a
case that is only fixed words with no integer).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

from neocoder.records import ProblemState

_INT = re.compile(r"-?\d+\Z")
DEFAULT_SIZES = tuple(2 ** k for k in range(3, 16))  # 8 .. 32768
MAX_INPUT_BYTES = 1 << 20  # one grown input; all sizes of a submission must fit the runner's 4 MiB message
MIN_SIZE_VALUE = 2  # an integer below this is never taken for a size (1 matches too much by chance)
MIN_ROW_TOKENS = 3  # a row sized by an integer has at least this many tokens (pairs "a b" match by chance)


@dataclass(frozen=True)
class GrowthInput:
    """One grown input: ``n`` is its size parameter (module docstring), ``input`` the text."""

    n: int
    input: str


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip("\n").split("\n") if line.strip()]


def _is_int(tok: str) -> bool:
    return bool(_INT.match(tok))


def _header_split(body: list[list[str]], t: int) -> list[list[list[str]]] | None:
    """Cases by a header rule: case = first row + v (+1) rows, v at one fixed position."""
    if not body:
        return None
    for j in range(len(body[0])):
        for extra in (0, 1):
            cases, i = [], 0
            while i < len(body) and len(cases) < t:
                head = body[i]
                if j >= len(head) or not _is_int(head[j]) or int(head[j]) < 0:
                    break
                size = 1 + extra + int(head[j])
                cases.append(body[i:i + size])
                i += size
            if len(cases) == t and i == len(body) and len({len(c) for c in cases}) > 1:
                return cases
    return None


def split_cases(rows: list[list[str]]) -> tuple[bool, list[list[list[str]]]]:
    """(has a test count, the cases) of one example input read as rows of tokens."""
    if len(rows) > 1 and len(rows[0]) == 1 and _is_int(rows[0][0]) and int(rows[0][0]) >= 1:
        t, body = int(rows[0][0]), rows[1:]
        if t == 1:
            return True, [body]
        by_header = _header_split(body, t)
        if by_header:
            return True, by_header
        if len(body) % t == 0:
            size = len(body) // t
            return True, [body[k * size:(k + 1) * size] for k in range(t)]
    return False, [rows]


def _template(examples: list[str]) -> tuple[bool, list[list[str]]] | None:
    """The example case with the most tokens, and whether its input has a test count."""
    best = None
    for text in examples:
        rows = _rows(text)
        if not rows:
            continue
        has_t, cases = split_cases(rows)
        for case in cases:
            size = sum(len(r) for r in case)
            if case and (best is None or size >= best[0]):
                best = (size, has_t, case)
    return None if best is None else (best[1], best[2])


def structure(case: list[list[str]]) -> dict:
    """The structural sizes of a case: ``{"sizes": {(i, j)}, "rows": {i: header row},
    "len": {row index: (a, b): the row has a*v + b tokens, (1, 0), (2, 0) or (1, -1)},
    "chars": {row index}, "same_row": {row index}}``."""
    sizes, rows_of, lens, chars, same = set(), {}, {}, set(), set()
    for i, row in enumerate(case):
        for j, tok in enumerate(row):
            if not _is_int(tok) or int(tok) < MIN_SIZE_VALUE:
                continue
            v = int(tok)
            hit = False
            if v == len(case) - i - 1 and i not in rows_of.values():
                rows_of[i + 1] = i
                hit = True
            for k in range(i + 1, len(case)):
                later = case[k]
                if len(later) >= MIN_ROW_TOKENS and len(later) in (v, 2 * v, v - 1):
                    lens[k] = (2, 0) if len(later) == 2 * v else (1, len(later) - v)
                    hit = True
                elif len(later) == 1 and len(later[0]) == v and _is_word(later[0]):
                    chars.add(k)
                    hit = True
            if j == 0 and len(row) - 1 == v:
                same.add(i)
                hit = True
            if hit:
                sizes.add((i, j))
    return {"sizes": sizes, "rows": rows_of, "len": lens, "chars": chars, "same_row": same}


def _is_word(tok: str) -> bool:
    """A string rather than a number: not an integer, or digits with a leading zero or only 0/1."""
    return not _is_int(tok) or tok[0] == "0" or (len(tok) > 1 and set(tok) <= {"0", "1"})


def _fill_ints(tokens: list[str], n: int, rng: random.Random) -> list[str]:
    values = [int(t) for t in tokens if _is_int(t)]
    if not values:
        return [rng.choice(tokens) for _ in range(n)]
    if sorted(values) == list(range(1, len(values) + 1)):
        perm = list(range(1, n + 1))
        rng.shuffle(perm)
        return [str(v) for v in perm]
    lo, hi = min(values), max(values)
    return [str(rng.randint(lo, hi)) for _ in range(n)]


def _fill_chars(word: str, n: int, rng: random.Random) -> str:
    alphabet = sorted(set(word))
    return "".join(rng.choice(alphabet) for _ in range(n))


def _grow_structural(case: list[list[str]], info: dict, n: int, rng: random.Random) -> list[list[str]]:
    def row(k: int) -> list[str]:
        if k in info["len"]:
            a, b = info["len"][k]
            return _fill_ints(case[k], a * n + b, rng)
        if k in info["chars"]:
            return [_fill_chars(case[k][0], n, rng)]
        if k in info["same_row"]:
            return [str(n)] + _fill_ints(case[k][1:], n, rng)
        return list(case[k])

    grown = [row(k) for k in range(len(case))]
    for i, j in info["sizes"]:
        if i not in info["len"] and i not in info["chars"] and not (i in info["same_row"] and j == 0):
            grown[i][j] = str(n)
    for start in sorted(info["rows"], reverse=True):
        if start < len(case):
            block = len(case) - start
            grown = grown[:start] + [row(start + r % block) for r in range(n)]
    return grown


def _grow_value(case: list[list[str]], n: int, rng: random.Random) -> list[list[str]] | None:
    grown = [list(r) for r in case]
    words = [(i, j) for i, r in enumerate(case) for j, t in enumerate(r) if not _is_int(t) and len(r) == 1]
    if words:
        i, j = words[-1]
        grown[i][j] = _fill_chars(case[i][j], n, rng)
        return grown
    ints = [(abs(int(t)), i, j) for i, r in enumerate(case) for j, t in enumerate(r) if _is_int(t)]
    if not ints:
        return None
    _, i, j = max(ints)
    grown[i][j] = str(n)
    return grown


def grow_case(case: list[list[str]], n: int, seed: str) -> list[list[str]] | None:
    """The case grown to size ``n`` (module docstring), deterministic for ``seed``; None when
    it has nothing to grow."""
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{seed}:{n}".encode()).digest()[:8], "big"))
    info = structure(case)
    if info["sizes"]:
        return _grow_structural(case, info, n, rng)
    return _grow_value(case, n, rng)


def growth_inputs(state: ProblemState, sizes=DEFAULT_SIZES) -> list[GrowthInput]:
    """Inputs of growing size for ``state`` (module docstring), one per ``n`` in ``sizes``
    (ascending), up to the first over MAX_INPUT_BYTES; ``[]`` when the problem cannot be
    grown.  Unvalidated: ``validate.validated_inputs`` keeps the sizes humans agree on."""
    template = _template([t["input"] for t in state.tests])
    if template is None:
        return []
    has_t, case = template
    out: list[GrowthInput] = []
    for n in sorted(sizes):
        grown = grow_case(case, n, state.problem_id)
        if grown is None:
            return []
        text = ("1\n" if has_t else "") + "\n".join(" ".join(r) for r in grown) + "\n"
        if len(text.encode()) > MAX_INPUT_BYTES:
            break
        out.append(GrowthInput(n, text))
    if len({g.input for g in out}) < 2:
        return []
    return out
