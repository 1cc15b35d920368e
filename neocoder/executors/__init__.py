"""Executors: who schedules judge jobs (program, tests, limits, checker).

The pipeline, the oracle and the service only call ``box.run(code, tests, limits,
checker=..., stop_at_first_failure=...)`` on the sandbox ``neocoder.api.open_sandbox``
gives them; the executor (``SandboxConfig.executor``, ``--executor``) decides where that
job runs:

- ``local`` (the default): this machine's warm pool (``neocoder.judge.make_sandbox``).
- ``ray``: sandbox-pool actors on a Ray cluster, one per node that declares the
  ``neocoder_sandbox`` resource (``neocoder.executors.ray.RaySandbox``;
  docs/scale-out.md).  Needs the extra: ``pip install 'neocoder[ray]'``.

Nothing here imports Ray: a machine without it runs the local executor as before.
"""

EXECUTORS = ("local", "ray")

__all__ = ["EXECUTORS"]
