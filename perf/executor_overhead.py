"""Executor overhead: the same judge jobs through the local pool and through Ray, in one run.

Jobs: GPT-4's recorded programs of the NeoCoder release (every state, ``replay/
gpt-4-1106-preview``) on their statements' example tests, each judged as ``neocoder
eval`` judges it (stopping at the first failing test).  A first pass on the local pool
warms it and finds the programs that run into their time limit; they are left out of
the timed rounds (each costs its CPU limit whatever schedules it, which would only
dilute the ratio), and the verdicts of the first pass are the reference.

Ways, all with the same callers (``--callers`` threads, like ``--workers``) and the same
number of warm containers on this machine (``--slots``, default 2 on 2 cores):

  local             neocoder's DockerSandbox with ``slots`` workers (the local executor)
  ray, 1 node       RaySandbox on a one-node share of a local Ray cluster: one actor
                    with ``slots`` containers (what one Docker host gives a cluster)
  ray, 2 nodes      RaySandbox on two nodes of the same machine, ``slots / 2`` each:
                    the same containers, now spread by the executor

The cluster is Ray's own ``cluster_utils.Cluster`` on 127.0.0.1 (two raylets, one
CPU each declared for Ray's bookkeeping, metrics collection off), stopped at the end.
Each way runs ``--rounds`` times in a rotated order and its times are summed, so load
from other work falls on every way alike.  Prints per-test cost (wall ms per judged
test), the ratio to the local pool (the scheduling overhead a cluster must beat), the
driver's CPU per job (what bounds how many nodes one driver can feed), whether the
verdicts equal the reference, and a PROJECTION (not a measurement) of the
530,000-program experiment's time on N nodes like this one from the measured
one-node throughput and the driver's CPU per job of the scale mode:

  scale             no judging: a second local cluster of ``--scale-nodes`` raylets on
                    127.0.0.1, one sandbox actor each (``--scale-slots`` slots) whose
                    judge answers AC at once (InstantPool), fed ``--scale-jobs`` of the
                    same recorded programs by ``--scale-callers`` threads; the driver
                    process's CPU per job (``time.process_time``: the callers, the
                    dispatcher and Ray's own threads in the driver, not the actors) is
                    what one driver core costs per job with no judging in the way

    .venv/bin/python perf/executor_overhead.py [--limit N] [--rounds 2] [--callers 4] [--slots 2]
    .venv/bin/python perf/executor_overhead.py --scale-only [--scale-nodes 8] [--scale-jobs 20000]
    .venv/bin/python perf/executor_overhead.py --smoke
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import time

# before Ray is imported: keep this machine's nodes on 127.0.0.1 (neocoder/executors/ray.py)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from neocoder.benchmarks.neocoder.program import program_from_reply  # noqa: E402
from neocoder.benchmarks.neocoder.solve import solve_prompt  # noqa: E402
from neocoder.config import SandboxConfig  # noqa: E402
from neocoder.dataset import build_from_release, default_release_dir  # noqa: E402
from neocoder.executors.ray_actor import SandboxPool  # noqa: E402
from neocoder.judge import DockerSandbox, Limits  # noqa: E402
from neocoder.judge.verdicts import SubmissionResult, TestVerdict  # noqa: E402
from neocoder.models import ReplayKey, get_model  # noqa: E402

EXPERIMENT = 530_000  # judged programs: 20 models x 5 strategies x k = 5 samples (issue 18)
NODES = (1, 4, 16, 64, 256)


class InstantBox:
    """A sandbox that judges nothing: AC on every test at once (the scale mode's judge)."""

    name, image, enforces, unavailable, fresh = "instant", "none", (), None, False

    def run(self, source, tests, limits=Limits(), checker=None, keep_output=False, entry="auto", *,
            stop_at_first_failure=False, language="python", **options):
        """The Sandbox protocol's ``run`` (neocoder/judge/sandbox.py), keywords added later
        (e.g. a cancel event) accepted and ignored: AC on every test."""
        return SubmissionResult(tests=[TestVerdict("AC") for _ in tests], worker="instant")

    def close(self):
        pass

    def sweep(self):
        return 0


class InstantPool(SandboxPool):
    """The sandbox actor of the scale mode: RaySandbox's own actor, with InstantBox as its pool."""

    def make_box(self, kind, slots, fresh, runtime):
        return InstantBox()


def jobs(release_dir, limit):
    """(code, example tests, checker, limits, name) of every recorded GPT-4 program."""
    states, _ = build_from_release(release_dir)
    order = list(dict.fromkeys(s["problem_id"] for s in states))
    keep = set(order[:limit] if limit else order)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    out = []
    for s in states:
        if s["problem_id"] in keep:
            reply = model.generate(solve_prompt(s["statement"],
                                                ReplayKey(s["problem_id"], s["state"], 0, s["source_index"])))
            out.append((program_from_reply(reply), s["tests"], s.get("checker"),
                        Limits.for_cpu(float(s["time_limit_s"]), int(s["memory_limit_mb"])),
                        f"{s['problem_id']} t={s['state']}"))
    return out


def take_turns(count, callers, fn):
    """Call ``fn(i)`` for every i in range(``count``) from ``callers`` threads, each taking
    the next i as it finishes one; (wall s, CPU s of this process)."""
    order = iter(range(count))
    take = threading.Lock()

    def caller():
        while True:
            with take:
                i = next(order, None)
            if i is None:
                return
            fn(i)

    threads = [threading.Thread(target=caller) for _ in range(callers)]
    cpu, start = time.process_time(), time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, time.process_time() - cpu


def judge_all(box, items, callers):
    """Judge every job (stop at the first failure, as eval does) from ``callers`` threads,
    each taking the next job as it finishes one; (wall s, driver CPU s, results)."""
    results = [None] * len(items)

    def one(i):
        code, tests, checker, limits, _ = items[i]
        results[i] = box.run(code, tests, limits, checker=checker, stop_at_first_failure=True)

    wall, cpu = take_turns(len(items), callers, one)
    return wall, cpu, results


def start_cluster(folder, slots, nodes=2):
    """``nodes`` nodes on 127.0.0.1 (tags "a", "b", ...), each declaring the sandbox
    resource and one of its own (``bench_TAG``), ``slots // 2`` CPUs each (at least 1)."""
    from ray.cluster_utils import Cluster

    from neocoder.executors.ray import RESOURCE
    os.environ["RAY_TMPDIR"] = folder

    def node(tag):
        return dict(num_cpus=max(1, slots // 2), resources={RESOURCE: 1, f"bench_{tag}": 1}, include_dashboard=False,
                    node_ip_address="127.0.0.1", object_store_memory=100 << 20)

    tags = "abcdefghijklmnopqrstuvwxyz"
    cluster = Cluster(initialize_head=True, shutdown_at_exit=True,
                      head_node_args=dict(node("a"), _system_config={"enable_metrics_collection": False}))
    for tag in tags[1:nodes]:
        cluster.add_node(**node(tag))
    cluster.wait_for_nodes()
    return cluster


def scale(args, items, folder):
    """The no-judging scale mode: ``{"actors", "jobs", "seconds", "cpu_ms", "batches"}``
    (driver CPU ms per job, wall seconds) of ``--scale-jobs`` jobs through RaySandbox on
    ``--scale-nodes`` InstantPool actors."""
    import ray
    from ray import cloudpickle

    from neocoder.executors.ray import RaySandbox
    if __name__ != "__main__":  # imported: the actors cannot import this file, so InstantPool travels by value
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    started = time.perf_counter()
    cluster = start_cluster(folder, 2, args.scale_nodes)
    try:
        config = SandboxConfig(workers=args.scale_callers, executor="ray", ray_address=cluster.address)
        with RaySandbox(config, slots=args.scale_slots, pool=InstantPool) as box:
            if box.unavailable:
                sys.exit(box.unavailable)
            actors = len(box.nodes())
            print(f"\nscale mode (no judging): {actors} InstantPool actors of {args.scale_slots} slots on "
                  f"{args.scale_nodes} local nodes up in {time.perf_counter() - started:.1f} s")
            work = [items[i % len(items)] for i in range(args.scale_jobs)]
            judge_all(box, work[: len(work) // 10], args.scale_callers)  # warm: connections, code paths
            before = box.summary()
            runs = []  # (driver CPU s, wall s) per round
            for _ in range(args.scale_rounds):
                wall, cpu, results = judge_all(box, work, args.scale_callers)
                runs.append((cpu, wall))
                assert all(set(r.verdicts) == {"AC"} for r in results if r.tests), "a job was not judged"
            after = box.summary()
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
    cpu, wall = sorted(runs)[len(runs) // 2]  # the median round by driver CPU
    batches = after["batches"] - before["batches"]
    out = {"actors": actors, "jobs": len(work), "seconds": wall, "cpu_ms": 1000 * cpu / len(work),
           "batches": batches, "retried": after["retried"], "infra": after["infra"]}
    print(f"{args.scale_rounds} rounds of {out['jobs']} jobs by {args.scale_callers} callers; "
          f"{len(work) * len(runs) / batches:.1f} jobs per batch; driver CPU ms per job by round: "
          + ", ".join(f"{1000 * c / len(work):.3f}" for c, _ in runs)
          + f"; {out['retried']} retried, {out['infra']} INFRA")
    print(f"median round: {wall:.2f} s ({out['jobs'] / wall:.0f} jobs/s on this {os.cpu_count()}-core machine, "
          f"actors and Ray included); driver CPU {out['cpu_ms']:.3f} ms per job, so one driver core feeds at most "
          f"about {1000 / out['cpu_ms']:.0f} jobs/s")
    return out

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="first N problems (default: all)")
    ap.add_argument("--rounds", type=int, default=2, help="times each way runs (rotated order)")
    ap.add_argument("--callers", type=int, default=4, help="threads submitting jobs (like --workers)")
    ap.add_argument("--slots", type=int, default=os.cpu_count() or 2, help="warm containers in every way")
    ap.add_argument("--release", default=str(default_release_dir()))
    ap.add_argument("--scale-only", action="store_true", help="only the no-judging scale mode")
    ap.add_argument("--scale-nodes", type=int, default=8, help="scale mode: local nodes, one actor each")
    ap.add_argument("--scale-slots", type=int, default=16, help="scale mode: slots per actor")
    ap.add_argument("--scale-callers", type=int, default=256,
                    help="scale mode: threads submitting jobs (default: 2 x all slots, as docs/scale-out.md advises)")
    ap.add_argument("--scale-jobs", type=int, default=20_000, help="scale mode: jobs per timed round")
    ap.add_argument("--scale-rounds", type=int, default=3, help="scale mode: timed rounds (the median is used)")
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:  # both modes on 2 problems, 2 scale nodes and 400 jobs
        ap.set_defaults(limit=2, rounds=1, callers=2, slots=2, scale_nodes=2, scale_slots=2, scale_callers=8,
                        scale_jobs=400, scale_rounds=1)
        args = ap.parse_args()
    return args


def run_ways(ways, work, reference, args):
    """Each way ``--rounds`` times in rotated order: (wall s, driver CPU s, mismatches, differing) per way."""
    seconds = {name: 0.0 for name in ways}
    driver_cpu = {name: 0.0 for name in ways}
    mismatches = {name: 0 for name in ways}
    differing = []  # (way, program, reference verdicts, verdicts, CPU seconds per test)
    order = list(ways)
    for r in range(args.rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            wall, cpu, results = judge_all(ways[name], work, args.callers)
            seconds[name] += wall
            driver_cpu[name] += cpu
            for job, res, ref in zip(work, results, reference):
                if res.verdicts != ref:
                    mismatches[name] += 1
                    differing.append((name, job[4], ref, res.verdicts, [t.cpu_seconds for t in res.tests]))
    return seconds, driver_cpu, mismatches, differing


def start_boxes(args, cluster):
    """The two Ray ways on ``cluster``, up and warm."""
    from neocoder.executors.ray import RaySandbox
    config = SandboxConfig(workers=args.callers, executor="ray", ray_address=cluster.address)
    boxes = {}
    for name, kwargs in (("ray, 1 node", {"slots": args.slots, "resource": "bench_a"}),
                         ("ray, 2 nodes", {"slots": max(1, args.slots // 2)})):
        started = time.perf_counter()
        boxes[name] = RaySandbox(config, **kwargs)
        if boxes[name].unavailable:
            sys.exit(boxes[name].unavailable)
        yield name, boxes[name]
        print(f"{name}: {len(boxes[name].nodes())} actors up and warm in {time.perf_counter() - started:.1f} s")


def report(ways, boxes, seconds, driver_cpu, mismatches, differing, work, n_tests, args):
    """The table of the judged ways; returns (tests/s of one node through Ray, tests per program)."""
    total_tests, total_jobs = n_tests * args.rounds, len(work) * args.rounds
    local_cost = seconds["local"] / total_tests
    print(f"\n{'way':14} {'seconds':>8} {'tests/s':>8} {'ms/test':>8} {'x local':>8} {'driver CPU ms/job':>18} "
          f"{'verdicts differing':>19}")
    for name in ways:
        cost = seconds[name] / total_tests
        print(f"{name:14} {seconds[name]:8.2f} {total_tests / seconds[name]:8.1f} {1000 * cost:8.2f} "
              f"{cost / local_cost:8.2f} {1000 * driver_cpu[name] / total_jobs:18.2f} {mismatches[name]:19d}")
    for name, program, ref, got, cpu in differing:  # a program near its limit can land either side of it
        print(f"  {name}: {program} gave {got} (CPU s {cpu}), {ref} in the first local pass (limit "
              f"{next(j[3].cpu_seconds for j in work if j[4] == program):g} s)")
    over = seconds["ray, 1 node"] / seconds["local"]
    print(f"\nscheduling overhead: a judged test costs {over:.2f}x through Ray on one node what it costs in the "
          f"local pool ({1000 * (seconds['ray, 1 node'] - seconds['local']) / total_tests:+.2f} ms per test), "
          f"Ray's own processes sharing this machine's {os.cpu_count()} cores with the containers; N such nodes "
          f"judge about N / {over:.2f} times as fast as this machine's local pool")
    for name, box in boxes.items():
        s = box.summary()
        print(f"{name}: {s['batches']} batches ({s['calls']} actor calls) for {s['jobs_in_batches']} jobs; "
              "judged per node: "
              + ", ".join(f"{n[:8]} {c}" for n, c in s["judged"].items()))
    return total_tests / seconds["ray, 1 node"], n_tests / len(work)


def projection(per_node, tests_per_program, cpu_ms):
    """The 530,000-program experiment's hours on N nodes, one driver spending ``cpu_ms`` per job."""
    driver_jobs_per_s = 1000 / cpu_ms
    cap = driver_jobs_per_s * tests_per_program
    print(f"\nPROJECTION, not a measurement: {EXPERIMENT:,} judged programs at {tests_per_program:.2f} judged "
          f"tests each (this mix), on N nodes like this one ({os.cpu_count()} cores, {per_node:.1f} tests/s "
          f"each through Ray, measured above), assuming throughput adds up linearly over nodes and the model "
          f"calls are not the bottleneck; one driver spends {cpu_ms:.3f} ms of CPU per job (scale mode), "
          f"so one driver core feeds at most about {driver_jobs_per_s:.0f} jobs/s ({cap:.0f} tests/s, "
          f"{cap / per_node:.0f} such nodes):")
    print(f"{'nodes':>6} {'hours':>8}  note")
    for n in NODES:
        rate, note = n * per_node, ""
        if rate > cap:
            drivers = -(-rate // cap)
            note = (f"past one driver core: {drivers:.0f} drivers (eval --shard K/{drivers:.0f}, docs/scale-out.md); "
                    f"one alone: {EXPERIMENT * tests_per_program / cap / 3600:.2f} h")
        print(f"{n:6d} {EXPERIMENT * tests_per_program / rate / 3600:8.2f}  {note}")
    print("excluded from the projection: programs that run into their time limit (each costs its CPU limit, "
          "about 1-2 s, on some node), TLE-heavy model mixes, and the models' own time")


def stop_all(boxes, cluster):
    """Close ``boxes`` (sandboxes, local or Ray), then this process's Ray and ``cluster`` (if any)."""
    import ray
    for box in boxes:
        box.close()
    if ray.is_initialized():
        ray.shutdown()
    if cluster is not None:
        cluster.shutdown()


def judged(args, items, folder):
    """The judged ways (local, Ray on 1 and 2 nodes); (tests/s of one Ray node, tests per program)."""
    import ray
    local = DockerSandbox(concurrency=args.slots)
    if local.unavailable:
        sys.exit(local.unavailable)
    cluster, boxes = None, {}
    try:
        _, _, first = judge_all(local, items, args.callers)  # warm-up and reference verdicts
        timed = [(job, ref) for job, ref in zip(items, first) if "TLE" not in ref.verdicts]
        reference = [ref.verdicts for _, ref in timed]
        work = [job for job, _ in timed]
        n_tests = sum(sum(v != "SKIPPED" for v in ref) for ref in reference)
        print(f"{len(work)} recorded GPT-4 programs ({len(items) - len(work)} that run into their time limit left "
              f"out), {n_tests} tests judged per round (first failure stops a program), {args.callers} callers, "
              f"{args.slots} warm containers per way, {args.rounds} rounds, Ray {ray.__version__}")
        started = time.perf_counter()
        cluster = start_cluster(folder, args.slots)
        print(f"local Ray cluster of 2 nodes on 127.0.0.1 started in {time.perf_counter() - started:.1f} s")
        for name, box in start_boxes(args, cluster):
            boxes[name] = box
            judge_all(box, work, args.callers)  # warm: a container for every memory limit, as local has
        ways = {"local": local, **boxes}
        outcome = run_ways(ways, work, reference, args)
        return report(ways, boxes, *outcome, work, n_tests, args)
    finally:
        stop_all([*boxes.values(), local], cluster)


def main():
    args = parse_args()
    if importlib.util.find_spec("ray") is None:
        sys.exit("this speed script needs Ray: pip install 'neocoder[ray]'")
    items = jobs(args.release, args.limit)
    folder = tempfile.mkdtemp(prefix="nc-bench-", dir="/tmp")
    try:
        per_node = None
        if not args.scale_only:
            per_node, tests_per_program = judged(args, items, folder)
        fast = scale(args, items, folder)
        if per_node is not None:
            projection(per_node, tests_per_program, fast["cpu_ms"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
