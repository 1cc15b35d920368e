"""Reward throughput: NeoCoder rewards (``neocoder.rewards.score_batch``) per second, in process and
through a ``neocoder serve``, against batch size and sandbox workers; and latency under open-loop load.

The programs are GPT-4's recorded state-0 programs of the shipped dataset (one per problem, in
release order, as ``replay/gpt-4-1106-preview`` answers them), scored with the default weights on
the shipped (validated) dataset by both ways.  For each number of sandbox workers (``--workers``,
the concurrency of both ways):

  in-process  one ``Scorer`` (that many sandbox workers) scoring the programs in batches of
              each ``--batches`` size, one batch after the other
  server      ``neocoder serve --workers N`` started by this script on a free loopback port (a
              temporary data directory and token), the same batches POSTed to ``/v1/score``
              (``{"items": [...]}``, answered as an NDJSON stream) by ``score_batch(server=...)``

By default each test tier stops at its first failing test (``judge_all_tests`` False, as the
reward functions of neocoder/rewards/trl.py and verl.py do: the same rewards); ``--all-tests``
judges every test.  Each cell scores ``max(batch, --programs)`` programs after a warm-up, ``--repeat`` times with the
two ways interleaved, and reports the median programs per second; the server/in-process ratio
is printed per cell.  Then, on the server with the most
workers, open-loop latency: single-program batches sent on a fixed schedule (``--loads``
fractions of the saturating rate, the server's programs/s at the largest batch), each request
on its own thread without waiting for earlier answers; latency is measured from the request's
scheduled time (so a server that falls behind is charged for it), p50 / p99 per load.  The
programs' own latencies differ (a program that fails its first test returns in tens of
milliseconds, one that runs every test or hits the time limit takes seconds), so each program
is first sent alone, one at a time (load 0 in the table: the spread of the workload itself),
and each loaded request's slowdown, its latency over its program's latency alone, is shown too.
The same loads are then offered with one program of median latency sent every time
(``uniform``), which separates the server's queueing from the workload's spread.

Checks (exit 1 when one fails): the server's rewards equal the in-process ones for the same
programs; every request answered; the issue's targets: at the largest batch (64) and most
workers the server reaches >= 0.8x the in-process throughput, and at half the saturating load
p99 latency <= 3x p50.

    .venv/bin/python perf/reward_throughput.py [--workers 1,2] [--batches 1,8,32,64]
        [--programs 64] [--loads 0.25,0.5,0.75] [--requests 60] [--all-tests] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from serve_load import start_server, stop_server  # perf/ is this script's folder, on sys.path

from neocoder.config import SandboxConfig
from neocoder.dataset import shipped
from neocoder.rewards import ScoreItem, Scorer, score_batch

MODEL = "gpt-4-1106-preview"


def programs(n: int) -> list[ScoreItem]:
    """``n`` items: GPT-4's recorded program for state 0 of each shipped problem, in release
    order (cycled when ``n`` exceeds the problems)."""
    codes = shipped.recorded_codes(MODEL)
    states = [s for s in shipped.load_states() if s.state == 0 and s.problem_id in codes]
    items = [ScoreItem(s.problem_id, 0, program=codes[s.problem_id][s.source_index]) for s in states]
    return [items[i % len(items)] for i in range(n)]


def closed(score, items: list[ScoreItem], batch: int) -> tuple[float, list]:
    """Score ``items`` in batches of ``batch``, one after the other: (programs/s, results)."""
    results, started = [], time.monotonic()
    for i in range(0, len(items), batch):
        results.extend(score(items[i:i + batch]))
    return len(items) / (time.monotonic() - started), results


def open_loop(score, items: list[ScoreItem], rate: float, service: list[float]) -> dict:
    """One single-program request per item at ``rate`` per second on a fixed schedule, each on
    its own thread; latency from its scheduled time, and slowdown: latency over the item's
    unloaded latency (``service``).  Returns sent, answered, failed, p50/p99 of both."""
    latencies, slowdowns, failures, lock, threads = [], [], [], threading.Lock(), []
    start = time.monotonic() + 0.2

    def one(i: int, due: float):
        try:
            result = score([items[i]])[0]
            if result.error:
                raise RuntimeError(result.error)
        except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
            with lock:
                failures.append(f"{type(exc).__name__}: {exc}")
            return
        with lock:
            latencies.append(time.monotonic() - due)
            slowdowns.append(latencies[-1] / service[i])

    for i in range(len(items)):
        due = start + i / rate
        time.sleep(max(0.0, due - time.monotonic()))
        thread = threading.Thread(target=one, args=(i, due), daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return {"rate": rate, "sent": len(items), "answered": len(latencies), "failed": failures,
            **percentiles(latencies, ""), **percentiles(slowdowns, "slow_")}


def percentiles(values: list[float], prefix: str) -> dict:
    """``{prefix}p50`` and ``{prefix}p99`` of ``values`` (NaN when empty)."""
    a = np.array(values) if values else np.array([float("nan")])
    return {f"{prefix}p50": float(np.percentile(a, 50)), f"{prefix}p99": float(np.percentile(a, 99))}


def unloaded(score, items: list[ScoreItem]) -> list[float]:
    """Each item's latency alone: single-program requests, one at a time."""
    out = []
    for item in items:
        t0 = time.monotonic()
        score([item])
        out.append(time.monotonic() - t0)
    return out


