"""The path of one eval run through the code: how many places it stops at, in how many
files, and how often control climbs back up a layer (issue 35).

    python scripts/eval_path.py [--checkout DIR] [-- EVAL OPTIONS]

Runs ``neocoder eval --model replay/gpt-4-1106-preview --limit 1 --states 0`` (or the
options given after ``--``) in this process under ``sys.setprofile`` and reports:

- stops: the distinct neocoder functions the run enters (file and function), and files;
- climbs: calls from a function of a lower layer into one of a higher layer (a callback
  or a late import that points up), by the layers of tests/test_layers.py;
- per unit (top-level module or package, one per benchmark), the functions entered.

``--checkout DIR`` measures another checkout's code (put first on ``sys.path``), so the
same script gives before and after.  Units of the layout before the benchmark packages
(``tasks``, ``solve``, ``pipeline``, ...) are given the layers their code has now.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

# layers as tests/test_layers.py has them; the units of the layout before it, mapped to theirs
LAYERS = {
    "errors": 0, "options": 1, "records": 1, "paths": 1, "resources": 1, "netpolicy": 1, "config": 2, "store": 2,
    "dataset": 3, "models": 4, "judge": 4, "executors": 5, "techniques": 5, "oracle": 6, "metrics": 6,
    "runner": 7, "benchmarks": 8, "benchmarks.*": 9, "suite": 10, "api": 11, "client": 11, "export": 11,
    "upgrade": 11, "report": 11, "inspect_tasks": 12, "rewards": 12, "serve": 13, "cli": 14, "neocoder": 15,
    # before: the same code under its old names
    "metric_types": 6, "bootstrap": 6, "entropy": 6, "diversity": 6, "tasks": 9, "solve": 9, "program": 9,
    "pipeline": 9, "paper": 9, "shards": 9, "denial": 9, "strategies": 9, "aidanbench": 9, "ideas": 9,
}


def unit(package: Path, file: str) -> str | None:
    """The unit of a source file inside ``package`` (None outside it)."""
    try:
        parts = Path(file).resolve().relative_to(package).with_suffix("").parts
    except ValueError:
        return None
    if parts[0] == "__init__":
        return "neocoder"
    if parts[0] == "benchmarks" and len(parts) > 2:
        return "benchmarks." + parts[1]
    return parts[0]


def layer(name: str) -> int:
    return LAYERS["benchmarks.*"] if name.startswith("benchmarks.") else LAYERS.get(name, 99)


def trace(args: list[str]) -> dict:
    """Run ``neocoder eval ARGS`` under a profiler; return the counts described above."""
    neocoder = importlib.import_module("neocoder")
    package = Path(neocoder.__file__).resolve().parent
    from neocoder.cli import main
    stops: set[tuple[str, str]] = set()
    climbs: set[tuple[str, str]] = set()

    def profile(frame, event, _arg):
        if event != "call":
            return
        here = unit(package, frame.f_code.co_filename)
        if here is None:
            return
        stops.add((str(Path(frame.f_code.co_filename).resolve().relative_to(package)), frame.f_code.co_name))
        caller = frame.f_back
        while caller is not None and unit(package, caller.f_code.co_filename) is None:
            caller = caller.f_back  # through a library (click, the thread pool) to the neocoder code that called
        if caller is not None:
            there = unit(package, caller.f_code.co_filename)
            if layer(here) > layer(there):
                climbs.add((f"{there}:{caller.f_code.co_name}", f"{here}:{frame.f_code.co_name}"))

    import threading
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        main.main(["eval", *args], standalone_mode=False)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    files = {f for f, _ in stops}
    units: dict[str, int] = {}
    for f, _ in stops:
        name = unit(package, str(package / f))
        units[name] = units.get(name, 0) + 1
    return {"checkout": str(package.parent), "stops": len(stops), "files": len(files), "climbs": sorted(climbs),
            "units": dict(sorted(units.items(), key=lambda kv: (layer(kv[0]), kv[0])))}


def main_(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[1])
    opts = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    sys.path.insert(0, str(opts.checkout.resolve()))
    with tempfile.TemporaryDirectory() as out:
        args = extra or ["--model", "replay/gpt-4-1106-preview", "--limit", "1", "--states", "0", "--quiet"]
        got = trace([*args, "--out", str(Path(out) / "run")])
    print(f"checkout {got['checkout']}: {got['stops']} stops in {got['files']} files, "
          f"{len(got['climbs'])} climbs back up a layer")
    for name, count in got["units"].items():
        print(f"  {name:24s} layer {layer(name):>2}  {count} functions")
    for caller, callee in got["climbs"]:
        print(f"  climb: {caller} -> {callee}")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
