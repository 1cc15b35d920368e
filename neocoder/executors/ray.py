"""The ``ray`` executor: judge jobs on sandbox-pool actors across a Ray cluster.

Layout (docs/scale-out.md)::

    driver (neocoder eval / build-dataset / serve)        node with Docker + the image
    model calls, detection, metrics, the run folder       (ray start --resources '{"neocoder_sandbox": 1}')
    RaySandbox.run() ── job ──> queue ── batch ──────────>  SandboxPool actor: its own warm
                     <── SubmissionResult, streamed ─────   pool (make_sandbox), verified reset

- **Placement.** One ``SandboxPool`` actor per alive node that declares the custom
  resource ``neocoder_sandbox`` (RESOURCE), pinned to it with Ray's
  ``NodeAffinitySchedulingStrategy`` and asking for a sliver of that resource, so judge
  work only goes where Docker is and several drivers can share a node.  Each actor holds
  a local pool of ``slots`` warm containers (default: the node's Ray CPU count, set by
  ``ray start --num-cpus``) with the local pool's verified reset; its node's image must
  carry the same runner as the driver's neocoder, or the node is not used.  Nodes that
  join later get an actor within DISCOVER_EVERY seconds.
- **Batches and back-pressure.** A caller's job goes straight to the least loaded actor
  that has an idle slot; otherwise it waits in the driver's queue.  An actor with at most
  ``slots`` jobs in flight is refilled with one call carrying up to ``slots`` queued jobs
  (so at most WINDOW x ``slots`` are in flight per actor, and its pool never idles while
  work waits); results stream back one by one as each job finishes (a streaming
  generator, collected with ``ray.wait``), so a slow program does not hold back the
  others of its batch.  The callers' threads (``--workers``) are the bound on the jobs
  waiting on the driver.
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

Ray is imported lazily: without it ``RaySandbox.unavailable`` says how to install it.
"""

from __future__ import annotations

import collections
import logging
import os
import socket
import sys
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from ..judge.protocol import Limits, compile_error_result, size_problem, skip_after_first_failure
from ..judge.verdicts import INFRA, SubmissionResult, TestVerdict

log = logging.getLogger(__name__)

RESOURCE = "neocoder_sandbox"  # the custom node resource a Docker host declares on `ray start --resources`
RESOURCE_SHARE = 0.001  # of RESOURCE each actor asks for: only declaring nodes, and many drivers per node
NAMESPACE = "neocoder"
INSTALL_HINT = "pip install 'neocoder[ray]'"
ATTEMPTS = 3  # tries per job (the first and two retries) before it is INFRA
WINDOW = 2  # jobs in flight per slot of an actor
MAX_RESTARTS = 3  # Ray restarts of one actor on its (live) node
START_TIMEOUT = 120.0  # seconds for the actors to start (import neocoder, reach Docker, check the image)
ORPHAN_TIMEOUT = 120.0  # seconds jobs may wait with no usable actor before they are INFRA
DISCOVER_EVERY = 10.0  # seconds between looks for new sandbox nodes
POLL = 0.01  # seconds: the dispatcher's ray.wait timeout while batches are in flight
CONNECT_TIMEOUT = 10.0  # seconds to reach HOST:PORT before ray.init is tried
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps 127.0.0.1 as this node's address


