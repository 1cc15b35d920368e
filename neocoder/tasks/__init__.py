"""The registered tasks: one constant per name, one registry, no import-time side effects.

A task is found by its name (``neocoder run NAME``, ``neocoder.run(NAME, config)``,
``POST /v1/runs {"task": NAME}``).  The built-in tasks are listed here as
``module:Class`` strings, imported only when asked for, so listing the names costs no
import; ``register_task`` adds another (a plugin's, or a test's) explicitly.
docs/tasks.md shows how to write one.
"""

from __future__ import annotations

from importlib import import_module

from ..errors import NeocoderError

EVAL = "eval"  # NeoCoder: a model on Denial Prompting problem states (tasks/evaluation.py)
HUMAN = "human"  # NeoCoder's human baselines, Eq. 5 and 6 (tasks/evaluation.py)
DATASET = "dataset"  # the validated dataset from the release (tasks/dataset.py)
CHAINS = "chains"  # Denial Prompting chains built with a model (tasks/chains.py)
AIDANBENCH = "aidanbench"  # AidanBench (tasks/aidanbench.py)
AIDANBENCH_RESCORE = "aidanbench-rescore"  # AidanBench re-scored without model calls (tasks/aidanbench.py)
IDEAS = "ideas"  # LiveIdeaBench (tasks/ideas.py)
FRAMEWORK = "framework"  # the creativity-evaluation framework (benchmarks/framework/task.py)
FRAMEWORK_VALIDATE = "framework-validate"  # its judge against ground truth (benchmarks/framework/validate.py)

_BUILT_IN = {
    EVAL: "neocoder.tasks.evaluation:EvalTask",
    HUMAN: "neocoder.tasks.evaluation:HumanTask",
    DATASET: "neocoder.tasks.dataset:DatasetTask",
    CHAINS: "neocoder.tasks.chains:ChainTask",
    AIDANBENCH: "neocoder.tasks.aidanbench:AidanTask",
    AIDANBENCH_RESCORE: "neocoder.tasks.aidanbench:RescoreTask",
    IDEAS: "neocoder.tasks.ideas:IdeasTask",
    FRAMEWORK: "neocoder.benchmarks.framework.task:FrameworkTask",
    FRAMEWORK_VALIDATE: "neocoder.benchmarks.framework.validate:ValidateTask",
}
_REGISTERED: dict[str, type] = {}


def register_task(task: type) -> type:
    """Register the Task subclass ``task`` under ``task.name`` (usable as a decorator);
    returns it.  Raises NeocoderError when the name is taken by another task."""
    name = task.name
    known = _REGISTERED.get(name)
    if name in _BUILT_IN or (known is not None and known is not task):
        raise NeocoderError(f"task name {name!r} is taken")
    _REGISTERED[name] = task
    return task


def task_names() -> list[str]:
    """Every task name, built-in first."""
    return list(_BUILT_IN) + [n for n in _REGISTERED if n not in _BUILT_IN]


def get_task(name: str) -> type:
    """The Task class registered as ``name``.  Raises NeocoderError for an unknown name."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in _BUILT_IN:
        raise NeocoderError(f"unknown task {name!r}; choose from {', '.join(task_names())}")
    module, _, attr = _BUILT_IN[name].partition(":")
    return getattr(import_module(module), attr)


__all__ = ["AIDANBENCH", "AIDANBENCH_RESCORE", "CHAINS", "DATASET", "EVAL", "HUMAN", "IDEAS", "get_task",
           "register_task", "task_names"]
