"""What self-correction shows the model after an attempt: the example tests' verdicts
(input, expected output, produced output, the error) and the constraints the detector
found violated.  Nothing from the extended tests: ``Trial`` only ever holds the
examples (strategies/base.py ``Context.try_examples``)."""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Trial

MAX_SHOWN = 2  # failing example tests quoted in full; the rest are counted
MAX_CHARS = 400  # per quoted input or output


def _clip(text: str) -> str:
    text = text.rstrip("\n")
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + f"... ({len(text) - MAX_CHARS} more characters)"


def describe(trial: Trial, tests: list[dict]) -> str:
    """The feedback text for ``trial`` on the example ``tests`` (the same list, in order).

    Lists, for up to MAX_SHOWN failing tests, the input, the expected output (where the
    test has one), what the program printed and the verdict's detail; then the violated
    constraints; for a reply with no program (``trial.no_program``), that it held none and
    why.  Returns "" when every example is AC and no constraint is violated.
    """
    if trial.no_program:  # nothing was judged: say why, or the loop would take silence for success
        return (f"Your reply held no program ({trial.no_program}). Answer with the whole program, "
                "in one fenced code block.")
    lines = []
    if trial.compile_error:
        lines.append(f"The program does not compile: {_clip(trial.compile_error)}")
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
