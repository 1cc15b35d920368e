"""``inspect eval`` as a user runs it, for the tests of neocoder's inspect_ai tasks
(docs/inspect.md), and the NeoCoder rates read back from its log."""

import os
import subprocess
import sys
from pathlib import Path

RATES = {"pass@1": "pass@1", "convergent": "convergent", "divergent": "divergent", "neogauge": "neogauge",
         "cumulative_neogauge": "cumulative_neogauge"}


INSPECT = str(Path(sys.executable).with_name("inspect"))


def inspect_eval(log_dir: Path, model: str, *args: str, env: dict | None = None) -> Path:
    """Run `inspect eval neocoder/neocoder` as a user would; return its log file."""
    return inspect_eval_task("neocoder/neocoder", log_dir, model, *args, env=env)


def inspect_eval_task(name: str, log_dir: Path, model: str, *args: str, env: dict | None = None) -> Path:
    """Run `inspect eval NAME` as a user would; return its log file."""
    done = subprocess.run([INSPECT, "eval", name, "--model", model, "--log-dir", str(log_dir),
                           "--display", "none", *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    logs = sorted(log_dir.glob("*.eval"))
    assert len(logs) == 1, logs
    return logs[0]


def log_rates(log) -> dict:
    """state t -> rate -> value from an inspect log's NeoCoder metric."""
    out: dict = {}
    for name, metric in log.results.scores[0].metrics.items():
        rate, _, t = name.rpartition("/t")
        out.setdefault(t, {})[rate] = metric.value
    return out
