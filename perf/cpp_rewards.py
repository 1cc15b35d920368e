"""The C++ judge's cost beside Python's, in one run (issue 49; docs/sandbox.md, "C++").

1. Rewards per second at batch 64, in process (``Scorer``, the same sandbox workers):
   Python = GPT-4's recorded state-0 programs of the shipped dataset (as the reward
   benchmark, perf/reward_throughput.py, scores them), C++ = accepted human C++ solutions of
   the release, one per problem with one, at state 0.  The ratio C++/Python is printed.
2. Per C++ program: the compile's wall time bare, and per test the sandbox's wall time
   against running the same binary bare on this machine (compiled here with the same flags,
   ``sandbox/runner/native.py`` CXX_FLAGS, no precompiled header; run with ``subprocess``
   on the test's input): the per-test overhead of the sandbox.

    .venv/bin/python perf/cpp_rewards.py [--programs 64] [--workers 2] [--bare 24] [--smoke]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sandbox"))


def python_items(n: int) -> list[dict]:
    """GPT-4's recorded round-0 program of the first ``n`` shipped problems with a state 0."""
    from neocoder.dataset.shipped import load_states
    have = {s.problem_id for s in load_states() if s.state == 0}
    rows = [json.loads(line) for line in gzip.open(ROOT / "data/codeforces/replies-gpt-4-1106-preview.jsonl.gz", "rt")]
    return [{"problem_id": r["problem_id"], "state": 0, "program": r["codes"][0]}
            for r in rows if r["problem_id"] in have and r["codes"]][:n]


def cpp_items(n: int, release: Path) -> list[dict]:
    """One accepted human C++ solution of each of the first ``n`` shipped problems that have one."""
    from neocoder.dataset.shipped import load_states
    from neocoder.techniques.human import solutions_by_language
    ids = sorted({s.problem_id for s in load_states() if s.state == 0})
    got = solutions_by_language(release, ids)
    out = []
    for pid in ids:
        code = next((src for lang, src in got.get(pid, []) if lang == "cpp"), None)
        if code:
            out.append({"problem_id": pid, "state": 0, "program": code})
    return out[:n]


def throughput(items: list[dict], language: str, workers: int) -> tuple[float, list]:
    """(programs per second, results) of one batch scored by a warm in-process Scorer."""
    from neocoder.config import SandboxConfig
    from neocoder.rewards.batch import Scorer
    with Scorer(SandboxConfig(workers=workers), language=language, judge_all_tests=True) as scorer:
        list(scorer.score(items[:2]))  # warm the workers
        t0 = time.perf_counter()
        results = list(scorer.score(items))
        return len(items) / (time.perf_counter() - t0), results


def bare(items: list[dict], results: list, n: int) -> tuple[list[float], list[float], list[float]]:
    """(bare compile seconds, bare per-test wall seconds, sandbox per-test wall seconds) of
    the first ``n`` programs that the sandbox judged AC on every test."""
    from runner.native import CXX_FLAGS

    from neocoder.dataset.shipped import load_states
    states = {s.problem_id: s for s in load_states() if s.state == 0}
    compile_s, bare_s, box_s = [], [], []
    by_index = {r.index: r for r in results}
    for i, item in enumerate(items):
        r = by_index[i]
        if len(compile_s) >= n or not r.scores.get("correct"):
            continue
        with tempfile.TemporaryDirectory() as d:
            src, exe = Path(d) / "p.cpp", Path(d) / "p"
            src.write_text(item["program"])
            t0 = time.perf_counter()
            done = subprocess.run(["g++", *CXX_FLAGS, "-o", str(exe), str(src)], capture_output=True)
            if done.returncode:
                continue
            compile_s.append(time.perf_counter() - t0)
            for test, verdict in zip(states[item["problem_id"]].tests, r.sample["examples"]["tests"]):
                t0 = time.perf_counter()
                subprocess.run([str(exe)], input=test["input"].encode(), capture_output=True, timeout=30)
                bare_s.append(time.perf_counter() - t0)
                box_s.append(verdict["wall_seconds"])
    return compile_s, bare_s, box_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=64, help="Programs per language (one batch; default 64).")
    ap.add_argument("--workers", type=int, default=2, help="Sandbox workers (default 2).")
    ap.add_argument("--bare", type=int, default=24, help="C++ programs compiled and run bare (default 24).")
    ap.add_argument("--release", type=Path, default=ROOT.parent / "shared" / "neocoder")
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:
        ap.set_defaults(programs=4, bare=2)
        args = ap.parse_args()
    py, cpp = python_items(args.programs), cpp_items(args.programs, args.release)
    py_rate, _ = throughput(py, "python", args.workers)
    cpp_rate, results = throughput(cpp, "cpp", args.workers)
    compile_bare, bare_s, box_s = bare(cpp, results, args.bare)
    print(f"batch of {len(py)} Python / {len(cpp)} C++ programs, {args.workers} sandbox workers, every test judged")
    print(f"rewards per second: Python {py_rate:.2f}, C++ {cpp_rate:.2f} (C++/Python x{cpp_rate / py_rate:.2f})")
    if bare_s:
        print(f"bare on this machine ({len(compile_bare)} programs, no precompiled header): compile mean "
              f"{statistics.mean(compile_bare):.2f} s; per test: bare {statistics.median(bare_s) * 1000:.1f} ms, "
              f"sandbox {statistics.median(box_s) * 1000:.1f} ms (medians over {len(bare_s)} tests), overhead "
              f"{(statistics.median(box_s) - statistics.median(bare_s)) * 1000:.1f} ms per test")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
