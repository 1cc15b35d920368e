"""Reading a Codeforces statement: its Example blocks and its resource limits.

Statements in the NeoCoder release keep Codeforces' line structure: after a line
``Example`` (or ``Examples``) come one or more pairs of an ``Input`` line with the
stdin rows below it and an ``Output`` line with the expected rows, ended by the
next ``Input``, a ``Note`` line, or the end of the text.
"""

from __future__ import annotations

import re

_SECTION_END = {"Note", "Notes"}


def parse_examples(statement: str) -> list[dict]:
    """Return the statement's example tests as ``[{"input": str, "output": str}]``.

    Each text ends with exactly one newline; surrounding blank rows are dropped.
    Returns ``[]`` when there is no ``Example``/``Examples`` heading, when a block is
    empty, or when Input and Output headings do not alternate; callers treat that as
    "cannot be parsed".
    """
    lines = statement.split("\n")
    heads = [i for i, line in enumerate(lines) if line.strip() in ("Example", "Examples")]
    if not heads:
        return []
    tests: list[dict] = []
    mode = None
    block: list[str] = []
    current: dict = {}

    def close():
        text = "\n".join(block).strip("\n")
        if not text.strip():
            return False
        current[mode] = "\n".join(row.rstrip() for row in text.split("\n")) + "\n"
        return True

    for line in lines[heads[-1] + 1:]:
        word = line.strip()
        if word == "Input":
            if mode == "input" or (mode == "output" and not close()):
                return []
            if mode == "output":
                tests.append(current)
            current, mode, block = {}, "input", []
        elif word == "Output":
            if mode != "input" or not close():
                return []
            mode, block = "output", []
        elif word in _SECTION_END:
            break
        elif mode is not None:
            block.append(line)
        elif word:
            return []  # text between the heading and the first Input
    if mode != "output" or not close():
        return []
    tests.append(current)
    return tests


def parse_limits(full_statement: str) -> tuple[float | None, int | None]:
    """Return (time limit in seconds, memory limit in MiB) from a crawled statement.

    The crawl keeps Codeforces' header lines ``time limit per test`` / ``2 seconds``
    and ``memory limit per test`` / ``256 megabytes``.  Missing values are None.
    """
    t = re.search(r"time limit per test\s*\n?\s*([\d.]+)\s*seconds?", full_statement)
    m = re.search(r"memory limit per test\s*\n?\s*(\d+)\s*megabytes?", full_statement)
    return (float(t.group(1)) if t else None, int(m.group(1)) if m else None)


_CASE_FREE = re.compile(
    r"in any (letter )?case|any register|letter case does not matter|case[- ]insensitive"
    r"|(upper|lower)case (and|or) (upper|lower)case letters|will be recogni[sz]ed as (a )?positive",
    re.I)
_SEVERAL = re.compile(
    r"(multiple|several|many|more than one) (possible |valid |correct |optimal )?(answers|solutions|ways)"
    r"|print any( one)? of them|output any( one)? of them|print any (such|valid|suitable|correct)"
    r"|output any (such|valid|suitable|correct)|you (can|may) (print|output) any", re.I)
# in the Output section: "print ... any funny permutation", "any of them is accepted"
_ANY_ANSWER = re.compile(
    r"\b(print|output)\b[^.]{0,60}?\bany\b(?!\s+(case|letter|register|order|of the letters|other|\(possibly|number))"
    r"|\bany of them (is|are|will be) accepted", re.I)
_TOLERANCE = re.compile(
    r"(absolute|relative) (or (absolute|relative) )?error[^.]{0,120}?10\s*\^\s*\{?\s*-\s*(\d+)", re.I)


def choose_checker(statement: str) -> dict:
    """Pick how outputs are compared, from the statement's own words.

    Returns ``{"kind": "tokens" | "float" | "consensus", "ignore_case": bool,
    "tolerance": float | None}`` (the human oracle may later make it "special", a
    problem-specific checker, or consensus on human evidence), else "float" when the statement bounds the absolute or
    relative error (Codeforces semantics, tolerance 10^-k as written), "consensus" when
    it accepts any of several answers (an output is then accepted if some accepted human
    solution prints it; see neocoder/oracle.py), else exact "tokens"; ``ignore_case``
    when it lets YES/NO be printed in any letter case.
    """
    text = re.sub(r"\$\$\$", "", statement.replace("\n", " "))
    tolerance = _TOLERANCE.search(text)
    output = re.search(r"\bOutput\b(.*?)(\bExamples?\b|$)", text)
    several = _SEVERAL.search(text) or (output and _ANY_ANSWER.search(output.group(1)))
    kind = "float" if tolerance else "consensus" if several else "tokens"
    return {"kind": kind, "ignore_case": bool(_CASE_FREE.search(text)),
            "tolerance": 10.0 ** -int(tolerance.group(4)) if tolerance else None}


_HEADER = ("time limit per test", "memory limit per test", "input", "output")
CONSTRAINTS_HEADING = "Programming constraints: DO NOT use the following techniques"


def strip_header(full_statement: str) -> str:
    """A crawled statement without Codeforces' header block (time and memory limits, input
    and output files), as the release's state-0 statements read: title, then the text."""
    lines = full_statement.split("\n")
    out, i = lines[:1], 1
    while i < len(lines) and lines[i].strip() in _HEADER and i + 1 < len(lines):
        i += 2  # the header word and its value
    return "\n".join(out + lines[i:])


def with_constraints(statement: str, constraints: list[str]) -> str:
    """The statement with a Denial Prompting constraints block after its title line, one
    ``- technique`` line each, in the order given (callers pass newest first), as in the
    NeoCoder release; the statement itself when there are none."""
    if not constraints:
        return statement
    title, _, body = statement.partition("\n")
    block = "\n".join([CONSTRAINTS_HEADING] + [f"- {c}" for c in constraints])
    return f"{title}\n{block}\n{body}"


_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_EMPTY_FIRST_LINE = re.compile(r"Each test case consists of (\w+) lines\.\s*The first of them is empty", re.I)


def restore_blank_lines(statement: str) -> str:
    """The statement with the blank line before each test case put back into its Example
    Input block, when the Input section says each test case starts with an empty line and
    the example lost them (the page-to-text conversion drops empty lines; 1767A).

    The rule read from the statement: "Each test case consists of N lines. The first of
    them is empty." -> after the first line (t), each case is an empty line and N - 1
    rows.  A statement without that sentence, or whose example already has the blank
    lines or does not split into such cases, is returned unchanged.
    """
    m = _EMPTY_FIRST_LINE.search(statement)
    rows_per_case = _NUMBERS.get(m.group(1).lower(), 0) - 1 if m else 0
    if rows_per_case < 1:
        return statement
    lines = statement.split("\n")
    heads = [i for i, line in enumerate(lines) if line.strip() in ("Example", "Examples")]
    if not heads or heads[-1] + 1 >= len(lines) or lines[heads[-1] + 1].strip() != "Input":
        return statement
    start = heads[-1] + 2
    end = next((i for i in range(start, len(lines)) if lines[i].strip() == "Output"), None)
    block = lines[start:end] if end is not None else []
    if not block or any(not row.strip() for row in block) or not block[0].strip().isdigit():
        return statement
    cases = int(block[0].strip())
    if len(block) - 1 != cases * rows_per_case:
        return statement
    restored = [block[0]]
    for c in range(cases):
        restored += [""] + block[1 + c * rows_per_case:1 + (c + 1) * rows_per_case]
    return "\n".join(lines[:start] + restored + lines[end:])

