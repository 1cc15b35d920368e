"""``neocoder serve``: NeoCoder as an HTTP service (docs/serve.md).

A thin surface over the same library as the command line: ``/v1/run`` is ``neocoder
sandbox run``, ``/v1/score`` runs ``pipeline.judge_reply`` on one reply (the per-sample
reward), ``/v1/evals`` queues ``api.evaluate`` as jobs that write ordinary run folders.
What the service adds is what a shared judge needs: a job store that outlives the
process (store.py), jobs that resume after a crash (jobs.py), bearer tokens (auth.py),
size limits and admission with 429 (limits.py), metrics (telemetry.py) and a graceful
shutdown (server.py).

    from neocoder.serve import ServeConfig, serve
    serve(ServeConfig(release_dir=Path("../shared/neocoder"), tokens_file=Path("tokens.txt")))
"""

from neocoder.serve.config import ServeConfig
from neocoder.serve.server import serve

__all__ = ["ServeConfig", "serve"]
