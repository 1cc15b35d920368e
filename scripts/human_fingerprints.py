"""Execution fingerprints of every accepted human Python solution (issue 25, the human reference).

For each problem of the default (shipped) dataset: grow its inputs
(neocoder/diversity/growth.py), run every accepted human Python 3 solution of the release
on them with the operation counter, keep the sizes the humans validate, and fingerprint
each solution on the kept sizes (neocoder/diversity/execution.py).  One JSON line per
problem goes to ``--out``; a problem already there is skipped (resumable), and every
sandbox run is cached under ``cache_root()/diversity`` so an interrupted problem resumes
too.  At the end (or with ``--summary`` alone) it prints the counts: problems growable,
problems with kept sizes, solutions fingerprinted, the classes, the time.  ``--cross``
compares the execution classes with the detector's technique sets over pairs of solutions
of one problem (issue 25: how often one measure's class splits by the other).

    NEOCODER_RELEASE=/work/shared/neocoder .venv/bin/python scripts/human_fingerprints.py \
        --out data/diversity/human_fingerprints.jsonl [--limit 5] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from neocoder.config import SandboxConfig
from neocoder.dataset.release import default_release_dir
from neocoder.dataset.shipped import load_states
from neocoder.metrics.diversity import execution as ex
from neocoder.metrics.diversity.growth import growth_inputs


def problem_line(box, state, humans: list[str], cache, workers: int) -> dict:
    """The JSON line of one problem: kept sizes, dropped sizes, one fingerprint (or null) per human."""
    started = time.time()
    candidates = growth_inputs(state)
    line = {"problem_id": state.problem_id, "humans": len(humans), "candidates": [g.n for g in candidates]}
    if not candidates or not humans:
        return dict(line, kept=[], dropped={}, fingerprints=[None] * len(humans), seconds=0.0)
    _, fingerprints, report = ex.human_reference(box, state, humans, cache, workers)
    prints = [fp.to_dict() if fp else None for fp in fingerprints]
    return dict(line, kept=report["kept"], dropped={str(k): v for k, v in report["dropped"].items()},
                fingerprints=prints, seconds=round(time.time() - started, 1))


def mean_interval(values: list[float]) -> dict | None:
    """Mean of per-problem ``values`` and its 95% percentile bootstrap interval over problems
    (neocoder/bootstrap.py: 2000 resamples, seed 0)."""
    import numpy as np

    from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, summarize, weights
    if not values:
        return None
    v = np.asarray(values, dtype=float)
    spread = summarize(weights(len(v), DEFAULT_RESAMPLES, 0) @ v / len(v))
    return {"mean": round(float(v.mean()), 3), **({k: round(x, 3) for k, x in spread.items()} if spread else {})}


def summary(out: Path, seconds: float | None = None) -> dict:
    """Counts over the lines of ``out`` (printed as JSON), with the mean number of distinct
    execution classes (and complexity classes alone) per problem and their intervals."""
    lines = [json.loads(x) for x in out.read_text().splitlines() if x.strip()] if out.exists() else []
    prints = [fp for line in lines for fp in line["fingerprints"]]
    done = [fp for fp in prints if fp]
    per_problem = [len({(fp["complexity"], fp["memory"]) for fp in line["fingerprints"] if fp}) for line in lines
                   if any(line["fingerprints"])]
    complexity_only = [len({fp["complexity"] for fp in line["fingerprints"] if fp}) for line in lines
                       if any(line["fingerprints"])]
    return {"problems": len(lines), "growable": sum(bool(line["candidates"]) for line in lines),
            "with_kept_sizes": sum(bool(line["kept"]) for line in lines),
            "human_solutions": len(prints), "fingerprinted": len(done),
            "complexity": dict(Counter(fp["complexity"] for fp in done).most_common()),
            "memory": dict(Counter(fp["memory"] for fp in done).most_common()),
            "classes_per_problem": dict(sorted(Counter(per_problem).items())),
            "execution_classes_per_problem": mean_interval(per_problem),
            "complexity_classes_per_problem": mean_interval(complexity_only),
            "seconds_in_problems": round(sum(line.get("seconds", 0) for line in lines), 1),
            **({"seconds_this_run": round(seconds, 1)} if seconds is not None else {})}


def cross(out: Path, release: Path, examples: int = 6) -> dict:
    """How often two fingerprinted human solutions of one problem that share a class by one
    measure differ by the other: execution class (complexity, memory) against the
    detector's technique set (neocoder.techniques.detector, exact set equality)."""
    from itertools import combinations

    from neocoder.techniques.detector import detect
    lines = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    sources = ex.human_python(release, [line["problem_id"] for line in lines])
    same_exec = same_exec_diff = same_tech = same_tech_diff = 0
    shown: dict[str, list] = {"same execution class, other technique set": [],
                              "same technique set, other execution class": []}
    for line in lines:
        done = [(i, fp) for i, fp in enumerate(line["fingerprints"]) if fp]
        techs = {i: frozenset(detect(sources[line["problem_id"]][i], "python")) for i, _ in done}
        for (i, a), (j, b) in combinations(done, 2):
            ka, kb = (a["complexity"], a["memory"]), (b["complexity"], b["memory"])
            if ka == kb:
                same_exec += 1
                if techs[i] != techs[j]:
                    same_exec_diff += 1
                    _example(shown, "same execution class, other technique set", line, i, j, ka, kb, techs, examples)
            if techs[i] == techs[j]:
                same_tech += 1
                if ka != kb:
                    same_tech_diff += 1
                    _example(shown, "same technique set, other execution class", line, i, j, ka, kb, techs, examples)
    return {"pairs_same_execution_class": same_exec, "of_which_other_technique_set": same_exec_diff,
            "pairs_same_technique_set": same_tech, "of_which_other_execution_class": same_tech_diff,
            "examples": shown}


