"""Host side of the sandbox: warm, locked-down containers with a verified reset.

Each worker is one container (its own memory and CPU cgroup) kept alive by an init
and ``sleep`` under a keep-alive uid; inside it, ``runner.py --serve`` runs under
another uid and judges submissions sent over the exec's stdin, resetting and
verifying the container after each one (see ``sandbox/runner.py``).  A worker whose
reset is not verified clean, whose runner dies, or that stops answering is thrown
away and replaced.  ``fresh=True`` throws every container away after one
submission instead.

Only the program and the test *inputs* cross into the container; expected outputs
stay here.  Nothing is read from the container's filesystem: results come back as
JSON lines on the exec's stdout.
"""

from __future__ import annotations

import atexit
import base64
import itertools
import json
import os
import queue
import socket
import struct
import threading
import time
import uuid
from dataclasses import dataclass

import docker
import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from .image import DEFAULT_IMAGE, ImageError, check_image
from .verdicts import (AC, INFRA, MLE, OLE, RE, TLE, WA, SubmissionResult, TestVerdict,
                       tokens_equal)

RUNNER_IN_IMAGE = "/opt/neocoder/runner.py"
KEEPALIVE_UID = 65533
RUNNER_UIDS = itertools.count(20000)
LABEL = "neocoder.sandbox"
LABEL_RUN = "neocoder.run"
LABEL_PID = "neocoder.pid"
DOCKER_TIMEOUT = 60
RUNNER_HEADROOM_MB = 48  # the runner's own interpreter shares the container's memory

_docker_retry = retry(
    retry=retry_if_exception_type((docker.errors.APIError, requests.exceptions.RequestException)),
    stop=stop_after_attempt(3), wait=wait_exponential(multiplier=0.2, max=2), reraise=True)


class SandboxUnavailable(RuntimeError):
    """Docker or the sandbox image cannot be used; the message says what to do."""


class RunnerLost(RuntimeError):
    """The in-container runner died or stopped answering during a submission."""


@dataclass(frozen=True)
class Limits:
    """Per-test limits.

    cpu_seconds: CPU time of the whole process tree; wall_seconds: backstop for
    sleeping or blocked programs; memory_mb: the container's memory cgroup (swap
    equal to it, so none); stdout_bytes / stderr_bytes: caps (stdout past its cap is
    OLE, stderr past its cap is dropped); pids: processes and threads; tmpfs_mb: the
    size of /tmp and of /dev/shm each.
    """

    cpu_seconds: float = 2.0
    wall_seconds: float = 20.0
    memory_mb: int = 256
    stdout_bytes: int = 4 << 20
    stderr_bytes: int = 64 << 10
    pids: int = 64
    tmpfs_mb: int = 64

    @classmethod
    def for_state(cls, state: dict, cpu_scale: float = 1.0) -> "Limits":
        """Limits from a problem-state record's ``time_limit_s`` and ``memory_limit_mb``."""
        cpu = float(state.get("time_limit_s", 2.0)) * cpu_scale
        return cls(cpu_seconds=cpu, wall_seconds=10 * cpu + 5, memory_mb=int(state.get("memory_limit_mb", 256)))

    def container_key(self) -> tuple:
        """Limits fixed when a container is created; others travel with each job."""
        return (self.memory_mb, self.pids, self.tmpfs_mb)


class _Channel:
    """The exec's attached socket: JSON lines out (stdin), demultiplexed frames in (stdout)."""

    def __init__(self, sock):
        self.sock = sock
        self.raw = getattr(sock, "_sock", sock)
        self.buf = bytearray()     # raw bytes of the multiplexed stream
        self.stdout = bytearray()  # demultiplexed stdout not yet split into lines

    def send(self, obj: dict) -> None:
        self.raw.sendall(json.dumps(obj).encode("utf-8") + b"\n")

    def _recv_exact(self, n: int, deadline: float) -> bytes:
        while len(self.buf) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RunnerLost("runner did not answer in time")
            self.raw.settimeout(remaining)
            try:
                chunk = self.raw.recv(1 << 16)
            except socket.timeout as exc:
                raise RunnerLost("runner did not answer in time") from exc
            except OSError as exc:
                raise RunnerLost(f"connection to the runner failed: {exc}") from exc
            if not chunk:
                raise RunnerLost("runner exited")
            self.buf += chunk
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def recv(self, deadline: float) -> dict:
        """Next JSON line from the runner's stdout (other streams are skipped)."""
        while True:
            newline = self.stdout.find(b"\n")
            if newline >= 0:
                line = bytes(self.stdout[:newline])
                del self.stdout[:newline + 1]
                if line.strip():
                    try:
                        return json.loads(line)
                    except ValueError:
                        continue
                continue
            header = self._recv_exact(8, deadline)
            stream, size = header[0], struct.unpack(">I", header[4:])[0]
            payload = self._recv_exact(size, deadline)
            if stream == 1:
                self.stdout += payload

    def close(self) -> None:
        try:
            self.raw.close()
        except OSError:
            pass