class SandboxPool:
    """One node's judge: a warm local pool (``make_sandbox``) inside a Ray actor.

    ``kind``, ``fresh``, ``runtime`` are the SandboxConfig's; ``slots`` submissions are
    judged at once (the pool's concurrency).  Created by RaySandbox with ``ray.remote``
    on a node that declares RESOURCE; never raises for sandbox trouble (``info()``
    reports ``unavailable``)."""

    def __init__(self, kind: str, slots: int, fresh: bool, runtime: str | None):
        import ray

        from ..judge import make_sandbox
        from ..judge.image import runner_sha256
        self.slots = slots
        self.node_id = ray.get_runtime_context().get_node_id()
        self.box = make_sandbox(kind, concurrency=slots, fresh=fresh, runtime=runtime)
        self.threads = ThreadPoolExecutor(slots, thread_name_prefix="neocoder-judge")
        self.runner = runner_sha256()
        self.judged = 0
        self._lock = threading.Lock()

    def info(self) -> dict:
        """Who and where this actor is: ``{"node_id", "host", "pid", "slots", "sandbox",
        "image", "enforces", "runner_sha256", "unavailable", "judged"}``."""
        return {"node_id": self.node_id, "host": socket.gethostname(), "pid": os.getpid(), "slots": self.slots,
                "sandbox": self.box.name, "image": self.box.image, "enforces": list(self.box.enforces),
                "runner_sha256": self.runner, "unavailable": self.box.unavailable, "judged": self.judged}

    def _judge(self, job: dict) -> SubmissionResult:
        result = self.box.run(job["source"], job["tests"], job["limits"], checker=job["checker"],
                              keep_output=job["keep_output"], entry=job["entry"],
                              stop_at_first_failure=job["stop_at_first_failure"])
        result.worker = f"{self.node_id[:12]}/{result.worker}"
        with self._lock:
            self.judged += 1
        return result

    def judge(self, jobs: list[dict]):
        """Judge a batch of jobs on this node's pool, ``slots`` at a time (a streaming
        generator: call with ``num_returns="streaming"``).  Yields, as soon as jobs finish,
        the list of those finished since the last yield: ``[(index in the batch,
        SubmissionResult or None, error text or None)]`` (one item per list unless several
        end together, which spares the driver a round trip each)."""
        futures = {self.threads.submit(self._judge, job): i for i, job in enumerate(jobs)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield [(futures[fut], *_outcome(fut)) for fut in done]

    def close(self) -> int:
        """Remove this pool's containers, then those of dead processes on this host (an
        actor killed with its pool left them); returns how many of the latter."""
        self.box.close()
        self.threads.shutdown(wait=False)
        sweep = getattr(self.box, "sweep", None)
        return sweep() if sweep is not None and not self.box.unavailable else 0


def _outcome(fut) -> tuple:
    try:
        return fut.result(), None
    except Exception as exc:  # noqa: BLE001 - reported per job; the driver retries it elsewhere
        return None, f"{type(exc).__name__}: {exc}"


@dataclass(eq=False)
class _Job:
    payload: dict
    future: Future
    stop_at_first_failure: bool
    attempts: int = 0
    avoid: set = field(default_factory=set)  # actors that lost it
    last_error: str = ""


@dataclass(eq=False)
class _Actor:
    key: str
    node_id: str
    handle: object
    slots: int
    state: str = "starting"  # starting -> up; up -> down (probing) -> up | dead; starting -> unusable | dead
    info: dict = field(default_factory=dict)
    inflight: int = 0
    probe: object = None  # an info() ObjectRef while starting or down
    probe_after: float = 0.0
    reason: str = ""


@dataclass(eq=False)
class _Batch:
    actor: _Actor
    gen: object  # ray ObjectRefGenerator
    jobs: dict  # index in the batch -> _Job, until its result arrives


_conn_lock = threading.Lock()
_conn_users = 0
_conn_ours = False


def _loopback(address: str | None) -> bool:
    """True for ``127.x.x.x:PORT``, ``localhost:PORT`` and ``[::1]:PORT``."""
    host = (address or "").rpartition(":")[0].strip("[]")
    return host == "localhost" or host == "::1" or host.startswith("127.")


def _reachable(address: str) -> str | None:
    """None if a TCP connection to ``HOST:PORT`` opens within CONNECT_TIMEOUT, else why not."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return None  # not HOST:PORT (e.g. ray://...): left to ray.init
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
            return None
    except OSError as exc:
        return str(exc)


def _connect(ray, address: str | None, resource: str) -> str | None:
    """Connect this process to Ray once (shared by every RaySandbox in it); None, or a
    message saying why it cannot.  ``address`` None: ``$RAY_ADDRESS`` or the cluster
    ``ray start`` left on this machine; if there is none, a local single-node Ray is
    started that declares ``resource`` (so one machine with Docker works as is)."""
    global _conn_users, _conn_ours
    with _conn_lock:
        if not ray.is_initialized():
            quiet = {"log_to_driver": False, "logging_level": logging.WARNING, "namespace": NAMESPACE}
            try:
                if address and address != "auto":
                    problem = _reachable(address)
                    if problem:
                        return (f"cannot reach the Ray cluster at {address} ({problem}): start its head with "
                                f"`ray start --head --resources '{{\"{resource}\": 1}}'` and give the address it "
                                "prints (docs/scale-out.md)")
                    from ray._private import ray_constants
                    if _loopback(address) and getattr(ray_constants, "ENABLE_RAY_CLUSTER", False):
                        return (f"Ray was imported before neocoder could keep the loopback address {address} "
                                f"on loopback (Ray would connect to this machine's outside address instead): "
                                f"set {LOOPBACK_ENV}=0 in the environment, or give the address the cluster "
                                "was started on")
                    ray.init(address=address, **quiet)
                elif address == "auto" or os.environ.get("RAY_ADDRESS"):
                    ray.init(address=address, **quiet)
                else:
                    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
                    try:
                        ray.init(resources={resource: 1}, include_dashboard=False, **quiet)
                    except ValueError as exc:  # a cluster started by `ray start` was found: join it as it is
                        if "existing cluster" not in str(exc):
                            raise
                        ray.init(**quiet)
            except Exception as exc:  # noqa: BLE001 - ray.init raises ConnectionError, RuntimeError, ValueError...
                return (f"cannot connect to the Ray cluster at {address or 'auto'} ({type(exc).__name__}: {exc}); "
                        "start one with `ray start --head` (docs/scale-out.md)")
            _conn_ours = True
        _conn_users += 1
        return None


def _disconnect(ray) -> None:
    global _conn_users, _conn_ours
    with _conn_lock:
        _conn_users -= 1
        if _conn_users <= 0 and _conn_ours:
            ray.shutdown()
            _conn_users, _conn_ours = 0, False


def no_node_message(resource: str, address: str | None) -> str:
    """What to do when no alive node of the cluster declares ``resource``."""
    return (f"no node of the Ray cluster at {address or 'auto'} offers the resource {resource!r}, so nothing "
            f"can judge: on each machine with Docker and the sandbox image (`neocoder sandbox build`) run "
            f"`ray start --address HEAD:6379 --resources '{{\"{resource}\": 1}}'` (or `ray start --head "
            f"--resources ...` on the head); see docs/scale-out.md")


class RaySandbox:
    """Judges submissions on SandboxPool actors across a Ray cluster (module docstring).

    The same face as the local pool (``neocoder.judge.PooledSandbox``): ``run``,
    ``unavailable`` (None, or a message saying what to do: Ray not installed, no
    cluster, no node with RESOURCE, no node whose Docker and image work), ``image``,
    ``name`` ("ray"), ``enforces`` (what every usable node's backend enforces),
    ``fresh``, ``close()``.  ``config`` is the SandboxConfig (``kind``, ``fresh``,
    ``runtime``, ``ray_address``); ``concurrency`` is how many submissions the caller
    keeps in flight (informational: the cluster's capacity is the sum of its actors'
    ``slots``, see ``capacity``).  ``slots`` overrides the per-node pool size (default:
    each node's Ray CPU count); ``attempts`` bounds the tries per job; ``resource`` names
    the node resource that marks a Docker host.  Construction connects to Ray and starts
    one actor per sandbox node (seconds); ``close()`` stops them and their containers.
    """

    name = "ray"

    def __init__(self, config, concurrency: int | None = None, *, slots: int | None = None,
                 attempts: int = ATTEMPTS, resource: str = RESOURCE, start_timeout: float = START_TIMEOUT):
        self.config = config
        self.concurrency = concurrency or config.workers
        self.fresh = config.fresh
        self.slots, self.attempts, self.resource = slots, max(1, attempts), resource
        self.unavailable: str | None = None
        self.image: str | None = None
        self.enforces: tuple = ()
        self.run_id = uuid.uuid4().hex[:8]
        self.stats = {"judged": collections.Counter(), "batches": 0, "jobs_in_batches": 0, "retried": 0,
                      "infra": 0, "actors_lost": 0}
        self._lock = threading.Lock()
        self._queue: collections.deque = collections.deque()
        self._batches: list[_Batch] = []
        self._actors: dict[str, _Actor] = {}
        self._generation = collections.Counter()  # node id -> actors started there
        self._closed = False
        self._wake = threading.Event()  # set when a batch is sent: the idle dispatcher starts waiting on it
        self._connected = False
        self._thread: threading.Thread | None = None
        self._next_discovery = time.monotonic() + DISCOVER_EVERY
        self._last_usable = time.monotonic()
        if _loopback(config.ray_address) and "ray" not in sys.modules:
            # Ray rewrites a loopback address to this machine's outside one before it connects
            # (and then waits for minutes); this keeps it on loopback, for a cluster bound there
            os.environ.setdefault(LOOPBACK_ENV, "0")
        try:
            import ray
        except ImportError:
            self.ray = None
            self.unavailable = f"--executor ray needs Ray, which is not installed here: {INSTALL_HINT}"
            return
        self.ray = ray
        problem = _connect(ray, config.ray_address, resource)
        if problem:
            self.unavailable = problem
            return
        self._connected = True
        nodes = self._sandbox_nodes()
        if not nodes:
            self.unavailable = no_node_message(resource, config.ray_address)
            return
        with self._lock:
            for node in nodes:
                self._start_actor(node)
        self._await_start(start_timeout)
        usable = [a for a in self._actors.values() if a.state == "up"]
        if not usable:
            self.unavailable = "no node of the Ray cluster can judge: " + "; ".join(
                f"node {a.node_id[:12]} ({a.info.get('host', '?')}): {a.reason}" for a in self._actors.values())
            return
        self.image = usable[0].info["image"]
        self.enforces = tuple(sorted(set.intersection(*(set(a.info["enforces"]) for a in usable))))
        for a in self._actors.values():
            if a.state != "up":
                log.warning("ray executor: node %s (%s) is not used: %s", a.node_id[:12], a.info.get("host", "?"),
                            a.reason)
        self._thread = threading.Thread(target=self._loop, name="neocoder-ray-dispatch", daemon=True)
        self._thread.start()

    # -- the face the pipeline sees ------------------------------------------------------

    def run(self, source: str, tests: list[dict], limits: Limits = Limits(), checker=None,
            keep_output: bool = False, entry: str = "auto", *,
            stop_at_first_failure: bool = False) -> SubmissionResult:
        """Judge ``source`` on ``tests`` (``[{"input", "output"}]``) on some node of the
        cluster, as ``PooledSandbox.run`` does locally (same arguments, same result; its
        ``worker`` is "NODE/CONTAINER", its ``seconds`` the wall time seen by this caller,
        queueing included).  Blocks until judged.  Never raises for cluster trouble: a job
        whose actor or node died, or whose node's sandbox gave INFRA, is tried again on
        another node; an unavailable executor, a job that failed ``attempts`` times, a job
        left without nodes for ORPHAN_TIMEOUT s, or a closed sandbox give INFRA on every
        test with the reason."""
        start = time.monotonic()

        def finished(result: SubmissionResult) -> SubmissionResult:
            if stop_at_first_failure:
                skip_after_first_failure(result)
            result.seconds = time.monotonic() - start
            return result

        if self.unavailable:
            return finished(_infra(tests, self.unavailable))
        too_large = size_problem(source, [t["input"] for t in tests])
        if too_large:  # never shipped across the cluster, as the local pool never sends it to a worker
            return finished(compile_error_result(tests, too_large))
        payload = {"source": source, "tests": tests, "limits": limits, "checker": checker,
                   "keep_output": keep_output, "entry": entry, "stop_at_first_failure": stop_at_first_failure}
        job = _Job(payload, Future(), stop_at_first_failure)
        with self._lock:
            if self._closed or self.unavailable:
                return finished(_infra(tests, self.unavailable or "ray executor: the sandbox was closed"))
            self._queue.append(job)
            self._dispatch(eager=True)
        result = job.future.result()
        result.seconds = time.monotonic() - start
        return result

    @property
    def capacity(self) -> int:
        """Submissions the usable actors judge at once (the sum of their slots)."""
        with self._lock:
            return sum(a.slots for a in self._actors.values() if a.state == "up")

    def nodes(self) -> list[dict]:
        """The actors as the driver sees them: ``{"node_id", "state", "slots", "inflight",
        "judged" (by this driver's count), "pid", "host", "reason"}`` per actor."""
        with self._lock:
            return [{"node_id": a.node_id, "state": a.state, "slots": a.slots, "inflight": a.inflight,
                     "judged": self.stats["judged"][a.node_id], "pid": a.info.get("pid"),
                     "host": a.info.get("host"), "reason": a.reason} for a in self._actors.values()]

    def summary(self) -> dict:
        """What this sandbox did: ``{"judged": {node id: submissions}, "batches",
        "jobs_in_batches", "retried" (jobs queued again after losing their actor),
        "infra" (jobs given up), "actors_lost", "nodes"}``."""
        with self._lock:
            out = {k: (dict(v) if isinstance(v, collections.Counter) else v) for k, v in self.stats.items()}
        out["nodes"] = len(out["judged"])
        return out

    def close(self) -> None:
        """Stop judging: jobs still waiting get INFRA, the actors remove their containers
        (and those of dead actors on their hosts) and are killed, and the Ray connection
        this sandbox opened is closed when no other RaySandbox in the process uses it."""
        if self.ray is None:
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wake.set()
            leftovers = list(self._queue) + [j for b in self._batches for j in b.jobs.values()]
            self._queue.clear()
            self._batches = []
        for job in leftovers:
            self._settle(job, _infra(job.payload["tests"], "ray executor: the sandbox was closed"))
        if self._thread is not None:
            self._thread.join(timeout=5)
        actors = list(self._actors.values())
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
        summary = self.summary()
        if summary["batches"]:
            log.info("ray executor: %d submissions judged on %d nodes (%s); %d batches; %d retried; %d INFRA",
                     sum(summary["judged"].values()), summary["nodes"],
                     ", ".join(f"{n[:12]}: {c}" for n, c in summary["judged"].items()), summary["batches"],
                     summary["retried"], summary["infra"], extra={"ray_summary": summary})
        if self._connected:
            self._connected = False
            _disconnect(self.ray)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- actors --------------------------------------------------------------------------

    def _sandbox_nodes(self) -> list[dict]:
        return [n for n in self.ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(self.resource, 0) > 0]

    def _start_actor(self, node: dict) -> None:
        """Start an actor pinned to ``node`` (lock held); its info() probe says when it is up."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        node_id = node["NodeID"]
        self._generation[node_id] += 1
        slots = self.slots or max(1, int(node.get("Resources", {}).get("CPU", 1)))
        key = f"{node_id[:12]}-{self._generation[node_id]}"
        cls = self.ray.remote(SandboxPool)
        handle = cls.options(
            name=f"neocoder-sandbox-{self.run_id}-{key}", namespace=NAMESPACE, num_cpus=0,
            resources={self.resource: RESOURCE_SHARE},
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            max_restarts=MAX_RESTARTS, max_task_retries=0, max_concurrency=WINDOW * slots + 4,
        ).remote(self.config.kind, slots, self.config.fresh, self.config.runtime)
        actor = _Actor(key, node_id, handle, slots)
        actor.probe = handle.info.remote()
        self._actors[key] = actor

    def _await_start(self, timeout: float) -> None:
        probes = {a.probe: a for a in self._actors.values()}
        ready, _ = self.ray.wait(list(probes), num_returns=len(probes), timeout=timeout)
        with self._lock:
            for ref in ready:
                self._probed(probes[ref], ref)
            for ref, actor in probes.items():
                if actor.state == "starting":
                    actor.state, actor.probe = "unusable", None
                    actor.reason = f"its actor did not start within {timeout:g} s"

    def _probed(self, actor: _Actor, ref) -> None:
        """An info() probe of ``actor`` finished (lock held): up, unusable or dead."""
        actor.probe = None
        try:
            info = self.ray.get(ref)
        except self.ray.exceptions.ActorDiedError as exc:
            actor.state, actor.reason = "dead", f"actor died: {_short(exc)}"
            return
        except self.ray.exceptions.RayError as exc:  # unavailable for now (restarting): ask again soon
            actor.state, actor.reason, actor.probe_after = "down", _short(exc), time.monotonic() + 1.0
            return
        from ..judge.image import runner_sha256
        actor.info = info
        if info["unavailable"]:
            actor.state, actor.reason = "unusable", info["unavailable"]
        elif info["runner_sha256"] != runner_sha256():
            actor.state = "unusable"
            actor.reason = ("its neocoder has another sandbox runner than this driver's (verdicts could differ): "
                            "install the same neocoder on every node and run `neocoder sandbox build` there")
        else:
            if actor.state == "down":
                log.info("ray executor: actor on node %s is back (pid %s)", actor.node_id[:12], info["pid"])
            actor.state, actor.reason, actor.inflight = "up", "", 0

    def _lost(self, actor: _Actor, exc: Exception) -> None:
        """``actor`` failed a batch (lock held): stop using it and probe it."""
        if actor.state == "up":
            self.stats["actors_lost"] += 1
            log.warning("ray executor: lost the actor on node %s (%s); its jobs are retried elsewhere",
                        actor.node_id[:12], _short(exc))
            actor.state, actor.reason = "down", _short(exc)
            actor.probe_after = time.monotonic()
        actor.inflight = 0

    # -- dispatch ------------------------------------------------------------------------

    def _dispatch(self, eager: bool = False) -> None:
        """Send queued jobs to actors with room (lock held).  ``eager`` (a caller's new job):
        only actors with an idle slot; else actors with at most ``slots`` in flight are
        refilled up to WINDOW x ``slots``."""
        if not self._queue:
            return
        usable = [a for a in self._actors.values() if a.state == "up"]
        if not usable:
            return
        self._last_usable = time.monotonic()
        for actor in sorted(usable, key=lambda a: a.inflight / a.slots):
            if not self._queue:
                return
            if actor.inflight >= actor.slots + (0 if eager else 1):
                continue
            room = WINDOW * actor.slots - actor.inflight
            others = {a.key for a in usable} - {actor.key}
            batch, keep = [], collections.deque()
            while self._queue and len(batch) < room:
                job = self._queue.popleft()
                # a job that lost this actor waits for another one, unless every usable actor lost it
                (keep if actor.key in job.avoid and others - job.avoid else batch).append(job)
            self._queue.extendleft(reversed(keep))
            if batch:
                self._send(actor, batch)

    def _send(self, actor: _Actor, jobs: list[_Job]) -> None:
        gen = actor.handle.judge.options(num_returns="streaming").remote([j.payload for j in jobs])
        self._batches.append(_Batch(actor, gen, dict(enumerate(jobs))))
        actor.inflight += len(jobs)
        self._wake.set()
        self.stats["batches"] += 1
        self.stats["jobs_in_batches"] += len(jobs)

    def _retry(self, job: _Job, actor: _Actor, error: str) -> None:
        """Queue ``job`` again (lock held), or give it INFRA after ``attempts`` tries."""
        job.attempts += 1
        job.avoid.add(actor.key)
        job.last_error = error
        if job.attempts >= self.attempts:
            self.stats["infra"] += 1
            self._settle(job, _infra(job.payload["tests"], f"ray executor: not judged after {job.attempts} tries "
                                                           f"(last: node {actor.node_id[:12]}: {error})"))
        else:
            self.stats["retried"] += 1
            self._queue.appendleft(job)

    def _settle(self, job: _Job, result: SubmissionResult) -> None:
        if job.stop_at_first_failure:
            skip_after_first_failure(result)
        if not job.future.done():
            job.future.set_result(result)

    def _loop(self) -> None:
        """The dispatcher thread: ``_rounds`` until closed; if it fails, every job waiting
        gets INFRA with the reason and later ones too (never a hung caller)."""
        try:
            self._rounds()
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting forever
            log.exception("ray executor: the dispatcher failed")
            with self._lock:
                self.unavailable = f"ray executor: the dispatcher failed ({_short(exc)})"
                jobs = list(self._queue) + [j for b in self._batches for j in b.jobs.values()]
                self._queue.clear()
                self._batches = []
            for job in jobs:
                self._settle(job, _infra(job.payload["tests"], self.unavailable))

    def _rounds(self) -> None:
        """Collect streamed results with ray.wait, retry the jobs of failed batches, probe
        lost actors, find new nodes, refill actors."""
        ray = self.ray
        while True:
            with self._lock:
                if self._closed:
                    return
                waiting = {b.gen: b for b in self._batches}
                now = time.monotonic()
                for a in self._actors.values():
                    if a.state == "down" and a.probe is None and now >= a.probe_after:
                        a.probe = a.handle.info.remote()
                probes = {a.probe: a for a in self._actors.values() if a.probe is not None}
            refs = list(waiting) + list(probes)
            if refs:
                ready, _ = ray.wait(refs, num_returns=1, timeout=POLL)
                if ready:
                    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            else:  # nothing in flight: sleep until a batch is sent (or a housekeeping round is due)
                self._wake.wait(0.5)
                self._wake.clear()
                ready = []
            with self._lock:
                if self._closed:
                    return
                for ref in ready:
                    if ref in probes:
                        self._probed(probes[ref], ref)
                    else:
                        self._collect(waiting[ref])
                self._housekeeping()
                self._dispatch()

    def _collect(self, batch: _Batch) -> None:
        """Take the next streamed result of ``batch`` (lock held; it is ready)."""
        ray, actor = self.ray, batch.actor
        if batch not in self._batches:  # dropped in this round with its actor's other batches
            return
        try:
            finished = ray.get(next(batch.gen))
        except StopIteration:
            self._batches.remove(batch)
            for job in batch.jobs.values():  # not expected: a finished batch has yielded every job
                self._retry(job, actor, "the batch ended without this job's result")
            return
        except ray.exceptions.RayError as exc:
            self._batches.remove(batch)
            self._lost(actor, exc)
            for b in [b for b in self._batches if b.actor is actor]:  # its other batches are lost too
                self._batches.remove(b)
                for job in b.jobs.values():
                    self._retry(job, actor, _short(exc))
            for job in batch.jobs.values():
                self._retry(job, actor, _short(exc))
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
            self._settle(job, result)

    def _housekeeping(self) -> None:
        """New sandbox nodes get an actor; jobs left with no usable actor too long get INFRA (lock held)."""
        now = time.monotonic()
        if now >= self._next_discovery:
            self._next_discovery = now + DISCOVER_EVERY
            live = {a.node_id for a in self._actors.values() if a.state in ("up", "down", "starting")}
            try:
                nodes = self._sandbox_nodes()
            except Exception as exc:  # noqa: BLE001 - the GCS may be briefly unreachable
                log.warning("ray executor: cannot list the cluster's nodes: %s", exc)
                nodes = []
            for node in nodes:
                if node["NodeID"] not in live and self._generation[node["NodeID"]] <= MAX_RESTARTS:
                    log.info("ray executor: starting an actor on node %s", node["NodeID"][:12])
                    self._start_actor(node)
        if any(a.state == "up" for a in self._actors.values()) or not self._queue:
            self._last_usable = now
        elif now - self._last_usable > ORPHAN_TIMEOUT:
            reasons = "; ".join(f"{a.node_id[:12]}: {a.state} ({a.reason})" for a in self._actors.values())
            while self._queue:
                job = self._queue.popleft()
                self.stats["infra"] += 1
                self._settle(job, _infra(job.payload["tests"], f"ray executor: no usable sandbox node for "
                                                               f"{ORPHAN_TIMEOUT:g} s ({reasons})"))


def _infra(tests: list[dict], detail: str) -> SubmissionResult:
    return SubmissionResult(tests=[TestVerdict(INFRA, detail=detail) for _ in tests])


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}"
