"""Sending jobs to the actors in batches and collecting their streamed results.

A caller's job goes straight to the least loaded actor that has an idle slot;
otherwise it waits in the driver's queue.  An actor with at most ``slots`` jobs in
flight is refilled with one call carrying up to ``slots`` queued jobs (so at most
WINDOW x ``slots`` are in flight per actor, and its pool never idles while work
waits); results stream back one by one as each job finishes (a streaming generator,
collected with ``ray.wait``), so a slow program does not hold back the others of its
batch.  A job whose actor died, or whose node's sandbox gave INFRA, is queued again
for another actor, up to ``attempts`` tries; then, or after ORPHAN_TIMEOUT s without
any usable actor, it gets INFRA on every test.  Each job's result is delivered once.
"""

from __future__ import annotations

import collections
import logging
import threading
import time

from ..judge.protocol import skip_after_first_failure
from ..judge.verdicts import INFRA, SubmissionResult
from .ray_cluster import WINDOW, Cluster
from .ray_jobs import Actor, Batch, Job, infra, short

log = logging.getLogger("neocoder.executors.ray")  # the executor's one logger, in every ray_* module

ORPHAN_TIMEOUT = 120.0  # seconds jobs may wait with no usable actor before they are INFRA
DISCOVER_EVERY = 10.0  # seconds between looks for new sandbox nodes
POLL = 0.01  # seconds: the dispatcher's ray.wait timeout while batches are in flight


class Dispatcher:
    """The queue of jobs, the batches in flight and the thread that moves them.

    ``cluster`` holds the actors; ``lock`` is the RaySandbox's (held around every change
    of the queue, the batches, the actors and ``stats``); ``attempts`` bounds the tries
    per job.  ``failure`` is None, or why the dispatcher thread stopped.
    """

    def __init__(self, ray, cluster: Cluster, lock: threading.Lock, attempts: int):
        self.ray, self.cluster, self.lock, self.attempts = ray, cluster, lock, attempts
        self.queue: collections.deque = collections.deque()
        self.batches: list[Batch] = []
        self.stats = {"judged": collections.Counter(), "batches": 0, "jobs_in_batches": 0, "retried": 0,
                      "infra": 0, "actors_lost": 0}
        self.closed = False
        self.failure: str | None = None
        self.wake = threading.Event()  # set when a batch is sent: the idle dispatcher starts waiting on it
        self.next_discovery = time.monotonic() + DISCOVER_EVERY
        self.last_usable = time.monotonic()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the dispatcher thread."""
        self.thread = threading.Thread(target=self._loop, name="neocoder-ray-dispatch", daemon=True)
        self.thread.start()

    def submit(self, job: Job) -> None:
        """Queue ``job`` and send it at once if an actor has an idle slot (lock held)."""
        self.queue.append(job)
        self.dispatch(eager=True)

    def take_all(self) -> list[Job]:
        """Empty the queue and the batches; the jobs they held, unsettled (lock held)."""
        jobs = list(self.queue) + [j for b in self.batches for j in b.jobs.values()]
        self.queue.clear()
        self.batches = []
        return jobs

    def dispatch(self, eager: bool = False) -> None:
        """Send queued jobs to actors with room (lock held).  ``eager`` (a caller's new job):
        only actors with an idle slot; else actors with at most ``slots`` in flight are
        refilled up to WINDOW x ``slots``."""
        if not self.queue:
            return
        usable = self.cluster.usable()
        if not usable:
            return
        self.last_usable = time.monotonic()
        for actor in sorted(usable, key=lambda a: a.inflight / a.slots):
            if not self.queue:
                return
            if actor.inflight >= actor.slots + (0 if eager else 1):
                continue
            room = WINDOW * actor.slots - actor.inflight
            others = {a.key for a in usable} - {actor.key}
            batch, keep = [], collections.deque()
            while self.queue and len(batch) < room:
                job = self.queue.popleft()
                # a job that lost this actor waits for another one, unless every usable actor lost it
                (keep if actor.key in job.avoid and others - job.avoid else batch).append(job)
            self.queue.extendleft(reversed(keep))
            if batch:
                self._send(actor, batch)

    def _send(self, actor: Actor, jobs: list[Job]) -> None:
        gen = actor.handle.judge.options(num_returns="streaming").remote([j.payload for j in jobs])
        self.batches.append(Batch(actor, gen, dict(enumerate(jobs))))
        actor.inflight += len(jobs)
        self.wake.set()
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
        """Collect streamed results with ray.wait, retry the jobs of failed batches, probe
        lost actors, find new nodes, refill actors."""
        while True:
            with self.lock:
                if self.closed:
                    return
                waiting = {b.gen: b for b in self.batches}
                probes = self.cluster.probes(time.monotonic())
            ready = self._wait(list(waiting) + list(probes))
            with self.lock:
                if self.closed:
                    return
                for ref in ready:
                    if ref in probes:
                        self.cluster.probed(probes[ref], ref)
                    else:
                        self._collect(waiting[ref])
                self._housekeeping()
                self.dispatch()

    def _wait(self, refs: list) -> list:
        """The refs ready within POLL s (all that are ready once one is); with nothing in
        flight, sleep until a batch is sent (or a housekeeping round is due)."""
        if not refs:
            self.wake.wait(0.5)
            self.wake.clear()
            return []
        ready, _ = self.ray.wait(refs, num_returns=1, timeout=POLL)
        if ready:
            ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        return ready

    def _collect(self, batch: Batch) -> None:
        """Take the next streamed result of ``batch`` (lock held; it is ready)."""
        actor = batch.actor
        if batch not in self.batches:  # dropped in this round with its actor's other batches
            return
        try:
            finished = self.ray.get(next(batch.gen))
        except StopIteration:
            self.batches.remove(batch)
            for job in batch.jobs.values():  # not expected: a finished batch has yielded every job
                self._retry(job, actor, "the batch ended without this job's result")
            return
        except self.ray.exceptions.RayError as exc:
            self._actor_lost(batch, exc)
            return
        for index, result, error in finished:
            job = batch.jobs.pop(index)
            actor.inflight = max(0, actor.inflight - 1)
            if error is None and result.infra_failure:  # the node's sandbox failed (e.g. its engine): not judged
                error = "its sandbox failed: " + next(t.detail for t in result.tests if t.verdict == INFRA)
            if error is not None:
                self._retry(job, actor, error)
                continue
            self.stats["judged"][actor.node_id] += 1
            settle(job, result)

    def _actor_lost(self, batch: Batch, exc: Exception) -> None:
        """``batch`` failed with ``exc``: its actor is lost, and so are its other batches;
        every job of them is retried (lock held)."""
        actor = batch.actor
        self.batches.remove(batch)
        if self.cluster.lost(actor, exc):
            self.stats["actors_lost"] += 1
        for b in [b for b in self.batches if b.actor is actor]:
            self.batches.remove(b)
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
    """Deliver ``result`` to ``job``'s caller, once (later results are dropped)."""
    if job.stop_at_first_failure:
        skip_after_first_failure(result)
    if not job.future.done():
        job.future.set_result(result)
