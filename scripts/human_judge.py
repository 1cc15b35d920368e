"""Judge every accepted human solution of one language on the validated tests of its problem (issue 49).

For each problem of the default (shipped, validated) dataset that has accepted human
solutions in ``--language`` (the release's ``human_solutions.json``, the language told by
``neocoder.techniques.detector.guess_language``), every such solution runs in the sandbox
on the problem's validated examples with the problem's checker, as written
(``entry="script"``), with the problem's own Codeforces time limit for C++
(``codeforces_time_limit_s``; Python keeps the state's, possibly raised, limit: pipeline.state_limits) and its
memory limit.  One JSON line per solution goes to ``--out`` as soon as it is judged; a
solution already there is skipped (judged again if a test was INFRA), so a killed run
resumes where it stopped.  At the end (or with ``--summary`` alone) it prints the AC
share (solutions AC on every test) and every solution that is not, with problem,
solution index, first failing test, verdict and detail.

    NEOCODER_RELEASE=/work/shared/neocoder .venv/bin/python scripts/human_judge.py \
        --language cpp --out runs/human_cpp.jsonl [--workers 1] [--limit 5] [--summary]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from neocoder.benchmarks.neocoder.pipeline import state_limits
from neocoder.config import SandboxConfig
from neocoder.dataset.release import default_release_dir
from neocoder.dataset.shipped import load_states
from neocoder.judge.verdicts import AC, CPP, INFRA, LANGUAGES
from neocoder.techniques.human import solutions_by_language


def solution_key(problem_id: str, index: int, source: str) -> str:
    """The resume key of one solution: problem id, its index among the problem's solutions
    of the language (the release lists some twice) and the first 16 hex of its SHA-256."""
    return f"{problem_id}:{index}:{hashlib.sha256(source.encode('utf-8')).hexdigest()[:16]}"


def judge_line(box, state, index: int, source: str, language: str) -> dict:
    """The JSON line of one solution: its key, problem, index among the problem's solutions
    of ``language``, limits, each test's verdict, detail and CPU seconds, the compile error."""
    limits = state_limits(state, 1.0, language)  # the eval's own rule: C++ at the Codeforces limit
    result = box.run(source, state.tests, limits, checker=state.checker, entry="script", language=language)
    return {"key": solution_key(state.problem_id, index, source), "problem_id": state.problem_id, "index": index,
            "language": language, "cpu_limit_s": limits.cpu_seconds, "memory_limit_mb": limits.memory_mb,
            "accepted": result.accepted, "compile_error": result.compile_error,
            "compile_seconds": result.compile_seconds,
            "tests": [{"verdict": t.verdict, "detail": t.detail, "cpu_seconds": t.cpu_seconds,
                       "stdout_head": None if t.verdict == AC else t.stdout_head[:80]} for t in result.tests],
            "seconds": round(result.seconds, 3)}


def _mean(values: list) -> float | None:
    """The mean of the values that are not None, to 4 places (None when there are none)."""
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 4) if known else None


def read_lines(out: Path) -> dict[str, dict]:
    """The lines of ``out`` by key, the last line of a key winning (a solution judged again
    after INFRA); {} when the file does not exist."""
    if not out.exists():
        return {}
    return {line["key"]: line for line in map(json.loads, filter(str.strip, out.read_text().splitlines()))}


def summary(out: Path) -> dict:
    """The AC share of the lines of ``out`` and every solution that is not AC (problem,
    solution index, first failing test, its verdict and detail), with verdict counts."""
    lines = list(read_lines(out).values())
    failures = []
    for line in lines:
        if line["accepted"]:
            continue
        bad = [(i, t) for i, t in enumerate(line["tests"]) if t["verdict"] != AC]
        i, test = bad[0] if bad else (None, {"verdict": "no tests", "detail": None})
        failures.append({"problem_id": line["problem_id"], "index": line["index"], "test": i,
                         "verdict": test["verdict"], "detail": (test["detail"] or "")[:160],
                         "failed_tests": len(bad), "tests": len(line["tests"])})
    accepted = sum(line["accepted"] for line in lines)
    return {"solutions": len(lines), "accepted": accepted,
            "ac_share": round(accepted / len(lines), 4) if lines else None,
            "problems": len({line["problem_id"] for line in lines}),
            "verdicts_of_failures": dict(Counter(f["verdict"] for f in failures).most_common()),
            "seconds_total": round(sum(line["seconds"] for line in lines), 1),
            "compile_cpu_seconds_mean": _mean([line.get("compile_seconds") for line in lines]),
            "compile_cpu_seconds_max": max((line.get("compile_seconds") or 0 for line in lines), default=None),
            "failures": failures}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", choices=LANGUAGES, default=CPP)
    parser.add_argument("--out", type=Path, default=None, help="JSONL of results (default runs/human_<language>.jsonl)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N problems (for a time estimate)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--summary", action="store_true", help="print the summary of --out and stop")
    args = parser.parse_args(argv)
    out = args.out or Path(f"runs/human_{args.language}.jsonl")
    if args.summary:
        print(json.dumps(summary(out), indent=1))
        return 0
    states = {s.problem_id: s for s in load_states() if s.state == 0}
    pids = list(states)[:args.limit]
    sources = solutions_by_language(default_release_dir(), pids)
    done = {key for key, line in read_lines(out).items()
            if not any(t["verdict"] == INFRA for t in line["tests"])}  # INFRA: judged again
    todo = [(states[pid], i, src) for pid in pids
            for i, src in enumerate(src for lang, src in sources.get(pid, []) if lang == args.language)
            if solution_key(pid, i, src) not in done]
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with open_box(args.workers) as box, out.open("a") as sink, ThreadPoolExecutor(args.workers) as pool:
        jobs = pool.map(lambda job: judge_line(box, *job, args.language), todo)
        for line in tqdm(jobs, total=len(todo), desc=f"human {args.language}", unit="solution"):
            sink.write(json.dumps(line) + "\n")
            sink.flush()
    result = summary(out)
    result["seconds_this_run"] = round(time.time() - started, 1)
    print(json.dumps(result, indent=1))
    return 0


def open_box(workers: int):
    """The local Docker sandbox with ``workers`` warm workers (the executor of SandboxConfig)."""
    from neocoder.executors import open_sandbox
    return open_sandbox(SandboxConfig(workers=workers))


if __name__ == "__main__":
    sys.exit(main())
