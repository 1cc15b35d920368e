"""The Docker backend: warm, locked-down containers with a verified reset.

Each worker is one container (its own memory and CPU cgroup) kept alive by an init
and ``sleep`` under a keep-alive uid; inside it, the runner package (``--serve``) judges
submissions sent over the exec's stdin, resetting and verifying the container after
each one (see ``sandbox/runner/``).  The runner is started as root and becomes
its own uid R holding only CAP_KILL, CAP_SETUID and CAP_SETGID (the container's
only capabilities); the programs it judges run under a second uid P with none, so
no program can signal or ptrace the runner.  Every worker gets its own (R, P) from
a block of uids this process holds with a lock file (``UidBlock``), so two neocoder
processes on one machine never share a uid.

Container flags: network none, read-only root, size-capped tmpfs /tmp and /dev/shm,
memory with swap equal to it, pids limit, cap-drop ALL but those three,
no-new-privileges, our seccomp profile (``seccomp.py``), /dev/null read-only over
/etc/resolv.conf and /etc/hosts, an init, ulimits for core, open files and file size.  Nothing of
the host's environment goes in, and nothing is read back from the container's
filesystem: results come as JSON lines on the exec's stdout.  Containers carry a
run label and their owner (pid, start time, boot id); they are removed at close/exit and
swept at the next start if their run died, by any process sharing the engine
(``engine.py``: every path there tolerates containers other processes remove).
"""

from __future__ import annotations

import atexit
import collections
import fcntl
import os
import socket
import struct
import threading
import time
import uuid

import docker
import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from neocoder.judge import engine, seccomp
from neocoder.judge.engine import LABEL, LABEL_PID, LABEL_RUN  # noqa: F401  (the labels, by their old home)
from neocoder.judge.image import ImageError, check_image, default_image
from neocoder.judge.pool import PooledSandbox, Worker
from neocoder.judge.protocol import STDERR_TAIL_BYTES, Limits, LineChannel, RunnerEnd, RunnerLost
from neocoder.judge.sandbox import DOCKER

RUNNER_HOME = "/opt/neocoder"  # the runner package is /opt/neocoder/runner in the image
# -E -s: no environment, no user site; not -I, which would leave the working directory
# (RUNNER_HOME, root's and read-only) off sys.path and so the package unfound.
RUNNER_COMMAND = ["python3", "-E", "-s", "-m", "runner", "--serve"]
KEEPALIVE_UID = 65533
# The runner's capabilities: killing its programs and switching them to their uid.
RUNNER_CAPABILITIES = ["KILL", "SETGID", "SETUID"]
UID_BASE = 200_000  # host uids handed to runners and programs: [UID_BASE, UID_BASE + UID_BLOCK * UID_BLOCKS)
UID_BLOCK = 1_000  # per neocoder process: two per live worker, reused once a worker is gone
UID_BLOCKS = 2_000
DOCKER_TIMEOUT = 60
# How long a new worker's runner may take to say it is ready (seconds).  Before any program
# runs, so no program can stretch it; 60 s was too short with 16 neocoder processes starting
# at once on 2 cores at load 20 (1 worker in 80 timed out: perf/shared_engine.py).
RUNNER_START_SECONDS = 180
RUNNER_HEADROOM_MB = 48  # the runner's own interpreter shares the container's memory
# Docker bind-mounts the host's resolver files into every container; the sandbox gets
# empty ones instead (the character device /dev/null, read-only: reads see nothing).
EMPTIED_FILES = ("/etc/resolv.conf", "/etc/hosts")

_docker_retry = retry(
    retry=retry_if_exception_type((docker.errors.APIError, requests.exceptions.RequestException)),
    stop=stop_after_attempt(3), wait=wait_exponential(multiplier=0.2, max=2), reraise=True)


class UidBlock:
    """A block of UID_BLOCK host uids that no other process on this machine holds.

    Block b (uids UID_BASE + b * UID_BLOCK onwards) is held by an exclusive flock on
    ``neocoder-uids-<b>.lock`` in a lock folder every process shares; the kernel drops
    the lock when the holder exits, however it ends.  Within the process, ``take``
    hands out uids and ``give_back`` returns them when their worker is destroyed.
    """

    def __init__(self, lock_dir: str | None = None):
        lock_dir = lock_dir or engine.lock_dir()
        for block in range(UID_BLOCKS):
            fd = _locked(os.path.join(lock_dir, f"neocoder-uids-{block}.lock"))
            if fd is not None:
                self.fd, self.base = fd, UID_BASE + block * UID_BLOCK
                break
        else:
            raise RuntimeError(f"all {UID_BLOCKS} uid blocks in {lock_dir} are held by other processes")
        self._free = collections.deque(range(self.base, self.base + UID_BLOCK))
        self._lock = threading.Lock()

    def take(self, n: int) -> list[int]:
        """``n`` uids no live worker of this process uses."""
        with self._lock:
            if len(self._free) < n:
                raise RuntimeError(f"more than {UID_BLOCK // 2} workers at once in one process")
            return [self._free.popleft() for _ in range(n)]

    def give_back(self, uids) -> None:
        """Return uids whose worker (and container) is gone."""
        with self._lock:
            self._free.extend(uids)


