"""The options several commands share, declared once: each arrives in a command as one
config object (``model: ModelConfig``, ``sandbox: SandboxConfig``)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import click

from ..config import ModelConfig, SandboxConfig
from ..dataset import default_release_dir

MODEL_FIELDS = ("base_url", "api_key", "api", "temperature", "max_tokens", "timeout", "max_retries")


def parse_states(text: str) -> list[int]:
    """'0-5' -> [0..5]; '0,2,4' -> [0, 2, 4]; raises click.BadParameter otherwise."""
    states: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise click.BadParameter(f"{text!r}: use a range like 0-5 or a list like 0,2,4")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise click.BadParameter(f"{text!r}: empty range")
        states.update(range(lo, hi + 1))
    return sorted(states)


def run_dir(spec: str, *parts: str) -> Path:
    """The default run folder of a model: runs/[parts/]<spec with / and odd characters as _>."""
    return Path("runs", *parts, re.sub(r"[^A-Za-z0-9._-]+", "_", spec))


def _apply(options, f):
    for option in reversed(options):
        f = option(f)
    return f


def model_options(temperature: float = 0.0, max_tokens: int = 1024, required: bool = True,
                  model_help: str = "PROVIDER/NAME: openai/<model>, local/gemma-3-270m, replay/<source>."):
    """``--model`` and how to call it, handed to the command as ``model: ModelConfig``
    (None when ``--model`` is optional and not given)."""
    options = [
        click.option("--model", "model_spec", required=required, default=None, help=model_help),
        click.option("--base-url", default=None, help="OpenAI-compatible endpoint (or $OPENAI_BASE_URL)."),
        click.option("--api-key", default=None, help="API key (or $OPENAI_API_KEY); never written to a run."),
        click.option("--api", type=click.Choice(["chat", "completion"]), default=None,
                     help="Chat or completions API (default: chat; completion for local base models)."),
        click.option("--temperature", type=float, default=temperature, show_default=True),
        click.option("--max-tokens", type=click.IntRange(min=1), default=max_tokens, show_default=True),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=None, help="Seconds per model call."),
        click.option("--max-retries", type=click.IntRange(min=0), default=3, show_default=True,
                     help="Retries with backoff on 429, 5xx and timeouts (the openai SDK's own)."),
    ]

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, model_spec, **kw):
            fields = {name: kw.pop(name) for name in MODEL_FIELDS}
            return f(*args, model=ModelConfig(model_spec, **fields) if model_spec else None, **kw)
        return _apply(options, wrapper)
    return decorate


def sandbox_options(f):
    """``--sandbox --fresh --runtime --workers --executor --ray-address``, handed to the command as
    ``sandbox: SandboxConfig``."""
    options = [
        click.option("--sandbox", "sandbox_kind", type=click.Choice(["docker", "process"]), default="docker",
                     show_default=True, help="docker (strong isolation) or process (weaker: no Docker needed; "
                     "see docs/sandbox.md)."),
        click.option("--fresh", is_flag=True, help="A new container per submission instead of the warm pool."),
        click.option("--runtime", default=None, help="Docker runtime, e.g. runsc where gVisor is installed."),
        click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
                     help="Submissions judged at once."),
        click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                     help="Who judges: this machine's warm pool, or sandbox actors on a Ray cluster "
                     "(pip install 'neocoder[ray]'; docs/scale-out.md)."),
        click.option("--ray-address", default=None, help="The Ray cluster for --executor ray (e.g. auto or "
                     "HOST:PORT; default: $RAY_ADDRESS, else a local Ray started for this run)."),
    ]

    @functools.wraps(f)
    def wrapper(*args, sandbox_kind, fresh, runtime, workers, executor, ray_address, **kw):
        return f(*args, sandbox=SandboxConfig(sandbox_kind, fresh, runtime, workers, executor, ray_address), **kw)
    return _apply(options, wrapper)


def release_option(name: str = "--release"):
    return click.option(name, "release", type=click.Path(file_okay=False, path_type=Path),
                        envvar="NEOCODER_RELEASE", default=default_release_dir, show_default=False,
                        help="NeoCoder release folder (default: $NEOCODER_RELEASE, else ../shared/neocoder).")


quiet_option = click.option("--quiet", is_flag=True, help="No progress bar.")


def bootstrap_options(unit: str):
    """``--bootstrap N --seed S``: the resamples and seed of the intervals (neocoder/bootstrap.py)."""
    return lambda f: _apply([
        click.option("--bootstrap", type=click.IntRange(min=2), default=2000, show_default=True,
                     help=f"Bootstrap resamples of {unit}s for the 95% intervals."),
        click.option("--seed", "bootstrap_seed", type=int, default=0, show_default=True,
                     help="Seed of the bootstrap resampling (the same seed gives the same intervals)."),
    ], f)
limit_option = click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N items.")
