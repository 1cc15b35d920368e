"""The readers a descriptor's measures are built from (neocoder/benchmarks/descriptor.py):
``Measure.pick`` functions for the three layouts of ``metrics.json`` the benchmarks write (a
per-state rate, a per-model total, an interval found at a path), and ``Benchmark.answers``
for text benchmarks.
"""

from __future__ import annotations

from typing import Callable


def answers_text(spec: str) -> bool:
    """Whether a model of ``spec`` can answer a benchmark of text prompts (``Benchmark.answers``):
    every model but a replay of NeoCoder's recorded codes (models/replay.py ``RECORDED_MODELS``),
    which holds programs only."""
    from neocoder.models.replay import RECORDED_MODELS
    return not (spec.startswith("replay/") and spec[len("replay/"):] in RECORDED_MODELS)


def state_value(key: str, t: int) -> Callable[[dict, str], tuple]:
    """A ``Measure.pick`` for a per-state rate of ``metrics["states"][t]`` (NeoCoder's layout)."""
    def pick(metrics: dict, _model: str) -> tuple:
        state = metrics.get("states", {}).get(str(t), {})
        return state.get(key), state.get("intervals", {}).get(key)
    return pick


def model_summary(metrics: dict, model: str) -> dict:
    """The summary of ``model`` in a run's ``metrics["models"]`` (the only one when the
    run has one model, whatever its name there); {} when it is missing."""
    models = metrics.get("models", {})
    if model in models:
        return models[model]
    return next(iter(models.values())) if len(models) == 1 else {}


def model_value(key: str, interval_key: str | None = None, where: str | None = None) -> Callable:
    """A ``Measure.pick`` for a per-model total of ``metrics["models"][model]`` (under
    ``where`` when given), its interval under ``intervals[interval_key or key]``."""
    def pick(metrics: dict, model: str) -> tuple:
        summary = model_summary(metrics, model)
        value = (summary.get(where) or {}).get(key) if where else summary.get(key)
        return value, summary.get("intervals", {}).get(interval_key or key)
    return pick


def interval_value(*path: str) -> Callable:
    """A ``Measure.pick`` for an interval ``{"value", "low", "high"}`` found at ``path``
    in ``metrics.json``."""
    def pick(metrics: dict, _model: str) -> tuple:
        node = metrics
        for key in path:
            node = (node or {}).get(key) or {}
        return node.get("value"), ({"low": node["low"], "high": node["high"]} if "low" in node else None)
    return pick


def bootstrap_settings(metrics: dict) -> tuple[int, int]:
    """A run's bootstrap settings (resamples, seed) from its metrics.json ``bootstrap``
    block, checked, so a board redraws the run's intervals with them.  Raises
    NeocoderError for a value that is not an integer or resamples outside the option's
    bounds."""
    from neocoder.config import BOOTSTRAP
    from neocoder.errors import NeocoderError
    block = metrics.get("bootstrap") if isinstance(metrics.get("bootstrap"), dict) else {}
    resamples, seed = block.get("resamples"), block.get("seed")
    for name, value in (("resamples", resamples), ("seed", seed)):
        if type(value) is not int:
            raise NeocoderError(f"metrics.json bootstrap.{name} is {value!r}, not an integer")
    if not 2 <= resamples <= BOOTSTRAP.cap:
        raise NeocoderError(f"metrics.json bootstrap.resamples {resamples} is outside 2..{BOOTSTRAP.cap}")
    return resamples, seed


def completion_api(model: dict | None) -> bool | None:
    """Whether a model of a run's manifest (its ModelConfig as a dict) was asked through a
    completions API, whose recorded replies lack the prefix their prompt ended with (a
    judge's ``<score>``, ``originality:``): True or False as its ``api`` says, else its
    provider's default (chat for ``openai``, completion for ``local``); None when the
    manifest cannot say (a board then tries both readings of a recorded reply)."""
    model = model if isinstance(model, dict) else {}
    if model.get("api") in ("chat", "completion"):
        return model["api"] == "completion"
    return {"openai": False, "local": True}.get(str(model.get("spec") or "").split("/", 1)[0])