def _locked(path: str) -> int | None:
    """An fd of ``path`` holding its exclusive flock, or None if another process holds it.

    Opened without O_CREAT first: a sticky folder (protected_regular) refuses O_CREAT on
    another user's file even to root."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            return _locked(path)
        except OSError:
            return None
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


_uid_block: UidBlock | None = None
_uid_block_lock = threading.Lock()


def uid_block() -> UidBlock:
    """This process's uid block, taken on first use and held until the process exits."""
    global _uid_block
    with _uid_block_lock:
        if _uid_block is None:
            _uid_block = UidBlock()
        return _uid_block


class _FrameChannel(LineChannel):
    """The exec's attached socket: stdin raw, stdout and stderr in Docker's
    8-byte-header frames (stream 1 and 2); the runner's stderr is kept as a tail
    (``stderr``, at most STDERR_TAIL_BYTES) to say how a lost runner ended."""

    def __init__(self, sock):
        super().__init__()
        self.sock = sock
        self.raw = getattr(sock, "_sock", sock)
        self.buf = bytearray()
        self.stderr = bytearray()

    def _recv_exact(self, n: int, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
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

    def _next_payload(self, timeout: float) -> bytes:
        header = self._recv_exact(8, timeout)
        stream, size = header[0], struct.unpack(">I", header[4:])[0]
        payload = self._recv_exact(size, timeout)
        if stream == 2:
            self.stderr += payload
            del self.stderr[:-STDERR_TAIL_BYTES]
        return payload if stream == 1 else b""

    def _write(self, data: bytes) -> None:
        self.raw.sendall(data)

    def drain(self, seconds: float) -> None:
        """Read what is left in the stream (stderr frames land in ``stderr``) until it
        ends or ``seconds`` pass."""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                self._next_payload(deadline - time.monotonic())
        except RunnerLost:
            pass

    def close(self) -> None:
        try:
            self.raw.close()
        except OSError:
            pass


class _DockerWorker(Worker):
    def __init__(self, box: "DockerSandbox", limits: Limits):
        self.key = limits.worker_key()
        memory = f"{limits.memory_mb + RUNNER_HEADROOM_MB}m"
        tmpfs = f"rw,nosuid,nodev,noexec,size={limits.tmpfs_mb}m,mode=1777"
        fsize = limits.stdout_bytes * 2 + (64 << 20)
        self.uids = uid_block().take(2)  # the runner's, the programs'
        self.container = self.channel = self.exec_id = None
        try:
            # root only for the init (tini) and the runner's first instant: the keep-alive
            # drops to its own uid, the runner to R, programs to P (sandbox/runner/privileges.py)
            self.container = _docker_retry(box.client.containers.run)(
                box.image, ["setpriv", f"--reuid={KEEPALIVE_UID}", f"--regid={KEEPALIVE_UID}", "--clear-groups",
                            "--inh-caps=-all", "sleep", "infinity"],
                detach=True, init=True, user="0:0", network_mode="none", read_only=True,
                tmpfs={"/tmp": tmpfs, "/dev/shm": tmpfs},
                mem_limit=memory, memswap_limit=memory, pids_limit=limits.pids,
                cap_drop=["ALL"], cap_add=RUNNER_CAPABILITIES,
                security_opt=["no-new-privileges", seccomp.security_opt()],
                mounts=[docker.types.Mount(path, "/dev/null", type="bind", read_only=True) for path in EMPTIED_FILES],
                ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0),
                         docker.types.Ulimit(name="nofile", soft=256, hard=256),
                         docker.types.Ulimit(name="fsize", soft=fsize, hard=fsize)],
                environment={}, working_dir="/tmp", labels=box.labels, runtime=box.runtime,
            )
            self.name = self.container.id[:12]
            box.uids.update(self.uids)
            runner_uid, program_uid = self.uids
            self.exec_id = _docker_retry(box.client.api.exec_create)(
                self.container.id, [*RUNNER_COMMAND, "--uids", f"{runner_uid}:{program_uid}"],
                stdin=True, stdout=True, stderr=True, user="0:0", workdir=RUNNER_HOME, environment={})["Id"]
            self.channel = _FrameChannel(box.client.api.exec_start(self.exec_id, socket=True))
            self.channel.wait_ready(time.monotonic() + RUNNER_START_SECONDS)
        except BaseException:
            self.destroy()
            raise

    SETTLE_SECONDS = 1.0  # how long a lost runner waits for the engine to report the container's end

    def isolation_intact(self) -> bool:
        """True if the container is still running a moment after its runner was lost.

        The runner's end of the socket closes before dockerd marks a container killed from
        outside (``docker kill``, ``docker rm -f``, an OOM of the whole container) as
        exited, so the container is given ``SETTLE_SECONDS`` to end first: one that ends
        is the infrastructure's failure (INFRA), never a verdict against the program.
        """
        try:
            self.container.wait(timeout=self.SETTLE_SECONDS)
            return False  # it ended: the container, not the program, went away
        except docker.errors.DockerException:
            return False
        except Exception:  # the wait timed out (requests' ReadTimeout / ConnectionError): still up
            pass
        try:
            self.container.reload()
            return self.container.status == "running"
        except docker.errors.DockerException:
            return False

    def runner_end(self) -> RunnerEnd:
        """The runner's exit code (the exec's, as dockerd reports it; None while it runs)
        and the tail of its stderr, read from the socket until it closes (at most 1 s)."""
        if self.channel is None or self.exec_id is None:
            return RunnerEnd()
        self.channel.drain(self.SETTLE_SECONDS)  # what it wrote before it ended may still be in flight
        try:
            state = self.container.client.api.exec_inspect(self.exec_id)
            code = None if state.get("Running") else state.get("ExitCode")
        except docker.errors.DockerException:
            code = None
        return RunnerEnd(code, self.channel.stderr.decode("utf-8", "replace"))

    def kill(self) -> None:
        """Remove the container at once (its runner and program with it): the exec's socket
        then ends, so a thread reading it sees the runner's end; ``destroy`` closes the socket
        and gives the uids back afterwards."""
        if self.container is not None:
            engine.remove(self.container.client.api, self.container.id, wait_seconds=0)  # destroy waits

    def destroy(self) -> None:
        """Close the channel and remove the container; its uids go back to the block only
        once the container is gone for sure (removed by us or by another process)."""
        if self.channel is not None:
            self.channel.close()
        if self.container is not None and not engine.remove(self.container.client.api, self.container.id):
            return  # it may still run: never hand its uids to another worker
        uids, self.uids = self.uids, []
        uid_block().give_back(uids)


