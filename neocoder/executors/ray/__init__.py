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

Modules: ``sandbox`` (RaySandbox, the face), ``connect`` (joining the cluster),
``cluster`` (the actors), ``dispatch`` (jobs, batches, retries), ``actor`` (the
SandboxPool actor on a node), ``jobs`` (the driver's records).  Ray is imported
lazily: without it ``RaySandbox.unavailable`` says how to install it.
"""

from .actor import SandboxPool
from .cluster import MAX_RESTARTS, RESOURCE_SHARE, WINDOW
from .connect import CONNECT_TIMEOUT, LOOPBACK_ENV, NAMESPACE, no_node_message
from .dispatch import DISCOVER_EVERY, ORPHAN_TIMEOUT, POLL
from .sandbox import ATTEMPTS, INSTALL_HINT, RESOURCE, START_TIMEOUT, RaySandbox

__all__ = ["ATTEMPTS", "CONNECT_TIMEOUT", "DISCOVER_EVERY", "INSTALL_HINT", "LOOPBACK_ENV", "MAX_RESTARTS",
           "NAMESPACE", "ORPHAN_TIMEOUT", "POLL", "RESOURCE", "RESOURCE_SHARE", "RaySandbox", "SandboxPool",
           "START_TIMEOUT", "WINDOW", "no_node_message"]
