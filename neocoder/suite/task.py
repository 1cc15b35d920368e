"""``neocoder suite`` as a task: every benchmark of the registry for one model, in one
run folder, resumable.

An item is one benchmark; solving it runs that benchmark's own task (runner.run) into
the sub-folder ``<out>/<benchmark>`` with the suite's call cache (``<out>/calls.jsonl``,
shared by every sub-run, so a call made once is never paid again in any of them) and
yields a ``SuiteStep`` once the sub-run has written its metrics.  Benchmarks run one after
the other, so each model's connection limiter (models/limiter.py) bounds every call the
suite has in flight to its endpoint.  Killed at any point, a rerun skips the finished
steps and the unfinished benchmark resumes its own sub-folder (its runner skips its
finished items; the shared cache answers the calls that were made), so no model call is
made twice.  The score is the creativity profile (profile.py): ``metrics.json`` holds it
and ``profile.json`` and ``profile.svg`` are written beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.benchmarks import SUITE, UnknownBenchmark
from neocoder.errors import NeocoderError
from neocoder.runner import LostItems, Outcome, Run, Task
from neocoder.suite.config import SuiteConfig
from neocoder.suite.records import SuiteStep
from neocoder.suite.registry import benchmark, make_config, suite_benchmarks


class SuiteTask(Task, name=SUITE, config_type=SuiteConfig, unit="benchmark", record_type=SuiteStep):
    """Every benchmark for one model, one folder, one creativity profile (see the module)."""

    def check(self) -> None:
        """Refuse an unknown benchmark name (NeocoderError naming it: not registered here,
        or registered without suite presets)."""
        for name in self.config.benchmarks:
            try:
                benchmark(name)
            except UnknownBenchmark as exc:
                raise NeocoderError(f"SuiteConfig.benchmarks: no benchmark {name!r} ({exc})") from None
            except KeyError:
                raise NeocoderError(f"SuiteConfig.benchmarks: no benchmark {name!r} in the suite (it declares no "
                                    "presets)") from None

    def items(self, run: Run) -> list:
        """One item per benchmark asked for, in the registry's order."""
        wanted = set(self.config.benchmarks)
        return [(b.name,) for b in suite_benchmarks() if b.name in wanted]

    def manifest(self, run: Run) -> dict:
        """The benchmarks run and the shared call cache's file name."""
        return {"benchmarks": [b for (b,) in self.items(run)], "call_cache": run.folder.calls_path.name}

    def tolerated(self) -> int:
        """None: ``--max-errors`` is each benchmark's tolerance of its own items, so a
        benchmark that lost more fails the suite (after the others ran and the profile is written)."""
        return 0

    def answering(self, bench) -> tuple:
        """``(model config, is stand-in, why skipped | None)`` for benchmark ``bench``."""
        config = self.config
        model, stand_in = config.model, False
        if not bench.answers(model.spec):
            if config.stand_in is None:
                return model, False, f"{model.spec} has no recorded answers for {bench.name} and no stand-in was given"
            model, stand_in = config.stand_in, True
        if bench.needs_judges and not [j for j in config.judges if j.spec != model.spec]:
            return model, stand_in, "needs judges (--judge) other than the model"
        return model, stand_in, None

    def solve(self, item, run: Run):
        """Run one benchmark's main task into its sub-folder (or record why it was left out); yields its
        ``SuiteStep``."""
        from neocoder.benchmarks import get_task
        from neocoder.runner import run as run_task
        bench = benchmark(item[0])
        model, stand_in, skipped = self.answering(bench)
        lost = None
        if skipped is None:
            sub = make_config(bench, self.config, model, Path(run.folder.path) / bench.name)
            try:
                run_task(get_task(bench.main_task)(sub), stop=run.stop, cache=run.cache, cancel=run.cancel)
            except LostItems as exc:  # its records and metrics are written; the other benchmarks still run
                lost = str(exc)
        yield SuiteStep(bench.name, bench.name, model.spec, stand_in, skipped, lost)

    def score(self, run: Run) -> dict:
        """The creativity profile of the finished benchmarks, also written as profile.json and profile.svg."""
        from neocoder.suite.profile import build_profile, write_figure
        steps = {s.benchmark: s for s in run.folder.read(SuiteStep)}
        profile = build_profile(Path(run.folder.path), self.config.model.spec, steps,
                                [b for (b,) in self.items(run)])
        profile["calls"] = run.cache.stats()
        outcome = Outcome("benchmark")
        for name, entry in profile["benchmarks"].items():
            if entry["skipped"] is None:
                outcome.add(judged=True, error=f"{name}: {entry['lost']}" if entry.get("lost") else None)
        profile["outcome"] = outcome.to_dict()
        folder = Path(run.folder.path)
        (folder / "profile.json").write_text(json.dumps(profile, indent=1), encoding="utf-8")
        write_figure(profile, folder / "profile.svg")
        return profile