class DockerSandbox(PooledSandbox):
    """Judges submissions in warm Docker containers (see module docstring).

    ``runtime`` may be "runsc" where gVisor is installed.  ``spawn`` is "fork" (the
    fork server: a fork per test; the default) or "exec" (a new interpreter per test,
    the old path; the default with ``fresh``).  If the engine cannot be reached or the image is missing or stale,
    ``unavailable`` says what to do and every ``run`` returns INFRA.
    """

    name = DOCKER
    enforces = ("memory cgroup", "process-tree CPU time", "read-only root")

    def __init__(self, image: str | None = None, concurrency: int | None = None,
                 client: docker.DockerClient | None = None, fresh: bool = False,
                 runtime: str | None = None, spawn: str | None = None):
        super().__init__(concurrency, fresh, spawn)
        image = image or default_image()
        self.image, self.runtime = image, runtime
        self.run_id = uuid.uuid4().hex[:12]
        self.labels = engine.owner_labels(self.run_id)
        self.uids: set[int] = set()  # host uids its runners and programs ran under (no user namespace)
        self.client = None
        try:
            self.client = client or docker.from_env(timeout=DOCKER_TIMEOUT)
            self.client.ping()
        except docker.errors.DockerException as exc:
            self.unavailable = (f"cannot reach the Docker engine ({exc}); install docker.io and start "
                                "dockerd (scripts/setup.sh does both), or use --sandbox process")
            return
        try:
            check_image(self.client, image)
        except ImageError as exc:
            self.unavailable = str(exc)
            return
        self.sweep()
        atexit.register(self.close)

    def _new_worker(self, limits: Limits) -> Worker:
        return _DockerWorker(self, limits)

    def sweep(self) -> int:
        """Remove containers of ours whose run's process is gone (``engine.sweep``: the
        owner's pid, its start time and the boot id decide); return how many.  Containers
        other processes remove meanwhile are skipped; never raises for the engine."""
        try:
            return engine.sweep(self.client.api, self.run_id)
        except (docker.errors.DockerException, requests.exceptions.RequestException):
            return 0  # the engine could not list containers now: the next start sweeps

    def close(self) -> None:
        """Remove every container of this sandbox."""
        super().close()
        if self.client is not None and not self.unavailable:
            engine.remove_run(self.client.api, self.run_id)
