"""New test inputs by type-aware mutation of a problem's example inputs.

An input is read as rows of whitespace-separated tokens.  Each token is an integer or a
word.  Mutations keep the input format by construction:

- **no length changes**: rows keep their token count and words their length, so an
  array keeps matching its ``n`` and a grid its ``n m``;
- **structural integers are frozen**: the leading test count (a lone integer on the
  first row) and every integer that could be a size - it equals the number of rows or
  tokens after it, the length of a later word or row, or half or double of one - are
  never changed, so the test count stays consistent with the cases that follow;
- **values stay in the observed ranges**: an integer is redrawn from the range that
  its column (same row width and position; long rows pool their tokens) takes across
  all the problem's examples, which satisfy the statement's bounds, with the ends of
  the range favoured; a word's letters are redrawn from the alphabet of its column;
- **permutations**: the tokens of a row with no structural integer are shuffled
  (multisets, hence permutations, distinctness and sums, are kept).

Relations between values that the examples cannot show (``a <= b``, "it is guaranteed
that an answer exists") are not modelled: a candidate is only kept as a test where
every accepted human solution that ran it agrees on the output (neocoder/oracle.py).
"""

from __future__ import annotations

import hashlib
import random
import re

_INT = re.compile(r"-?\d+\Z")
LONG_ROW = 5  # rows with at least this many tokens are arrays: one pooled column


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip("\n").split("\n")]


def _column(row: list[str], j: int) -> tuple:
    return ("long",) if len(row) >= LONG_ROW else (len(row), j)


def _structural(rows: list[list[str]]) -> set[tuple[int, int]]:
    """Positions (row, token) of integers that may be sizes or the test count."""
    frozen = set()
    if rows and len(rows[0]) == 1 and _INT.match(rows[0][0]):
        frozen.add((0, 0))
    for i, row in enumerate(rows):
        later = rows[i + 1:]
        sizes = {len(later)} | {len(r) for r in later} | {len(t) for r in later for t in r}
        sizes |= {len(row) - 1}  # "n a1 ... an" on one row
        sizes |= {2 * s for s in sizes} | {s // 2 for s in sizes}
        for j, tok in enumerate(row):
            if _INT.match(tok) and int(tok) in sizes:
                frozen.add((i, j))
    return frozen


def _digit_words(examples: list[list[list[str]]]) -> set[tuple]:
    """Columns whose digits are strings, not numbers: a token with a leading zero, or
    only 0/1 digits with some token longer than one (binary strings such as 0110)."""
    tokens: dict[tuple, list[str]] = {}
    for rows in examples:
        for row in rows:
            for j, tok in enumerate(row):
                tokens.setdefault(_column(row, j), []).append(tok)
    words = set()
    for key, toks in tokens.items():
        digits = [t for t in toks if t.isdigit()]
        if any(len(t) > 1 and t[0] == "0" for t in digits) or (
                digits and all(set(t) <= {"0", "1"} for t in digits) and any(len(t) > 1 for t in digits)):
            words.add(key)
    return words


def _profile(examples: list[list[list[str]]], digit_words: set[tuple]):
    """Per column: (min, max) of its integers, and the alphabet of its words
    (structural integers left out: a test count says nothing about the values)."""
    ints: dict[tuple, list[int]] = {}
    letters: dict[tuple, set[str]] = {}
    for rows in examples:
        frozen = _structural(rows)
        for i, row in enumerate(rows):
            for j, tok in enumerate(row):
                if (i, j) in frozen:
                    continue
                key = _column(row, j)
                if _INT.match(tok) and key not in digit_words:
                    ints.setdefault(key, []).append(int(tok))
                else:
                    letters.setdefault(key, set()).update(tok)
    return {k: (min(v), max(v)) for k, v in ints.items()}, {k: sorted(v) for k, v in letters.items()}


def mutate_inputs(examples: list[str], count: int, seed: str) -> list[str]:
    """Up to ``count`` distinct new inputs made from ``examples`` (the example inputs of
    one problem), deterministic for a given ``seed`` (e.g. "0:1742A").

    Returns inputs ending in one newline; never an input equal to an example.  Problems
    whose examples leave nothing to change (every integer structural, no words) give
    fewer or none.
    """
    parsed = [_rows(e) for e in examples if e.strip()]
    if not parsed:
        return []
    digit_words = _digit_words(parsed)
    ranges, alphabets = _profile(parsed, digit_words)

    def is_int(row, j):
        return bool(_INT.match(row[j])) and _column(row, j) not in digit_words

    rng = random.Random(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
    seen = {"\n".join(" ".join(r) for r in rows) for rows in parsed}
    out: list[str] = []
    for _ in range(count * 8):
        if len(out) >= count:
            break
        rows = [list(r) for r in rng.choice(parsed)]
        frozen = _structural(rows)
        free_ints = [(i, j) for i, r in enumerate(rows) for j, t in enumerate(r)
                     if is_int(r, j) and (i, j) not in frozen and _column(r, j) in ranges
                     and ranges[_column(r, j)][0] < ranges[_column(r, j)][1]]
        words = [(i, j) for i, r in enumerate(rows) for j, t in enumerate(r)
                 if not is_int(r, j) and (i, j) not in frozen and len(alphabets.get(_column(r, j), ())) > 1]
        shuffles = [i for i, r in enumerate(rows) if len(r) > 1 and not any((i, j) in frozen for j in range(len(r)))
                    and len(set(r)) > 1]
        ops = [op for op, able in (("int", free_ints), ("word", words), ("shuffle", shuffles)) if able]
        if not ops:
            return out
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(ops)
            if op == "int":
                i, j = rng.choice(free_ints)
                lo, hi = ranges[_column(rows[i], j)]
                rows[i][j] = str(rng.choice([lo, hi, rng.randint(lo, hi), rng.randint(lo, hi)]))
            elif op == "word":
                i, j = rng.choice(words)
                chars = list(rows[i][j])
                alphabet = alphabets[_column(rows[i], j)]
                for k in rng.sample(range(len(chars)), rng.randint(1, max(1, len(chars) // 2))):
                    chars[k] = rng.choice(alphabet)
                rows[i][j] = "".join(chars)
            else:
                rng.shuffle(rows[rng.choice(shuffles)])
        text = "\n".join(" ".join(r) for r in rows)
        if text not in seen:
            seen.add(text)
            out.append(text + "\n")
    return out
