"""Host side of the sandbox: one fresh, locked-down container per submission.

The container gets the program and the test *inputs* only (a read-only bind mount
of a job file); expected outputs stay on the host, which compares them with what
the in-container runner (``sandbox/runner.py``) reports.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass

import docker
import requests

from .image import DEFAULT_IMAGE, check_image
from .verdicts import (AC, INFRA, MLE, OLE, RE, TLE, WA, SubmissionResult, TestVerdict,
                       tokens_equal)

RUNNER_IN_IMAGE = "/opt/neocoder/runner.py"
SANDBOX_UID = "65534:65534"
RUNNER_HEADROOM_MB = 32  # the runner's own interpreter shares the container's memory


@dataclass(frozen=True)
class Limits:
    """Per-test limits: CPU seconds, wall-clock backstop seconds, memory MiB, stdout bytes.

    ``memory_mb`` caps the container's memory cgroup (swap equal to it, so no swap);
    ``pids`` caps processes and threads in the container.
    """

    cpu_seconds: float = 2.0
    wall_seconds: float = 10.0
    memory_mb: int = 256
    output_bytes: int = 4 << 20
    pids: int = 64

    @classmethod
    def for_state(cls, state: dict, cpu_scale: float = 1.0) -> "Limits":
        """Limits from a problem-state record's ``time_limit_s``/``memory_limit_mb``."""
        cpu = float(state.get("time_limit_s", 2.0)) * cpu_scale
        return cls(cpu_seconds=cpu, wall_seconds=5 * cpu + 10,
                   memory_mb=int(state.get("memory_limit_mb", 256)))


class DockerSandbox:
    """Runs submissions in containers of ``image`` through the Docker Engine API.

    ``concurrency`` bounds how many containers run at once (default: CPU cores).
    Raises ImageError at construction if the image is missing or stale, and
    docker.errors.DockerException if the engine cannot be reached.
    """

    def __init__(self, image: str = DEFAULT_IMAGE, concurrency: int | None = None,
                 client: docker.DockerClient | None = None):
        self.client = client or docker.from_env(timeout=120)
        self.image = image
        check_image(self.client, image)
        self._slots = threading.BoundedSemaphore(concurrency or os.cpu_count() or 1)

    def run(self, source: str, tests: list[dict], limits: Limits = Limits()) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input": str, "output": str}]``).

        Returns one TestVerdict per test, in order.  Sandbox failures become INFRA
        verdicts (never an exception), so one broken container cannot stop a run.
        """
        start = time.monotonic()
        with self._slots:
            try:
                result = self._run(source, tests, limits)
            except (docker.errors.DockerException, requests.exceptions.RequestException, OSError) as exc:
                result = SubmissionResult(tests=[TestVerdict(INFRA, detail=f"{type(exc).__name__}: {exc}")
                                                 for _ in tests])
        result.seconds = time.monotonic() - start
        return result

    def _run(self, source: str, tests: list[dict], limits: Limits) -> SubmissionResult:
        jobdir = tempfile.mkdtemp(prefix="neocoder-job-")
        container = None
        try:
            os.chmod(jobdir, 0o755)
            job_path = os.path.join(jobdir, "job.json")
            with open(job_path, "w", encoding="utf-8") as f:
                json.dump({"source": source, "inputs": [t["input"] for t in tests],
                           "cpu_seconds": limits.cpu_seconds, "wall_seconds": limits.wall_seconds,
                           "output_bytes": limits.output_bytes}, f)
            os.chmod(job_path, 0o644)
            memory = f"{limits.memory_mb + RUNNER_HEADROOM_MB}m"
            container = self.client.containers.run(
                self.image, ["python3", "-I", RUNNER_IN_IMAGE, "/job/job.json"],
                detach=True, network_mode="none", read_only=True, user=SANDBOX_UID,
                tmpfs={"/tmp": f"rw,nosuid,nodev,size={(limits.output_bytes >> 20) * 2 + 64}m,mode=1777"},
                volumes={jobdir: {"bind": "/job", "mode": "ro"}},
                mem_limit=memory, memswap_limit=memory, pids_limit=limits.pids,
                cap_drop=["ALL"], security_opt=["no-new-privileges"], init=True,
                ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0),
                         docker.types.Ulimit(name="nofile", soft=256, hard=256)],
                environment={}, working_dir="/tmp", stdin_open=False,
            )
            budget = len(tests) * (limits.wall_seconds + 1) + 30
            try:
                status = container.wait(timeout=budget)
            except requests.exceptions.ConnectionError:
                container.kill()
                status = {"StatusCode": None, "Error": {"Message": f"container exceeded {budget:.0f}s"}}
            out = container.logs(stdout=True, stderr=False)
            err = container.logs(stdout=False, stderr=True)
            return self._interpret(out, err, status, tests)
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except docker.errors.DockerException:
                    pass
            shutil.rmtree(jobdir, ignore_errors=True)

    @staticmethod
    def _interpret(out: bytes, err: bytes, status: dict, tests: list[dict]) -> SubmissionResult:
        header, rows = None, {}
        for line in out.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("kind") == "header":
                header = rec
            elif rec.get("kind") == "test":
                rows[rec["index"]] = rec
        problem = (f"runner exit {status.get('StatusCode')}: "
                   f"{(status.get('Error') or {}).get('Message') or ''} {err.decode('utf-8', 'replace')[-500:]}").strip()
        if header is None:
            return SubmissionResult(tests=[TestVerdict(INFRA, detail=problem) for _ in tests])
        if header.get("compile_error"):
            return SubmissionResult(
                entry=None, compile_error=header["compile_error"],
                tests=[TestVerdict(RE, detail="compile error: " + header["compile_error"]) for _ in tests])
        verdicts = []
        for i, test in enumerate(tests):
            row = rows.get(i)
            if row is None:
                verdicts.append(TestVerdict(INFRA, detail="no result from runner; " + problem))
                continue
            stdout = base64.b64decode(row["stdout_b64"])
            kind = row["status"]
            detail = None
            if kind == "ok":
                verdict = AC if tokens_equal(stdout, test["output"]) else WA
            elif kind == "tle":
                verdict = TLE
            elif kind == "mle":
                verdict = MLE
            elif kind == "ole":
                verdict = OLE
            else:
                verdict = RE
                detail = row.get("exception") or row.get("signal") or f"exit code {row.get('exit_code')}"
            verdicts.append(TestVerdict(
                verdict, cpu_seconds=row["cpu_seconds"], wall_seconds=row["wall_seconds"],
                max_rss_kb=row["max_rss_kb"], detail=detail,
                stdout_head=stdout[:200].decode("utf-8", "replace")))
        return SubmissionResult(tests=verdicts, entry=header.get("entry"))
