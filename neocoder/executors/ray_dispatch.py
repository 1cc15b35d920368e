"""Sending jobs to the actors in batches and collecting their results.

Callers queue their jobs on the driver; they leave in batches, one actor call each,
when the queue could fill every idle slot of the cluster, or when its oldest job has
waited LINGER s, or when an actor that has at most ``slots`` jobs in flight can be
refilled.  A batch goes to the least loaded actors first, spread over them, at most
WINDOW x ``slots`` jobs in flight per actor and MAX_BATCH per call; each test list,
limit and checker travels once per batch (``ray_jobs.pack``).  Results come back per
batch: a small batch (under STREAM_FROM jobs) in the call's one reply, a larger one
streamed in chunks as its jobs finish (a streaming generator), so a slow program does
not hold back the others of its batch; both are collected with ``ray.wait``.  A job
whose actor died, or whose node's sandbox gave INFRA, is queued again for another
actor, up to ``attempts`` tries; then, or after ORPHAN_TIMEOUT s without any usable
actor, it gets INFRA on every test.  Each job's result is delivered once.
"""

from __future__ import annotations

import collections
import logging
import pickle
import threading
import time
from concurrent.futures import InvalidStateError

from ..judge.protocol import skip_after_first_failure
from ..judge.verdicts import INFRA, SubmissionResult
from .ray_cluster import WINDOW, Cluster
from .ray_jobs import Actor, Batch, Job, infra, pack, short

log = logging.getLogger("neocoder.executors.ray")  # the executor's one logger, in every ray_* module

ORPHAN_TIMEOUT = 120.0  # seconds jobs may wait with no usable actor before they are INFRA
DISCOVER_EVERY = 10.0  # seconds between looks for new sandbox nodes
POLL = 0.002  # seconds: the dispatcher's ray.wait timeout while an actor has room for more jobs
IDLE_POLL = 0.05  # seconds: the same while none has (a result, which makes room, ends the wait at once)
LINGER = 0.001  # seconds a queued job waits for others to share its batch (while it cannot fill the idle slots)
MAX_BATCH = 64  # jobs per actor call at most
STREAM_FROM = 4  # batches of at least this many jobs stream their results; smaller ones come back in one reply


