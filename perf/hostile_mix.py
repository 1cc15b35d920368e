"""`neocoder serve` under a hostile mix: do well-behaved callers keep their service? (issue 57)

Starts its own server (``--workers``, the default limits otherwise) on a free loopback port
with a temporary data directory and one token per caller, then runs two timed phases of
``--seconds`` each, after a warm-up round:

  alone  the well-behaved callers only:
           trainers  ``--trainers`` tokens, each sending reward batches of ``--batch`` of
                     GPT-4's recorded state-0 programs (``POST /v1/score`` ``items``, read
                     as an NDJSON stream), one batch after the other
           print(1)  one token sending ``/v1/run`` ``print(1)``, a pause between requests
           eval      one token running eval jobs (``replay/gpt-4-1106-preview``, no network)
                     one after the other, each polled until it ends
  mix    the same callers, and at the same time a hostile token and anonymous callers:
           abandoned  slow work whose client hangs up after ``--leave-after`` s, in turn:
                      a sleeper on ``/v1/run`` (only the wall backstop stops it), a reward
                      batch of sleepers on ``/v1/score`` and, not in --smoke, a C++ compile
                      that hangs (``#include "/dev/stdout"``)
           huge out   programs printing MiBs on tests without expected output
           oversized  bodies past --max-body-bytes
           wrong tok  bearer tokens the server never issued, in a loop

Prints, per well-behaved caller and phase: results got, results per second (over the wall
time from the phase's start to its last answer), p50 / p99 latency, and what went wrong;
the mix's rate and p99 as a ratio to the same callers alone; what the hostile calls got;
the server's peak memory (RSS of its process tree, sampled every 0.2 s) in the warm-up and in
each phase; and the containers of the server (docker label ``neocoder.sandbox`` with the
server's pid) left once it has stopped (removed by this script afterwards).

Exits 1 when the issue's targets miss: each well-behaved caller keeps >= 0.8x its rate
alone and a p99 within 3x of its p99 alone (checked for a caller with at least 20 results
alone; fewer give no ratio worth checking and are shown only); any well-behaved result
lost, duplicated or unanswered; any container left.  ``--smoke`` runs phases of a few seconds
with a tiny mix: the ratios are shown but not checked (seconds measure none), the other
checks hold.

    .venv/bin/python perf/hostile_mix.py [--seconds 180] [--workers 2] [--trainers 3] [--batch 8] [--server-log F]
    .venv/bin/python perf/hostile_mix.py --smoke
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import docker
import mix_callers as calls  # perf/ is this script's folder, on sys.path
import psutil
import requests
from reward_throughput import programs
from serve_load import start_server

from neocoder.judge.docker_sandbox import LABEL, LABEL_PID

FULL = {"trainers": 3, "batch": 8, "probe_pause": 0.5, "eval_limit": 2, "abandon_every": 8.0, "sleeper_cpu": 1.0,
        "sleeper_tests": 3, "batch_sleepers": 4, "compile_hang": True, "huge_every": 10.0, "huge_tests": 16,
        "huge_mib": 4, "oversized_every": 2.0, "oversized_mib": 3, "wrong_every": 0.05}
SMOKE = {"trainers": 2, "batch": 4, "probe_pause": 0.5, "eval_limit": 1, "abandon_every": 4.0, "sleeper_cpu": 0.5,
         "sleeper_tests": 1, "batch_sleepers": 2, "compile_hang": False, "huge_every": 4.0, "huge_tests": 2,
         "huge_mib": 1, "oversized_every": 1.0, "oversized_mib": 3, "wrong_every": 0.1}
CLASSES = (("trainers", "items"), ("print(1)", "requests"), ("eval", "jobs"))
RATE_TARGET, P99_TARGET = 0.8, 3.0
MIN_RESULTS = 20  # a caller with fewer results alone gives no ratio worth checking (shown, not checked)


class Memory:
    """RSS of a process and its children, sampled every 0.2 s on a thread: (time, bytes)."""

    def __init__(self, pid: int):
        self.root, self.samples, self.stop = psutil.Process(pid), [], threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while not self.stop.wait(0.2):
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                return
            total = 0
            for proc in procs:
                try:
                    total += proc.memory_info().rss
                except psutil.Error:
                    pass
            self.samples.append((time.monotonic(), total))

    def peak(self, since: float, until: float) -> float:
        """The highest sample in [since, until], MiB (NaN when none)."""
        inside = [rss for t, rss in list(self.samples) if since <= t <= until]
        return max(inside) / (1 << 20) if inside else float("nan")


def repeat(stop: threading.Event, pause: float, call) -> threading.Thread:
    """A daemon thread calling ``call()`` at least once, then again every ``pause`` s
    until ``stop`` is set."""
    def loop():
        while True:
            call()
            if stop.wait(pause):
                return

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def well_behaved(url: str, tokens: dict, mix: dict, work: list[dict], stop: threading.Event,
                 patience: float) -> tuple[dict, list]:
    """Start the well-behaved callers; ({class: Tally}, threads)."""
    tallies = {name: calls.Tally(name, unit) for name, unit in CLASSES}
    threads, ids, b = [], set(), mix["batch"]
    for n, token in enumerate(tokens["trainers"]):
        session, turn = requests.Session(), iter(range(10 ** 9))

        def batch(session=session, turn=turn, token=token, n=n):
            start = (next(turn) * b + n * 17) % len(work)
            items = [work[(start + i) % len(work)] for i in range(b)]
            calls.trainer_batch(session, url, token, items, tallies["trainers"], patience)

        threads.append(repeat(stop, 0.0, batch))
    probe = requests.Session()
    threads.append(repeat(stop, mix["probe_pause"],
                          lambda: calls.probe_run(probe, url, tokens["probe"], tallies["print(1)"], patience)))
    job = {"model": {"spec": "replay/gpt-4-1106-preview"}, "limit": mix["eval_limit"], "states": [0]}
    evals = requests.Session()
    threads.append(repeat(stop, 0.0, lambda: calls.eval_job(evals, url, tokens["eval"], job, tallies["eval"],
                                                            patience, ids)))
    return tallies, threads


def hostile_callers(url: str, token: str, mix: dict, stop: threading.Event, leave_after: float,
                    problem: str) -> tuple:
    """Start the hostile callers (the abandoned batches' sleepers judged on ``problem``);
    (Hostile, threads)."""
    hostile, turn = calls.Hostile(), iter(range(10 ** 9))
    batch = {"items": [{"problem_id": problem, "state": 0, "program": calls.SLEEPER}] * mix["batch_sleepers"],
             "judge_all_tests": False}
    kinds = ["sleeper", "batch"] + (["hang"] if mix["compile_hang"] else [])
    sleeper = {"program": calls.SLEEPER, "cpu_seconds": mix["sleeper_cpu"],
               "tests": [{"input": ""}] * mix["sleeper_tests"]}
    hang = {"program": calls.COMPILE_HANG, "language": "cpp", "tests": [{"input": ""}]}

    def abandoned():
        kind = kinds[next(turn) % len(kinds)]
        if kind == "hang":
            calls.abandon(url, token, hang, leave_after, hostile, "abandoned C++ compile hang")
        elif kind == "batch":
            calls.abandon(url, token, batch, leave_after, hostile, "abandoned batch", path="/v1/score")
        else:
            calls.abandon(url, token, sleeper, leave_after, hostile, "abandoned sleeper")

    wrong = requests.Session()
    threads = [repeat(stop, mix["abandon_every"], abandoned),
               repeat(stop, mix["huge_every"],
                      lambda: calls.huge_output(url, token, mix["huge_tests"], mix["huge_mib"], hostile)),
               repeat(stop, mix["oversized_every"],
                      lambda: calls.oversized(url, token, mix["oversized_mib"], hostile)),
               repeat(stop, mix["wrong_every"], lambda: calls.wrong_token(wrong, url, hostile))]
    return hostile, threads


def phase(url: str, tokens: dict, mix: dict, work: list[dict], seconds: float, args, hostile: bool) -> tuple:
    """One phase: the well-behaved callers (and the hostile ones when ``hostile``) for
    ``seconds``; ({class: summary}, Hostile or None, (start, end)).  The well-behaved
    callers end their call in flight; the hostile ones are not waited for long."""
    stop, started = threading.Event(), time.monotonic()
    tallies, threads = well_behaved(url, tokens, mix, work, stop, args.patience)
    mean = (hostile_callers(url, tokens["hostile"], mix, stop, args.leave_after, work[0]["problem_id"]) if hostile
            else (None, []))
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(args.patience + 60)
    for thread in mean[1]:
        thread.join(30)
    for tally in tallies.values():
        if tally.errors:
            print(f"  {tally.name}: {tally.errors}", flush=True)
    return {name: t.summary() for name, t in tallies.items()}, mean[0], (started, time.monotonic())


def stop_and_count(proc, timeout: float) -> tuple[float, int]:
    """SIGTERM the server (SIGKILL after ``timeout`` s); (seconds to stop, its containers
    left), the leftovers then removed."""
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"the server did not stop in {timeout:.0f} s: killed", flush=True)
        proc.kill()
        proc.wait()
    took = time.monotonic() - started
    client = docker.from_env()
    left = client.containers.list(all=True, filters={"label": [LABEL, f"{LABEL_PID}={proc.pid}"]})
    for container in left:
        try:
            container.remove(force=True)
        except docker.errors.APIError:
            pass
    return took, len(left)


def report(alone: dict, mixed: dict, hostile: calls.Hostile, memory: dict, metrics: list[str], stopped: tuple,
           smoke: bool) -> list[str]:
    """Print the table; the targets missed (the ratio targets only when not ``smoke``)."""
    print(f"\n{'caller':<10}{'phase':<7}{'results':>9}{'calls':>7}{'per s':>8}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'lost':>6}{'dup':>5}{'unanswered':>11}{'429s':>6}")
    for name, unit in CLASSES:
        for label, s in (("alone", alone[name]), ("mix", mixed[name])):
            print(f"{name:<10}{label:<7}{s['units']:>9}{s['calls']:>7}{s['rate']:>8.2f}{s['p50'] * 1000:>9.0f}"
                  f"{s['p99'] * 1000:>9.0f}{s['lost']:>6}{s['duplicated']:>5}{s['unanswered']:>11}{s['retried']:>6}")
    missed = []
    print(f"\nunder the mix / alone (targets: rate >= {RATE_TARGET}x, p99 <= {P99_TARGET}x"
          f"{'; not checked in --smoke' if smoke else ''}):")
    for name, unit in CLASSES:
        a, m = alone[name], mixed[name]
        rate = m["rate"] / a["rate"] if a["rate"] else float("nan")
        p99 = m["p99"] / a["p99"] if a["p99"] else float("nan")
        checked = a["units"] >= MIN_RESULTS and not smoke
        verdict = "not checked" if not checked else "ok" if rate >= RATE_TARGET and p99 <= P99_TARGET else "MISSED"
        print(f"  {name:<10} {unit} per s {rate:.2f}x, p99 {p99:.2f}x: {verdict}")
        if verdict == "MISSED":
            missed.append(f"{name}: rate {rate:.2f}x, p99 {p99:.2f}x")
    for name, _ in CLASSES:
        wrong = {k: alone[name][k] + mixed[name][k] for k in ("lost", "duplicated", "unanswered")}
        if any(wrong.values()):
            missed.append(f"{name}: {wrong}")
    print("hostile calls (outcome: count): " + "; ".join(f"{kind} {dict(c)}" for kind, c in hostile.counts.items())
          + f"; huge outputs read back: {hostile.bytes / (1 << 20):.0f} MiB")
    print("server memory peak (RSS of its process tree): "
          + ", ".join(f"{k} {v:.0f} MiB" for k, v in memory.items())
          + f"; mix - alone: {memory['mix'] - memory['alone']:+.0f} MiB")
    print(f"server at the end of the mix: {'; '.join(metrics) or 'no metrics'}")
    took, left = stopped
    print(f"server stopped in {took:.1f} s after SIGTERM; its containers left: {left}")
    if left:
        missed.append(f"{left} containers left")
    print("results lost, duplicated or unanswered: "
          + (", ".join(m for m in missed if ": {" in m) or "none"))
    print("targets: " + ("all met" if not missed else "MISSED: " + "; ".join(missed)))
    return missed


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=None, help="each timed phase (default 180; --smoke: 8)")
    ap.add_argument("--workers", type=int, default=2, help="the server's --workers (default 2)")
    ap.add_argument("--trainers", type=int, default=None, help="trainer tokens (default 3; --smoke: 2)")
    ap.add_argument("--batch", type=int, default=None, help="programs per reward batch (default 8; --smoke: 4)")
    ap.add_argument("--leave-after", type=float, default=1.5, help="seconds before an abandoning client hangs up")
    ap.add_argument("--patience", type=float, default=None,
                    help="seconds a well-behaved caller waits for an answer before counting it unanswered "
                         "(default 300; --smoke: 120)")
    ap.add_argument("--stop-timeout", type=float, default=150, help="seconds after SIGTERM before SIGKILL")
    ap.add_argument("--server-log", type=Path, default=None, help="keep the server's log there (default: dropped "
                    "with the temporary folder)")
    ap.add_argument("--smoke", action="store_true", help="phases of a few seconds, a tiny mix, no ratio targets")
    args = ap.parse_args()
    args.seconds = args.seconds if args.seconds is not None else 8.0 if args.smoke else 180.0
    args.patience = args.patience if args.patience is not None else 120.0 if args.smoke else 300.0
    return args


def main() -> int:
    """Warm up, run alone then under the mix, stop the server; 1 when a target misses."""
    args = parse_args()
    mix = dict(SMOKE if args.smoke else FULL)
    mix.update({k: getattr(args, k) for k in ("trainers", "batch") if getattr(args, k) is not None})
    work = [{"problem_id": i.problem_id, "state": 0, "program": i.program} for i in programs(64)]
    tokens = {"trainers": [secrets.token_hex(20) for _ in range(mix["trainers"])],
              **{k: secrets.token_hex(20) for k in ("probe", "eval", "hostile")}}
    everyone = [*tokens["trainers"], tokens["probe"], tokens["eval"], tokens["hostile"]]
    print(f"{mix['trainers']} trainers (batches of {mix['batch']}), a print(1) caller, an eval caller (limit "
          f"{mix['eval_limit']}); --workers {args.workers}; {args.seconds:.0f} s per phase; load average "
          f"{os.getloadavg()[0]:.1f}{'; SMOKE' if args.smoke else ''}", flush=True)
    with tempfile.TemporaryDirectory(prefix="hostile-mix-") as tmp:
        proc, url = start_server(Path(tmp), everyone, args.workers, 16, queue=64)
        memory = Memory(proc.pid)
        print(f"server pid {proc.pid} (its containers carry it in a label) at {url}", flush=True)
        try:
            t0 = time.monotonic()
            phase(url, tokens, mix, work, 0, args, hostile=False)  # warm-up: one call per caller
            peaks = {"warm-up": memory.peak(t0, time.monotonic())}
            alone, _, span = phase(url, tokens, mix, work, args.seconds, args, hostile=False)
            peaks["alone"] = memory.peak(*span)
            print(f"alone: {alone['trainers']['units']} items, {alone['print(1)']['units']} print(1), "
                  f"{alone['eval']['units']} eval jobs", flush=True)
            mixed, hostile, span = phase(url, tokens, mix, work, args.seconds, args, hostile=True)
            peaks["mix"] = memory.peak(*span)
            text = requests.get(url + "/metrics", headers=calls.auth(tokens["probe"]), timeout=60).text
            metrics = [line for line in text.splitlines()
                       if line.startswith(("neocoder_judge_in_flight", "neocoder_judge_queue_depth"))]
        finally:
            memory.stop.set()
            stopped = stop_and_count(proc, args.stop_timeout)
            if args.server_log:
                shutil.copyfile(Path(tmp) / "server.log", args.server_log)
    return 1 if report(alone, mixed, hostile, peaks, metrics, stopped, args.smoke) else 0


if __name__ == "__main__":
    sys.exit(main())
