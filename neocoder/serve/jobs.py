"""Jobs: queued in the job store, run through the library into run folders.

A job is ``neocoder run TASK`` (or a benchmark's own command, such as ``neocoder eval``)
asked over HTTP.  It runs on one of ``slots`` job threads through the same library call as
the command (``execute``, given by the app: ``api.run``), into its own run folder
``<data dir>/runs/<job id>`` (manifest, records, metrics: docs/records.md).  What makes
it survive the server:

- the job store (store.py) has every job and its status, committed before the HTTP
  answer goes out;
- ``runner.run`` resumes a run folder by itself: an item whose record was appended is
  never judged again, so a server killed with ``kill -9`` and started again queues its
  unfinished jobs and they finish with the same records an uninterrupted job writes;
- a graceful stop (SIGTERM) sets the job's stop event: no sample starts after it, the
  ones in flight finish and are appended (``runner.Stopped``), and the job is queued
  again for the next start; a cancel also sets its ``Cancel`` (judge/cancel.py): the
  programs being judged are stopped at once, their samples left for a resume, and the
  job is marked cancelled.

API keys are held in this process's memory only, from the request to the job's end; a
restarted server pauses a job that needs one until it is given again (``resume``).
Error messages are scrubbed of the key before they are stored or logged.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import traceback
import uuid
from pathlib import Path
from typing import Callable

from neocoder.benchmarks import benchmarks, get_task
from neocoder.errors import NeocoderError
from neocoder.judge.cancel import Cancel
from neocoder.runner import Stopped
from neocoder.serve.store import (
    CANCELLED,
    FAILED,
    PAUSED,
    QUEUED,
    RESUMABLE,
    RUNNING,
    SUCCEEDED,
    UNFINISHED,
    Job,
    JobStore,
)
from neocoder.store import RunFolder

log = logging.getLogger("neocoder.serve")

KEY_NEEDED = "the server restarted and API keys are never stored: resume the job with its key " \
             "(POST /v1/evals/{id}/resume)"


class JobConflict(NeocoderError):
    """The job is in a state that does not allow the operation (cancel a finished job, ...)."""


def scrub(text: str, secret: str | None, hidden: dict[str, str] | None = None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``, and each of the
    server's own paths of ``hidden`` (path -> what to show instead; the longest first)
    replaced by its stand-in, so a caller's job error names no folder of the server."""
    text = text.replace(secret, "***") if secret else text
    for path in sorted(hidden or {}, key=len, reverse=True):
        text = text.replace(path, hidden[path])
    return text


def new_job_id() -> str:
    """A job id: 32 random hex digits, made by the server (never a path or a client's name)."""
    return uuid.uuid4().hex


