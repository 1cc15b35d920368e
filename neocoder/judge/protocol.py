"""The host side of the runner's wire protocol, in one place.

the runner package (``sandbox/runner/``, ``--serve``) judges submissions inside a worker (a container, or
a set of namespaces).  The host talks to it over one byte stream each way: JSON
objects, one per line, UTF-8.  Everything the host sends, reads and concludes
from what it reads is here; the backends only carry the bytes (``LineChannel``
subclasses), and the pool only hands workers out.

Session::

    runner -> host   ready    once, when the runner has reset its scratch space
    host -> runner   run      one submission (any number of them, one at a time)
    runner -> host   header   the program prepared, or why it does not compile
    runner -> host   test     one per input, in order (none after a compile error;
                              fewer when the submission stops at a failure)
    host -> runner   stop     optional, during a run: judge no more of it
    runner -> host   done     the reset after the submission, verified or not
    host -> runner   exit     optional: the runner returns 0

Messages (times in seconds, sizes in bytes unless the name says otherwise)::

    {"kind": "ready", "uid": int, "program_uid": int, "pid": int, "clean": bool,
     "problem": str|null, "spawn": ["fork", "exec"], "cpu_cgroup": bool, "oom_counter": bool,
     "oom_floor": bool}
        uid: the runner's; program_uid: the uid programs run under (Docker: another
        one, which cannot signal the runner).  clean false: something of the
        programs' uid survived the first reset, or the runner could not take its
        uid (``problem`` says what); the runner exits with status 3.  spawn: the
        ways it can start a test.  cpu_cgroup / oom_counter: whether CPU time of
        the whole tree and OOM kills are readable.  oom_floor: the runner holds
        CAP_SYS_RESOURCE, so it is never the OOM killer's choice and a program cannot
        lower its own score below 1000 (without it a program can lower it to the
        runner's, and a program spread over many small processes can get the runner
        killed instead of itself).

    {"op": "run", "id": str, "source": str, "language": "python"|"cpp", "entry": "auto"|"script",
     "spawn": "fork"|"exec", "stop_at_first_failure": bool,
     "inputs": [str, ...], "cpu_seconds": float, "wall_seconds": float,
     "submission_wall_seconds": float, "output_cap_bytes": int,
     "stdout_bytes": int, "stderr_bytes": int, "stack_bytes": int,
     "memory_bytes": int, "pids": int}
        per-test limits (``Limits``); expected outputs never enter.  The runner
        takes a test's wall backstop as at most WALL_FACTOR x cpu_seconds +
        WALL_EXTRA_SECONDS, and all tests together get submission_wall_seconds (at most
        WALL_FACTOR x the tests' CPU limits together + SUBMISSION_WALL_EXTRA_SECONDS):
        a test gets what is left if that is less, and once nothing is left the
        remaining tests are "tle" without running.  output_cap_bytes: the stdout
        of all tests together that is sent back (OUTPUT_CAP_BYTES); a test's stdout
        past what is left is cut ("output_cut").  entry
        "auto": the program contract (sandbox/runner/contract.py ``prepare``); "script": the
        program runs as written.  spawn "fork": each test is forked from the fork
        server (where the runner has it, else "exec"); "exec": a new interpreter
        per test.  stop_at_first_failure: the runner stops after the first test
        whose status is not "ok" (the host stops it at a WA with "stop").
        memory_bytes and pids are enforced by rlimits only in the process backend
        (Docker: by the container's cgroup).  language "cpp": the source is compiled
        once by g++ under the program uid with the compile step's own limits
        (sandbox/runner/native.py: flags CXX_FLAGS, COMPILE_LIMITS) and the binary
        runs per input as written (entry and spawn do not apply; the header says
        entry "script", entry_rule "compiled", spawn "binary"); a failed compile is
        the header's compile_error, which the host makes CE on every test.

    {"op": "stop", "id": str}
        no more tests of run ``id``: the test running is killed and not reported.
        A stop that arrives after "done" is ignored.

    {"kind": "header", "id": str, "entry": "solve"|"script"|null,
     "entry_rule": str|null, "calls_solve": bool, "spawn": "fork"|"exec"|"binary"|null,
     "compile_error": str|null, "compile_seconds": float}
        entry_rule: which rule of the program contract applied (verdicts.ENTRY_RULES);
        calls_solve: the program itself calls solve(); compile_seconds (C++ only, when
        g++ ran): the CPU time of the whole compiler process tree.

    {"kind": "test", "id": str, "index": int, "status": "ok"|"tle"|"mle"|"ole"|"re",
     "detail": str|null, "exit_code": int|null, "signal": str|null,
     "exception": str|null, "cpu_seconds": float, "wall_seconds": float,
     "max_rss_kb": int, "peak_cgroup_kb": int|null, "stdout_b64": str, "stderr_tail": str,
     "output_cut": bool}
        status and detail come from the runner's pure ``classify``: "ok" means the
        program ended well within its limits (the host then checks stdout: AC or
        WA); detail names the exception, signal or exit code of an "re", says
        "wall time" for a "tle" at the wall backstop (or the submission's wall
        budget), else null.  stdout_b64 is stdout up to its cap and to what is left
        of output_cap_bytes, base64 (output_cut: the program wrote more than that);
        stderr_tail the last 2 KiB of stderr up to its cap, decoded with replacement.
        cpu_seconds: the whole process tree (cgroup) where readable, else the test
        process; max_rss_kb: the test process's peak RSS in KiB; peak_cgroup_kb:
        the container's peak memory charge in KiB, sampled every 5 ms, or null.

    {"kind": "test", "id": str, "index": int, "status": "infra", "detail": str}
        the runner could not start the test process.

    {"kind": "done", "id": str, "clean": bool, "problem": str|null}
        clean false: the reset left a process or file behind; the runner exits
        and the host discards the worker.

    {"op": "exit"}

Size limits: a source over SOURCE_LIMIT_BYTES or a test input over
INPUT_LIMIT_BYTES is never sent; ``size_problem`` says why, and the submission is a
compile-time RE on every test (CE for C++).

Lines that are not JSON (a transport's noise) are skipped.  A runner that stops
answering, or whose stream ends, raises ``RunnerLost``; the pool then asks the
backend whether the worker itself survived (the program killed the runner: RE)
or not (INFRA).
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
import uuid
from dataclasses import dataclass, field

from neocoder.judge.checkers import check
from neocoder.judge.verdicts import (
    AC,
    CE,
    CPP,
    INFRA,
    LANGUAGES,
    MLE,
    OLE,
    PYTHON,
    RE,
    SKIPPED,
    TLE,
    WA,
    SubmissionResult,
    TestVerdict,
)

# Runner statuses that are verdicts as they are ("ok" still needs the checker).
STATUS_VERDICTS = {"tle": TLE, "mle": MLE, "ole": OLE, "re": RE}
SOURCE_LIMIT_BYTES = 64 << 10  # Codeforces' source limit; sandbox/runner/contract.py has the same guard
INPUT_LIMIT_BYTES = 4 << 20  # all inputs of a submission travel in one message to the runner
# Wall budgets: the runner (sandbox/runner/limits.py) has the same numbers and enforces them.
WALL_FACTOR = 2.0  # a test's wall backstop: at most WALL_FACTOR x its CPU limit + WALL_EXTRA_SECONDS
WALL_EXTRA_SECONDS = 1.0
SUBMISSION_WALL_EXTRA_SECONDS = 5.0  # all tests: WALL_FACTOR x their CPU limits together + this
TEST_OVERHEAD_SECONDS = 2.0  # per test, beyond its wall: spawning, the watcher's exit grace, the reply
COMPILE_REPLY_SECONDS = 36  # the compile step's wall backstop (2 x 15 + 1 s, sandbox/runner/native.py) + 5 s
OUTPUT_CAP_BYTES = 16 << 20  # stdout of all tests of a submission sent back to the host, in all


class RunnerLost(RuntimeError):
    """The runner died or stopped answering during a submission."""


STDERR_TAIL_BYTES = 4096  # how much of a runner's own stderr a worker keeps


@dataclass(frozen=True)
class RunnerEnd:
    """How a lost runner ended, as its worker saw it afterwards.

    exit_code: the runner's exit status (None while it still runs, or where the
    backend cannot tell); stderr_tail: the last STDERR_TAIL_BYTES of what the runner
    itself wrote to stderr (programs write to their own pipes, never there).
    """

    exit_code: int | None = None
    stderr_tail: str = ""

    @property
    def crashed(self) -> bool:
        """True if the runner died of an uncaught Python exception: a fault of the
        sandbox (INFRA), never a verdict against the program, which cannot write there."""
        return "Traceback (most recent call last)" in self.stderr_tail

    def describe(self) -> str:
        """A short suffix for a verdict's detail, e.g. "; exit code 1: KeyboardInterrupt"
        ("" when nothing is known)."""
        last = next((line.strip() for line in reversed(self.stderr_tail.splitlines()) if line.strip()), "")
        parts = [f"exit code {self.exit_code}"] if self.exit_code is not None else []
        if last:
            parts.append(last[:200])
        return "; " + ": ".join(parts) if parts else ""


@dataclass(frozen=True)
class Limits:
    """Per-test limits.

    cpu_seconds: CPU time of the whole process tree (Docker backend; the process
    backend can only limit the main process); wall_seconds: backstop for sleeping
    or blocked programs (the runner takes at most WALL_FACTOR x cpu_seconds +
    WALL_EXTRA_SECONDS); memory_mb: the container's memory cgroup, swap equal to it
    (process backend: address space); stdout_bytes / stderr_bytes: caps (stdout past
    its cap is OLE, stderr past its cap is dropped); pids: processes and threads;
    tmpfs_mb: the size of /tmp and of /dev/shm each.
    """

    cpu_seconds: float = 2.0
    wall_seconds: float = 5.0
    memory_mb: int = 256
    stdout_bytes: int = 4 << 20
    stderr_bytes: int = 64 << 10
    pids: int = 64
    tmpfs_mb: int = 64

    @classmethod
    def for_cpu(cls, cpu_seconds: float, memory_mb: int = 256) -> "Limits":
        """Limits for a CPU time (s) and memory (MiB); the wall backstop is
        WALL_FACTOR x cpu_seconds + WALL_EXTRA_SECONDS (2x + 1 s)."""
        return cls(cpu_seconds=cpu_seconds, wall_seconds=WALL_FACTOR * cpu_seconds + WALL_EXTRA_SECONDS,
                   memory_mb=memory_mb)

    @property
    def test_wall_seconds(self) -> float:
        """The wall backstop the runner gives each test (s): wall_seconds, at most
        WALL_FACTOR x cpu_seconds + WALL_EXTRA_SECONDS."""
        return min(self.wall_seconds, WALL_FACTOR * self.cpu_seconds + WALL_EXTRA_SECONDS)

    def submission_wall_seconds(self, n_tests: int) -> float:
        """The wall time (s) all ``n_tests`` tests of a submission get together (the compile
        step aside): each test's backstop summed, at most WALL_FACTOR x their CPU limits
        together + SUBMISSION_WALL_EXTRA_SECONDS."""
        return min(n_tests * self.test_wall_seconds,
                   WALL_FACTOR * n_tests * self.cpu_seconds + SUBMISSION_WALL_EXTRA_SECONDS)

    def worker_key(self) -> tuple:
        """Limits fixed when a worker starts; the others travel with each run message."""
        return (self.memory_mb, self.pids, self.tmpfs_mb)

    def reply_seconds(self, n_tests: int, language: str = PYTHON) -> float:
        """How long the host waits (s) for the whole reply to a run of ``n_tests`` tests: the
        submission's wall budget (``submission_wall_seconds``), TEST_OVERHEAD_SECONDS per
        test, 30 s for preparing and resetting, and COMPILE_REPLY_SECONDS for a C++
        program's compile step."""
        return (self.submission_wall_seconds(n_tests) + n_tests * TEST_OVERHEAD_SECONDS + 30
                + (COMPILE_REPLY_SECONDS if language == CPP else 0))


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    return f"{n >> 10} KB" if n % 1024 == 0 else f"{n} bytes"


