"""Model calls in flight apart from sandbox workers: ``--max-connections 32`` against ``1``.

A scripted OpenAI-compatible endpoint on loopback (tests/support/loopback.py ``PacedServer``)
answers each chat call after ``--latency`` seconds with a program that depends only on
the prompt (tests/support/paced_eval.py).  ``neocoder eval``'s task judges ``--states`` problem
states of the release (256 MB problems, so the sandbox's workers share one key) in the
real Docker sandbox with ``--workers`` containers, in one process:

  N=1           one call at a time (the baseline)
  N=32          ``--max-connections 32``: calls in flight apart from the 2 workers
  N=32, 429s    the same against an endpoint that refuses (429, Retry-After 1 s) every
                call beyond ``--capacity`` at once: no sample may be lost, fewer than
                10% of calls may be retried more than once

Prints each run's wall seconds, the most containers alive at once, the calls the endpoint
held at once, the ratio to N=1, whether the metrics equal N=1's, and for the rate-limited
run the 429s sent and the calls retried more than once.  The issue's bounds (200 states,
1 s latency): N=32 within 15 s with at most 2 containers.

    .venv/bin/python perf/max_connections.py [--states 200] [--latency 1.0] [--workers 2] [--capacity 4] [--smoke]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from loopback import PacedServer  # noqa: E402
from paced_eval import ContainerWatch, eval_config, reply, timed_eval, write_states  # noqa: E402

from neocoder.dataset import default_release_dir  # noqa: E402
from neocoder.records import Sample  # noqa: E402
from neocoder.store import RunFolder  # noqa: E402


def measure(label, server, states, out, release, connections, workers):
    """One eval against ``server``; returns (metrics, seconds) after printing its line."""
    try:
        with ContainerWatch() as containers:
            metrics, seconds = timed_eval(eval_config(server.url, states, out, release, connections, workers))
    finally:
        server.close()
    samples = RunFolder(out).read(Sample)
    lost = sum(1 for s in samples if s.error) + (len({s.key for s in samples}) < len(states.read_text().splitlines()))
    print(f"{label:<12} {seconds:7.1f} s  containers at once {containers.most}  calls held at once "
          f"{server.most_active:3d}  samples {len(samples)} (lost or failed {lost})")
    return metrics, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=200)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per call")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--capacity", type=int, default=4, help="calls the rate-limited endpoint takes at once")
    parser.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = parser.parse_args()
    if args.smoke:
        parser.set_defaults(states=6, latency=0.2, connections=4, capacity=2)
        args = parser.parse_args()
    release = default_release_dir()
    tmp = Path(tempfile.mkdtemp(prefix="neocoder-connections-"))
    states = write_states(release, tmp / "states.jsonl", args.states)
    print(f"{args.states} states, {args.latency:g} s per call, --workers {args.workers}")
    base, base_s = measure("N=1", PacedServer(reply, args.latency), states, tmp / "n1", release, 1, args.workers)
    many, many_s = measure(f"N={args.connections}", PacedServer(reply, args.latency), states, tmp / "many", release,
                           args.connections, args.workers)
    print(f"  ratio N=1 / N={args.connections}: {base_s / many_s:.1f}x; metrics equal N=1: {many == base}")
    limited = PacedServer(reply, args.latency, capacity=args.capacity, retry_after=1)
    capped, capped_s = measure(f"N={args.connections}, 429", limited, states, tmp / "limited", release,
                               args.connections, args.workers)
    twice = limited.retried_more_than_once()
    print(f"  429s sent {limited.refused}; calls retried more than once {twice} of {len(limited.attempts)} "
          f"({100 * twice / len(limited.attempts):.1f}%); ratio N=1 / this: {base_s / capped_s:.1f}x; "
          f"metrics equal N=1: {capped == base}")


if __name__ == "__main__":
    main()