def _example(shown, kind, line, i, j, ka, kb, techs, limit):
    if len(shown[kind]) < limit and all(e["problem_id"] != line["problem_id"] for e in shown[kind]):
        shown[kind].append({"problem_id": line["problem_id"], "solutions": [i, j], "execution": [ka, kb],
                            "techniques": [sorted(techs[i]), sorted(techs[j])]})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("data/diversity/human_fingerprints.jsonl"))
    parser.add_argument("--limit", type=int, default=None, help="only the first N problems (for a time estimate)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--summary", action="store_true", help="print the counts of --out and stop")
    parser.add_argument("--cross", action="store_true",
                        help="compare execution classes with technique sets over the pairs of --out and stop")
    args = parser.parse_args(argv)
    if args.summary or args.cross:
        print(json.dumps(cross(args.out, default_release_dir()) if args.cross else summary(args.out), indent=1))
        return 0
    started = time.time()
    states = [s for s in load_states() if s.state == 0][:args.limit]
    done = set()
    if args.out.exists():
        done = {json.loads(x)["problem_id"] for x in args.out.read_text().splitlines() if x.strip()}
    todo = [s for s in states if s.problem_id not in done]
    humans = ex.human_python(default_release_dir(), [s.problem_id for s in todo])
    cache = ex.default_cache()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with ex_sandbox(args.workers) as box, args.out.open("a") as out:
        for state in tqdm(todo, desc="human fingerprints", unit="problem"):
            line = problem_line(box, state, humans.get(state.problem_id, []), cache, args.workers)
            out.write(json.dumps(line) + "\n")
            out.flush()
    print(json.dumps(summary(args.out, time.time() - started), indent=1))
    return 0


def ex_sandbox(workers: int):
    """The local Docker sandbox with ``workers`` warm workers."""
    from neocoder.executors import open_sandbox
    return open_sandbox(SandboxConfig(workers=workers))


if __name__ == "__main__":
    sys.exit(main())
