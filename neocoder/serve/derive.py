"""HTTP request schemas derived from the config declarations (neocoder/options.py).

``request_model(EvalConfig, "EvalRequest")`` is a pydantic model with one field per
option a client may send (``options.sent``: declared and not ``local``): the same
default, a bound from the declaration (``ge``/``gt``/``le``, and ``cap``, the limit a
shared server keeps), its choices as a ``Literal``, its help as the description.  A field
holding a ``ModelConfig`` becomes the model schema given (``ModelSpec``, which refuses
what a server never does for a caller); the fields declared without an Option (the run
folder, the release, the sandbox) are the server's own and refused when sent, and so is
any other field holding a path (a caller never names a file on the server's disk; eval's
``dataset`` is given as a name instead).  So a new
config option is a new request field with no line written here, and ``to_config`` turns a
validated request back into the config field by field.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model

from neocoder.config import ModelConfig
from neocoder.options import Option, declared, names_a_path, sent


def _bounds(opt: Option) -> dict:
    upper = opt.le if opt.cap is None else (opt.cap if opt.le is None else min(opt.le, opt.cap))
    return {k: v for k, v in (("ge", opt.ge), ("gt", opt.gt), ("le", upper)) if v is not None}


def _annotation(hint, opt: Option, model_schema: type[BaseModel]):
    """The request type of a field annotated ``hint`` and declared ``opt``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    optional = len(args) < len(typing.get_args(hint))
    inner = args[0] if optional and len(args) == 1 else hint
    if inner is ModelConfig:
        kind = model_schema
    elif typing.get_origin(inner) is list and typing.get_args(inner) == (ModelConfig,):
        kind = list[model_schema]
    elif opt.choices is not None:  # a list's items each one of them (EvalConfig.paper)
        kind = list[Literal[opt.choices]] if typing.get_origin(inner) is list else Literal[opt.choices]
    elif typing.get_origin(inner) is list:
        item = typing.get_args(inner)[0] if typing.get_args(inner) else Any
        kind = list[Annotated[item, Field(**_bounds(opt))]]
    else:
        kind = Annotated[inner, Field(**_bounds(opt))] if _bounds(opt) else inner
    return kind | None if optional else kind


def model_fields(config_type) -> list[tuple[str, bool]]:
    """``(name, is_list)`` of every field of ``config_type`` a caller may send that holds a
    ``ModelConfig`` (``model``, an optional ``judge``) or a list of them (a ``judges``
    panel): the models whose provider and endpoint a server checks."""
    hints = typing.get_type_hints(config_type, include_extras=False)
    found = []
    for f, _opt in sent(config_type):
        hint = hints[f.name]
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        for kind in [a for a in typing.get_args(hint) if a is not type(None)] if union else [hint]:
            if kind is ModelConfig or (typing.get_origin(kind) is list and typing.get_args(kind) == (ModelConfig,)):
                found.append((f.name, kind is not ModelConfig))
    return found


def unsendable(config_type) -> list[str]:
    """The required fields of ``config_type`` a caller cannot send (they name a path on the
    server's disk): a task with any cannot run as a server job."""
    return [f.name for f, opt in declared(config_type) if opt.required and names_a_path(config_type, f)]


def request_fields(config_type, model_schema: type[BaseModel] | None = None, overrides: dict | None = None) -> dict:
    """``{name: (annotation, FieldInfo)}`` for ``pydantic.create_model``: every field of
    ``config_type`` a client may send, as declared; ``overrides`` replace some."""
    hints = typing.get_type_hints(config_type, include_extras=False)
    overrides = overrides or {}
    out = {}
    for f, opt in sent(config_type):
        if f.name in overrides:
            out[f.name] = overrides[f.name]
            continue
        if names_a_path(config_type, f):
            continue  # a caller never names a file on the server's disk
        kind = _annotation(hints[f.name], opt, model_schema)
        empty_default = opt.factory is not None and not opt.factory()  # e.g. --paper: none by default
        extra = {"min_length": 1} if typing.get_origin(kind) is list and not empty_default else {}
        if opt.required:
            info = Field(description=opt.help or None, **extra)
        elif opt.factory is not None:
            info = Field(default_factory=opt.factory, description=opt.help or None, **extra)
        else:
            info = Field(opt.default, description=opt.help or None)
        out[f.name] = (kind, info)
    return out


def request_model(config_type, name: str, base: type[BaseModel], doc: str,
                  model_schema: type[BaseModel] | None = None, overrides: dict | None = None) -> type[BaseModel]:
    """The pydantic request model of ``config_type`` (see the module docstring), on
    ``base`` (which holds the validators and refuses unknown fields)."""
    model = create_model(name, __base__=base, __doc__=doc, __module__=base.__module__,
                         **request_fields(config_type, model_schema, overrides))
    return model


def to_config(config_type, request: BaseModel, **server_fields):
    """The ``config_type`` of a validated ``request`` plus the server's own fields (the run
    folder, the sandbox, ...); a nested model becomes a ModelConfig, its API key
    ``server_fields["api_key"]`` (never stored with the request)."""
    api_key = server_fields.pop("api_key", None)
    values = {}
    for f, _ in sent(config_type):
        if f.name in server_fields or f.name not in type(request).model_fields:
            continue
        values[f.name] = _plain(getattr(request, f.name), api_key)
    return config_type(**values, **server_fields)


def _plain(value, api_key):
    if isinstance(value, BaseModel):
        fields = {k: getattr(value, k) for k in type(value).model_fields if k != "api_key"}
        if api_key is None and str(fields.get("spec", "")).startswith("openai/"):
            api_key = "none"  # never the server's own $OPENAI_API_KEY, sent to an endpoint the caller chose
        return ModelConfig(**fields, api_key=api_key)
    if isinstance(value, list):
        return [_plain(v, api_key) for v in value]
    return value
