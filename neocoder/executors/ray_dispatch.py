"""Sending jobs to the actors in batches and collecting their results.

Callers queue their jobs on the driver; they leave in batches, one actor call each,
when the queue could fill the windows of the actors that can be refilled, or when its
oldest job has waited LINGER s.  A batch goes to the least loaded actors that can be refilled (at
most ``slots`` jobs in flight), spread over them, at most WINDOW x ``slots`` jobs in
flight per actor and MAX_BATCH per call; each test list, limit and checker travels once
per batch (``ray_jobs.pack``).  Results come back in the call's reply: a small batch
(under SPLIT_FROM jobs) once all its jobs are done, a larger one with the jobs done
within HOLD s of the first to finish, the others in the replies of follow-up ``rest``
calls, so a slow program does not hold back the others of its batch.

The dispatcher thread sleeps until something happens: each reply (or probe) completes
a Ray future whose callback wakes it, and a caller's job wakes it only when it could
leave now (it fills the open actors' windows, or nothing else is gathering); it never polls.  A job
whose actor died, or whose node's sandbox gave INFRA, is queued again for another
actor, up to ``attempts`` tries; then, or after ORPHAN_TIMEOUT s without any usable
actor, it gets INFRA on every test.  Each job's result is delivered once.
"""

from __future__ import annotations

import collections
import functools
import logging
import pickle
import threading
import time

from neocoder.executors.ray_cluster import WINDOW, Cluster
from neocoder.executors.ray_jobs import Actor, Batch, Job, infra, pack, short
from neocoder.judge.protocol import skip_after_first_failure
from neocoder.judge.verdicts import INFRA, SubmissionResult

log = logging.getLogger("neocoder.executors.ray")  # the executor's one logger, in every ray_* module

ORPHAN_TIMEOUT = 120.0  # seconds jobs may wait with no usable actor before they are INFRA
DISCOVER_EVERY = 10.0  # seconds between looks for new sandbox nodes
HOUSEKEEPING = 0.25  # seconds the dispatcher sleeps at most (probes of lost actors, discovery, orphans)
LINGER = 0.001  # seconds a queued job waits for others to share its batch (while they cannot fill the open windows)
MAX_BATCH = 64  # jobs per actor call at most
SPLIT_FROM = 4  # batches of at least this many jobs may reply before all are done; smaller ones reply once
HOLD = 0.005  # seconds such a reply waits for more of its batch's results once one is ready
NEVER = 1 << 62  # the dispatcher's wake threshold while no actor can take a job (a reply wakes it)


