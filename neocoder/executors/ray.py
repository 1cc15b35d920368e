"""The ``ray`` executor: judge jobs on sandbox-pool actors across a Ray cluster.

Layout (docs/scale-out.md)::

    driver (neocoder eval / build-dataset / serve)        node with Docker + the image
    model calls, detection, metrics, the run folder       (ray start --resources '{"neocoder_sandbox": 1}')
    RaySandbox.run() ── job ──> queue ── batch ──────────>  SandboxPool actor: its own warm
                     <── SubmissionResults, per reply ───   pool (make_sandbox), verified reset

- **Placement.** One ``SandboxPool`` actor per alive node that declares the custom
  resource ``neocoder_sandbox`` (RESOURCE), pinned to it with Ray's
  ``NodeAffinitySchedulingStrategy`` and asking for a sliver of that resource, so judge
  work only goes where Docker is and several drivers can share a node.  Each actor holds
  a local pool of ``slots`` warm containers (default: the node's Ray CPU count, set by
  ``ray start --num-cpus``) with the local pool's verified reset; its node's image must
  carry the same runner as the driver's neocoder, or the node is not used.  Nodes that
  join later get an actor within DISCOVER_EVERY seconds.
- **Batches and back-pressure.** Callers' jobs wait in the driver's queue and leave in
  batches, one actor call each: at once when the queue could fill the windows of the
  actors that can be refilled, else after LINGER (1 ms), spread over the least loaded,
  at most WINDOW x ``slots`` in flight per actor.  Each test list, limit and checker
  travels once per batch; results come back in the call's reply (a larger batch's reply
  leaves with what is done a few ms after its first job ends, the rest following in
  ``rest`` calls), so a slow program does not hold back the others of a large batch.
  Ray's futures wake the dispatcher when a reply arrives: it never polls.  The callers'
  threads (``--workers``) are the bound on the jobs waiting on the driver.
- **Failures.** When an actor or its node dies, every job of its unfinished batches is
  queued again for another actor (one that has not lost it, where there is one), and so
  is a job the node's sandbox gave INFRA (its engine or a container failed), up to
  ``attempts`` times in all; a job lost that often, or left without any usable node for
  ORPHAN_TIMEOUT seconds, gets INFRA on every test: never a verdict against the model
  (the pipeline then marks the sample infra, and a resumed run judges it again).  Ray
  restarts a dead actor on its node (``max_restarts``) while the node lives; the driver
  probes it and uses it again once it answers.  Each job's result is delivered once.
- **What stays on the driver.** Model calls, technique detection, the run folder and its
  resume rule: only judge jobs travel.

This module is the face (RaySandbox); beside it: ``ray_connect`` (joining the
cluster), ``ray_cluster`` (the actors), ``ray_dispatch`` (jobs, batches, retries),
``ray_actor`` (the SandboxPool actor on a node), ``ray_jobs`` (the driver's records).
Ray is imported lazily: without it ``RaySandbox.unavailable`` says how to install it.
"""

from __future__ import annotations

import collections
import logging
import os
import sys
import threading
import time
import uuid

from neocoder.executors import ray_connect as connect
from neocoder.executors.ray_actor import SandboxPool
from neocoder.executors.ray_cluster import Cluster
from neocoder.executors.ray_dispatch import Dispatcher, settle
from neocoder.executors.ray_jobs import Job, infra
from neocoder.judge.cancel import Cancel, Cancelled
from neocoder.judge.protocol import (
    Limits,
    check_language,
    compile_error_result,
    size_problem,
    skip_after_first_failure,
)
from neocoder.judge.verdicts import SubmissionResult

log = logging.getLogger("neocoder.executors.ray")  # the executor's one logger, in every ray_* module

RESOURCE = "neocoder_sandbox"  # the custom node resource a Docker host declares on `ray start --resources`
INSTALL_HINT = "pip install 'neocoder[ray]'"
ATTEMPTS = 3  # tries per job (the first and two retries) before it is INFRA
START_TIMEOUT = 120.0  # seconds for the actors to start (import neocoder, reach Docker, check the image)
NAME = "ray"  # Sandbox.name; the executor's key in neocoder.executors.EXECUTORS


