"""Verdicts and output comparison (host side of the judge)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

AC, WA, TLE, MLE, RE, OLE, INFRA = "AC", "WA", "TLE", "MLE", "RE", "OLE", "INFRA"
VERDICTS = (AC, WA, TLE, MLE, RE, OLE, INFRA)


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
    charge sampled every 5 ms (Docker backend; includes the runner and tmpfs files); ``detail`` names the exception, signal or sandbox
    failure; ``stdout_head`` is the first 200 characters of output, for reading.
    """

    verdict: str
    cpu_seconds: float | None = None
    wall_seconds: float | None = None
    max_rss_kb: int | None = None
    peak_cgroup_kb: int | None = None
    detail: str | None = None
    stdout_head: str = ""
    stdout: str | None = None  # whole output, only when asked for (keep_output)

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["stdout"] is None:
            del d["stdout"]
        return d


@dataclass
class SubmissionResult:
    """All tests of one submission: ``entry`` is "solve", "script", or None (compile error)."""

    tests: list = field(default_factory=list)
    entry: str | None = None
    compile_error: str | None = None
    seconds: float = 0.0
    reset_problem: str | None = None  # set when the sandbox was not clean afterwards

    @property
    def verdicts(self) -> list[str]:
        return [t.verdict for t in self.tests]

    @property
    def accepted(self) -> bool:
        """AC on every test (and at least one test)."""
        return bool(self.tests) and all(v == AC for v in self.verdicts)

    @property
    def infra_failure(self) -> bool:
        """True if any test could not be judged; such a sample is not the model's fault."""
        return any(v == INFRA for v in self.verdicts)

    def to_dict(self) -> dict:
        return {"entry": self.entry, "compile_error": self.compile_error,
                "seconds": round(self.seconds, 4), "tests": [t.to_dict() for t in self.tests]}
