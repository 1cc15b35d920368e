"""Sandbox throughput: the same programs judged four ways in one run.

Programs: the recorded GPT-4 state-0 solutions of the NeoCoder release on their
statements' example tests.  Ways, all at the same concurrency:

  bare      a local subprocess per test, no isolation at all (the baseline): the
            runner's own per-test process (sandbox/child.py --test) on this machine
  fork      neocoder's DockerSandbox, each test forked from the fork server (default)
  exec      neocoder's DockerSandbox, a new interpreter per test (the old path)
  docker    `docker run --rm` with hardened flags, one container per test
            (a slice only: it is slow)

Every way runs ``--rounds`` times, in a rotated order each round, and its times are
summed, so load from other work on the machine falls on every way alike.  Prints
tests per second, milliseconds per test, each way's cost per test as a ratio to the
bare subprocess's, and whether the verdicts agree: fork and exec test by test, the
bare baseline on which programs pass every test.

Two tables: all programs, and the programs that end well within their limits.  A
program that runs into its time limit costs that limit in CPU time in every way
(the three that do on the examples take about 5 s of CPU, more than everything else
together), so the second table is what the judge itself costs.  The line before them
prints that floor: the CPU limits of the time-limited tests over the cores, the
least time any judge that enforces the limits can take for all programs.

    .venv/bin/python perf/sandbox_throughput.py [--concurrency N] [--rounds N] [--docker-tests N] [--limit N] [--smoke]
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

from neocoder.benchmarks.neocoder.program import program_from_reply
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.dataset import build_from_release, default_release_dir
from neocoder.judge import DockerSandbox, Limits, default_image, tokens_equal
from neocoder.models import ReplayKey, get_model
from neocoder.sandbox_recipe import runner  # the same program contract, run on the host

child = runner.child

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
    """The baseline: the runner's own per-test process, as a plain local subprocess."""
    code, tests, limits = sub
    try:
        prepared = runner.prepare(code)
        child.compile_program(prepared.program)
    except (SyntaxError, ValueError):
        return ["RE"] * len(tests)
    with tempfile.TemporaryFile(dir=workdir) as program:
        program.write(prepared.program.encode())
        program.flush()
        cpu = runner.cpu_backstop(limits)

        def cpu_limit():  # the same CPU limit the sandbox applies, so loops end alike
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

        verdicts = []
        for t in tests:
            status_r, status_w = os.pipe()
            try:
                p = subprocess.run([PYTHON, *child.PYTHON_FLAGS, runner.CHILD, "--test", prepared.entry,
                                    str(program.fileno()), str(status_w)],
                                   input=t["input"].encode(), capture_output=True, timeout=limits.wall_seconds,
                                   cwd=workdir, preexec_fn=cpu_limit, pass_fds=(program.fileno(), status_w),
                                   env={**child.TEST_ENV, "HOME": workdir, "TMPDIR": workdir})
                verdicts.append("AC" if p.returncode == 0 and tokens_equal(p.stdout, t["output"]) else
                                ("WA" if p.returncode == 0 else "RE"))
            except subprocess.TimeoutExpired:
                verdicts.append("TLE")
            finally:
                os.close(status_r)
                os.close(status_w)
    return verdicts


def docker_run_one(code, test, image):
    """One test in a fresh hardened container (`docker run --rm`); AC or "other"."""
    try:
        prepared = runner.prepare(code)
    except (SyntaxError, ValueError):
        return "RE"
    program = prepared.program + ("\nsolve()\n" if prepared.entry == "solve" else "")
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
    ap.add_argument("--rounds", type=int, default=2, help="times each way runs (rotated order)")
    ap.add_argument("--docker-tests", type=int, default=24, help="tests per round for the docker-run-per-test way")
    ap.add_argument("--release", default=str(default_release_dir()))
    ap.add_argument("--limit", type=int, default=None, help="first N programs (default: all)")
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:
        ap.set_defaults(limit=4, rounds=1, docker_tests=2)
        args = ap.parse_args()

    subs = submissions(args.release)[: args.limit]
    print(f"recorded GPT-4 state-0 programs on their example tests, concurrency {args.concurrency}, "
          f"{args.rounds} rounds, bare interpreter {PYTHON}")

    boxes = {spawn: DockerSandbox(concurrency=args.concurrency, spawn=spawn) for spawn in ("fork", "exec")}
    for box in boxes.values():
        if box.unavailable:
            sys.exit(box.unavailable)
        # warm the pool so container start-up is not charged to the first submissions
        list(ThreadPoolExecutor(args.concurrency).map(
            lambda _: box.run("print(1)", [{"input": "", "output": "1"}]), range(args.concurrency)))

    # a first pass (also the fork server's warm-up) finds the programs near their limits
    first = list(ThreadPoolExecutor(args.concurrency).map(lambda sub: boxes["fork"].run(*sub), subs))
    quick = [sub for sub, r in zip(subs, first)
             if all((t.cpu_seconds or 0) < 0.5 * sub[2].cpu_seconds and t.verdict != "TLE" for t in r.tests)]
    floor(subs, first, args.concurrency)
    workdir = tempfile.mkdtemp()
    try:
        for title, programs in (("all programs", subs), ("programs well within their limits", quick)):
            print(f"\n{title}: {len(programs)} programs, {sum(len(t) for _, t, _ in programs)} tests")
            compare_ways(programs, boxes, workdir, args)
    finally:
        for box in boxes.values():
            box.close()


