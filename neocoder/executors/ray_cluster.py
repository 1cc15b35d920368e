"""The SandboxPool actors of one RaySandbox: one per node that declares the sandbox resource.

Each actor is pinned to its node with Ray's ``NodeAffinitySchedulingStrategy`` and asks
for a sliver of the resource, so judge work only goes where Docker is and several
drivers can share a node.  An actor is used once its ``info()`` probe says its sandbox
works and its node's image carries the same runner as the driver's neocoder.  Every
method but ``await_start`` expects the RaySandbox's lock to be held by its caller.
"""

from __future__ import annotations

import collections
import logging
import time

from neocoder.executors.ray_actor import SandboxPool
from neocoder.executors.ray_connect import NAMESPACE
from neocoder.executors.ray_jobs import Actor, short

log = logging.getLogger("neocoder.executors.ray")  # the executor's one logger, in every ray_* module

RESOURCE_SHARE = 0.001  # of the resource each actor asks for: only declaring nodes, and many drivers per node
WINDOW = 2  # jobs in flight per slot of an actor
MAX_RESTARTS = 3  # Ray restarts of one actor on its (live) node
UP_STATES = ("up", "down", "starting")  # an actor in these keeps its node from getting another


class Cluster:
    """The actors (``actors``: key -> Actor) of one RaySandbox and how they are started,
    probed and given up.

    ``config`` is the SandboxConfig (``kind``, ``fresh``, ``runtime``); ``slots`` the
    per-node pool size (None: each node's Ray CPU count); ``resource`` the node resource
    that marks a Docker host; ``run_id`` names the actors; ``pool`` is the actor class
    (SandboxPool, or a subclass judging elsewhere).
    """

    def __init__(self, ray, config, slots: int | None, resource: str, run_id: str, pool=SandboxPool):
        self.ray, self.config, self.slots, self.resource, self.run_id = ray, config, slots, resource, run_id
        self.pool = pool
        self.actors: dict[str, Actor] = {}
        self.generation = collections.Counter()  # node id -> actors started there

    def sandbox_nodes(self) -> list[dict]:
        """The alive nodes that declare the resource (Ray's node dicts)."""
        return [n for n in self.ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(self.resource, 0) > 0]

    def usable(self) -> list[Actor]:
        """The actors that judge now."""
        return [a for a in self.actors.values() if a.state == "up"]

    def start(self, node: dict) -> None:
        """Start an actor pinned to ``node``; its info() probe says when it is up."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        node_id = node["NodeID"]
        self.generation[node_id] += 1
        slots = self.slots or max(1, int(node.get("Resources", {}).get("CPU", 1)))
        key = f"{node_id[:12]}-{self.generation[node_id]}"
        cls = self.ray.remote(self.pool)
        handle = cls.options(
            name=f"neocoder-sandbox-{self.run_id}-{key}", namespace=NAMESPACE, num_cpus=0,
            resources={self.resource: RESOURCE_SHARE},
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            max_restarts=MAX_RESTARTS, max_task_retries=0, max_concurrency=WINDOW * slots + 4,
            enable_task_events=False,  # Ray's state API keeps no record of each judge call: less work per call
        ).remote(self.config.kind, slots, self.config.fresh, self.config.runtime)
        actor = Actor(key, node_id, handle, slots)
        actor.probe = handle.info.remote()
        self.actors[key] = actor

    def await_start(self, timeout: float, lock) -> None:
        """Wait up to ``timeout`` s for every actor's first probe (takes ``lock`` itself);
        an actor that has not answered by then is unusable."""
        probes = {a.probe: a for a in self.actors.values()}
        ready, _ = self.ray.wait(list(probes), num_returns=len(probes), timeout=timeout)
        with lock:
            for ref in ready:
                self.probed(probes[ref], ref)
            for ref, actor in probes.items():
                if actor.state == "starting":
                    actor.state, actor.probe = "unusable", None
                    actor.reason = f"its actor did not start within {timeout:g} s"

    def probed(self, actor: Actor, ref) -> None:
        """An info() probe of ``actor`` finished: up, unusable or dead."""
        actor.probe = None
        try:
            info = self.ray.get(ref)
        except self.ray.exceptions.ActorDiedError as exc:
            actor.state, actor.reason = "dead", f"actor died: {short(exc)}"
            return
        except self.ray.exceptions.RayError as exc:  # unavailable for now (restarting): ask again soon
            actor.state, actor.reason, actor.probe_after = "down", short(exc), time.monotonic() + 1.0
            return
        from neocoder.judge.image import runner_sha256
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

    def lost(self, actor: Actor, exc: Exception) -> bool:
        """``actor`` failed a batch: stop using it and probe it.  True if it was up until now."""
        was_up = actor.state == "up"
        if was_up:
            log.warning("ray executor: lost the actor on node %s (%s); its jobs are retried elsewhere",
                        actor.node_id[:12], short(exc))
            actor.state, actor.reason = "down", short(exc)
            actor.probe_after = time.monotonic()
        actor.inflight = 0
        return was_up

    def probes(self, now: float) -> dict:
        """Probe every down actor whose time has come; returns every probe in flight
        (ObjectRef -> Actor)."""
        for a in self.actors.values():
            if a.state == "down" and a.probe is None and now >= a.probe_after:
                a.probe = a.handle.info.remote()
        return {a.probe: a for a in self.actors.values() if a.probe is not None}

    def discover(self) -> None:
        """Start an actor on each sandbox node that has none (and has not used up its restarts)."""
        live = {a.node_id for a in self.actors.values() if a.state in UP_STATES}
        try:
            nodes = self.sandbox_nodes()
        except Exception as exc:  # noqa: BLE001 - the GCS may be briefly unreachable
            log.warning("ray executor: cannot list the cluster's nodes: %s", exc)
            nodes = []
        for node in nodes:
            if node["NodeID"] not in live and self.generation[node["NodeID"]] <= MAX_RESTARTS:
                log.info("ray executor: starting an actor on node %s", node["NodeID"][:12])
                self.start(node)

    def describe(self) -> str:
        """Each actor's node, state and reason, for messages."""
        return "; ".join(f"{a.node_id[:12]}: {a.state} ({a.reason})" for a in self.actors.values())
