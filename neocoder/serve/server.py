"""Run the app on uvicorn: ``serve(ServeConfig)``, what ``neocoder serve`` calls.

uvicorn owns the signals: on SIGTERM (or Ctrl-C) it stops accepting connections, lets the
requests in flight end (up to ``shutdown_timeout`` seconds), then runs the app's lifespan
shutdown, which stops the eval jobs after their samples in flight (they are queued
again for the next start) and removes the sandbox's containers; then the process exits 0.
"""

from __future__ import annotations

import logging

from neocoder.errors import NeocoderError
from neocoder.redaction import install as install_redaction
from neocoder.serve.config import ServeConfig


def serve(config: ServeConfig) -> None:
    """Check ``config`` (tokens, loopback for --no-auth, limits), then serve until SIGTERM.

    Raises NeocoderError for a refused config or a server that could not start (the
    port taken, the job store or the release unreadable: the log says which)."""
    import uvicorn

    from neocoder.serve.app import create_app

    config.check()
    install_redaction()  # no key or token in the server's logs or tracebacks (neocoder/redaction.py)
    logging.basicConfig(level=config.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = create_app(config)
    server = uvicorn.Server(uvicorn.Config(
        app, host=config.host, port=config.port, log_level=config.log_level, lifespan="on",
        timeout_graceful_shutdown=int(config.shutdown_timeout), server_header=False,
        # X-Forwarded-* only from the operator's proxies (--trusted-proxy), never from anyone
        proxy_headers=bool(config.trusted_proxy), forwarded_allow_ips=",".join(config.trusted_proxy) or "",
        date_header=True))
    server.run()
    if not server.started:
        raise NeocoderError(f"the server did not start on {config.host}:{config.port} (see the log above)")