def floor(subs, results, concurrency):
    """Print the floor the time-limited tests put under any judge: a TLE verdict means
    the test ran up to its CPU limit, so those tests alone need the sum of their limits
    in CPU seconds, spread over ``concurrency`` cores at best."""
    limited = [sub[2].cpu_seconds for sub, r in zip(subs, results) for t in r.tests if t.verdict == "TLE"]
    n_tests = sum(len(t) for _, t, _ in subs)
    if not limited:
        print("no test ran into its time limit")
        return
    least = sum(limited) / concurrency
    n_programs = sum(any(t.verdict == 'TLE' for t in r.tests) for r in results)
    print(f"time-limited tests: {len(limited)} of {n_tests} in {n_programs} "
          f"programs; their CPU limits add up to {sum(limited):.2f} s, so any judge that enforces the limits needs "
          f">= {least:.2f} s on {concurrency} cores for all {n_tests} tests: at most {n_tests / least:.1f} tests/s")


def compare_ways(subs, boxes, workdir, args):
    """Time the four ways on ``subs`` (``--rounds`` rounds) and print the table and the
    verdict comparison."""
    n_tests = sum(len(t) for _, t, _ in subs)
    slice_ = [(code, t) for code, tests, _ in subs for t in tests][: args.docker_tests]
    ways = {
        "bare subprocess": (lambda s: bare_one(s, workdir), subs, n_tests),
        "sandbox, fork server": (lambda s: boxes["fork"].run(*s).verdicts, subs, n_tests),
        "sandbox, exec (old)": (lambda s: boxes["exec"].run(*s).verdicts, subs, n_tests),
        "docker run per test": (lambda ct: docker_run_one(ct[0], ct[1], default_image()), slice_, len(slice_)),
    }
    seconds = {name: 0.0 for name in ways}
    verdicts = {name: [] for name in ways}
    order = list(ways)
    for r in range(args.rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            fn, items, _ = ways[name]
            secs, results = timed(fn, items, args.concurrency)
            seconds[name] += secs
            verdicts[name].append(results)

    bare_cost = seconds["bare subprocess"] / (n_tests * args.rounds)
    print(f"{'way':22} {'tests':>6} {'seconds':>8} {'tests/s':>8} {'ms/test':>8} {'x bare':>7}")
    for name, (_, _, n) in ways.items():
        total = n * args.rounds
        cost = seconds[name] / total
        print(f"{name:22} {total:6d} {seconds[name]:8.2f} {total / seconds[name]:8.1f} {1000 * cost:8.1f} "
              f"{cost / bare_cost:7.2f}")

    fork, exec_ = verdicts["sandbox, fork server"], verdicts["sandbox, exec (old)"]
    differ = [(i, f, e) for rnd_f, rnd_e in zip(fork, exec_) for i, (f, e) in enumerate(zip(rnd_f, rnd_e)) if f != e]
    unstable = [i for i in range(len(subs)) if len({tuple(rnd[i]) for rnd in fork + exec_}) > 1]
    print(f"fork vs exec: {len(differ)} programs with a different verdict list "
          f"({len(unstable)} programs not identical across all runs of both)")
    for i, f, e in differ[:10]:
        print(f"  program {i}: fork {f} exec {e}")

    def accepted(results):
        return [all(v == "AC" for v in vs) for vs in results]

    bare_ac, fork_ac = accepted(verdicts["bare subprocess"][0]), accepted(fork[0])
    print(f"accepted programs: bare {sum(bare_ac)}, fork {sum(fork_ac)}, exec {sum(accepted(exec_[0]))}; "
          f"bare and fork disagree on {sum(a != b for a, b in zip(bare_ac, fork_ac))}")


if __name__ == "__main__":
    main()
