"""Do verdicts change when the machine is loaded?  (They must not.)

Judges the recorded GPT-4 state-0 solutions of the NeoCoder release twice: on an
idle machine, then with N busy processes spinning on the host (default 6, on 2
cores).  Prints how many verdicts differ and lists them.

    .venv/bin/python perf/verdicts_under_load.py [--busy 6] [--limit N] [--smoke]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neocoder.benchmarks.neocoder.program import program_from_reply  # noqa: E402
from neocoder.benchmarks.neocoder.solve import solve_prompt  # noqa: E402
from neocoder.dataset import build_from_release, default_release_dir  # noqa: E402
from neocoder.judge import DockerSandbox, Limits  # noqa: E402
from neocoder.models import ReplayKey, get_model  # noqa: E402


def spin(stop_at):
    while time.time() < stop_at:
        pass


def state0_submissions(release_dir, limit=None):
    states, _ = build_from_release(release_dir)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    subs = [(s["problem_id"], program_from_reply(model.generate(
                solve_prompt(s["statement"], ReplayKey(s["problem_id"], 0, 0, s["source_index"])))), s)
            for s in states if s["state"] == 0]
    return subs[:limit] if limit else subs


def judge_all(box, subs, concurrency):
    with ThreadPoolExecutor(concurrency) as pool:
        results = pool.map(lambda x: box.run(
            x[1], x[2]["tests"], Limits.for_cpu(x[2]["time_limit_s"], x[2]["memory_limit_mb"])), subs)
        return {pid: r.verdicts for (pid, _, _), r in zip(subs, results)}


def compare(box, subs, busy, concurrency):
    """Return (idle verdicts, loaded verdicts, seconds idle, seconds loaded)."""
    t0 = time.monotonic()
    idle = judge_all(box, subs, concurrency)
    t1 = time.monotonic()
    stop_at = time.time() + 3600
    hogs = [multiprocessing.Process(target=spin, args=(stop_at,), daemon=True) for _ in range(busy)]
    for h in hogs:
        h.start()
    try:
        t2 = time.monotonic()
        loaded = judge_all(box, subs, concurrency)
        t3 = time.monotonic()
    finally:
        for h in hogs:
            h.terminate()
            h.join()
    return idle, loaded, t1 - t0, t3 - t2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--busy", type=int, default=6)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:
        ap.set_defaults(busy=2, limit=3)
        args = ap.parse_args()
    subs = state0_submissions(default_release_dir(), args.limit)
    with DockerSandbox(concurrency=args.concurrency) as box:
        if box.unavailable:
            sys.exit(box.unavailable)
        idle, loaded, s_idle, s_loaded = compare(box, subs, args.busy, args.concurrency)
    diff = [pid for pid in idle if idle[pid] != loaded[pid]]
    n_tests = sum(len(v) for v in idle.values())
    print(f"{len(subs)} programs, {n_tests} tests; idle {s_idle:.1f}s, "
          f"under {args.busy} busy processes {s_loaded:.1f}s")
    print(f"accepted idle {sum(all(v == 'AC' for v in vs) for vs in idle.values())}, "
          f"loaded {sum(all(v == 'AC' for v in vs) for vs in loaded.values())}")
    print(f"verdicts that differ: {len(diff)}")
    for pid in diff:
        print(f"  {pid}: idle {idle[pid]} loaded {loaded[pid]}")
    sys.exit(1 if diff else 0)


if __name__ == "__main__":
    main()
