"""The benchmarks, one package each, and the registry of their tasks.

Each benchmark is a package holding what it alone knows: its config with its model
defaults (``config.py``), its task (``runner.Task``), its loop, prompts list and scoring:

- ``neocoder/``: NeoCoder (Denial Prompting; Lu et al., NAACL 2025): the eval and the human
  baselines (``evaluation.py``), the pipeline of one sample, the solve prompt, program
  extraction, the strategies, the paper mode, shards, the dataset build and chain building;
- ``aidanbench/``: AidanBench (answers until incoherent or repetitive), with re-scoring;
- ``ideas/``: LiveIdeaBench (ideas from a keyword, judged by a panel).

They sit on the shared stages (dataset, models, judge, executors, techniques, metrics) and
the runner; the surfaces (CLI, API, server, inspect tasks, report) sit on them.

A task is found by its name (``neocoder run NAME``, ``neocoder.run(NAME, config)``,
``POST /v1/runs {"task": NAME}``).  The built-in tasks are listed here as
``module:Class`` strings, imported only when asked for, so listing the names costs no
import; ``register_task`` adds another (a plugin's, or a test's) explicitly.
docs/tasks.md shows how to write one.
"""

from __future__ import annotations

from importlib import import_module

from neocoder.errors import NeocoderError
from neocoder.records import (
    HUMAN,  # NeoCoder's human baselines, Eq. 5 and 6 (neocoder/evaluation.py): also --model human
)

EVAL = "eval"  # NeoCoder: a model on Denial Prompting problem states (neocoder/evaluation.py)
DATASET = "dataset"  # the validated dataset from the release (neocoder/building.py)
CHAINS = "chains"  # Denial Prompting chains built with a model (neocoder/chains.py)
AIDANBENCH = "aidanbench"  # AidanBench (aidanbench/task.py)
AIDANBENCH_RESCORE = "aidanbench-rescore"  # AidanBench re-scored without model calls (aidanbench/task.py)
IDEAS = "ideas"  # LiveIdeaBench (ideas/task.py)
FRAMEWORK = "framework"  # the creativity-evaluation framework (framework/task.py)
FRAMEWORK_VALIDATE = "framework-validate"  # its judge against ground truth (framework/validate.py)
SUITE = "suite"  # every benchmark for one model and its creativity profile (neocoder/suite/task.py)

_BUILT_IN = {
    EVAL: "neocoder.benchmarks.neocoder.evaluation:EvalTask",
    HUMAN: "neocoder.benchmarks.neocoder.evaluation:HumanTask",
    DATASET: "neocoder.benchmarks.neocoder.building:DatasetTask",
    CHAINS: "neocoder.benchmarks.neocoder.chains:ChainTask",
    AIDANBENCH: "neocoder.benchmarks.aidanbench.task:AidanTask",
    AIDANBENCH_RESCORE: "neocoder.benchmarks.aidanbench.task:RescoreTask",
    IDEAS: "neocoder.benchmarks.ideas.task:IdeasTask",
    FRAMEWORK: "neocoder.benchmarks.framework.task:FrameworkTask",
    FRAMEWORK_VALIDATE: "neocoder.benchmarks.framework.validate:ValidateTask",
    SUITE: "neocoder.suite.task:SuiteTask",
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


__all__ = ["AIDANBENCH", "AIDANBENCH_RESCORE", "CHAINS", "DATASET", "EVAL", "FRAMEWORK", "FRAMEWORK_VALIDATE", "HUMAN",
           "IDEAS", "SUITE", "get_task",
           "register_task", "task_names"]
