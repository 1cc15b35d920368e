"""The options several commands share, declared once: each arrives in a command as one
config object (``model: ModelConfig``, ``sandbox: SandboxConfig``), its options built
from that config's declarations (cli/declared.py)."""

from __future__ import annotations

import functools
import re
from dataclasses import fields
from pathlib import Path

import click

from neocoder.cli.declared import declared_options
from neocoder.config import LANGUAGE, ModelConfig, SandboxConfig
from neocoder.dataset import default_release_dir
from neocoder.options import parse_states as _parse_states


def parse_states(text: str) -> list[int]:
    """'0-5' -> [0..5]; '0,2,4' -> [0, 2, 4]; raises click.BadParameter otherwise."""
    try:
        return _parse_states(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


def run_dir(spec: str, *parts: str) -> Path:
    """The default run folder of a model: runs/[parts/]<spec with / and odd characters as _>."""
    return Path("runs", *parts, re.sub(r"[^A-Za-z0-9._-]+", "_", spec))


def _apply(options, f):
    for option in reversed(options):
        f = option(f)
    return f


GENERATION = ("temperature", "max_tokens")  # what a benchmark declares per model role (config.GenerateDefaults)


def _shown(config_type, role: str) -> dict:
    """The defaults ``config_type`` declares for ``role``, as the help shows them."""
    defaults = config_type.roles.get(role) if config_type is not None else None
    return {} if defaults is None else {k: f"{getattr(defaults, k):g}" for k in GENERATION}


def model_options(config_type=None, required: bool = True,
                  model_help: str = "PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/<source>."):
    """``--model`` and how to call it (ModelConfig's declared options), handed to the
    command as ``model: ModelConfig`` (None when ``--model`` is optional and not given).
    The temperature and token budget left unset take the benchmark's defaults for its
    ``model`` role (``config_type.roles``, filled in by the runner), which the help shows."""
    # no ``default=None`` beside ``required``: click 8.3 takes an explicit None for a default given, so a
    # required --model left out went through as None (an AttributeError later in eval and ideas)
    spec = click.option("--model", "model_spec", required=required, help=model_help)
    how = declared_options(ModelConfig, "model_fields", shown=_shown(config_type, "model"))

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, model_spec=None, model_fields, **kw):
            if required and not model_spec:  # whatever click does, never a command without its model
                raise click.MissingParameter(ctx=click.get_current_context(), param_hint="'--model'",
                                             param_type="option")
            return f(*args, model=ModelConfig(model_spec, **model_fields) if model_spec else None, **kw)
        return spec(how(wrapper))
    return decorate


ROLE = GENERATION + ("reasoning", "reasoning_effort")  # what a role (a judge) sets apart from the model


def role_options(config_type, role: str, prefix: str = "judge"):
    """A model role's own options (``--judge-temperature``, ``--judge-max-tokens``,
    ``--judge-reasoning``, ``--judge-reasoning-effort``), declared by ModelConfig and
    defaulting to the benchmark's for ``role``; handed to the command as
    ``<prefix>_generation``: a dict of the values given."""
    return declared_options(ModelConfig, f"{prefix}_generation", only=ROLE, prefix=prefix,
                            shown=_shown(config_type, role))


def role_model(model: ModelConfig, spec: str, generation: dict) -> ModelConfig:
    """The ModelConfig of another role (a judge) named ``spec``: the endpoint options of
    ``model`` (base URL, key, timeout, retries, connections), the role's own ``generation``
    (None: the benchmark's default for the role, and a reasoning model by its own name)
    and the provider's default API."""
    return model.with_(spec=spec, api=None, **{**{name: None for name in ROLE}, **generation})


def sandbox_options(f):
    """``--sandbox --fresh --runtime --workers --executor --ray-address`` (SandboxConfig's
    declared options), handed to the command as ``sandbox: SandboxConfig``."""
    @functools.wraps(f)
    def wrapper(*args, sandbox_fields, **kw):
        return f(*args, sandbox=SandboxConfig(**sandbox_fields), **kw)
    return declared_options(SandboxConfig, "sandbox_fields", only=[x.name for x in fields(SandboxConfig)])(wrapper)


def language_option(more_help: str, extra: tuple[str, ...] = ()):
    """``--language``: one of config.LANGUAGE's choices (python, cpp; ``extra`` adds a
    command's own, e.g. detect's "auto"), handed to the command as ``language`` (None when
    not given: the command decides from the file; ``more_help`` says how)."""
    choices = [*LANGUAGE.choices, *extra]
    return click.option("--language", type=click.Choice(choices), default=None,
                        help=f"The program's language: {', '.join(choices[:-1])} or {choices[-1]}. {more_help}")


def extensions_help() -> str:
    """The extensions the language is told by, as help text: ".py python; .cpp .cc ... cpp"."""
    from neocoder.api import LANGUAGE_BY_EXTENSION
    by = {}
    for ext, lang in LANGUAGE_BY_EXTENSION.items():
        by.setdefault(lang, []).append(ext)
    return "; ".join(f"{' '.join(exts)} {lang}" for lang, exts in by.items())


def release_option(name: str = "--release"):
    """``--release`` (or the option ``name``): the NeoCoder release folder, handed to the
    command as ``release`` (an absolute Path, so the manifest records the folder used; default
    ``$NEOCODER_RELEASE``, else ``$NEOCODER_SHARED/neocoder``, else ``shared/neocoder`` beside the
    checkout: ``dataset.default_release_dir``, never the current folder)."""
    return click.option(name, "release", type=click.Path(file_okay=False, path_type=Path, resolve_path=True),
                        envvar="NEOCODER_RELEASE", default=default_release_dir, show_default=False,
                        help="NeoCoder release folder or repository clone, needed only to rebuild the dataset or for "
                             "--dataset release (default: $NEOCODER_RELEASE, else $NEOCODER_SHARED/neocoder, else "
                             "shared/neocoder beside the checkout).")


quiet_option = click.option("--quiet", is_flag=True, help="No progress bar.")


def out_option(default: str):
    """``--out``: the run folder, ``default`` saying where it goes when not given."""
    return click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help=f"Run folder (default: {default}); an existing one is resumed.")


def run_options(config_type, role: str, out_default: str, sandbox: bool = False):
    """What a benchmark's command takes after ``--model`` and its role's spec (``--judge``):
    the role's own generation options (``role_options``), the config's declared options
    (handed over as ``declared``), the sandbox options where it judges programs, ``--out``
    (``out_option``) and ``--quiet``, in that order."""
    options = [role_options(config_type, role), declared_options(config_type, "declared"),
               *([sandbox_options] if sandbox else []), out_option(out_default), quiet_option]
    return lambda f: _apply(options, f)


def bootstrap_options(unit: str):
    """``--bootstrap N --seed S``: the resamples and seed of the intervals (neocoder/metrics/bootstrap.py)."""
    return lambda f: _apply([
        click.option("--bootstrap", type=click.IntRange(min=2), default=2000, show_default=True,
                     help=f"Bootstrap resamples of {unit}s for the 95% intervals."),
        click.option("--seed", "bootstrap_seed", type=int, default=0, show_default=True,
                     help="Seed of the bootstrap resampling (the same seed gives the same intervals)."),
    ], f)
