"""The ``neocoder`` command line: parse options, build a config, call the library, print.

Every command is a thin shell around one function of ``neocoder.api`` (or of the stage
module it names).  The shared options are declared once (``model_options``,
``sandbox_options``, ``release_option`` in ``options.py``) and arrive in the command as one config
object.  A NeocoderError from anywhere becomes one message and exit status 1, in one
place (``Main.invoke``).
"""

import click

from neocoder.cli.options import parse_states  # noqa: F401  (re-exported: tests and users parse --states with it)
from neocoder.errors import NeocoderError


class Main(click.Group):
    """The command group; the one place a NeocoderError becomes a message."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except NeocoderError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=Main)
@click.version_option(package_name="neocoder")
def main():
    """NeoCoder: sandboxed benchmarks of language-model creativity."""


# Each module adds its commands to ``main``: one module per command (group).
from neocoder.cli import (  # noqa: E402,F401  # noqa: E402,F401  (issue 40)
    aidanbench,
    dataset,
    diversity,  # noqa: E402,F401  (issue 39)
    evaluate,
    export,
    framework,  # noqa: E402,F401  (issue 37)
    ideas,
    leaderboard,
    results,
    run,
    sandbox,
    serve,
    suite,
)