def size_problem(source: str, inputs: list[str]) -> str | None:
    """Why ``source`` or one of ``inputs`` is too large to send, e.g. "source is 18.0 MB,
    limit 64 KB" or "test 3 input is 5.2 MB, limit 4.0 MB" (MB = 2**20 bytes, KB = 2**10);
    None if they fit."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > SOURCE_LIMIT_BYTES:
        return f"source is {_size(size)}, limit {_size(SOURCE_LIMIT_BYTES)}"
    for i, text in enumerate(inputs):
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > INPUT_LIMIT_BYTES:
            return f"test {i + 1} input is {_size(size)}, limit {_size(INPUT_LIMIT_BYTES)}"
    return None


def check_language(language: str) -> str:
    """``language`` if the sandbox judges it (verdicts.LANGUAGES); else ValueError naming
    the languages it knows."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: the sandbox judges {', '.join(LANGUAGES)}")
    return language


def run_message(source: str, inputs: list[str], limits: Limits, entry: str = "auto", spawn: str = "fork",
                stop_at_first_failure: bool = False, language: str = PYTHON) -> dict:
    """The "run" message for ``source`` on ``inputs`` (stdin texts) under ``limits``.

    ``entry`` is "auto" (the program contract) or "script" (run the program as
    written); ``spawn`` "fork" or "exec"; ``stop_at_first_failure``: the runner
    stops after a test that is not "ok"; ``language`` "python" or "cpp" (compiled
    first; ValueError for another).  The id is 8 random hex digits.
    """
    return {"op": "run", "id": uuid.uuid4().hex[:8], "source": source, "language": check_language(language),
            "entry": entry, "spawn": spawn,
            "stop_at_first_failure": stop_at_first_failure,
            "inputs": list(inputs), "cpu_seconds": limits.cpu_seconds,
            "wall_seconds": limits.test_wall_seconds,
            "submission_wall_seconds": limits.submission_wall_seconds(len(inputs)),
            "output_cap_bytes": OUTPUT_CAP_BYTES, "stdout_bytes": limits.stdout_bytes,
            "stderr_bytes": limits.stderr_bytes, "stack_bytes": limits.memory_mb << 20,
            "memory_bytes": limits.memory_mb << 20, "pids": limits.pids}