class Dispatcher:
    """The queue of jobs, the batches in flight and the thread that moves them.

    ``cluster`` holds the actors; ``lock`` is the RaySandbox's (held around every change
    of the queue, the batches, the actors and ``stats``); ``attempts`` bounds the tries
    per job.  ``failure`` is None, or why the dispatcher thread stopped.
    """

    def __init__(self, ray, cluster: Cluster, lock: threading.Lock, attempts: int):
        self.ray, self.cluster, self.lock, self.attempts = ray, cluster, lock, attempts
        self.inbox: collections.deque = collections.deque()  # callers' jobs, appended without the lock
        self.arrivals: collections.deque = collections.deque()  # (Batch or Actor, ref, future) completed by Ray
        self.queue: collections.deque = collections.deque()  # jobs waiting for a batch (the dispatcher's)
        self.batches: set[Batch] = set()
        self.watched: set = set()  # probe refs whose completion wakes the dispatcher
        self.stats = {"judged": collections.Counter(), "batches": 0, "calls": 0, "jobs_in_batches": 0,
                      "retried": 0, "infra": 0, "actors_lost": 0}
        self.closed = False
        self.failure: str | None = None
        self.wake = threading.Event()  # set by a reply, a probe, close(), or a job that could leave now
        self.wake_after = 1  # a caller wakes the dispatcher once the inbox holds this many jobs
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
        if len(self.inbox) >= self.wake_after:
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

    def _open(self) -> list[Actor]:
        """The usable actors that can be refilled (at most ``slots`` jobs in flight)."""
        return [a for a in self.cluster.usable() if a.inflight <= a.slots]

    def _room(self) -> int:
        """Jobs the open actors take before their windows (WINDOW x ``slots`` in flight) are full."""
        return sum(WINDOW * a.slots - a.inflight for a in self._open())

    def due(self, now: float) -> bool:
        """Whether the queue should leave now (lock held): it fills the open actors'
        windows, or its first job has waited LINGER s (so the jobs of callers woken by
        one reply leave together, in one call)."""
        return bool(self.queue) and (now - self.queue[0].queued >= LINGER or len(self.queue) >= self._room())

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
        open_ = sorted(self._open(), key=lambda a: a.inflight / a.slots)
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
        batch = Batch(actor, dict(enumerate(jobs)), HOLD if len(jobs) >= SPLIT_FROM else None)
        try:
            ref = actor.handle.judge.remote(pack(jobs), batch.hold)
        except Exception as exc:  # noqa: BLE001 - one bad batch must not stop the executor
            log.warning("ray executor: a batch of %d jobs could not be sent: %s", len(jobs), short(exc))
            for job in jobs:
                self.stats["infra"] += 1
                settle(job, infra(job.payload["tests"], f"ray executor: the batch could not be sent ({short(exc)})"))
            return
        self.batches.add(batch)
        self._watch(batch, ref)
        actor.inflight += len(jobs)
        self.stats["batches"] += 1
        self.stats["jobs_in_batches"] += len(jobs)

    def _watch(self, what, ref) -> None:
        """Have the reply ``ref`` (of a Batch's call, or an Actor's probe) wake the dispatcher."""
        self.stats["calls"] += isinstance(what, Batch)
        ref.future().add_done_callback(functools.partial(self._arrived, what, ref))

    def _arrived(self, what, ref, future) -> None:
        """(Ray's thread) A reply is ready: queue it for the dispatcher and wake it."""
        self.arrivals.append((what, ref, future))
        self.wake.set()

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
        """The dispatcher thread: ``_step`` until closed; if it fails, every job waiting
        gets INFRA with the reason and later ones too (never a hung caller)."""
        try:
            while (timeout := self._step()) is not None:
                self.wake.wait(timeout)
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting forever
            log.exception("ray executor: the dispatcher failed")
            with self.lock:
                self.failure = f"ray executor: the dispatcher failed ({short(exc)})"
                jobs = self.take_all()
            for job in jobs:
                settle(job, infra(job.payload["tests"], self.failure))

    def _step(self) -> float | None:
        """Take the replies that arrived, look after the actors, send the queue when it is
        due; how long to sleep until the next step (None: closed).  Sets ``wake_after``,
        the number of new jobs that should wake the dispatcher before then."""
        self.wake.clear()  # before reading the inbox and arrivals: what comes later sets it again
        with self.lock:
            if self.closed:
                return None
            self._drain()
            while self.arrivals:
                what, ref, future = self.arrivals.popleft()
                if isinstance(what, Batch):
                    self._collect(what, future)
                else:
                    self.watched.discard(ref)
                    if what.probe is ref:  # the actor's probe in flight (not one a restart replaced)
                        self.cluster.probed(what, ref)
            now = time.monotonic()
            self._housekeeping(now)
            sent = self.stats["jobs_in_batches"]
            if self.due(now):
                self.dispatch()
            timeout = HOUSEKEEPING
            if not self._open():  # nothing can leave before a reply makes room, and a reply wakes us
                self.wake_after = NEVER
            elif self.queue and not self.due(now):  # gathering: leave at LINGER, or once the open windows fill
                timeout = max(0.0, min(timeout, self.queue[0].queued + LINGER - now))
                self.wake_after = max(1, self._room() - len(self.queue))
            else:  # nothing queued, or what is left waits for another actor (jobs that lost this one)
                self.wake_after = 1
                if self.queue and self.stats["jobs_in_batches"] > sent:  # a full batch left: send on at once
                    timeout = 0.0
        return 0.0 if len(self.inbox) >= self.wake_after else timeout

    def _collect(self, batch: Batch, future) -> None:
        """A reply of ``batch`` arrived (lock held): deliver its results, retry its failed
        jobs, and ask for the rest of the batch while some are still running."""
        actor = batch.actor
        if batch not in self.batches:  # dropped with its actor's other batches
            self._forget_reply(batch, future)
            return
        try:
            finished, token = pickle.loads(future.result())
        except self.ray.exceptions.RayActorError as exc:  # the actor died or cannot be reached
            self._actor_lost(batch, exc)
            return
        except self.ray.exceptions.RayError as exc:  # the call failed, the actor lives: this batch elsewhere
            self._give_up(batch, short(exc))
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
            job.deliver(result)  # the actor's sandbox applied stop_at_first_failure already
        actor.inflight = max(0, actor.inflight - len(finished))
        if judged:
            self.stats["judged"][actor.node_id] += judged
        batch.token = token
        if token is not None and batch.jobs:
            try:
                self._watch(batch, actor.handle.rest.remote(token, batch.hold))
                return
            except Exception as exc:  # noqa: BLE001 - an actor that cannot be called is lost
                self._actor_lost(batch, exc)
                return
        self.batches.discard(batch)
        for job in batch.jobs.values():  # not expected: a finished batch has given every job's result
            actor.inflight = max(0, actor.inflight - 1)
            self._retry(job, actor, "the batch ended without this job's result")

    def _give_up(self, batch: Batch, error: str) -> None:
        """Drop ``batch`` and retry its unfinished jobs elsewhere, the actor kept (lock held)."""
        actor = batch.actor
        self.batches.discard(batch)
        actor.inflight = max(0, actor.inflight - len(batch.jobs))
        self._forget(batch)
        for job in batch.jobs.values():
            self._retry(job, actor, error)

    def _forget_reply(self, batch: Batch, future) -> None:
        """A reply of a dropped batch arrived: if it left jobs running, the actor forgets them."""
        try:
            batch.token = pickle.loads(future.result())[1]
        except Exception:  # noqa: BLE001 - a failed call left nothing to forget
            return
        self._forget(batch)

    def _forget(self, batch: Batch) -> None:
        """Tell ``batch``'s actor to drop the jobs it keeps for a ``rest`` call that will not come."""
        if batch.token is not None:
            try:
                batch.actor.handle.forget.remote(batch.token)
            except Exception:  # noqa: BLE001 - a dead actor has nothing to forget
                pass

    def _actor_lost(self, batch: Batch, exc: Exception) -> None:
        """``batch`` failed with ``exc``: its actor is lost, and so are its other batches;
        every job of them is retried (lock held)."""
        actor = batch.actor
        self.batches.discard(batch)
        if self.cluster.lost(actor, exc):
            self.stats["actors_lost"] += 1
        for b in [b for b in self.batches if b.actor is actor]:
            self.batches.discard(b)
            self._forget(b)  # if the actor lives on (unreachable for a while), it frees what it keeps
            for job in b.jobs.values():
                self._retry(job, actor, short(exc))
        for job in batch.jobs.values():
            self._retry(job, actor, short(exc))

    def _housekeeping(self, now: float) -> None:
        """Probe lost actors, give new sandbox nodes an actor, and INFRA to jobs left with
        no usable actor too long (lock held)."""
        if now >= self.next_discovery:
            self.next_discovery = now + DISCOVER_EVERY
            self.cluster.discover()
        for ref, actor in self.cluster.probes(now).items():
            if ref not in self.watched:
                self.watched.add(ref)
                self._watch(actor, ref)
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
    job.deliver(result)
