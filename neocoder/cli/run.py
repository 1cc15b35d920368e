"""``neocoder run TASK [options]``: any registered task from the command line, its options
built from the task's ``config_type`` (cli/declared.py), so a new task needs no CLI code.

Every declared option of the config becomes a click option with its default, range,
choices and help; the fields the config declares without an Option get the shared
options: ``--out`` (the run folder, default runs/<task>), ``--model ...`` for a
``model: ModelConfig``, ``--release`` for ``release_dir``, the sandbox options for
``sandbox``, ``--quiet`` for ``progress``.  The command builds the config, checks it
against its declarations and calls ``runner.run``; it prints the run's metrics.json.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from neocoder.benchmarks import get_task, task_names
from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.helptext import Commands, first_sentence, plain
from neocoder.cli.options import model_options, quiet_option, release_option, sandbox_options
from neocoder.config import ModelConfig, SandboxConfig
from neocoder.errors import NeocoderError


class TaskCommands(Commands):
    """One subcommand per registered task, made when it is asked for."""

    def list_commands(self, ctx) -> list[str]:
        """Every registered task's name."""
        return task_names()

    def get_command(self, ctx, name: str):
        """The command of task ``name`` (None for an unknown name: click says so)."""
        try:
            task = get_task(name)
        except NeocoderError:  # an unknown name: click says "No such command"
            return None
        return task_command(task)


def task_command(task) -> click.Command:
    """The click command of Task class ``task``: its config's options, then ``runner.run``."""
    config_type = task.config_type
    names = {f.name: f for f in dataclasses.fields(config_type)}

    def command(declared, out=None, model=None, release=None, sandbox=None, quiet=False):
        given = {"out": out or Path("runs", task.name), "model": model, "release_dir": release, "sandbox": sandbox,
                 "progress": not quiet}
        values = {**declared, **{k: v for k, v in given.items() if k in names and v is not None}}
        missing = [n for n, f in names.items() if n not in values and f.default is dataclasses.MISSING
                   and f.default_factory is dataclasses.MISSING]
        if missing:
            raise click.UsageError(f"task {task.name} needs {', '.join(missing)}, which `neocoder run` cannot give "
                                   "(no option is declared for it): use the task's own command or the Python API")
        config = config_type(**values)
        config.check()
        from neocoder.runner import run
        run(task(config))
        folder = Path(config.out)
        click.echo(json.dumps(json.loads((folder / "metrics.json").read_text()), indent=2)
                   if (folder / "metrics.json").is_file() else "no metrics")
        click.echo(f"run folder {folder}")

    shared = [click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                           help=f"Run folder (default: runs/{task.name}); an existing one is resumed.")]
    if _holds(names.get("model"), ModelConfig):
        shared.append(model_options(config_type))
    if "release_dir" in names:
        shared.append(release_option())
    if _holds(names.get("sandbox"), SandboxConfig):
        shared.append(sandbox_options)
    if "progress" in names:
        shared.append(quiet_option)
    callback = declared_options(config_type, "declared")(command)
    for option in reversed(shared):
        callback = option(callback)
    doc = plain(task.__doc__ or config_type.__doc__) or f"Run the {task.name} task."  # a docstring read as help
    return click.Command(task.name, callback=callback, params=list(reversed(getattr(callback, "__click_params__", []))),
                         help=doc, short_help=first_sentence(doc))


def _holds(field, kind) -> bool:
    return field is not None and field.type in (kind, kind.__name__)


@main.group("run", cls=TaskCommands)
def run_command():
    """Run any registered task (neocoder.benchmarks): its options come from its config."""
