"""Many neocoder processes on one Docker engine at once: none breaks another.

Each round starts ``--processes`` real CLI processes together, a mix of
``neocoder sandbox run`` (a program that is AC, one that is WA) and
``neocoder eval --limit 2 --model replay/gpt-4-1106-preview`` (every third process),
and waits for them all.  A process passes when it exits 0 with the right verdicts:
AC or WA as its program deserves, and for an eval the same verdict on every test as
the same eval run alone before the rounds.  After each round no container may be
left with the sandbox label and the pid of one of that round's processes.

Prints per round its wall time, failures (exit code not 0), wrong verdicts and
containers left, with the first failure's last stderr lines; ``--json`` prints the
rounds as JSON instead (the test suite runs a small round this way).  Exit code 1 if
any round had a failure, a wrong verdict or a container left.

    .venv/bin/python perf/shared_engine.py [--processes 16] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import docker

from neocoder.judge.engine import LABEL_PID

PROGRAMS = {"AC": "a, b = map(int, input().split())\nprint(a + b)\n",
            "WA": "a, b = map(int, input().split())\nprint(a - b)\n"}
TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}]
EVAL_EVERY = 3  # every third process is an eval, the others sandbox runs
CLI = [sys.executable, "-m", "neocoder.cli"]


def eval_verdicts(out: Path) -> dict:
    """(problem, state, tier) -> the test verdicts of an eval run folder's samples."""
    got = {}
    for line in (out / "records.jsonl").read_text().splitlines():
        s = json.loads(line)
        if s.get("type") != "sample":
            continue
        for tier in ("examples", "plus"):
            if s.get(tier):
                got[f"{s['problem_id']}/{s['state']}/{tier}"] = [t["verdict"] for t in s[tier]["tests"]]
    return got


def command(i: int, folder: Path, round_no: int) -> tuple[list[str], str, Path | None]:
    """Process ``i``'s argv, what it should give ("eval", "AC" or "WA") and its eval folder."""
    if i % EVAL_EVERY == EVAL_EVERY - 1:
        out = folder / f"eval-{round_no}-{i}"
        return [*CLI, "eval", "--limit", "2", "--model", "replay/gpt-4-1106-preview",
                "--out", str(out), "--quiet"], "eval", out
    want = "AC" if i % 2 == 0 else "WA"
    return [*CLI, "sandbox", "run", str(folder / f"{want}.py"), "--tests", str(folder / "tests.jsonl"),
            "--json"], want, None


def check(proc, want: str, out: Path | None, reference: dict) -> str | None:
    """None when the process did what it should; else what went wrong."""
    if proc.returncode != 0:
        return f"exit {proc.returncode}: " + " | ".join(proc.stderr_text.strip().splitlines()[-3:])
    if want == "eval":
        got = eval_verdicts(out)
        return None if got == reference else f"eval verdicts differ from the lone run's: {got} != {reference}"
    tests = json.loads(proc.stdout_text)["tests"]
    verdicts = [t["verdict"] for t in tests]
    details = sorted({t.get("detail") or "" for t in tests} - {""})
    return None if verdicts == [want] * len(TESTS) else f"verdicts {verdicts}, wanted {want}: {'; '.join(details)}"


def one_round(n: int, folder: Path, round_no: int, reference: dict, client) -> dict:
    """Start ``n`` processes together, wait for all; the round's figures."""
    start = time.monotonic()
    procs = []
    for i in range(n):
        argv, want, out = command(i, folder, round_no)
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append((p, want, out))
    problems = []
    for p, want, out in procs:
        p.stdout_text, p.stderr_text = p.communicate()
        problem = check(p, want, out, reference)
        if problem:
            problems.append({"pid": p.pid, "kind": want, "problem": problem})
    left = [c["Id"][:12] for p, _, _ in procs
            for c in client.api.containers(all=True, filters={"label": f"{LABEL_PID}={p.pid}"})]
    return {"round": round_no, "processes": n, "evals": sum(w == "eval" for _, w, _ in procs),
            "seconds": round(time.monotonic() - start, 2),
            "failures": sum(p.returncode != 0 for p, _, _ in procs),
            "wrong_verdicts": sum(1 for x in problems if not x["problem"].startswith("exit")),
            "containers_left": left, "problems": problems}


def main(argv=None) -> int:
    """Run the rounds; print the table (or JSON); 0 when every round was clean."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="one round of 4 processes (the tests' smoke run)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.processes, args.rounds = 4, 1
    client = docker.from_env()
    with tempfile.TemporaryDirectory(prefix="neocoder-shared-") as tmp:
        folder = Path(tmp)
        for name, source in PROGRAMS.items():
            (folder / f"{name}.py").write_text(source)
        (folder / "tests.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TESTS))
        alone = subprocess.run([*CLI, "eval", "--limit", "2", "--model", "replay/gpt-4-1106-preview",
                                "--out", str(folder / "alone"), "--quiet"], capture_output=True, text=True)
        if alone.returncode != 0:
            sys.exit(f"the lone reference eval failed: {alone.stderr[-2000:]}")
        reference = eval_verdicts(folder / "alone")
        rounds = [one_round(args.processes, folder, r, reference, client) for r in range(args.rounds)]
    if args.json:
        print(json.dumps(rounds, indent=2))
    else:
        print(f"{'round':>5} {'processes':>9} {'evals':>5} {'seconds':>8} {'failures':>8} {'wrong':>5} {'left':>4}")
        for r in rounds:
            print(f"{r['round']:>5} {r['processes']:>9} {r['evals']:>5} {r['seconds']:>8} {r['failures']:>8} "
                  f"{r['wrong_verdicts']:>5} {len(r['containers_left']):>4}")
            for x in r["problems"][:1]:
                print(f"      first problem (pid {x['pid']}, {x['kind']}): {x['problem']}")
    clean = all(not r["problems"] and not r["containers_left"] for r in rounds)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