class RaySandbox:
    """Judges submissions on SandboxPool actors across a Ray cluster (module docstring).

    Implements ``neocoder.judge.Sandbox`` as the local pool does: ``run``, ``capacity``,
    ``unavailable`` (None, or a message saying what to do: Ray not installed, no
    cluster, no node with RESOURCE, no node whose Docker and image work), ``image``,
    ``name`` ("ray"), ``enforces`` (what every usable node's backend enforces),
    ``fresh``, ``close()``.  ``config`` is the SandboxConfig (``kind``, ``fresh``,
    ``runtime``, ``ray_address``); ``concurrency`` is how many submissions the caller
    keeps in flight (informational: the cluster's capacity is the sum of its actors'
    ``slots``, see ``capacity``).  ``slots`` overrides the per-node pool size (default:
    each node's Ray CPU count); ``attempts`` bounds the tries per job; ``resource`` names
    the node resource that marks a Docker host; ``pool`` the actor class (SandboxPool; a
    subclass overriding ``make_box`` judges elsewhere, as the benchmark's no-judging
    scale mode does).  Construction connects to Ray and starts
    one actor per sandbox node (seconds); ``close()`` stops them and their containers.
    """

    name = NAME

    def __init__(self, config, concurrency: int | None = None, *, slots: int | None = None,
                 attempts: int = ATTEMPTS, resource: str = RESOURCE, start_timeout: float = START_TIMEOUT,
                 pool=SandboxPool):
        self.config = config
        self.concurrency = concurrency or config.workers
        self.fresh = config.fresh
        self.image: str | None = None
        self.enforces: tuple = ()
        self._problem: str | None = None
        self._lock = threading.Lock()
        self._connected = False
        self.ray = self.cluster = self.dispatcher = None
        if connect.loopback(config.ray_address) and "ray" not in sys.modules:
            # Ray rewrites a loopback address to this machine's outside one before it connects
            # (and then waits for minutes); this keeps it on loopback, for a cluster bound there
            os.environ.setdefault(connect.LOOPBACK_ENV, "0")
        try:
            import ray
        except ImportError:
            self._problem = f"--executor ray needs Ray, which is not installed here: {INSTALL_HINT}"
            return
        self.ray = ray
        self.cluster = Cluster(ray, config, slots, resource, uuid.uuid4().hex[:8], pool)
        self.dispatcher = Dispatcher(ray, self.cluster, self._lock, max(1, attempts))
        self._problem = connect.connect(ray, config.ray_address, resource)
        if self._problem is None:
            self._connected = True
            self._problem = self._start(start_timeout)
        if self._problem is None:
            self.dispatcher.start()

    def _start(self, timeout: float) -> str | None:
        """Start one actor per sandbox node and wait for them; None, or why none can judge."""
        nodes = self.cluster.sandbox_nodes()
        if not nodes:
            return connect.no_node_message(self.cluster.resource, self.config.ray_address)
        with self._lock:
            for node in nodes:
                self.cluster.start(node)
        self.cluster.await_start(timeout, self._lock)
        usable = self.cluster.usable()
        actors = self.cluster.actors.values()
        if not usable:
            return "no node of the Ray cluster can judge: " + "; ".join(
                f"node {a.node_id[:12]} ({a.info.get('host', '?')}): {a.reason}" for a in actors)
        self.image = usable[0].info["image"]
        self.enforces = tuple(sorted(set.intersection(*(set(a.info["enforces"]) for a in usable))))
        for a in actors:
            if a.state != "up":
                log.warning("ray executor: node %s (%s) is not used: %s", a.node_id[:12], a.info.get("host", "?"),
                            a.reason)
        return None

    @property
    def unavailable(self) -> str | None:
        """None when it can judge; else what to do (or why the dispatcher stopped)."""
        if self._problem is not None:
            return self._problem
        return self.dispatcher.failure if self.dispatcher is not None else None

    # -- the face the pipeline sees ------------------------------------------------------

    def run(self, source: str, tests: list[dict], limits: Limits = Limits(), checker=None,
            keep_output: bool = False, entry: str = "auto", *,
            stop_at_first_failure: bool = False, language: str = "python",
            cancel: Cancel | None = None) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input", "output"}]``) on some node of the
        cluster, as ``PooledSandbox.run`` does locally (same arguments, same result; its
        ``worker`` is "NODE/CONTAINER", its ``seconds`` the wall time seen by this caller,
        queueing included).  Blocks until judged.  Never raises for cluster trouble: a job
        whose actor or node died, or whose node's sandbox gave INFRA, is tried again on
        another node; an unavailable executor, a job that failed ``attempts`` times, a job
        left without nodes for ORPHAN_TIMEOUT s, or a closed sandbox give INFRA on every
        test with the reason.  ``cancel`` set before the job is sent raises Cancelled; a job
        already on a node is judged to its end (its result is then dropped by the caller)."""
        start = time.monotonic()
        if cancel is not None and cancel.is_set():
            raise Cancelled("the caller has gone before the submission was sent")

        def finished(result: SubmissionResult) -> SubmissionResult:
            if stop_at_first_failure:
                skip_after_first_failure(result)
            result.seconds = time.monotonic() - start
            return result

        if self.unavailable:
            return finished(infra(tests, self.unavailable))
        too_large = size_problem(source, [t["input"] for t in tests])
        if too_large:  # never shipped across the cluster, as the local pool never sends it to a worker
            return finished(compile_error_result(tests, too_large, check_language(language)))
        payload = {"source": source, "tests": tests, "limits": limits, "checker": checker,
                   "keep_output": keep_output, "entry": entry, "stop_at_first_failure": stop_at_first_failure,
                   "language": check_language(language)}
        job = Job(payload, stop_at_first_failure)
        if self.dispatcher.closed or self.unavailable:
            return finished(infra(tests, self.unavailable or "ray executor: the sandbox was closed"))
        self.dispatcher.submit(job)  # no lock: the dispatcher thread takes it from there
        if self.dispatcher.closed or self.unavailable:  # closed meanwhile: close() may not have seen it
            settle(job, infra(tests, self.unavailable or "ray executor: the sandbox was closed"))
        result = job.wait()
        result.seconds = time.monotonic() - start
        return result

    @property
    def capacity(self) -> int:
        """Submissions the usable actors judge at once (the sum of their slots)."""
        if self.cluster is None:
            return 0
        with self._lock:
            return sum(a.slots for a in self.cluster.usable())

    def nodes(self) -> list[dict]:
        """The actors as the driver sees them: ``{"node_id", "state", "slots", "inflight",
        "judged" (by this driver's count), "pid", "host", "reason"}`` per actor."""
        if self.cluster is None:
            return []
        with self._lock:
            judged = self.dispatcher.stats["judged"]
            return [{"node_id": a.node_id, "state": a.state, "slots": a.slots, "inflight": a.inflight,
                     "judged": judged[a.node_id], "pid": a.info.get("pid"),
                     "host": a.info.get("host"), "reason": a.reason} for a in self.cluster.actors.values()]

    def summary(self) -> dict:
        """What this sandbox did: ``{"judged": {node id: submissions}, "batches",
        "jobs_in_batches", "retried" (jobs queued again after losing their actor),
        "infra" (jobs given up), "actors_lost", "nodes"}``."""
        if self.dispatcher is None:
            return {"judged": {}, "batches": 0, "jobs_in_batches": 0, "retried": 0, "infra": 0,
                    "actors_lost": 0, "nodes": 0}
        with self._lock:
            stats = self.dispatcher.stats
            out = {k: (dict(v) if isinstance(v, collections.Counter) else v) for k, v in stats.items()}
        out["nodes"] = len(out["judged"])
        return out

    def close(self) -> None:
        """Stop judging: jobs still waiting get INFRA, the actors remove their containers
        (and those of dead actors on their hosts) and are killed, and the Ray connection
        this sandbox opened is closed when no other RaySandbox in the process uses it."""
        if self.ray is None:
            return
        with self._lock:
            if self.dispatcher.closed:
                return
            self.dispatcher.closed = True
            self.dispatcher.wake.set()
            leftovers = self.dispatcher.take_all()
        for job in leftovers:
            settle(job, infra(job.payload["tests"], "ray executor: the sandbox was closed"))
        if self.dispatcher.thread is not None:
            self.dispatcher.thread.join(timeout=5)
        self._stop_actors()
        self._log_summary()
        if self._connected:
            self._connected = False
            connect.disconnect(self.ray)

    def _stop_actors(self) -> None:
        """Ask each up actor to remove its containers (30 s in all), then kill every actor."""
        actors = list(self.cluster.actors.values())
        closing = {a.handle.close.remote(): a for a in actors if a.state == "up"}
        if closing:
            done, _ = self.ray.wait(list(closing), num_returns=len(closing), timeout=30)
            for ref in done:
                try:
                    swept = self.ray.get(ref)
                    if swept:
                        log.info("ray executor: removed %d containers left by dead actors on %s", swept,
                                 closing[ref].info.get("host", "?"))
                except self.ray.exceptions.RayError:
                    pass
        for a in actors:
            try:
                self.ray.kill(a.handle)
            except Exception:  # noqa: BLE001 - already gone
                pass

    def _log_summary(self) -> None:
        summary = self.summary()
        if summary["batches"]:
            log.info("ray executor: %d submissions judged on %d nodes (%s); %d batches; %d retried; %d INFRA",
                     sum(summary["judged"].values()), summary["nodes"],
                     ", ".join(f"{n[:12]}: {c}" for n, c in summary["judged"].items()), summary["batches"],
                     summary["retried"], summary["infra"], extra={"ray_summary": summary})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
