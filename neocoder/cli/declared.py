"""Command-line options built from the config declarations (neocoder/options.py).

``declared_options(EvalConfig)`` gives ``neocoder eval`` one click option per declared
field: ``--top-k`` for ``top_k`` (or the declaration's ``flag``), an ``IntRange`` or
``FloatRange`` from its bounds, a ``Choice`` from its choices, a flag for a bool, its
default and its help.  The command receives the values as one dict of config field names
(``into``), ready for ``EvalConfig(**values, ...)``: no option is written twice, so none
can drift from the config, the HTTP schema or the client.  ``neocoder run TASK`` builds a
whole command this way for any registered task (cli/run.py).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from pathlib import Path
from typing import Any

import click

from neocoder.options import Option, declared
from neocoder.redaction import declare_flag, remember


def base_type(annotation) -> Any:
    """``int`` for ``int | None``, ``list`` for ``list[int]``; the annotation itself otherwise."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return base_type(args[0]) if len(args) == 1 else str
    return typing.get_origin(annotation) or annotation


def flag_name(field: dataclasses.Field, opt: Option, prefix: str = "") -> str:
    """The option's command-line name: ``opt.flag``, else ``--field-name``; with a
    ``prefix`` (a model role's, e.g. "judge") ``--judge-field-name``."""
    if prefix:
        return f"--{prefix}-" + field.name.replace("_", "-")
    return opt.flag or "--" + field.name.replace("_", "-")


def default_of(field: dataclasses.Field, opt: Option):
    """The default a command line shows and starts from."""
    if opt.text is not None:
        return opt.text
    return opt.factory() if opt.factory is not None else opt.default


def click_type(kind, opt: Option):
    """The click parameter type for a field of ``kind`` declared as ``opt``."""
    if opt.parse is not None:
        return str
    if opt.choices is not None:
        return click.Choice([str(c) for c in opt.choices])
    low = opt.ge if opt.ge is not None else opt.gt
    if kind is int and (low is not None or opt.le is not None):
        return click.IntRange(min=low, max=opt.le, min_open=opt.gt is not None)
    if kind is float and (low is not None or opt.le is not None):
        return click.FloatRange(min=low, max=opt.le, min_open=opt.gt is not None)
    if kind is Path:
        return click.Path(path_type=Path, exists=opt.file, dir_okay=not opt.file)
    return kind if kind in (int, float) else str


def click_option(field: dataclasses.Field, opt: Option, kind, default=dataclasses.MISSING, prefix: str = "",
                 shown=None):
    """The click option declaration ``opt`` of ``field`` stands for (``prefix``: a model
    role's options, ``--judge-temperature`` into ``judge_temperature``; ``shown``: the
    default the help shows when the value given is None, e.g. a benchmark's own)."""
    name = flag_name(field, opt, prefix)
    dest = f"{prefix}_{field.name}" if prefix else field.name
    default = default_of(field, opt) if default is dataclasses.MISSING else default
    if opt.choices is not None and default is not None:
        default = str(default)  # click compares a choice as text (e.g. "100" for the int 100)
    if kind is bool and default is None:  # undecided unless given: --reasoning / --no-reasoning
        return click.option(f"{name}/--no-{name[2:]}", dest, default=None, help=opt.help)
    if kind is bool:
        decls = [f"{name}/--no-{name[2:]}" if default else name, dest]
        return click.option(*decls, is_flag=True, default=bool(default), show_default=bool(default), help=opt.help)

    def convert(_ctx, _param, value):
        if value is None:
            return None
        if opt.parse is not None:  # text made a value, then checked against the declaration
            try:
                value = opt.parse(value)
            except ValueError as exc:
                raise click.BadParameter(str(exc)) from exc
            if opt.refusal(value):
                raise click.BadParameter(opt.refusal(value))
            return value
        if opt.choices is not None:  # back to the declared value (e.g. the int 10 for "10")
            return next(c for c in opt.choices if str(c) == value)
        return value

    if opt.multiple:  # one option per item; the value is the list of them
        return click.option(name, dest, type=str, multiple=True, callback=lambda _c, _p, value: list(value),
                            envvar=opt.envvar, metavar=opt.metavar, help=opt.help)
    make = secret_option if opt.secret is True else click.option
    return make(name, dest, type=click_type(kind, opt), default=default, callback=convert,
                        show_default=shown if shown is not None else default is not None, help=opt.help,
                        envvar=opt.envvar, metavar=opt.metavar)


def secret_option(*decls, **attrs):
    """``click.option(*decls, **attrs)`` for a key, token or password (an ``Option``
    declared ``secret=True`` is built with it): its flags go to ``redaction.declare_flag``
    (the manifest records ``--token <redacted>``) and the value given, from the command
    line or its ``envvar``, to ``redaction.remember`` (no message shows it) before the
    option's own ``callback``, if any, sees it."""
    for decl in decls:
        if decl.startswith("--"):
            declare_flag(decl)
    then = attrs.pop("callback", None)

    def callback(ctx, param, value):
        remember(value)
        return then(ctx, param, value) if then is not None else value
    return click.option(*decls, callback=callback, **attrs)


def cli_fields(config_type, only=None, exclude=()) -> list[tuple[dataclasses.Field, Option, Any]]:
    """``(field, option, kind)`` of every field of ``config_type`` that has a command-line
    option: declared, not ``local`` (unless named in ``only``), without ``flag=""``, not
    required and not a config itself (``--model`` and its options come from
    cli/options.py ``model_options``)."""
    hints = typing.get_type_hints(config_type)
    out = []
    for f, opt in declared(config_type):
        if f.name in exclude or opt.flag == "" or opt.required or (only is not None and f.name not in only):
            continue
        if opt.local and (only is None or f.name not in only):
            continue
        out.append((f, opt, base_type(hints[f.name])))
    return out


def declared_options(config_type, into: str, only=None, exclude=(), prefix: str = "", shown: dict | None = None):
    """A decorator adding ``config_type``'s declared options to a command; their values
    arrive as one dict ``into`` (field name -> value).  ``prefix`` names a model role's
    copy of the options (``--judge-max-tokens``); ``shown`` maps a field to the default
    its help shows where the declared default is None (a benchmark's own for the role)."""
    chosen = cli_fields(config_type, only, exclude)
    shown = shown or {}
    options = [click_option(f, opt, kind, prefix=prefix, shown=shown.get(f.name)) for f, opt, kind in chosen]
    names = [f.name for f, _, _ in chosen]
    dest = (lambda n: f"{prefix}_{n}") if prefix else (lambda n: n)

    def decorate(command):
        @functools.wraps(command)
        def wrapper(*args, **kwargs):
            kwargs[into] = {name: kwargs.pop(dest(name)) for name in names}
            return command(*args, **kwargs)

        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper
    return decorate
