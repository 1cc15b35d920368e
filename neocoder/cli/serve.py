"""``neocoder serve``: its options built from ServeConfig's declarations (serve/config.py)."""

from __future__ import annotations

import click

from ..serve.config import ServeConfig
from . import main
from .declared import declared_options
from .options import release_option, sandbox_options


@main.command("serve")
@declared_options(ServeConfig, "declared")
@release_option()
@sandbox_options
def serve_command(declared, release, sandbox):
    """Serve NeoCoder over HTTP: judge programs, score replies, run evals as jobs (docs/serve.md)."""
    from ..serve import serve
    serve(ServeConfig(release_dir=release, sandbox=sandbox, **declared))
