"""The leaderboard: models by creativity measures, with intervals, ties marked and the
papers' published rows beside ours (``neocoder leaderboard``; ``neocoder serve`` at ``/``).

- collect.py: rows from run folders (suites and single benchmarks) and published tables;
- ties.py: which rows cannot be told apart from a column's best (paired bootstrap over
  shared items, else overlapping intervals);
- site.py: the static site (Jinja2 templates, the shipped script and style sheet, a
  profile figure per model, each run's report);
- export.py: a run's records as Parquet.

docs/leaderboard.md says what each part shows and why.
"""

from neocoder.report.leaderboard.site import board_html, build_leaderboard

__all__ = ["board_html", "build_leaderboard"]