class Dispatcher:
    """The queue of jobs, the batches in flight and the thread that moves them.

    ``cluster`` holds the actors; ``lock`` is the RaySandbox's (held around every change
    of the queue, the batches, the actors and ``stats``); ``attempts`` bounds the tries
    per job.  ``failure`` is None, or why the dispatcher thread stopped.
    """

    def __init__(self, ray, cluster: Cluster, lock: threading.Lock, attempts: int):
        self.ray, self.cluster, self.lock, self.attempts = ray, cluster, lock, attempts
        self.inbox: collections.deque = collections.deque()  # callers' jobs, appended without the lock
        self.queue: collections.deque = collections.deque()  # jobs waiting for a batch (the dispatcher's)
        self.batches: set[Batch] = set()
        self.stats = {"judged": collections.Counter(), "batches": 0, "jobs_in_batches": 0, "retried": 0,
                      "infra": 0, "actors_lost": 0}
        self.closed = False
        self.failure: str | None = None
        self.wake = threading.Event()  # set when a job is queued: the idle dispatcher looks at once
        self.next_discovery = time.monotonic() + DISCOVER_EVERY
        self.last_usable = time.monotonic()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the dispatcher thread."""
        self.thread = threading.Thread(target=self._loop, name="neocoder-ray-dispatch", daemon=True)
        self.thread.start()

    def submit(self, job: Job) -> None:
        """Queue ``job`` (any thread, no lock: ``deque.append`` is atomic); the dispatcher
        thread sends it in a batch."""
        job.queued = time.monotonic()
        self.inbox.append(job)
        self.wake.set()

    def take_all(self) -> list[Job]:
        """Empty the queue and the batches; the jobs they held, unsettled (lock held)."""
        self._drain()
        jobs = list(self.queue) + [j for b in self.batches for j in b.jobs.values()]
        self.queue.clear()
        self.batches = set()
        return jobs

    def _drain(self) -> None:
        """Move the callers' new jobs to the queue (lock held)."""
        inbox, queue = self.inbox, self.queue
        while inbox:
            queue.append(inbox.popleft())

    def _idle_slots(self) -> int:
        return sum(max(0, a.slots - a.inflight) for a in self.cluster.usable())

    def due(self, now: float) -> bool:
        """Whether the queue should leave now (lock held): it fills every idle slot, or its
        first job has waited LINGER s."""
        return bool(self.queue) and (now - self.queue[0].queued >= LINGER or len(self.queue) >= self._idle_slots())

    def dispatch(self) -> None:
        """Send queued jobs to the actors with at most ``slots`` in flight, least loaded
        first, spread over them: each gets its idle slots or its share of the queue,
        whichever is more, within WINDOW x ``slots`` in flight and MAX_BATCH (lock held)."""
        if not self.queue:
            return
        usable = self.cluster.usable()
        if not usable:
            return
        self.last_usable = time.monotonic()
        open_ = sorted((a for a in usable if a.inflight <= a.slots), key=lambda a: a.inflight / a.slots)
        for i, actor in enumerate(open_):
            if not self.queue:
                return
            share = -(-len(self.queue) // (len(open_) - i))
            take = min(WINDOW * actor.slots - actor.inflight, MAX_BATCH, max(actor.slots - actor.inflight, share))
            batch = self._take(actor, take, usable)
            if batch:
                self._send(actor, batch)

    def _take(self, actor: Actor, count: int, usable: list[Actor]) -> list[Job]:
        """Up to ``count`` queued jobs for ``actor``: a job that lost this actor waits for
        another one, unless every usable actor lost it (lock held)."""
        batch, keep = [], collections.deque()
        others = None
        while self.queue and len(batch) < count:
            job = self.queue.popleft()
            if job.avoid and actor.key in job.avoid:
                if others is None:
                    others = {a.key for a in usable} - {actor.key}
                if others - job.avoid:
                    keep.append(job)
                    continue
            batch.append(job)
        self.queue.extendleft(reversed(keep))
        return batch

    def _send(self, actor: Actor, jobs: list[Job]) -> None:
        """Send ``jobs`` to ``actor`` as one batch (lock held).  A batch that cannot be
        packed or sent (an unpicklable checker, a refused call) gives its jobs INFRA with
        the reason; the dispatcher goes on with every other job."""
        streamed = len(jobs) >= STREAM_FROM
        try:
            batch = pack(jobs)
            if streamed:
                if actor.stream is None:
                    actor.stream = actor.handle.judge.options(num_returns="streaming")
                ref = actor.stream.remote(batch)
            else:
                ref = actor.handle.judge_all.remote(batch)
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the executor
            log.warning("ray executor: a batch of %d jobs could not be sent: %s", len(jobs), short(exc))
            for job in jobs:
                self.stats["infra"] += 1
                settle(job, infra(job.payload["tests"], f"ray executor: the batch could not be sent ({short(exc)})"))
            return
        self.batches.add(Batch(actor, ref, dict(enumerate(jobs)), streamed))
        actor.inflight += len(jobs)
        self.stats["batches"] += 1
        self.stats["jobs_in_batches"] += len(jobs)

    def _retry(self, job: Job, actor: Actor, error: str) -> None:
        """Queue ``job`` again (lock held), or give it INFRA after ``attempts`` tries."""
        job.attempts += 1
        job.avoid.add(actor.key)
        job.last_error = error
        if job.attempts >= self.attempts:
            self.stats["infra"] += 1
            settle(job, infra(job.payload["tests"], f"ray executor: not judged after {job.attempts} tries "
                                                    f"(last: node {actor.node_id[:12]}: {error})"))
        else:
            self.stats["retried"] += 1
            self.queue.appendleft(job)

    def _loop(self) -> None:
        """The dispatcher thread: ``_rounds`` until closed; if it fails, every job waiting
        gets INFRA with the reason and later ones too (never a hung caller)."""
        try:
            self._rounds()
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting forever
            log.exception("ray executor: the dispatcher failed")
            with self.lock:
                self.failure = f"ray executor: the dispatcher failed ({short(exc)})"
                jobs = self.take_all()
            for job in jobs:
                settle(job, infra(job.payload["tests"], self.failure))

    def _rounds(self) -> None:
        """Collect results with ray.wait, retry the jobs of failed batches, probe lost
        actors, find new nodes, send the queue when it is due."""
        while True:
            with self.lock:
                if self.closed:
                    return
                self._drain()
                if self.due(time.monotonic()):
                    self.dispatch()
                waiting = {b.ref: b for b in self.batches}
                probes = self.cluster.probes(time.monotonic())
                timeout = self.queue[0].queued + LINGER - time.monotonic() if self.queue else 0.0
                hungry = timeout <= 0 and any(a.inflight <= a.slots for a in self.cluster.usable())
                if timeout <= 0:  # nothing gathering: look again soon only if an actor could take a new job
                    timeout = POLL if hungry else IDLE_POLL
            ready = self._wait(list(waiting) + list(probes), timeout, hungry)
            with self.lock:
                if self.closed:
                    return
                for ref in ready:
                    if ref in probes:
                        self.cluster.probed(probes[ref], ref)
                    else:
                        self._collect(waiting[ref])
                self._housekeeping()

    def _wait(self, refs: list, timeout: float, hungry: bool) -> list:
        """The refs ready within ``timeout`` s, all that are ready once one is.  With
        nothing in flight: sleep ``timeout`` s, or while an actor is ``hungry`` (could take
        a job and none is queued) until a job is queued (at most 0.5 s: housekeeping)."""
        if not refs:
            if hungry:
                self.wake.wait(0.5)
            else:  # not woken by each new job: they gather for their batch
                time.sleep(timeout)
            self.wake.clear()
            return []
        ready, _ = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if ready and len(refs) > 1:
            ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        return ready

    def _collect(self, batch: Batch) -> None:
        """Take the next results of ``batch`` (lock held; they are ready)."""
        actor = batch.actor
        if batch not in self.batches:  # dropped in this round with its actor's other batches
            return
        try:
            finished = pickle.loads(self.ray.get(next(batch.ref) if batch.streamed else batch.ref))
        except StopIteration:
            finished = []
        except self.ray.exceptions.RayError as exc:
            self._actor_lost(batch, exc)
            return
        judged = 0
        for index, result, error in finished:
            job = batch.jobs.pop(index)
            if error is None and result.infra_failure:  # the node's sandbox failed (e.g. its engine): not judged
                error = "its sandbox failed: " + next(t.detail for t in result.tests if t.verdict == INFRA)
            if error is not None:
                self._retry(job, actor, error)
                continue
            judged += 1
            deliver(job, result)  # the actor's sandbox applied stop_at_first_failure already
        actor.inflight = max(0, actor.inflight - len(finished))
        if judged:
            self.stats["judged"][actor.node_id] += judged
        if not finished or not batch.streamed or not batch.jobs:  # the batch is over (its stream's end unread)
            self.batches.discard(batch)
            for job in batch.jobs.values():  # not expected: a finished batch has given every job's result
                actor.inflight = max(0, actor.inflight - 1)
                self._retry(job, actor, "the batch ended without this job's result")

    def _actor_lost(self, batch: Batch, exc: Exception) -> None:
        """``batch`` failed with ``exc``: its actor is lost, and so are its other batches;
        every job of them is retried (lock held)."""
        actor = batch.actor
        self.batches.discard(batch)
        if self.cluster.lost(actor, exc):
            self.stats["actors_lost"] += 1
        for b in [b for b in self.batches if b.actor is actor]:
            self.batches.discard(b)
            for job in b.jobs.values():
                self._retry(job, actor, short(exc))
        for job in batch.jobs.values():
            self._retry(job, actor, short(exc))

    def _housekeeping(self) -> None:
        """New sandbox nodes get an actor; jobs left with no usable actor too long get INFRA (lock held)."""
        now = time.monotonic()
        if now >= self.next_discovery:
            self.next_discovery = now + DISCOVER_EVERY
            self.cluster.discover()
        if self.cluster.usable() or not self.queue:
            self.last_usable = now
        elif now - self.last_usable > ORPHAN_TIMEOUT:
            reasons = self.cluster.describe()
            while self.queue:
                job = self.queue.popleft()
                self.stats["infra"] += 1
                settle(job, infra(job.payload["tests"], f"ray executor: no usable sandbox node for "
                                                        f"{ORPHAN_TIMEOUT:g} s ({reasons})"))


def settle(job: Job, result: SubmissionResult) -> None:
    """Deliver ``result`` (made on the driver, e.g. INFRA) to ``job``'s caller, once
    (later results are dropped), its tests after a first failure SKIPPED if asked."""
    if job.stop_at_first_failure:
        skip_after_first_failure(result)
    deliver(job, result)


def deliver(job: Job, result: SubmissionResult) -> None:
    """Hand ``result`` to ``job``'s caller, once (later results are dropped)."""
    try:
        job.future.set_result(result)
    except InvalidStateError:  # delivered already (a caller settling a job of a closed sandbox)
        pass
