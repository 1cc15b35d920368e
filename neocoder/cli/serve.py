"""``neocoder serve``: its options built from ServeConfig's declarations (serve/config.py)."""

from __future__ import annotations

from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import release_option, sandbox_options
from neocoder.serve.config import ServeConfig


@main.command("serve")
@declared_options(ServeConfig, "declared")
@release_option()
@sandbox_options
def serve_command(declared, release, sandbox):
    """Serve NeoCoder over HTTP: judge programs, score replies, run evals as jobs (docs/serve.md)."""
    from neocoder.serve import serve
    serve(ServeConfig(release_dir=release, sandbox=sandbox, **declared))
