"""One Docker engine shared by any number of neocoder processes.

CLI runs, servers, test sessions and Ray actors on one machine all start, judge in and
remove sandbox containers on the same engine, each at its own pace, so any container
another process can see may vanish at any moment: its owner removes it at close, or a
start-up sweep removes it because its owner died.  Every call here that lists, inspects,
waits for or removes containers treats a container that is gone (404 ``NotFound``) or
being removed by someone else (409 "removal ... already in progress") as removed, never
as an error:

- ``list_labelled`` lists through the engine's list call alone (docker-py's
  ``containers.list`` inspects each listed container afterwards, which raised
  ``NotFound`` whenever another process removed one of its own in between);
- ``remove`` removes one container and says whether it is gone for sure (only then may
  its uids be handed to another worker);
- ``owner_alive`` decides whether the process that labelled a container still runs: its
  pid, the start time of that pid (so a pid reused by another program does not keep a
  dead run's containers alive) and the machine's boot id (a container labelled on
  another machine sharing the engine is left to that machine, unless it stopped).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from contextlib import contextmanager

import docker
import requests

LABEL = "neocoder.sandbox"
LABEL_RUN = "neocoder.run"
LABEL_PID = "neocoder.pid"
LABEL_STARTED = "neocoder.started"  # the owner's start time, clock ticks since boot (/proc/PID/stat field 22)
LABEL_BOOT = "neocoder.boot"  # the owner machine's boot id (/proc/sys/kernel/random/boot_id)
REMOVAL_WAIT_SECONDS = 30.0  # how long ``remove`` waits for a removal another process started
SWEEP_WAIT_SECONDS = 10.0  # the same for a start's sweep, so a swept container is gone when the start returns
POLL_SECONDS = 0.1
LOCK_DIRS = ("/run/lock", "/var/lock")  # shared by every process on the machine; else the temp dir
_TRANSIENT = (docker.errors.APIError, requests.exceptions.RequestException)


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (field 22 of
    ``/proc/PID/stat``), as text; None if there is no such process (or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]  # fields after the command name start at field 3


def boot_id() -> str:
    """This machine's boot id (a UUID, new at every boot); "" where the kernel has none."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        return ""


def owner_labels(run_id: str) -> dict[str, str]:
    """The labels every container of run ``run_id`` carries: the sandbox label, the run,
    and who owns it (this process's pid, its start time and the machine's boot id)."""
    pid = os.getpid()
    return {LABEL: "1", LABEL_RUN: run_id, LABEL_PID: str(pid),
            LABEL_STARTED: process_start(pid) or "", LABEL_BOOT: boot_id()}


def owner_alive(labels: dict, running: bool) -> bool:
    """Whether the process that labelled a container (``owner_labels``) may still use it.

    False when its pid is gone, or the pid now belongs to a process started at another time
    (reused), or the container is stopped and was labelled in an earlier boot.  A running
    container labelled on another machine (another boot id) counts as alive: only that
    machine can tell.  Containers of older neocoders (no start time or boot id labels) are
    judged by their pid alone.
    """
    pid = labels.get(LABEL_PID, "")
    boot = labels.get(LABEL_BOOT, "")
    if boot and boot != boot_id():
        return running
    if not pid.isdigit():
        return False
    if not _pid_alive(int(pid)):
        return False
    started = labels.get(LABEL_STARTED, "")
    return not started or process_start(int(pid)) in (started, None)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def list_labelled(api: docker.APIClient, label: str) -> list[dict]:
    """Containers (running or not) carrying ``label`` ("key" or "key=value"), as the
    engine's list call returns them (``Id``, ``Labels``, ``State``), with no inspect of
    each, so containers removed meanwhile are simply absent.  Up to 3 tries on an engine
    error; raises docker.errors.DockerException (or requests') if every try fails."""
    for attempt in range(3):
        try:
            return api.containers(all=True, filters={"label": label})
        except _TRANSIENT:
            if attempt == 2:
                raise
            time.sleep(0.2 * 2 ** attempt)
    return []  # pragma: no cover - the loop returns or raises


def _removal_in_progress(exc: docker.errors.APIError) -> bool:
    return exc.status_code == 409 and "in progress" in str(exc)


def _gone(api: docker.APIClient, container_id: str, seconds: float) -> bool:
    """True once the container no longer exists (waits up to ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            api.inspect_container(container_id)
        except docker.errors.NotFound:
            return True
        except _TRANSIENT:
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)


def remove(api: docker.APIClient, container_id: str, wait_seconds: float = REMOVAL_WAIT_SECONDS) -> bool:
    """Force-remove one container (its processes killed); True when it is gone for sure.

    Gone already (NotFound) is True; a removal another process started (409 "already in
    progress") is waited for, up to ``wait_seconds``; other engine errors are tried 3 times.
    False means the container may still exist (and run): whatever it holds (its uids) must
    not be reused.  Never raises for the engine's errors.
    """
    for attempt in range(3):
        try:
            api.remove_container(container_id, force=True)
            return True
        except docker.errors.NotFound:
            return True
        except docker.errors.APIError as exc:
            if _removal_in_progress(exc):
                return _gone(api, container_id, wait_seconds)
        except requests.exceptions.RequestException:
            pass
        time.sleep(0.2 * 2 ** attempt)
    return _gone(api, container_id, 0)


def sweep(api: docker.APIClient, run_id: str) -> int:
    """Remove every sandbox container of run ``run_id`` and every one whose owner is gone
    (``owner_alive``); returns how many are gone.  One another process is removing already
    is waited for (up to SWEEP_WAIT_SECONDS), so they are all gone when it returns.  Never
    raises for containers that vanish meanwhile; raises docker.errors.DockerException (or
    requests') only when the engine cannot list containers at all."""
    removed = 0
    for c in list_labelled(api, LABEL):
        labels = c.get("Labels") or {}
        mine = labels.get(LABEL_RUN) == run_id
        if mine or not owner_alive(labels, c.get("State") == "running"):
            removed += remove(api, c["Id"], wait_seconds=SWEEP_WAIT_SECONDS)
    return removed


def remove_run(api: docker.APIClient, run_id: str) -> None:
    """Remove every container of run ``run_id`` (at close and at exit); never raises."""
    try:
        for c in list_labelled(api, f"{LABEL_RUN}={run_id}"):
            remove(api, c["Id"])
    except _TRANSIENT:
        pass


def lock_dir() -> str:
    """The folder for lock files every process on this machine shares: the first writable
    of LOCK_DIRS, else the temp folder."""
    for d in LOCK_DIRS:
        if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK):
            return d
    return tempfile.gettempdir()


@contextmanager
def machine_lock(name: str, directory: str | None = None):
    """Hold the exclusive flock of ``<lock_dir()>/<name>`` for the ``with`` block, waiting
    for whoever holds it (another process on this machine); released when the block ends
    or the process dies.  Raises OSError if the lock file cannot be opened."""
    path = os.path.join(directory or lock_dir(), name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