class _Worker:
    """One warm container and the runner serving inside it."""

    def __init__(self, box: "DockerSandbox", limits: Limits):
        self.box, self.key = box, limits.container_key()
        memory = f"{limits.memory_mb + RUNNER_HEADROOM_MB}m"
        tmpfs = f"rw,nosuid,nodev,noexec,size={limits.tmpfs_mb}m"
        self.container = _docker_retry(box.client.containers.run)(
            box.image, ["sleep", "infinity"], detach=True, init=True,
            user=f"{KEEPALIVE_UID}:{KEEPALIVE_UID}", network_mode="none", read_only=True,
            tmpfs={"/tmp": tmpfs + ",mode=1777", "/dev/shm": tmpfs + ",mode=1777"},
            mem_limit=memory, memswap_limit=memory, pids_limit=limits.pids,
            cap_drop=["ALL"], security_opt=["no-new-privileges"],
            ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0),
                     docker.types.Ulimit(name="nofile", soft=256, hard=256),
                     docker.types.Ulimit(name="fsize", soft=limits.stdout_bytes * 2 + (64 << 20),
                                         hard=limits.stdout_bytes * 2 + (64 << 20))],
            environment={}, working_dir="/tmp", labels=box.labels, runtime=box.runtime,
            stdin_open=False, auto_remove=False,
        )
        try:
            self.uid = next(RUNNER_UIDS)
            exec_id = _docker_retry(box.client.api.exec_create)(
                self.container.id, ["python3", "-I", RUNNER_IN_IMAGE, "--serve"], stdin=True,
                stdout=True, stderr=False, user=f"{self.uid}:{self.uid}", workdir="/tmp", environment={})
            sock = box.client.api.exec_start(exec_id["Id"], socket=True)
            self.channel = _Channel(sock)
            ready = self.channel.recv(time.monotonic() + DOCKER_TIMEOUT)
            if ready.get("kind") != "ready" or not ready.get("clean"):
                raise RunnerLost(f"runner not ready: {ready}")
            self.cgroup_ok = ready.get("cpu_cgroup") and ready.get("oom_counter")
        except BaseException:
            self.destroy()
            raise

    def run(self, job: dict, n_tests: int, deadline: float) -> tuple[dict | None, dict, dict]:
        self.channel.send(job)
        header, rows, done = None, {}, None
        while done is None:
            msg = self.channel.recv(deadline)
            kind = msg.get("kind")
            if kind == "header":
                header = msg
            elif kind == "test":
                rows[msg["index"]] = msg
            elif kind == "done":
                done = msg
        return header, rows, done

    def destroy(self) -> None:
        ch = getattr(self, "channel", None)
        if ch is not None:
            ch.close()
        try:
            self.container.remove(force=True)
        except docker.errors.DockerException:
            pass


