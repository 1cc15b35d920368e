"""Load on `neocoder serve`: concurrent clients scoring the recorded GPT-4 state-0 programs.

Starts its own server on a free loopback port (a temporary data directory and token,
``--dataset release``: the release's statement examples), then, with the same programs
(the release's ``codes`` for state 0 of each problem, as ``replay/gpt-4-1106-preview``
answers them) and the same number of sandbox workers:

  in-process  ``pipeline.judge_reply`` called directly by ``--clients`` threads
  server      ``--clients`` HTTP clients sending ``POST /v1/score``

Each way first judges every program once (a warm pass whose results are compared: the
server's verdicts, techniques and scores must equal the in-process ones), then runs for
``--seconds`` (bounded by ``--max-requests`` too).  Prints requests per second, p50 / p99
latency, and the ratio of the per-request cost (wall time / requests at that concurrency)
of the server against the in-process judge; checks that every request was answered
(none lost: no error, no 429, no dropped connection) and that every answer of the timed
run has the warm pass's verdicts.  An answer with an INFRA verdict (the sandbox failed,
which a run never counts against a program) is counted apart and left out of the
comparison.  Exits 1 when a check fails.

    .venv/bin/python perf/serve_load.py [--seconds 60] [--clients 16] [--workers N] [--problems N] [--smoke]
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import requests

from neocoder.benchmarks.neocoder.pipeline import judge_reply
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.client import Client
from neocoder.dataset import build_from_release, default_release_dir
from neocoder.judge import DockerSandbox
from neocoder.models import ReplayKey, Reply, get_model
from neocoder.records import ProblemState, Sample
from neocoder.techniques.human import human_technique_sets


def programs(release_dir: Path, limit: int | None) -> list[tuple[ProblemState, str]]:
    """(state 0, GPT-4's recorded program for it) per problem, in release order."""
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    states = [ProblemState.from_dict(r) for r in build_from_release(release_dir)[0] if r["state"] == 0]
    states = states[:limit] if limit else states
    return [(s, model.generate(solve_prompt(s.statement, ReplayKey(s.problem_id, 0, 0, s.source_index))).text)
            for s in states]


def outcome(sample: dict) -> tuple:
    """What must be identical between the server and the in-process judge."""
    tiers = tuple(tuple(t["verdict"] for t in (sample[k] or {}).get("tests", [])) for k in ("examples", "plus"))
    return tiers, tuple(sample["techniques"]), sample["follows"], sample["divergent"]


class Load:
    """``clients`` threads calling ``call(index) -> outcome`` on the programs round robin,
    for ``seconds`` or ``max_requests``; latencies, failures and outcomes per program."""

    def __init__(self, n_programs: int, clients: int):
        self.n, self.clients = n_programs, clients
        self.lock = threading.Lock()
        self.next = 0
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self.outcomes: dict[int, set] = {}
        self.infra: list[int] = []
        self.sent = 0

    def _take(self, deadline: float, limit: int) -> int | None:
        with self.lock:
            if time.monotonic() >= deadline or self.sent >= limit:
                return None
            self.sent += 1
            index, self.next = self.next % self.n, self.next + 1
            return index

    def run(self, call, seconds: float, max_requests: int) -> float:
        """Run until the deadline (or the request cap); returns the wall seconds."""
        started = time.monotonic()
        deadline = started + seconds

        def client(_):
            while (index := self._take(deadline, max_requests)) is not None:
                t0 = time.monotonic()
                try:
                    got = call(index)
                except Exception as exc:  # noqa: BLE001 - every failure is counted and shown
                    with self.lock:
                        self.failures.append(f"program {index}: {type(exc).__name__}: {exc}")
                    continue
                with self.lock:
                    self.latencies.append(time.monotonic() - t0)
                    if any("INFRA" in tier for tier in got[0]):
                        self.infra.append(index)  # a sandbox failure: says nothing about the judge's verdicts
                    else:
                        self.outcomes.setdefault(index, set()).add(got)

        with ThreadPoolExecutor(self.clients) as pool:
            list(pool.map(client, range(self.clients)))
        return time.monotonic() - started

    def summary(self, wall: float) -> dict:
        """Requests, failures, requests/s, p50 / p99 latency (s) and cost per request (s)."""
        lat = np.array(self.latencies) if self.latencies else np.array([float("nan")])
        return {"requests": len(self.latencies), "sent": self.sent, "failed": len(self.failures), "wall": wall,
                "rps": len(self.latencies) / wall, "p50": float(np.percentile(lat, 50)),
                "p99": float(np.percentile(lat, 99)), "cost": wall / max(1, len(self.latencies))}


def start_server(data: Path, token: str | list[str], workers: int, clients: int, extra: tuple = (),
                 queue: int | None = None) -> tuple:
    """``neocoder serve`` on a free loopback port with its data in ``data``, the token (or
    tokens) ``token``, ``clients`` requests per token in flight and ``queue`` (default
    ``clients``) waiting, and the options ``extra`` (e.g. the dataset); (process, URL) once
    /healthz answers 200.  Also used by reward_throughput.py and hostile_mix.py."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (data / "tokens").write_text("".join(t + "\n" for t in ([token] if isinstance(token, str) else token)))
    log = (data / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "neocoder.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--data-dir", str(data / "serve"), "--tokens-file", str(data / "tokens"),
                             "--workers", str(workers), "--per-token-concurrency", str(clients),
                             "--queue", str(clients if queue is None else queue), "--log-level", "warning", *extra],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited:\n{(data / 'server.log').read_text()}")
        try:
            if requests.get(url + "/healthz", timeout=5).status_code == 200:
                return proc, url
        except requests.ConnectionError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("the server did not become healthy in 240 s")


def stop_server(proc) -> None:
    """SIGTERM, then SIGKILL after 120 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()


def main() -> int:
    """Run both ways, print the table and the checks; 1 when a check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="Timed run of each way (default 60).")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="Sandbox workers of both ways.")
    parser.add_argument("--problems", type=int, default=None, help="Only the first N problems' programs.")
    parser.add_argument("--max-requests", type=int, default=100_000, help="Cap on requests of each timed run.")
    parser.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = parser.parse_args()
    if args.smoke:
        parser.set_defaults(seconds=3.0, clients=2, workers=2, problems=4)
        args = parser.parse_args()
    release_dir = default_release_dir()

    work = programs(release_dir, args.problems)
    human = {pid: v["techniques"]
             for pid, v in human_technique_sets({s.problem_id for s, _ in work}).items()}
    print(f"{len(work)} programs (GPT-4, state 0, release examples); {args.clients} clients; {args.workers} sandbox "
          f"workers; {args.seconds:.0f} s per timed run; load average {os.getloadavg()[0]:.1f}", flush=True)

    with tempfile.TemporaryDirectory(prefix="serve-load-") as tmp:
        token = secrets.token_hex(24)
        proc, url = start_server(Path(tmp), token, args.workers, args.clients,
                                 ("--release", str(release_dir), "--dataset", "release"))
        try:
            box = DockerSandbox(concurrency=args.workers)
            if box.unavailable:
                raise SystemExit(box.unavailable)

            def local(index: int) -> tuple:
                state, text = work[index]
                record = Sample(problem_id=state.problem_id, state=0, sample=0, model="api",
                                constraints=list(state.constraints), prompt_sha256="-")
                return outcome(judge_reply(record, state, Reply(text=text), box, human.get(state.problem_id)).to_dict())

            warm_local = Load(len(work), args.clients)
            warm_local.run(local, 1e9, len(work))
            for i in warm_local.infra:  # judge again what the sandbox failed on, so every program has an answer
                warm_local.outcomes.setdefault(i, {local(i)})
            expected = {i: next(iter(v)) for i, v in warm_local.outcomes.items()}
            timed_local = Load(len(work), args.clients)
            local_sum = timed_local.summary(timed_local.run(local, args.seconds, args.max_requests))
            box.close()
            print(f"in-process: {local_sum['requests']} judged", flush=True)

            clients = threading.local()

            def served(index: int) -> tuple:
                client = getattr(clients, "client", None)
                if client is None:
                    client = clients.client = Client(url, token, timeout=600, busy_retries=0)
                state, text = work[index]
                return outcome(client.score(state.problem_id, 0, program=text)["sample"])

            warm_server = Load(len(work), args.clients)
            warm_server.run(served, 1e9, len(work))
            timed_server = Load(len(work), args.clients)
            server_sum = timed_server.summary(timed_server.run(served, args.seconds, args.max_requests))
            metrics = Client(url, token).metrics()
        finally:
            stop_server(proc)

    print(f"\n{'way':<12}{'requests':>10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'ms/req':>9}")
    for name, s in (("in-process", local_sum), ("server", server_sum)):
        print(f"{name:<12}{s['requests']:>10}{s['rps']:>9.2f}{s['p50'] * 1000:>9.0f}{s['p99'] * 1000:>9.0f}"
              f"{s['cost'] * 1000:>9.1f}")
    print(f"per-request cost, server / in-process: {server_sum['cost'] / local_sum['cost']:.2f}x")

    mismatched = [i for i in range(len(work)) if i not in warm_server.infra
                  and warm_server.outcomes.get(i, {None}) != {expected.get(i)}]
    unstable = [i for loads in (timed_local, timed_server) for i, seen in loads.outcomes.items()
                if seen != {expected.get(i)}]
    lost = [(name, load.sent - len(load.latencies), load.failures[:3])
            for name, load in (("in-process warm", warm_local), ("in-process", timed_local),
                               ("server warm", warm_server), ("server", timed_server))
            if load.sent != len(load.latencies)]
    rejected = [line for line in metrics.splitlines() if line.startswith("neocoder_rejected_requests_total")]
    infra = {name: len(load.infra) for name, load in (("in-process", warm_local), ("in-process timed", timed_local),
                                                      ("server warm", warm_server), ("server", timed_server))}
    print(f"answers with an INFRA verdict (sandbox failures, left out of the comparison): {infra}")
    print(f"requests lost or failed: {'none' if not lost else lost}")
    print(f"429 and other refusals (server's /metrics): {rejected or 'none'}")
    names = lambda indices: ", ".join(sorted({work[i][0].problem_id for i in indices}))  # noqa: E731
    print("verdicts, techniques and scores identical to in-process: "
          + (f"yes, all {len(work)} programs" if not mismatched else "NO: " + names(mismatched)))
    print("every timed answer equal to its program's warm answer: "
          + ("yes" if not unstable else "NO: " + names(unstable)))
    for i in sorted(set(mismatched) | set(unstable))[:5]:
        seen = set().union(*(load.outcomes.get(i, set()) for load in (warm_server, timed_local, timed_server)))
        print(f"  {work[i][0].problem_id}: in-process warm {expected.get(i)}; also seen "
              f"{sorted(seen - {expected.get(i)}, key=str)}")
    return 1 if (mismatched or unstable or lost or rejected) else 0


if __name__ == "__main__":
    sys.exit(main())
