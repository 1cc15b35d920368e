"""NeoCoder: sandboxed benchmarks of language-model creativity.

The Python API (what each ``neocoder`` command runs):

- ``evaluate(EvalConfig) -> EvalResult``: NeoCoder on a model (or the human baselines);
- ``build_dataset(DatasetConfig)`` / ``build_chains(ChainConfig) -> DatasetResult``:
  problem states from the release, or by Denial Prompting with any model;
- ``run_aidanbench(AidanConfig) -> AidanResult``: AidanBench; ``rescore_aidanbench(run, ...)``
  re-scores a run at new thresholds with no model call;
- ``run_ideas(IdeasConfig) -> IdeasResult``: LiveIdeaBench (``neocoder ideas``);
- ``run(task, config)``: any registered task (``register_task``; docs/tasks.md) through the
  one runner (``neocoder/runner.py``), as ``neocoder run TASK`` and ``POST /v1/runs`` do.

The shared configs are in ``neocoder.config``, each benchmark's in its package
(``neocoder.benchmarks.<name>.config``), records in ``neocoder.records``, run folders in
``neocoder.store``; ``docs/architecture.md`` shows how they fit.
"""

from neocoder.errors import NeocoderError

_LAZY = {"api": ("AidanResult", "DatasetResult", "EvalResult", "IdeasResult", "run_aidanbench", "build_chains",
                 "build_dataset", "evaluate", "rescore_aidanbench", "run_ideas",
                 "run"),
         "runner": ("Stopped", "Task"),
         "benchmarks": ("benchmarks", "get_task", "register_benchmark", "register_task", "task_names"),
         "config": ("ModelConfig", "SandboxConfig"),
         "benchmarks.neocoder.config": ("ChainConfig", "DatasetConfig", "EvalConfig"),
         "benchmarks.aidanbench.config": ("AidanConfig",),
         "benchmarks.ideas.config": ("IdeasConfig",)}


def __getattr__(name: str):
    """The API names are imported on first use, so ``import neocoder.records`` stays light."""
    for module, names in _LAZY.items():
        if name in names:
            from importlib import import_module
            return getattr(import_module(f".{module}", __name__), name)
    raise AttributeError(f"module 'neocoder' has no attribute {name!r}")

__all__ = ["AidanConfig", "AidanResult", "ChainConfig", "DatasetConfig", "DatasetResult", "EvalConfig",
           "EvalResult", "IdeasConfig", "IdeasResult", "ModelConfig", "NeocoderError", "SandboxConfig",
           "Stopped", "Task", "benchmarks", "build_chains", "run_aidanbench", "build_dataset", "evaluate", "get_task",
           "register_benchmark", "register_task", "rescore_aidanbench", "run", "run_ideas", "task_names"]
