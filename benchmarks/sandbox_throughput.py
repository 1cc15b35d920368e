"""Sandbox throughput: the same programs judged three ways in one run.

Programs: the recorded GPT-4 state-0 solutions of the NeoCoder release on their
statements' example tests.  Ways, all at the same concurrency:

  bare      a local subprocess per test, no isolation at all (the baseline)
  sandbox   neocoder's DockerSandbox (warm containers, verified reset)
  docker    `docker run --rm` with hardened flags, one container per test
            (a slice only: it is slow)

Prints tests per second for each, milliseconds per test, and the ratio of the
sandbox's cost per test to the bare subprocess's.

    .venv/bin/python benchmarks/sandbox_throughput.py [--concurrency N] [--docker-tests N]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sandbox"))

import runner  # noqa: E402  (sandbox/runner.py: the same program contract, run on the host)

from neocoder.dataset import build_from_release, default_release_dir  # noqa: E402
from neocoder.judge import DEFAULT_IMAGE, DockerSandbox, Limits, tokens_equal  # noqa: E402
from neocoder.models import ReplayKey, get_model, solve_prompt  # noqa: E402
from neocoder.program import program_from_reply  # noqa: E402


# The bare baseline runs the interpreter the sandbox image runs (Debian's python3),
# so the ratio measures the sandbox, not a difference between interpreters.
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def submissions(release_dir):
    states, _ = build_from_release(release_dir)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    subs = []
    for s in states:
        if s["state"] == 0:
            prompt = solve_prompt(s["statement"], ReplayKey(s["problem_id"], 0, 0, s["source_index"]))
            code = program_from_reply(model.generate(prompt))
            subs.append((code, s["tests"], Limits.for_cpu(s["time_limit_s"], s["memory_limit_mb"])))
    return subs


def bare_one(sub, workdir):
    """The baseline: the runner's own per-test child, as a plain local subprocess."""
    code, tests, limits = sub
    verdicts = []
    try:
        entry, program = runner.prepare(code)
    except (SyntaxError, ValueError):
        return ["RE"] * len(tests)
    d = tempfile.mkdtemp(dir=workdir)
    path = os.path.join(d, "solution.py")
    with open(path, "w") as f:
        f.write(program)
    cpu = max(1, int(limits.cpu_seconds + 0.999))

    def cpu_limit():  # the same CPU limit the sandbox applies, so loops end alike
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

    for t in tests:
        try:
            p = subprocess.run([PYTHON, "-I", runner.CHILD, path, os.path.join(d, "status"), entry],
                               input=t["input"].encode(), capture_output=True, timeout=limits.wall_seconds, cwd=d,
                               preexec_fn=cpu_limit)
            verdicts.append("AC" if p.returncode == 0 and tokens_equal(p.stdout, t["output"]) else
                            ("WA" if p.returncode == 0 else "RE"))
        except subprocess.TimeoutExpired:
            verdicts.append("TLE")
    return verdicts


def docker_run_one(code, test, image):
    try:
        entry, program = runner.prepare(code)
    except (SyntaxError, ValueError):
        return "RE"
    if entry == "solve":
        program += "\nsolve()\n"
    cmd = ["docker", "run", "--rm", "-i", "--network", "none", "--read-only", "--tmpfs", "/tmp:size=64m",
           "--memory", "304m", "--memory-swap", "304m", "--pids-limit", "64", "--cap-drop", "ALL",
           "--security-opt", "no-new-privileges", "--init", "--user", "20000:20000", image,
           "python3", "-I", "-c", program]
    p = subprocess.run(cmd, input=test["input"].encode(), capture_output=True, timeout=60)
    return "AC" if p.returncode == 0 and tokens_equal(p.stdout, test["output"]) else "other"


def timed(fn, items, concurrency):
    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(fn, items))
    return time.perf_counter() - start, results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--concurrency", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--docker-tests", type=int, default=24, help="tests for the docker-run-per-test way")
    ap.add_argument("--release", default=str(default_release_dir()))
    args = ap.parse_args()

    subs = submissions(args.release)
    n_tests = sum(len(t) for _, t, _ in subs)
    print(f"{len(subs)} recorded GPT-4 state-0 programs, {n_tests} example tests, concurrency {args.concurrency}, "
          f"bare interpreter {PYTHON}")

    with tempfile.TemporaryDirectory() as workdir:
        bare_s, bare_v = timed(lambda s: bare_one(s, workdir), subs, args.concurrency)

    with DockerSandbox(concurrency=args.concurrency) as box:
        if box.unavailable:
            sys.exit(box.unavailable)
        # warm the pool so container start-up is not charged to the first submissions
        list(ThreadPoolExecutor(args.concurrency).map(
            lambda _: box.run("print(1)", [{"input": "", "output": "1"}]), range(args.concurrency)))
        box_s, box_r = timed(lambda s: box.run(s[0], s[1], s[2]), subs, args.concurrency)
    box_v = [r.verdicts for r in box_r]

    slice_ = [(code, t) for code, tests, _ in subs for t in tests][: args.docker_tests]
    dr_s, _ = timed(lambda ct: docker_run_one(ct[0], ct[1], DEFAULT_IMAGE), slice_, args.concurrency)

    ac_bare = sum(all(v == "AC" for v in vs) for vs in bare_v)
    ac_box = sum(all(v == "AC" for v in vs) for vs in box_v)
    rows = [("bare subprocess", n_tests, bare_s), ("neocoder sandbox", n_tests, box_s),
            ("docker run per test", len(slice_), dr_s)]
    print(f"{'way':22} {'tests':>6} {'seconds':>8} {'tests/s':>8} {'ms/test':>8}")
    for name, n, secs in rows:
        print(f"{name:22} {n:6d} {secs:8.2f} {n / secs:8.1f} {1000 * secs / n:8.1f}")
    print(f"ratio sandbox / bare (cost per test): {box_s / bare_s:.2f}")
    print(f"ratio docker-run / bare (cost per test): {(dr_s / len(slice_)) / (bare_s / n_tests):.2f}")
    print(f"accepted programs: bare {ac_bare}, sandbox {ac_box}")


if __name__ == "__main__":
    main()