@dataclass
class Reply:
    """What the runner answered to one run message.

    ``header`` is None if the runner never sent one; ``rows`` maps a test's index
    to its "test" message (missing where the runner sent none); ``done`` is the
    "done" message.
    """

    header: dict | None
    rows: dict = field(default_factory=dict)
    done: dict = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        """The runner verified its reset after this submission."""
        return bool(self.done.get("clean"))


class LineChannel:
    """JSON lines to and from a runner over a byte stream, with deadlines.

    Subclasses (one per transport) provide ``_next_payload(timeout) -> bytes``,
    which raises RunnerLost at end of stream or when ``timeout`` (s) passes, and
    ``_write(bytes)``.
    """

    def __init__(self):
        self.pending = bytearray()

    def send(self, message: dict) -> None:
        """Write one message as a line; raises RunnerLost if the stream is closed."""
        try:
            self._write(json.dumps(message).encode("utf-8") + b"\n")
        except OSError as exc:
            raise RunnerLost(f"cannot write to the runner: {exc}") from exc

    def recv(self, deadline: float) -> dict:
        """The next JSON object the runner printed, by ``deadline`` (time.monotonic()
        seconds); raises RunnerLost."""
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line = bytes(self.pending[:newline])
                del self.pending[:newline + 1]
                try:
                    return json.loads(line)
                except ValueError:
                    continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RunnerLost("runner did not answer in time")
            self.pending += self._next_payload(remaining)

    def wait_ready(self, deadline: float) -> dict:
        """The runner's "ready" message; raises RunnerLost unless it came by
        ``deadline`` (time.monotonic() seconds) and says the runner is clean."""
        ready = self.recv(deadline)
        if ready.get("kind") != "ready" or not ready.get("clean"):
            raise RunnerLost(f"runner not ready: {ready}")
        return ready

    def exchange(self, message: dict, deadline: float, stop_when=None) -> Reply:
        """Send one run message and collect the reply up to its "done" message,
        by ``deadline`` (time.monotonic() seconds); raises RunnerLost.

        ``stop_when(row)`` (optional) is asked about each "test" message; the first
        True sends "stop" for this run, so the runner judges no more of it.
        """
        self.send(message)
        reply = Reply(header=None)
        stopped = False
        while True:
            msg = self.recv(deadline)
            kind = msg.get("kind")
            if kind == "header":
                reply.header = msg
            elif kind == "test":
                reply.rows[msg["index"]] = msg
                if stop_when is not None and not stopped and stop_when(msg):
                    self.send({"op": "stop", "id": message["id"]})
                    stopped = True
            elif kind == "done":
                reply.done = msg
                return reply

    def _next_payload(self, timeout: float) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def _write(self, data: bytes) -> None:  # pragma: no cover - interface
        raise NotImplementedError


