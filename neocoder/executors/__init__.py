"""Executors: who schedules judge jobs (program, tests, limits, checker).

The pipeline, the oracle and the service only call ``box.run(code, tests, limits,
checker=..., stop_at_first_failure=...)`` on the sandbox ``open_sandbox`` gives them
(a ``neocoder.judge.Sandbox``); the executor (``SandboxConfig.executor``,
``--executor``) decides where that job runs:

- ``local`` (LOCAL, the default): this machine's warm pool (``neocoder.judge.make_sandbox``).
- ``ray`` (RAY): sandbox-pool actors on a Ray cluster, one per node that declares the
  ``neocoder_sandbox`` resource (``neocoder.executors.ray.RaySandbox``;
  docs/scale-out.md).  Needs the extra: ``pip install 'neocoder[ray]'``.

Each executor is one entry of EXECUTORS, keyed by its constant: a new one is one
module and one registry line.  Nothing here imports Ray: a machine without it runs
the local executor as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from neocoder.config import LOCAL, RAY, SandboxConfig  # the executors by name, declared in config.py
from neocoder.errors import NeocoderError
from neocoder.judge import Sandbox


def _local(config: SandboxConfig, concurrency: int) -> Sandbox:
    """This machine's warm pool of ``config.kind`` ("docker" or "process")."""
    from neocoder.judge import make_sandbox
    return make_sandbox(config.kind, concurrency=concurrency, fresh=config.fresh, runtime=config.runtime)


def _ray(config: SandboxConfig, concurrency: int) -> Sandbox:
    """Sandbox-pool actors on the Ray cluster at ``config.ray_address`` (Ray imported here only)."""
    from neocoder.executors.ray import RaySandbox
    return RaySandbox(config, concurrency=concurrency)


# executor name -> factory(config, concurrency) of its Sandbox
EXECUTORS: dict[str, Callable[[SandboxConfig, int], Sandbox]] = {LOCAL: _local, RAY: _ray}


@contextmanager
def open_sandbox(config: SandboxConfig, concurrency: int | None = None) -> Iterator[Sandbox]:
    """The sandbox ``config`` names (``config.executor`` picks the EXECUTORS entry; an
    unknown name is the local pool, as before), closed on exit.

    ``concurrency``: submissions judged at once (default ``config.workers``).  Both
    executors answer ``run(code, tests, limits, checker=..., stop_at_first_failure=...)``
    alike.  Raises NeocoderError when it cannot run here (no engine, no image, no Ray),
    with the backend's message saying what to do.
    """
    factory = EXECUTORS.get(config.executor, _local)
    box = factory(config, concurrency or config.workers)
    try:
        if box.unavailable:
            raise NeocoderError(box.unavailable)
        yield box
    finally:
        box.close()


__all__ = ["EXECUTORS", "LOCAL", "RAY", "open_sandbox"]