class JobRunner:
    """Runs the store's queued jobs, ``slots`` at once.

    ``execute(job, api_key, run_dir, stop, cancel)`` runs a stored request into ``run_dir``
    (raising Stopped when ``stop`` was set first).  A graceful stop sets ``stop`` alone (the
    samples in flight finish); a cancel sets ``cancel`` too (a judge.cancel.Cancel: the
    programs being judged are stopped and their samples done again if the job is resumed).
    A failed job's error is stored without its API key and with each path of ``hidden`` (the server's folders) replaced.
    ``start()`` queues the unfinished jobs of an earlier server (oldest first) and starts
    the threads; ``shutdown(timeout)`` stops them gracefully.
    """

    def __init__(self, store: JobStore, runs_dir: Path,
                 execute: Callable[[Job, str | None, Path, threading.Event, Cancel], None], slots: int = 1,
                 hidden: dict[str, str] | None = None):
        self.store, self.runs_dir, self.execute, self.slots = store, Path(runs_dir), execute, slots
        self.hidden = dict(hidden or {})  # the server's paths, kept out of the errors callers see
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self._queue: queue.Queue = queue.Queue()
        self._keys: dict[str, str] = {}  # job id -> API key, in memory only
        self._stops: dict[str, threading.Event] = {}  # running jobs
        self._cancels: dict[str, Cancel] = {}  # running jobs: set when one is cancelled
        self._cancelled: set[str] = set()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._progress: dict[str, tuple] = {}  # job id -> (records size, mtime, done)
        self.closing = threading.Event()

    # -- life cycle ------------------------------------------------------------------

    def start(self) -> None:
        """Queue every unfinished job of the store again and start the job threads."""
        for job in self.store.list(statuses=UNFINISHED):
            if job.has_key and job.id not in self._keys:
                self.store.update(job.id, status=PAUSED, error=KEY_NEEDED)
                log.info("job %s paused: its API key is needed again", job.id)
            else:
                self.store.update(job.id, status=QUEUED)
                self._queue.put(job.id)
                log.info("job %s queued again (%s before the restart)", job.id, job.status)
        for i in range(self.slots):
            thread = threading.Thread(target=self._loop, name=f"neocoder-job-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def shutdown(self, timeout: float) -> bool:
        """Stop taking jobs, ask running ones to stop after their samples in flight, and
        wait up to ``timeout`` seconds; True if every job thread ended."""
        self.closing.set()
        with self._lock:
            for stop in self._stops.values():
                stop.set()
        for _ in self._threads:
            self._queue.put(None)
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)

    # -- requests --------------------------------------------------------------------

    def submit(self, owner: str, request: dict, api_key: str | None) -> Job:
        """Store a new job (``request`` without the key) and queue it."""
        job_id = new_job_id()
        if api_key:
            self._keys[job_id] = api_key
        job = self.store.create(job_id, owner, request, bool(api_key))
        self._queue.put(job_id)
        log.info("job %s submitted by %s: %s", job_id, owner, request.get("model", {}).get("spec"))
        return job

    def cancel(self, job_id: str) -> None:
        """Cancel a queued, paused or running job (a running one at once: the programs it is
        judging are stopped, and its samples waiting on the model end when their call does).
        Raises JobConflict for a job that has ended."""
        with self._lock:
            if self.store.update(job_id, only_if=(QUEUED, PAUSED), status=CANCELLED, finished=time.time(),
                                 error="cancelled"):
                self._keys.pop(job_id, None)
                log.info("job %s cancelled", job_id)
                return
            stop = self._stops.get(job_id)
            if stop is not None:
                self._cancelled.add(job_id)
                stop.set()
                self._cancels[job_id].set()
                log.info("job %s cancelling", job_id)
                return
        job = self.store.get(job_id)
        raise JobConflict(f"job {job_id} has {job.status if job else 'gone'}: nothing to cancel")

    def resume(self, job_id: str, api_key: str | None) -> None:
        """Queue a paused, failed or cancelled job again; its run folder is resumed.
        Raises JobConflict for a job in another state, or one that needs its key."""
        job = self.store.get(job_id)
        if job is None or job.status not in RESUMABLE:
            raise JobConflict(f"job {job_id} is {job.status if job else 'gone'}: only "
                              f"{', '.join(RESUMABLE)} jobs can be resumed")
        if job.has_key and not api_key:
            raise JobConflict(f"job {job_id} was given an API key, which is never stored: give it again")
        with self._lock:
            if api_key:
                self._keys[job_id] = api_key
            if not self.store.update(job_id, only_if=RESUMABLE, status=QUEUED, error=None, finished=None):
                raise JobConflict(f"job {job_id} changed state meanwhile")
        self._queue.put(job_id)
        log.info("job %s resumed", job_id)

    def run_dir(self, job_id: str) -> Path:
        """The job's run folder (``job_id`` is always one of the server's own ids)."""
        return self.runs_dir / job_id

    def progress(self, job: Job) -> dict:
        """``{"done", "total"}`` items: done are the finished records of the task's record
        type in the run folder, total is known once the job has listed its items (the
        manifest's ``items``, written by the runner; else None)."""
        folder = self.run_dir(job.id)
        task, _config = job_task(job.request)
        total = None
        manifest = folder / RunFolder.MANIFEST
        if manifest.is_file():
            try:
                items = json.loads(manifest.read_text(encoding="utf-8")).get("extra", {}).get("items")
                total = int(items) if items is not None else None
            except (ValueError, OSError):
                total = None
        records = folder / RunFolder.RECORDS
        if not records.is_file():
            return {"done": 0, "total": total}
        stat = records.stat()
        cached = self._progress.get(job.id)
        if cached is None or cached[:2] != (stat.st_size, stat.st_mtime_ns):
            cached = self._progress[job.id] = (stat.st_size, stat.st_mtime_ns, _task_done(task, folder))
        return {"done": cached[2], "total": total}

    # -- the job threads -------------------------------------------------------------

    def _loop(self) -> None:
        while not self.closing.is_set():
            job_id = self._queue.get()
            if job_id is None or self.closing.is_set():
                return
            try:
                self._run(job_id)
            except Exception:  # noqa: BLE001 - a job thread must outlive any one job
                log.error("job %s: the job thread failed:\n%s", job_id, traceback.format_exc())

    def _run(self, job_id: str) -> None:
        with self._lock:
            if self.closing.is_set() or not self.store.update(
                    job_id, only_if=(QUEUED,), count_attempt=True, status=RUNNING, started=time.time(), error=None):
                return  # cancelled while it waited, or queued twice
            stop = self._stops[job_id] = threading.Event()
            cancel = self._cancels[job_id] = Cancel()
        job = self.store.get(job_id)
        key = self._keys.get(job_id)
        log.info("job %s running (attempt %d)", job_id, job.attempts)
        try:
            self.execute(job, key, self.run_dir(job_id), stop, cancel)
            status, error = SUCCEEDED, None
        except Stopped:
            status, error = (CANCELLED, "cancelled") if job_id in self._cancelled else (QUEUED, None)
        except NeocoderError as exc:
            status, error = FAILED, scrub(str(exc), key, self.hidden)
        except Exception as exc:  # noqa: BLE001 - a bug fails the job, with its traceback in the log
            status, error = FAILED, scrub(f"internal error: {type(exc).__name__}: {exc}", key, self.hidden)
            log.error("job %s: %s", job_id, scrub(traceback.format_exc(), key))
        with self._lock:
            self._stops.pop(job_id, None)
            self._cancels.pop(job_id, None)
            self._cancelled.discard(job_id)
            if status != QUEUED:
                self._keys.pop(job_id, None)
            self.store.update(job_id, status=status, error=error,
                              finished=None if status == QUEUED else time.time())
        log.info("job %s %s%s", job_id, status if status != QUEUED else "stopped (queued for the next start)",
                 f": {error}" if error and status == FAILED else "")


def job_task(stored: dict) -> tuple[str, dict]:
    """``(task name, config)`` of a stored job request: a task's ``{"task", "config"}``
    (``POST /v1/runs``, and a benchmark's alias route such as ``POST /v1/evals``), or a job
    stored before jobs named their task (the config itself), which was always the first
    benchmark's main task."""
    if "task" in stored:
        return stored["task"], stored.get("config") or {}
    return benchmarks()[0].main_task, stored


def _task_done(name: str, folder: Path) -> int:
    """Items of task ``name`` finished in ``folder`` (0 for a task without a record type)."""
    try:
        kind = get_task(name).record_type
    except NeocoderError:  # a task this server no longer has registered
        return 0
    if kind is None or not (folder / RunFolder.RECORDS).is_file():
        return 0
    return len(RunFolder(folder, create=False).done(kind))
