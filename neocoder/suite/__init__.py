"""``neocoder suite``: every benchmark for one model in one resumable run folder, and the
model's creativity profile (docs/leaderboard.md).

- config.py: ``SuiteConfig``, the suite's options declared once;
- registry.py: the benchmarks, one ``Benchmark`` entry each, with their sizes and
  headline measures (convergent, divergent, a benchmark's own composite);
- task.py: ``SuiteTask`` (the runner's task ``suite``) and its ``SuiteStep`` record;
- profile.py: the profile (``profile.json``) and its figure (``profile.svg``).
"""

from neocoder.suite.config import FULL, QUICK, SuiteConfig

__all__ = ["FULL", "QUICK", "SuiteConfig"]
