"""The ``neocoder`` command line: parse options, build a config, call the library, print.

Every command is a thin shell around one function of ``neocoder.api`` (or of the stage
module it names).  The shared options are declared once (``model_options``,
``sandbox_options``, ``release_option`` in ``options.py``) and arrive in the command as one config
object.  A NeocoderError from anywhere becomes one message and exit status 1, in one
place (``Main.invoke``).

The commands: the shared ones (one module each, imported below), and each registered
benchmark's: its own command modules where its descriptor names them
(``Benchmark.commands``: ``neocoder eval``, ``neocoder aidanbench``, ...), else one command
named after it, built from its main task's config as ``neocoder run`` builds one
(cli/run.py).  So a new benchmark gets a command with no CLI code.
"""

from importlib import import_module

import click

from neocoder.cli.helptext import Commands
from neocoder.errors import NeocoderError
from neocoder.redaction import install as install_redaction
from neocoder.redaction import redact_text


class Main(Commands):
    """The command group; the one place a NeocoderError becomes a message, and where every
    registered benchmark's commands are found.  Its list of commands, and its subgroups'
    (``Commands``), shows each command's first sentence whole (cli/helptext.py)."""

    group_class = Commands  # ``@main.group()``: a Commands, not a second Main

    def main(self, *args, **kwargs):
        """The program: with ``redaction.install`` first, so no traceback, log line or
        warning shows a key, token or password this process knows."""
        install_redaction()
        return super().main(*args, **kwargs)

    def invoke(self, ctx):
        """Run the command; a NeocoderError becomes one message and exit status 1.  Every
        message shown (click's own too) goes through ``redaction.redact_text``."""
        try:
            return super().invoke(ctx)
        except NeocoderError as exc:
            raise click.ClickException(redact_text(str(exc))) from exc
        except click.ClickException as exc:
            exc.message = redact_text(exc.message)
            raise

    def list_commands(self, ctx) -> list[str]:
        """The shared commands and every registered benchmark's, sorted."""
        load_benchmark_commands()
        return sorted(set(super().list_commands(ctx)) | set(generic_commands()))

    def get_command(self, ctx, name: str):
        """The command ``name``: a shared or benchmark module's, else a benchmark's generic one."""
        load_benchmark_commands()
        found = super().get_command(ctx, name)
        if found is None and name in generic_commands():
            from neocoder.benchmarks import benchmark, get_task
            from neocoder.cli.run import task_command
            return task_command(get_task(benchmark(name).main_task))
        return found


@click.group(cls=Main)
@click.version_option(package_name="neocoder")
def main():
    """NeoCoder: sandboxed benchmarks of language-model creativity."""


def load_benchmark_commands() -> None:
    """Import every registered benchmark's own command modules (each adds its commands to
    ``main``); a module already imported is not imported again."""
    from neocoder.benchmarks import benchmarks
    for bench in benchmarks():
        for module in bench.commands:
            import_module(module)


def generic_commands() -> list[str]:
    """The registered benchmarks with no command module of their own: each gets a command
    of its name (cli/run.py ``task_command`` of its main task)."""
    from neocoder.benchmarks import benchmarks
    return [b.name for b in benchmarks() if not b.commands]


# The shared commands: one module per command (group); each adds its commands to ``main``.
from neocoder.cli import board, export, leaderboard, results, run, sandbox, serve, suite  # noqa: E402,F401
from neocoder.cli.options import parse_states  # noqa: E402,F401  (re-exported: tests and users parse --states with it)
