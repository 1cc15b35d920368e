"""What self-correction shows the model after an attempt: the example tests' verdicts
(input, expected output, produced output, the error) and the constraints the detector
found violated.  Nothing from the extended tests: ``Trial`` only ever holds the
examples (strategies/base.py ``Context.try_examples``).

In C++ a compile error is g++'s messages (the last 2 KiB of them, made printable by the
judge: judge/verdicts.py ``printable``, sandbox/runner/native.py); the feedback quotes
its ``error:`` lines, each with the line of the program it came from, rather than the
start of that tail, which for a template error is the middle of a library header's
instantiation trace.
"""

from __future__ import annotations

import re

from neocoder.benchmarks.neocoder.strategies.base import Trial
from neocoder.config import PYTHON

MAX_SHOWN = 2  # failing example tests quoted in full; the rest are counted
MAX_CHARS = 400  # per quoted input or output
ERRORS_SHOWN = 3  # C++: g++ error lines quoted; the rest are counted
ERROR_CHARS = 300  # C++: per quoted compiler line
# g++ names the source it read on stdin "<stdin>"; a library header by its full path
_ERROR = re.compile(r"(?:^|:\s)(?:fatal )?error:\s")
_OWN = re.compile(r"^<stdin>:(\d+):(\d+):\s*")
_HEADER = re.compile(r"^(?:/[^:\s/]+)+/([^:/\s]+):")


def _clip(text: str) -> str:
    text = text.rstrip("\n")
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + f"... ({len(text) - MAX_CHARS} more characters)"


def _compiler_line(line: str) -> str:
    """One g++ line made short: "<stdin>:5:26: " becomes "line 5, column 26: ", a
    header's path its file name; clipped to ERROR_CHARS."""
    line = _HEADER.sub(r"\1:", _OWN.sub(r"line \1, column \2: ", line.strip()))
    return line if len(line) <= ERROR_CHARS else line[:ERROR_CHARS] + "..."


def compiler_errors(text: str) -> str:
    """The part of C++ feedback that quotes a compile error ``text`` (g++'s messages, or
    the judge's own reason: a compile limit, a refused path).

    Up to ERRORS_SHOWN ``error:`` lines (each with the last "required from here" line of
    the program above it, for an error inside a library header), then how many more there
    were; a text with no ``error:`` line (the judge's own reason, or g++'s tail cut inside
    a long line) is quoted whole up to MAX_CHARS, else its last MAX_CHARS.  Each quoted
    line is at most ERROR_CHARS long, so the whole stays under 2 kB however long g++'s
    output.  ``text`` is printable already (the judge's SubmissionResult cleans it)."""
    lines = text.splitlines()
    errors, context = [], None
    for line in lines:
        if _OWN.match(line) and "required from" in line and not _ERROR.search(line):
            context = line  # "<stdin>:4:84:   required from here": the program's line that led into a header
        elif _ERROR.search(line):
            from_program = _OWN.match(line) is not None
            errors.append([_compiler_line(line)] + ([] if from_program or context is None
                                                    else ["  (" + _compiler_line(context) + ")"]))
            context = None
    if not errors:  # the judge's own reason, or a tail of g++'s output cut inside one long line: show its end
        text = text.strip()
        shown = text if len(text) <= MAX_CHARS else f"...{text[-MAX_CHARS:]} (the end of a longer message)"
        return f"The program does not compile: {shown}"
    shown = [part for error in errors[:ERRORS_SHOWN] for part in error]
    more = len(errors) - ERRORS_SHOWN
    return "\n".join(["The program does not compile. g++ (C++17) reported:", *shown]
                     + ([f"({more} more error{'s' if more > 1 else ''}.)"] if more > 0 else []))


def _no_program(trial: Trial, language: str) -> str:
    if language == PYTHON:
        return (f"Your reply held no program ({trial.no_program}). Answer with the whole program, "
                "in one fenced code block.")
    wrote = " It is written in Python, but this problem asks for C++." if trial.wrote_python else ""
    return (f"Your reply held no C++ program ({trial.no_program}).{wrote} Answer with the whole C++17 program, "
            "main() included, in one fenced ```cpp block.")


def describe(trial: Trial, tests: list[dict], language: str = PYTHON) -> str:
    """The feedback text for ``trial`` on the example ``tests`` (the same list, in order).

    Lists, for up to MAX_SHOWN failing tests, the input, the expected output (where the
    test has one), what the program printed and the verdict's detail; then the violated
    constraints; for a reply with no program (``trial.no_program``), that it held none and
    why.  Returns "" when every example is AC and no constraint is violated.  For
    ``language`` "cpp" a compile error is quoted by ``compiler_errors`` and a reply with no
    program is asked for C++ (and told it wrote Python, ``trial.wrote_python``).
    """
    if trial.no_program:  # nothing was judged: say why, or the loop would take silence for success
        return _no_program(trial, language)
    lines = []
    if trial.compile_error and language == PYTHON:
        lines.append(f"The program does not compile: {_clip(trial.compile_error)}")
    elif trial.compile_error:
        lines.append(compiler_errors(trial.compile_error))
    failing = [(i, v) for i, v in enumerate(trial.tests) if v.verdict != "AC"]
    if failing and not trial.compile_error:
        lines.append(f"It passed {trial.passed} of {len(trial.verdicts)} example tests.")
        for i, verdict in failing[:MAX_SHOWN]:
            test = tests[i]
            lines.append(f"Example test {i + 1}: {verdict.verdict}"
                         + (f" ({verdict.detail})" if verdict.detail else ""))
            lines.append("Input:\n" + _clip(test.get("input", "")))
            if test.get("output") is not None:
                lines.append("Expected output:\n" + _clip(test["output"]))
            lines.append("Your output:\n" + (_clip(verdict.stdout_head) if verdict.stdout_head else "(nothing)"))
        if len(failing) > MAX_SHOWN:
            lines.append(f"({len(failing) - MAX_SHOWN} more example tests failed.)")
    if trial.violated:
        lines.append("It uses techniques the programming constraints forbid: " + ", ".join(trial.violated) + ".")
    return "\n".join(lines)
