"""Verdicts and output comparison (host side of the judge).

CE (compile error) is the verdict on every test of a C++ program that g++ did not
compile (or that was too large to send); a Python program that does not compile stays RE
on every test, as it always was.

SKIPPED is not a verdict on the program: a test not run because an earlier test of
the same submission failed (``PooledSandbox.run(..., stop_at_first_failure=True)``).
It is never AC, so a submission with a skipped test is not accepted.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from neocoder.config import CPP, LANGUAGES, PYTHON  # noqa: F401  (re-exported: the judge's languages)

AC, WA, TLE, MLE, RE, OLE, INFRA = "AC", "WA", "TLE", "MLE", "RE", "OLE", "INFRA"
CE = "CE"
SKIPPED = "SKIPPED"
VERDICTS = (AC, WA, TLE, MLE, RE, OLE, CE, INFRA, SKIPPED)
# The languages the sandbox judges (``Sandbox.run(..., language=...)``, CPP, LANGUAGES,
# PYTHON) are declared once, in neocoder/config.py, and imported above.


# Terminal escape sequences (CSI, OSC, and the two-character ones), then every other C0 and
# C1 control character but newline and tab, and the Unicode bidirectional overrides.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)"
                      r"|\x9b[0-?]*[ -/]*[@-~]?|\x9d[^\x07\x9c]*[\x07\x9c]?")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str | None) -> str | None:
    """``text`` safe to print or render: escape sequences removed whole, every other
    control character (C0 but newline and tab, DEL, C1, bidirectional overrides) removed;
    None stays None.  Used where every verdict detail, compile error and output head is
    made (TestVerdict, SubmissionResult), so a program's exception name, its stderr or
    g++'s messages never reach a terminal or a page raw."""
    if text is None:
        return None
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def tokens_equal(actual: bytes, expected: str) -> bool:
    """Output comparison v1: equal sequences of whitespace-separated tokens.

    Works on bytes, so binary output, NUL bytes, invalid UTF-8 and ``\\r\\n`` line
    ends never raise; the expected text is encoded as UTF-8.
    """
    return actual.split() == expected.encode("utf-8").split()


@dataclass
class TestVerdict:
    """The judge's finding on one test.

    Times are seconds (CPU: user + system of the whole process tree where the backend
    has a cgroup, else of the test process), ``max_rss_kb`` is the test process's
    peak resident memory in KiB, ``peak_cgroup_kb`` the container's peak memory
    charge sampled every 5 ms (Docker backend; includes the runner and tmpfs files);
    ``detail`` names the exception, signal or sandbox failure; ``stdout_head`` is the
    first 200 characters of output, for reading;
    ``stdout_sha256`` identifies the whole output up to whitespace (what the checkers
    compare), so two programs' outputs can be compared without storing them;
    ``output_cut``: the runner kept only part of stdout (the submission's output cap,
    protocol.OUTPUT_CAP_BYTES, was spent).  ``detail`` and ``stdout_head`` are made
    ``printable`` here.
    """

    verdict: str
    cpu_seconds: float | None = None
    wall_seconds: float | None = None
    max_rss_kb: int | None = None
    peak_cgroup_kb: int | None = None
    detail: str | None = None
    stdout_head: str = ""
    stdout: str | None = None  # whole output, only when asked for (keep_output)
    stdout_sha256: str | None = None  # first 16 hex of SHA-256 of the output's tokens (a program that ran to its end)
    output_cut: bool = False  # stdout past what was left of the submission's output cap was dropped

    def __post_init__(self):
        self.detail = printable(self.detail)
        self.stdout_head = printable(self.stdout_head)

    @property
    def behaviour(self) -> str:
        """What the program did on this test, for grouping programs by behaviour (semantic
        entropy's classes): its output's token hash when it ran to its end, else its verdict."""
        return self.stdout_sha256 or self.verdict

    def to_dict(self) -> dict:
        """The test as a JSON object, without ``stdout`` and ``stdout_sha256`` when they are None
        and without ``output_cut`` when it is False (a record keeps its layout)."""
        d = asdict(self)
        for optional in ("stdout", "stdout_sha256"):
            if d[optional] is None:
                del d[optional]
        if not d["output_cut"]:
            del d["output_cut"]
        return d


# How the runner entered a program (sandbox/runner/contract.py ``prepare``), for ``entry_rule``.
ENTRY_RULES = {
    "runner_calls_solve": "no top-level statement calls solve(): the runner calls it once per test",
    "program_calls_solve": "the program calls solve() itself (a call, a driver loop, main(), another name): "
                           "run as written",
    "harness_removed": "a test harness (patched stdin, asserts, sample inputs, mocks) was removed: "
                       "the runner calls solve() once per test",
    "no_solve": "no zero-argument solve(): run as written",
    "script": "run as written, as asked (human solutions)",
    "compiled": "a C++ program compiled by g++ (sandbox/runner/native.py) and its binary run as written",
}


@dataclass
class SubmissionResult:
    """All tests of one submission.

    ``entry`` is "solve" (the runner called solve() per test), "script" (run as
    written) or None (it did not compile, or was refused for its size);
    ``entry_rule`` names the rule that decided it (ENTRY_RULES); ``calls_solve``:
    the program itself calls solve() (the instruction said not to: reported, never
    counted as wrong); ``worker`` names the container (or process) that judged it;
    ``compile_seconds`` is the CPU time (s) of g++ for a C++ program (None for Python, or
    when g++ never ran).
    """

    tests: list = field(default_factory=list)
    entry: str | None = None
    compile_error: str | None = None
    seconds: float = 0.0
    reset_problem: str | None = None  # set when the sandbox was not clean afterwards
    entry_rule: str | None = None
    calls_solve: bool = False
    worker: str | None = None
    compile_seconds: float | None = None

    def __post_init__(self):
        self.compile_error = printable(self.compile_error)

    @property
    def output_cut(self) -> bool:
        """True when any test's stdout was cut at the submission's output cap
        (protocol.OUTPUT_CAP_BYTES): the outputs returned are not whole."""
        return any(t.output_cut for t in self.tests)

    @property
    def verdicts(self) -> list[str]:
        """Each test's verdict, in test order."""
        return [t.verdict for t in self.tests]

    @property
    def accepted(self) -> bool:
        """AC on every test (and at least one test); a skipped test is not AC."""
        return bool(self.tests) and all(v == AC for v in self.verdicts)

    @property
    def skipped(self) -> int:
        """Tests not run because an earlier one failed (stop_at_first_failure)."""
        return sum(v == SKIPPED for v in self.verdicts)

    @property
    def infra_failure(self) -> bool:
        """True if any test could not be judged; such a sample is not the model's fault."""
        return any(v == INFRA for v in self.verdicts)

    def to_dict(self) -> dict:
        """The submission as a JSON object: entry, entry rule, ``calls_solve``, compile error,
        seconds (rounded to 0.1 ms), skipped count and each test's ``to_dict``, and
        ``compile_seconds`` where g++ ran (C++ only, so a Python record keeps its layout);
        not ``reset_problem`` nor ``worker``."""
        d = {"entry": self.entry, "entry_rule": self.entry_rule, "calls_solve": self.calls_solve,
             "compile_error": self.compile_error, "seconds": round(self.seconds, 4), "skipped": self.skipped,
             "tests": [t.to_dict() for t in self.tests]}
        if self.compile_seconds is not None:
            d["compile_seconds"] = self.compile_seconds
        return d