def interpret(reply: Reply, tests: list[dict], checker=None, keep_output: bool = False,
              language: str = PYTHON) -> SubmissionResult:
    """Turn the runner's reply into one TestVerdict per test, in order.

    ``tests`` are ``[{"input": str, "output": str}]``; ``checker`` compares an
    "ok" test's stdout with its expected output (neocoder.judge.checkers; default
    exact tokens); ``keep_output`` keeps each test's whole stdout.  A missing
    header or test row is INFRA (``skip_after_first_failure`` then turns the rows a
    stopped run never sent into SKIPPED).  ``seconds`` is left 0: the caller times
    the run.  A compile error is RE on every test for Python, CE for C++ (``language``).
    """
    problem = None if reply.clean else reply.done.get("problem")
    header = reply.header
    if header is None:
        result = SubmissionResult(tests=[TestVerdict(INFRA, detail="runner sent no header") for _ in tests],
                                  reset_problem=problem)
    elif header.get("compile_error"):
        result = compile_error_result(tests, header["compile_error"], language)
        result.reset_problem = problem
        result.compile_seconds = header.get("compile_seconds")
    else:
        verdicts = [verdict_of(reply.rows.get(i), test, checker, keep_output) for i, test in enumerate(tests)]
        result = SubmissionResult(tests=verdicts, entry=header.get("entry"), entry_rule=header.get("entry_rule"),
                                  calls_solve=bool(header.get("calls_solve")), reset_problem=problem,
                                  compile_seconds=header.get("compile_seconds"))
    return result