class DockerSandbox:
    """Judges submissions in warm Docker containers (see module docstring).

    ``concurrency`` bounds the containers (default: CPU cores).  ``runtime`` may be
    "runsc" where gVisor is installed.  If Docker or the image is unavailable the
    sandbox still constructs; ``unavailable`` holds a message saying what to do and
    every ``run`` returns INFRA verdicts.
    """

    def __init__(self, image: str = DEFAULT_IMAGE, concurrency: int | None = None,
                 client: docker.DockerClient | None = None, fresh: bool = False,
                 runtime: str | None = None):
        self.image, self.fresh, self.runtime = image, fresh, runtime
        self.concurrency = concurrency or os.cpu_count() or 1
        self.run_id = uuid.uuid4().hex[:12]
        self.labels = {LABEL: "1", LABEL_RUN: self.run_id, LABEL_PID: str(os.getpid())}
        self.unavailable: str | None = None
        self._idle: queue.Queue = queue.Queue()
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._workers: set[_Worker] = set()
        self.client = None
        try:
            self.client = client or docker.from_env(timeout=DOCKER_TIMEOUT)
            self.client.ping()
        except docker.errors.DockerException as exc:
            self.unavailable = (f"cannot reach the Docker engine ({exc}); install docker.io and start "
                                "dockerd (scripts/setup.sh does both)")
            return
        try:
            check_image(self.client, image)
        except ImageError as exc:
            self.unavailable = str(exc)
            return
        self.sweep()
        atexit.register(self.close)

    # -------------------------------------------------------------- housekeeping
    def sweep(self) -> int:
        """Remove containers left by runs whose process is gone; return how many."""
        removed = 0
        for c in self.client.containers.list(all=True, filters={"label": LABEL}):
            pid = c.labels.get(LABEL_PID, "")
            alive = pid.isdigit() and _pid_alive(int(pid)) and c.labels.get(LABEL_RUN) != self.run_id
            if c.labels.get(LABEL_RUN) == self.run_id or not alive:
                try:
                    c.remove(force=True)
                    removed += 1
                except docker.errors.DockerException:
                    pass
        return removed

    def close(self) -> None:
        """Remove every container of this sandbox."""
        with self._lock:
            workers, self._workers = list(self._workers), set()
        for w in workers:
            w.destroy()
        while not self._idle.empty():
            self._idle.get_nowait()
        if self.client is not None:
            try:
                for c in self.client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={self.run_id}"}):
                    c.remove(force=True)
            except docker.errors.DockerException:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -------------------------------------------------------------- judging
    def _take(self, limits: Limits) -> _Worker:
        key = limits.container_key()
        stale = []
        worker = None
        while not self._idle.empty():
            w = self._idle.get_nowait()
            if w.key == key:
                worker = w
                break
            stale.append(w)
        for w in stale:
            self._discard(w)
        if worker is None:
            worker = _Worker(self, limits)
            with self._lock:
                self._workers.add(worker)
        return worker

    def _discard(self, worker: _Worker) -> None:
        with self._lock:
            self._workers.discard(worker)
        worker.destroy()

    def run(self, source: str, tests: list[dict], limits: Limits = Limits()) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input": str, "output": str}]``).

        Returns one TestVerdict per test, in order.  Never raises for sandbox trouble:
        an unavailable engine or image and container failures become INFRA (with the
        reason in ``detail``); a program that kills or stalls the runner gets RE.
        """
        start = time.monotonic()
        if self.unavailable:
            return SubmissionResult(tests=[TestVerdict(INFRA, detail=self.unavailable) for _ in tests],
                                    seconds=0.0)
        job = {"op": "run", "id": uuid.uuid4().hex[:8], "source": source,
               "inputs": [t["input"] for t in tests], "cpu_seconds": limits.cpu_seconds,
               "wall_seconds": limits.wall_seconds, "stdout_bytes": limits.stdout_bytes,
               "stderr_bytes": limits.stderr_bytes, "stack_bytes": limits.memory_mb << 20}
        deadline_budget = len(tests) * (limits.wall_seconds + 5) + 30
        with self._slots:
            try:
                worker = self._take(limits)
            except (docker.errors.DockerException, requests.exceptions.RequestException, RunnerLost,
                    OSError) as exc:
                return SubmissionResult(tests=[TestVerdict(INFRA, detail=f"sandbox start failed: {exc}")
                                               for _ in tests], seconds=time.monotonic() - start)
            try:
                header, rows, done = worker.run(job, len(tests), time.monotonic() + deadline_budget)
            except RunnerLost as exc:
                alive = self._container_alive(worker)
                self._discard(worker)
                verdict = RE if alive else INFRA
                why = (f"the program killed or stalled the sandbox runner ({exc})" if alive
                       else f"sandbox container died ({exc})")
                return SubmissionResult(tests=[TestVerdict(verdict, detail=why) for _ in tests],
                                        seconds=time.monotonic() - start)
            if self.fresh or not done.get("clean"):
                self._discard(worker)
            else:
                self._idle.put(worker)
        result = self._interpret(header, rows, tests)
        result.reset_problem = None if done.get("clean") else done.get("problem")
        result.seconds = time.monotonic() - start
        return result

    def _container_alive(self, worker: _Worker) -> bool:
        try:
            worker.container.reload()
            return worker.container.status == "running"
        except docker.errors.DockerException:
            return False

    @staticmethod
    def _interpret(header: dict | None, rows: dict, tests: list[dict]) -> SubmissionResult:
        if header is None:
            return SubmissionResult(tests=[TestVerdict(INFRA, detail="runner sent no header") for _ in tests])
        if header.get("compile_error"):
            return SubmissionResult(
                entry=None, compile_error=header["compile_error"],
                tests=[TestVerdict(RE, detail="compile error: " + header["compile_error"]) for _ in tests])
        verdicts = []
        for i, test in enumerate(tests):
            row = rows.get(i)
            if row is None or row.get("status") == "infra":
                verdicts.append(TestVerdict(INFRA, detail=(row or {}).get("detail", "no result from runner")))
                continue
            stdout = base64.b64decode(row["stdout_b64"])
            kind, detail = row["status"], None
            if kind == "ok":
                verdict = AC if tokens_equal(stdout, test["output"]) else WA
            elif kind in ("tle", "mle", "ole"):
                verdict = {"tle": TLE, "mle": MLE, "ole": OLE}[kind]
            else:
                verdict = RE
                detail = row.get("exception") or row.get("signal") or f"exit code {row.get('exit_code')}"
            verdicts.append(TestVerdict(
                verdict, cpu_seconds=row["cpu_seconds"], wall_seconds=row["wall_seconds"],
                max_rss_kb=row["max_rss_kb"], detail=detail,
                stdout_head=stdout[:200].decode("utf-8", "replace")))
        return SubmissionResult(tests=verdicts, entry=header.get("entry"))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
