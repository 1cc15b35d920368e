"""The Ray actor that judges on one node: a warm local pool (``make_sandbox``) inside it.

Created by RaySandbox with ``ray.remote`` on a node that declares the sandbox resource;
it imports Ray only for its node id, so the class itself can be read without Ray.
"""

from __future__ import annotations

import os
import socket
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from ..judge.verdicts import SubmissionResult


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
        return self.box.sweep() if not self.box.unavailable else 0


def _outcome(fut) -> tuple:
    try:
        return fut.result(), None
    except Exception as exc:  # noqa: BLE001 - reported per job; the driver retries it elsewhere
        return None, f"{type(exc).__name__}: {exc}"
