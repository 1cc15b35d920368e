"""The suite's benchmarks: every registered benchmark that declares suite sizes.

Each benchmark declares in its descriptor (``neocoder/benchmarks/<name>/descriptor.py``)
which task the suite runs (its main task), the task options each size sets
(``Benchmark.presets``: ``quick`` finishes in minutes on a hosted model, ``full`` is the
papers' size), whether a model can answer it (a ``replay/`` model has recordings for some
benchmarks only; the suite's ``stand_in`` answers the others), whether it needs judges, and
its headline measures: which numbers of the run's ``metrics.json`` go into the profile,
each with its 95% interval and whether it measures convergent or divergent thinking.
So adding a benchmark to ``neocoder suite`` (and to the creativity profile and the
leaderboard) needs nothing here.

Convergent and divergent follow Guilford's split as the benchmarks' papers use it (each
descriptor says which of its measures is which, and why); a benchmark's own composite
(NeoGauge, NeoCoder Eq. 4) is shown as such, beside its parts; the suite makes no
composite of its own.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from neocoder.benchmarks import benchmark as registered
from neocoder.benchmarks import benchmarks, get_task
from neocoder.benchmarks.descriptor import Benchmark, resolve

if TYPE_CHECKING:
    from neocoder.config import ModelConfig
    from neocoder.suite.config import SuiteConfig


def suite_benchmarks() -> list[Benchmark]:
    """The benchmarks the suite runs, in registry order (those that declare presets)."""
    return [b for b in benchmarks() if b.in_suite]


def names() -> list[str]:
    """The names of ``suite_benchmarks``: the suite's ``--benchmarks`` choices, in order."""
    return [b.name for b in suite_benchmarks()]


def benchmark(name: str) -> Benchmark:
    """The suite's benchmark ``name``.  Raises KeyError for a name the suite does not run."""
    found = registered(name)
    if not found.in_suite:
        raise KeyError(name)
    return found


def make_config(bench: Benchmark, suite: SuiteConfig, model: ModelConfig, out: Path):
    """The config of ``bench``'s main task for the suite run ``suite``, answered by
    ``model`` into ``out``, at the suite's size (``bench.presets[suite.preset]``): built by
    the benchmark's ``suite_config`` where it declares one, else from the fields its
    config has among the suite's own (model, out, release_dir, sandbox, bootstrap,
    bootstrap_seed, progress, language, and its first judge as ``judge``)."""
    options = dict(bench.presets.get(suite.preset, {}))
    if bench.suite_config is not None:
        config = resolve(bench.suite_config)(suite, model, out, options)
    else:
        config_type = get_task(bench.main_task).config_type
        offered = {"model": model, "out": out, "release_dir": suite.release_dir, "sandbox": suite.sandbox,
                   "bootstrap": suite.bootstrap, "bootstrap_seed": suite.bootstrap_seed, "progress": suite.progress,
                   "judge": suite.judges[0] if suite.judges else None, "language": suite.language}
        names = {f.name for f in fields(config_type)}
        config = config_type(**{k: v for k, v in offered.items() if k in names and v is not None}, **options)
    if "max_errors" in {f.name for f in fields(config)}:  # the suite's tolerance is each benchmark's
        config = replace(config, max_errors=suite.max_errors)
    return config