def compile_error_result(tests: list[dict], error: str, language: str = PYTHON) -> SubmissionResult:
    """A program that does not compile (or is too large to send): RE on every test for
    Python (as always), CE for C++; the detail is "compile error: " + ``error``."""
    verdict = CE if language == CPP else RE
    return SubmissionResult(entry=None, compile_error=error,
                            tests=[TestVerdict(verdict, detail="compile error: " + error) for _ in tests])


def skip_after_first_failure(result: SubmissionResult) -> None:
    """Mark every test after the first that is not AC as SKIPPED (in place), whatever the
    runner still sent before it saw "stop", so the result never depends on timing."""
    for i, test in enumerate(result.tests):
        if test.verdict != AC:
            result.tests[i + 1:] = [TestVerdict(SKIPPED, detail=f"not run: test {i + 1} failed first")
                                    for _ in result.tests[i + 1:]]
            return


def verdict_of(row: dict | None, test: dict, checker=None, keep_output: bool = False) -> TestVerdict:
    """The verdict on one test from its "test" message (None: the runner sent none).

    "ok" becomes AC or WA by ``checker`` on the decoded stdout; "tle", "mle",
    "ole" and "re" become TLE, MLE, OLE and RE with the runner's detail; "infra"
    and a missing row become INFRA.  A test whose stdout the runner cut (the
    submission's OUTPUT_CAP_BYTES were spent) has ``output_cut`` and, where it would
    have been checked ("ok"), is OLE: what is left of its output cannot be checked.
    """
    if row is None or row.get("status") == "infra":
        return TestVerdict(INFRA, detail=(row or {}).get("detail", "no result from runner"))
    stdout = base64.b64decode(row["stdout_b64"])
    status, cut, detail = row["status"], bool(row.get("output_cut")), row.get("detail")
    if status == "ok" and cut:
        verdict, detail = OLE, (f"output cut: the submission's stdout passed its cap of "
                                f"{OUTPUT_CAP_BYTES >> 20} MiB in all, so this test's was not checked")
    elif status == "ok":
        verdict = AC if check(checker, stdout, test) else WA
    else:
        verdict = STATUS_VERDICTS.get(status, RE)
    return TestVerdict(
        verdict, cpu_seconds=row["cpu_seconds"], wall_seconds=row["wall_seconds"],
        max_rss_kb=row["max_rss_kb"], peak_cgroup_kb=row.get("peak_cgroup_kb"), detail=detail,
        stdout_head=stdout[:200].decode("utf-8", "replace"),
        stdout=stdout.decode("utf-8", "replace") if keep_output else None,
        stdout_sha256=output_hash(stdout) if status == "ok" and not cut else None, output_cut=cut)


def output_hash(stdout: bytes) -> str:
    """First 16 hex digits of the SHA-256 of the output's whitespace-separated tokens:
    outputs that differ only in spacing and line breaks hash alike (as tokens_equal judges)."""
    return hashlib.sha256(b" ".join(stdout.split())).hexdigest()[:16]