@contextmanager
def serving(tmp: Path, token: str, workers: int, clients: int):
    """A started ``neocoder serve`` (its data in ``tmp/w<workers>``), stopped at the end; yields its URL."""
    data = tmp / f"w{workers}"
    data.mkdir()
    proc, url = start_server(data, token, workers, clients)
    try:
        yield url
    finally:
        stop_server(proc)


def sweep(ways: dict, batches: list[int], n: int, repeat: int) -> dict:
    """For each way (name: score function) and batch size: the median programs/s of ``repeat``
    runs, the ways interleaved run by run (so a change in the machine's other load hits both
    alike), and the first run's results.  ``{name: {batch: (programs/s, results)}}``."""
    out = {name: {} for name in ways}
    for b in batches:
        items, rates = programs(max(b, n)), {name: [] for name in ways}
        for run in range(repeat):
            for name, score in ways.items():
                rate, results = closed(score, items, b)
                rates[name].append(rate)
                if run == 0:
                    out[name][b] = (None, results)
        for name in ways:
            out[name][b] = (float(np.median(rates[name])), out[name][b][1])
    return out


def parse_list(text: str, kind=int) -> list:
    """``"1,8,32"`` as ``[1, 8, 32]`` (each item converted by ``kind``)."""
    return [kind(x) for x in text.split(",") if x.strip()]


