"""Where a judged job's CPU goes through Ray: the same jobs, the same containers, three ways.

GPT-4's recorded programs of the NeoCoder release on their example tests (as
``executor_overhead.py`` judges them, first failure stops a program), from 4 caller
threads on 2 warm containers:

  local      the local pool (``DockerSandbox``) called directly;
  in-process the Ray actor's own code (``SandboxPool.judge`` on batches of 2, packed and
             unpacked as on a cluster) called in this process, no Ray;
  ray        a one-node local Ray cluster, RaySandbox and its actor.

For each way: wall ms per job, and CPU ms per job of this process and of the actor's
process (from /proc, every thread).  ``in-process`` minus ``local`` is what our batching
code costs; the actor's CPU through Ray minus ``in-process`` is Ray's own handling of a
call.  Ratios are against ``local`` in the same run (docs/scale-out.md).

    .venv/bin/python perf/ray_call_cost.py [--rounds 2] [--limit N] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import executor_overhead as eo  # noqa: E402  (its jobs and its local cluster)

from neocoder.config import SandboxConfig  # noqa: E402
from neocoder.executors.ray import RaySandbox  # noqa: E402
from neocoder.executors.ray_actor import SandboxPool  # noqa: E402
from neocoder.executors.ray_jobs import Job, pack  # noqa: E402
from neocoder.judge import DockerSandbox  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of every thread of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def in_process_actor(box) -> SandboxPool:
    """The actor's code around ``box``, without Ray (its constructor asks Ray for a node id)."""
    actor = SandboxPool.__new__(SandboxPool)
    actor.slots, actor.node_id, actor.box, actor.judged = 2, "in-process", box, 0
    actor.threads, actor.running, actor.tokens, actor._lock = ThreadPoolExecutor(2), {}, 0, threading.Lock()
    return actor


def through_actor(actor, work, callers=4, size=2):
    """Judge ``work`` as batches of ``size`` through ``actor.judge`` from callers / size
    threads (4 callers' jobs, 2 to a call); (wall s, CPU s of this process)."""
    def batch(b):
        jobs = [Job({"source": code, "tests": tests, "limits": limits, "checker": checker, "keep_output": False,
                     "entry": "auto", "stop_at_first_failure": True}, True)
                for code, tests, checker, limits, _ in work[b * size:(b + 1) * size]]
        pickle.loads(actor.judge(pack(jobs), None))

    return eo.take_turns(-(-len(work) // size), max(1, callers // size), batch)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--release", default=os.environ.get("NEOCODER_RELEASE"),
                    required="NEOCODER_RELEASE" not in os.environ, help="the NeoCoder release (or $NEOCODER_RELEASE)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--limit", type=int, default=None, help="first N problems (default: all)")
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:
        ap.set_defaults(rounds=1, limit=2)
        args = ap.parse_args()
    items = eo.jobs(args.release, args.limit)
    folder = tempfile.mkdtemp(prefix="nc-cost-", dir="/tmp")
    local = DockerSandbox(concurrency=2)
    cluster = box = None
    try:
        _, _, first = eo.judge_all(local, items, 4)  # warm, and the programs that run into their limit
        work = [job for job, ref in zip(items, first) if "TLE" not in ref.verdicts]
        cluster = eo.start_cluster(folder, 2)
        box = RaySandbox(SandboxConfig(workers=4, executor="ray", ray_address=cluster.address), slots=2,
                         resource="bench_a")  # node "a" of the local cluster, as executor_overhead's 1-node way
        actor_pid = box.nodes()[0]["pid"]
        eo.judge_all(box, work, 4)  # warm the actor's containers
        actor = in_process_actor(local)
        rows = {"local": [0.0, 0.0, 0.0], "in-process": [0.0, 0.0, 0.0], "ray": [0.0, 0.0, 0.0]}
        for _ in range(args.rounds):
            wall, cpu, _ = eo.judge_all(local, work, 4)
            rows["local"][0] += wall
            rows["local"][1] += cpu
            wall, cpu = through_actor(actor, work)
            rows["in-process"][0] += wall
            rows["in-process"][1] += cpu
            before = cpu_of(actor_pid)
            wall, cpu, _ = eo.judge_all(box, work, 4)
            rows["ray"] = [rows["ray"][0] + wall, rows["ray"][1] + cpu, rows["ray"][2] + cpu_of(actor_pid) - before]
        n = len(work) * args.rounds
        print(f"{len(work)} programs x {args.rounds} rounds, 4 callers, 2 warm containers per way")
        print(f"{'way':12} {'ms/job':>7} {'x local':>8} {'this process CPU ms/job':>24} "
              f"{'actor process CPU ms/job':>25}")
        for name, (wall, cpu, actor_cpu) in rows.items():
            print(f"{name:12} {1000 * wall / n:7.2f} {wall / rows['local'][0]:8.2f} {1000 * cpu / n:24.2f} "
                  f"{(f'{1000 * actor_cpu / n:.2f}' if name == 'ray' else '-'):>25}")
        ours = rows["in-process"][1] - rows["local"][1]
        ray_actor = rows["ray"][2] - rows["in-process"][1]
        print(f"our batching code: {1000 * ours / n:+.2f} ms CPU per job over the plain pool; Ray's handling of a call "
              f"in the actor: {1000 * ray_actor / n:+.2f} ms CPU per job (the actor's CPU minus the same code "
              f"in-process); the driver's own: {1000 * rows['ray'][1] / n:.2f} ms per job")
    finally:
        eo.stop_all([b for b in (box, local) if b is not None], cluster)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
