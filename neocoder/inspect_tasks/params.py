"""An inspect task's parameters generated from its config's option declarations
(neocoder/options.py), as the command line's options are (cli/declared.py), so no option
is written twice and none can drift from ``neocoder <benchmark>``'s.

``task_parameters(FrameworkConfig, first=[judge])`` gives one keyword parameter per option
the config declares that a caller may send (``options.sent``: not ``local``), except the
model roles (a ``ModelConfig`` field: inspect's model, or a neocoder model spec the task
takes itself) and those in ``skip``; each defaults to None, which means "the declared
default" (the config fills it in).  A path option is taken as text.  ``with_parameters``
puts them on a task function as its signature, which inspect_ai reads (``-T name=value``).
"""

from __future__ import annotations

import inspect
import typing
from pathlib import Path
from typing import Any, Callable

from neocoder.config import ModelConfig
from neocoder.options import sent


def _annotation(config_type, name: str) -> Any:
    hint = typing.get_type_hints(config_type)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    kind = typing.get_origin(args[0]) or args[0]
    if kind is Path:
        kind = str
    return kind | None


def task_parameters(config_type, first: list[inspect.Parameter] = (), skip: set[str] = frozenset(),
                    last: list[inspect.Parameter] = ()) -> list[inspect.Parameter]:
    """``first``, then one ``name: <type> | None = None`` parameter per sent option of
    ``config_type`` (model roles and ``skip`` left out), then ``last``."""
    hints = typing.get_type_hints(config_type)
    declared = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                  annotation=_annotation(config_type, f.name))
                for f, _opt in sent(config_type)
                if f.name not in skip and ModelConfig not in (hints[f.name], *typing.get_args(hints[f.name]))]
    return [*first, *declared, *last]


def with_parameters(func: Callable, parameters: list[inspect.Parameter]) -> Callable:
    """``func`` (taking ``**options``) with ``parameters`` as its signature, for inspect_ai's
    ``@task`` to read; returns it."""
    func.__signature__ = inspect.Signature(parameters, return_annotation=inspect.signature(func).return_annotation)
    return func


def keyword(name: str, annotation: Any = Any, default: Any = None) -> inspect.Parameter:
    """One keyword parameter of a task beyond its config's options (a model role's spec or
    endpoint, a generation setting, the sandbox)."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