def main() -> int:
    """Run the sweep and the open-loop load, print the tables and the checks; 1 when a check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default=",".join(str(w) for w in sorted({1, os.cpu_count() or 1})),
                        help="Sandbox worker counts to measure, comma separated (default 1,<cpus>).")
    parser.add_argument("--batches", default="1,8,32,64", help="Batch sizes (default 1,8,32,64).")
    parser.add_argument("--programs", type=int, default=64, help="Programs per cell, at least the batch (64).")
    parser.add_argument("--loads", default="0.25,0.5,0.75", help="Offered loads, fractions of saturation.")
    parser.add_argument("--requests", type=int, default=60, help="Requests per offered load (60).")
    parser.add_argument("--repeat", type=int, default=3, help="Runs per cell; the median is shown (3).")
    parser.add_argument("--all-tests", action="store_true", help="Judge every test of both tiers (default: each "
                        "tier stops at its first failure, as the reward functions do; the same rewards).")
    parser.add_argument("--smoke", action="store_true", help="a small run (tests/perf/): the speed targets are "
                        "shown, not checked")
    args = parser.parse_args()
    if args.smoke:
        parser.set_defaults(workers="2", batches="1,4", programs=4, loads="0.5", requests=6, repeat=1)
        args = parser.parse_args()
    every = args.all_tests
    workers, batches, loads = parse_list(args.workers), parse_list(args.batches), parse_list(args.loads, float)
    warm = programs(4)
    print(f"GPT-4 state-0 programs (shipped dataset {shipped.version()}); workers {workers}; batches {batches}; "
          f"{args.programs} programs per cell; judge_all_tests {every}; load average {os.getloadavg()[0]:.1f}",
          flush=True)
    local, served, latency = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="reward-throughput-") as tmp:
        token = secrets.token_hex(24)
        for w in workers:
            with Scorer(SandboxConfig(workers=w), judge_all_tests=every) as scorer, \
                    serving(Path(tmp), token, w, clients=max(64, args.requests)) as url:
                ways = {"in-process": lambda items: score_batch(items, scorer=scorer),
                        "server": lambda items: score_batch(items, server=url, token=token, judge_all_tests=every)}
                for score in ways.values():
                    score(warm)
                cells = sweep(ways, batches, args.programs, args.repeat)
                local[w], served[w] = cells["in-process"], cells["server"]
                print(f"{w} workers: sweep done", flush=True)
                if w == max(workers):
                    latency = latencies(ways["server"], programs(args.requests), loads, served[w][max(batches)][0])
    return report(local, served, latency, workers, batches, args.smoke)


def latencies(score, items: list[ScoreItem], loads: list[float], saturation: float) -> dict:
    """Open-loop latency at each load (a fraction of ``saturation`` programs/s), for two
    workloads: ``mixed``, the programs ``items`` (their own latencies differ widely), and
    ``uniform``, one program of median latency sent every time (its saturating rate measured
    here), so the server's queueing shows apart from the workload's spread.  ``{workload:
    [(load, stats)]}``, load 0 being each request alone."""
    out = {}
    service = unloaded(score, items)
    typical = items[int(np.argsort(service)[len(service) // 2])]
    same = [typical] * len(items)
    alone = float(np.median(unloaded(score, same[:10])))
    workloads = {"mixed": (items, service, saturation),
                 "uniform": (same, [alone] * len(items), closed(score, [typical] * 64, 64)[0])}
    for name, (work, times, rate) in workloads.items():
        rows = [(0.0, {"rate": 0.0, "sent": len(work), "answered": len(work), "failed": [],
                       **percentiles(times, ""), **percentiles([1.0] * len(work), "slow_")})]
        rows += [(f, open_loop(score, work, f * rate, times)) for f in loads]
        out[name] = rows
        print(f"latency, {name}: done (saturating {rate:.1f} programs/s)", flush=True)
    return out


def report(local: dict, served: dict, latency: list, workers: list[int], batches: list[int], smoke: bool) -> int:
    """Print the tables and the checks; 1 when a check fails (the speed targets only when
    not ``smoke``: a smoke run's few programs measure no speed)."""
    print(f"\n{'workers':>8}{'batch':>7}{'in-process/s':>14}{'server/s':>10}{'server / in-process':>21}")
    for w in workers:
        for b in batches:
            lr, sr = local[w][b][0], served[w][b][0]
            print(f"{w:>8}{b:>7}{lr:>14.2f}{sr:>10.2f}{sr / lr:>20.2f}x")
    for name, rows in latency.items():
        print(f"\n{name + ' load':>13}{'offered/s':>11}{'answered':>10}{'p50 ms':>9}{'p99 ms':>9}{'p99 / p50':>11}"
              f"{'slowdown p50':>14}{'p99':>7}")
        for fraction, s in rows:  # load 0: each program alone, one at a time (the unloaded latency)
            print(f"{fraction:>13.2f}{s['rate']:>11.2f}{s['answered']:>7}/{s['sent']:<2}{s['p50'] * 1000:>9.0f}"
                  f"{s['p99'] * 1000:>9.0f}{s['p99'] / s['p50']:>10.2f}x{s['slow_p50']:>13.2f}x"
                  f"{s['slow_p99']:>6.2f}x")
    mismatched = [(w, b) for w in workers for b in batches
                  if [round(r.reward, 9) for r in local[w][b][1]] != [round(r.reward, 9) for r in served[w][b][1]]]
    errors = sum(1 for ways in (local, served) for w in ways for b in ways[w] for r in ways[w][b][1] if r.error)
    lost = [(name, f, s["sent"] - s["answered"], s["failed"][:2]) for name, rows in latency.items()
            for f, s in rows if s["answered"] != s["sent"]]
    big, most = max(batches), max(workers)
    ratio = served[most][big][0] / local[most][big][0]
    print(f"rewards identical, server and in-process: {'yes' if not mismatched else 'NO: ' + str(mismatched)}")
    print(f"items with an error: {errors}; open-loop requests lost or failed: {'none' if not lost else lost}")
    print(f"target: batch {big}, {most} workers, server >= 0.8x in-process: {ratio:.2f}x "
          f"({'met' if ratio >= 0.8 else 'NOT met'})")
    tails = {}
    for name, rows in latency.items():
        half = [s for f, s in rows if abs(f - 0.5) < 1e-9]
        if half:
            alone, h = rows[0][1], half[0]
            tails[name] = h["p99"] <= 3 * h["p50"]
            print(f"target, {name}: at half the saturating load, p99 <= 3x p50: {h['p99'] / h['p50']:.2f}x "
                  f"({'met' if tails[name] else 'NOT met'}); alone, p99 / p50 = {alone['p99'] / alone['p50']:.2f}x; "
                  f"slowdown (latency over the program's alone) p50 {h['slow_p50']:.2f}x, p99 {h['slow_p99']:.2f}x")
    if smoke:
        print("speed targets not checked (--smoke)")
    return 1 if (mismatched or errors or lost or (not smoke and (ratio < 0.8 or not all(tails.values())))) else 0


if __name__ == "__main__":
    sys.exit(main())
