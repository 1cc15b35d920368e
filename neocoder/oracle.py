"""Accepted human solutions as the test oracle (issue 5).

For each problem, every accepted human Python 3 solution of the release runs through
the sandbox on every example test, and its output is checked with the problem's
checker.  That gives, per test, the share of human solutions that pass it:

- a test that at least ``FIX_SHARE`` (90%) of the humans answer with one and the same
  output, different from the statement's, shows that the problem accepts several
  answers (or that the statement's answer was mis-parsed): the problem becomes
  consensus-checked (``consensus_evidence``), accepting both;
- a test that fewer than half of the humans pass is *dropped*;
- a several-answers ("consensus") problem accepts, per test, every output some human
  produced that ran cleanly, plus the statement's (``accepted_outputs``);
- a problem with a problem-specific checker (neocoder/judge/special/: every
  several-answers problem of the release) is judged by it instead, with or without
  human solutions.

Extended tests: inputs from neocoder.dataset.mutate, run by up to ``label_humans``
accepted human solutions (at least ``MIN_AGREE``); an input is kept only where all of
them finish cleanly and agree under the checker, and its expected output is theirs.
They form a second tier (``extended_tests``) so results report both.

Every human run is appended to a cache file (JSONL, one line per problem, tier and
solution) as soon as it finishes, so an interrupted build resumes without rerunning.
"""

from __future__ import annotations

import hashlib
import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from neocoder.dataset.mutate import mutate_inputs
from neocoder.judge import Limits
from neocoder.judge.checkers import as_checker, check
from neocoder.judge.special import SPECIAL
from neocoder.judge.verdicts import AC, WA
from neocoder.store import JsonlStore

FIX_SHARE = 0.9
DROP_SHARE = 0.5
MIN_AGREE = 5
# Time limits (issue 13): humans run with HUMAN_HEADROOM times the problem's CPU limit, so
# their real CPU time is measured instead of cut at the limit; a state's judge limit is
# then max(Codeforces limit, ALLOWANCE x the slowest accepted human on a kept test), the
# rule EvalPlus uses for its reference-time limits (max(limit, k x reference time)).
HUMAN_HEADROOM = 5
ALLOWANCE = 2.0


def _sha(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def run_humans(sandbox, pid: str, tier: str, humans: list[str], tests: list[dict], limits: Limits,
               cache: JsonlStore, workers: int = 2) -> list[list]:
    """Run each human solution on ``tests``; return ``[[[status, stdout, cpu_seconds], ...] per
    test] per solution`` where status is "ok" (finished cleanly) or the verdict (TLE, RE,
    ...) and cpu_seconds the test's CPU time (None when not measured).  The cache key
    names the CPU limit, so runs made under another limit are not reused."""
    tests_sha = _sha([t["input"] for t in tests])
    probe = [{"input": t["input"], "output": ""} for t in tests]

    def one(src):
        key = (f"{pid}|{tier}:script:cpu{limits.cpu_seconds:g}|{tests_sha}|"
               f"{hashlib.sha256(src.encode('utf-8')).hexdigest()[:16]}")
        cached = cache.get(key)
        if cached is not None:
            return cached
        # as written: a human solve() handles one test case, called from its own loop
        result = sandbox.run(src, probe, limits, keep_output=True, entry="script")
        runs = [["ok" if v.verdict in (AC, WA) else v.verdict, v.stdout or "", v.cpu_seconds] for v in result.tests]
        if not any(r[0] == "INFRA" for r in runs):
            cache.put(key, runs)
        return runs

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, humans))


def _agree(checker: dict, outputs: list[str]) -> bool:
    """All outputs answer the same under the checker (each checked against the first)."""
    spec = dict(checker, kind="float" if checker["kind"] == "float" else "tokens")
    return all(check(spec, o.encode(), {"output": outputs[0]}) for o in outputs[1:])


def validate_examples(tests: list[dict], checker: dict, runs: list[list]) -> tuple[list[dict], list[dict]]:
    """Apply the human runs to the example tests: (kept tests, log of drops).

    Each kept test gains ``human_pass_share`` (0..1), ``humans`` (solutions that ran
    it) and ``provenance``; consensus tests gain ``accepted_outputs``."""
    kept, log = [], []
    n = len(runs)
    for i, test in enumerate(tests):
        outs = [r[i][:2] for r in runs]  # (status, stdout); the CPU time is not needed here
        clean = [o for s, o in outs if s == "ok"]
        test = dict(test, provenance=test.get("provenance", "statement"), humans=n)
        if checker["kind"] == "consensus":
            test["accepted_outputs"] = sorted({" ".join(o.split()) for o in clean})
            passing = len(clean)
        else:
            passing = sum(1 for s, o in outs if s == "ok" and check(checker, o.encode(), test))
        share = passing / n if n else None
        if share is not None and share < DROP_SHARE:
            log.append({"test": i, "action": "dropped", "share": round(share, 3)})
            continue
        test["human_pass_share"] = None if share is None else round(share, 4)
        kept.append(test)
    return kept, log


def _case_evidence(checker: dict, tests: list[dict], runs: list[list]) -> dict:
    """Codeforces judges YES/NO in any case on many problems whose statements do not say
    so; an accepted human solution whose output differs from the expected one only in
    letter case is evidence of that, and turns ``ignore_case`` on (``case_evidence``)."""
    if checker["ignore_case"] or checker["kind"] in ("float", "special"):
        return checker
    for r in runs:
        for (status, out, *_), test in zip(r, tests):
            if status == "ok" and out.split() != test["output"].split() and \
                    out.lower().split() == test["output"].lower().split():
                return dict(checker, ignore_case=True, case_evidence="an accepted human solution differs only in case")
    return checker


def _several_answers_evidence(checker: dict, tests: list[dict], runs: list[list]) -> dict:
    """Accepted human solutions that agree (>= 90%) on an answer other than the
    statement's mean the problem accepts several answers (or the statement's answer was
    mis-parsed): the problem becomes consensus-checked, accepting the statement's answer
    and every answer a human printed (``consensus_evidence``)."""
    if checker["kind"] != "tokens" or not runs:
        return checker
    for i, test in enumerate(tests):
        outs = [r[i][:2] for r in runs]  # (status, stdout); the CPU time is not needed here
        passing = sum(1 for st, o in outs if st == "ok" and check(checker, o.encode(), test))
        if passing >= FIX_SHARE * len(runs):
            continue
        votes: dict[str, int] = {}
        for st, o in outs:
            if st == "ok":
                key = " ".join(o.lower().split() if checker["ignore_case"] else o.split())
                votes[key] = votes.get(key, 0) + 1
        if votes and max(votes.values()) >= FIX_SHARE * len(runs):
            return dict(checker, kind="consensus",
                        consensus_evidence=f"test {i}: {max(votes.values())} of {len(runs)} accepted human "
                                           f"solutions agree on another answer than the statement's")
    return checker


def _failures(runs: list[list], tests: list[dict], checker: dict) -> dict:
    """Why human solutions fail a problem's examples: counts of crash/limit verdicts and
    of clean runs with another answer."""
    counts: dict[str, int] = {}
    for r in runs:
        for (status, out, *_), test in zip(r, tests):
            if status != "ok":
                kind = status
            elif checker["kind"] == "consensus" or check(checker, out.encode(), test):
                continue
            else:
                kind = "other answer"
            counts[kind] = counts.get(kind, 0) + 1
            break
    return counts


def _share_all(runs: list[list], pairs: list[tuple[int, dict]], checker: dict) -> float:
    """Share of human solutions passing every test in ``pairs`` ((run index, test))."""
    if not runs:
        return 0.0
    passed = sum(1 for r in runs if all(
        r[i][0] == "ok" and (checker["kind"] == "consensus" or check(checker, r[i][1].encode(), t))
        for i, t in pairs))
    return passed / len(runs)


def label_extended(candidates: list[str], checker: dict, runs: list[list]) -> list[dict]:
    """Extended tests from candidate inputs: kept where every human run finished cleanly
    and all outputs agree under the checker (consensus problems: all clean, and every
    output is accepted)."""
    tests = []
    for i, text in enumerate(candidates):
        outs = [r[i][:2] for r in runs]  # (status, stdout); the CPU time is not needed here
        if len(outs) < MIN_AGREE or any(s != "ok" for s, _ in outs):
            continue
        outputs = [o for _, o in outs]
        if not any(o.strip() for o in outputs):
            continue
        test = {"input": text, "output": outputs[0], "source": "mutation", "provenance": "mutation",
                "humans": len(outs), "human_pass_share": 1.0}
        if checker["kind"] == "consensus":
            test["accepted_outputs"] = sorted({" ".join(o.split()) for o in outputs})
        elif checker["kind"] == "special":
            if not all(check(checker, o.encode(), test) for o in outputs):
                continue  # the checker must accept every human's answer
        elif not _agree(checker, outputs):
            continue
        tests.append(test)
    return tests


def time_limit(codeforces_limit: float, runs: list[list]) -> dict:
    """The judge's CPU limit for a problem from its human runs on its kept tests.

    ``runs``: ``[status, stdout, cpu_seconds]`` per (solution, kept test), made with
    HUMAN_HEADROOM x the limit.  Returns ``{"time_limit_s": max(codeforces_limit,
    ALLOWANCE x slowest clean run), rounded up to 0.1 s; "human_cpu_max_s"; "allowance":
    whether the limit was raised; "too_slow": runs still over the headroom (TLE)}``.
    """
    clean = [r[2] for r in runs if r[0] == "ok" and len(r) > 2 and r[2] is not None]
    slowest = max(clean, default=0.0)
    limit = max(codeforces_limit, math.ceil(ALLOWANCE * slowest * 10) / 10)
    return {"time_limit_s": limit, "human_cpu_max_s": round(slowest, 3), "allowance": limit > codeforces_limit,
            "too_slow": sum(1 for r in runs if r[0] == "TLE")}


def build_oracle(states: list[dict], human_solutions: dict[str, list[str]], sandbox, cache_path: Path,
                 extended: int = 20, label_humans: int = 10, seed: int = 0, workers: int = 2,
                 progress: bool = True) -> tuple[list[dict], dict]:
    """Validate every problem's examples against its human Python solutions and add
    extended tests; return (updated states, report).

    ``states``: problem-state records (all states of a problem share its tests);
    ``human_solutions``: problem_id -> Python 3 sources.  The report has, per problem,
    the checker (with any human evidence), the number of humans, dropped tests, the
    examples' pass shares and the count of extended tests; problems below 90% are listed
    in ``below_90``.
    """
    cache = JsonlStore(cache_path, "runs")  # (problem, tier, tests, solution) -> [[status, stdout]]
    by_problem: dict[str, list[dict]] = {}
    for s in states:
        by_problem.setdefault(s["problem_id"], []).append(s)
    report = {"problems": {}, "below_90": [], "cache_hits": 0, "seed": seed,
              "label_humans": label_humans, "extended_candidates": extended}
    out = []
    settings = {"extended": extended, "label_humans": label_humans, "seed": seed, "workers": workers}
    for pid, group in tqdm(by_problem.items(), desc="human oracle", unit="problem", disable=not progress):
        entry, below, written = validate_problem(pid, group, human_solutions.get(pid, []), sandbox, cache, **settings)
        report["problems"][pid] = entry
        if below is not None:
            report["below_90"].append(below)
        out += written
    report["cache_hits"] = cache.hits
    return out, report


def validate_problem(pid: str, group: list[dict], humans: list[str], sandbox, cache: JsonlStore, extended: int,
                     label_humans: int, seed: int, workers: int) -> tuple[dict, dict | None, list[dict]]:
    """One problem through the oracle: (its report entry, its ``below_90`` row or None,
    its states with validated examples, extended tests, checker and time limit).  A
    problem with no human solution keeps its tests unvalidated; one with no test left
    writes no state."""
    first = group[0]
    checker = as_checker(first.get("checker"))
    if pid in SPECIAL:  # judged by what its statement defines (neocoder/judge/special/)
        checker = {"kind": "special", "special": pid, "ignore_case": False, "tolerance": None}
    codeforces_limit = float(first["time_limit_s"])
    limits = Limits.for_cpu(codeforces_limit * HUMAN_HEADROOM, int(first["memory_limit_mb"]))
    entry = {"checker": checker, "humans": len(humans)}
    if not humans:
        entry["note"] = "no accepted Python 3 human solution: tests not validated"
        return entry, None, [dict(s, checker=checker) for s in group]
    runs = run_humans(sandbox, pid, "examples", humans, first["tests"], limits, cache, workers)
    checker = _several_answers_evidence(_case_evidence(checker, first["tests"], runs), first["tests"], runs)
    entry["checker"] = checker
    tests, log = validate_examples(first["tests"], checker, runs)
    kept_idx = [i for i in range(len(first["tests"]))
                if not any(e["test"] == i and e["action"] == "dropped" for e in log)]
    before = _share_all(runs, list(enumerate(first["tests"])), checker)
    solved_all = _share_all(runs, list(zip(kept_idx, tests)), checker)
    entry.update(log=log, examples=len(tests), share_all_examples_before=round(before, 4),
                 share_all_examples=round(solved_all, 4),
                 min_test_share=min((t["human_pass_share"] for t in tests), default=None))
    below = None
    if not tests or solved_all < FIX_SHARE:
        below = {"problem_id": pid, "share": round(solved_all, 4), "failures": _failures(runs, first["tests"], checker),
                 "reason": "no test left: the problem is left out of the dataset" if not tests
                 else "fewer than 90% of human solutions pass all kept examples"}
    # label with the solutions that pass every kept example here (a solution that fails
    # in this sandbox, e.g. by reading input its own way, says nothing about new inputs)
    labellers = [h for h, r in zip(humans, runs) if _share_all([r], list(zip(kept_idx, tests)), checker) == 1.0]
    labellers = labellers[:label_humans]
    ext, ext_runs_kept = [], []
    if extended and len(labellers) >= MIN_AGREE and tests:
        candidates = mutate_inputs([t["input"] for t in tests], extended, f"{seed}:{pid}")
        if candidates:
            ext_runs = run_humans(sandbox, pid, "extended", labellers, [{"input": c} for c in candidates], limits,
                                  cache, workers)
            ext = label_extended(candidates, checker, ext_runs)
            kept_inputs = {t["input"] for t in ext}
            ext_runs_kept = [r[i] for r in ext_runs for i, c in enumerate(candidates) if c in kept_inputs]
        entry["extended_candidates"] = len(candidates)
    entry["extended"] = len(ext)
    timing = time_limit(codeforces_limit, [r[i] for r in runs for i in kept_idx] + ext_runs_kept)
    entry.update(timing)
    if not tests:
        return entry, below, []  # nothing left to judge with: its states are not written
    oracle = {"humans": len(humans), "labelled_by": len(labellers) if ext else 0,
              "dropped": sum(e["action"] == "dropped" for e in log), "share_all_examples": round(solved_all, 4),
              "human_cpu_max_s": timing["human_cpu_max_s"]}
    return entry, below, [dict(s, tests=tests, extended_tests=ext, checker=checker,
                               time_limit_s=timing["time_limit_s"], codeforces_time_limit_s=codeforces_limit,
                               oracle=oracle) for s in group]


def validate_release_states(records: list[dict], release_dir: Path, sandbox, cache_path: Path, extended: int = 20,
                            label_humans: int = 10, seed: int = 0, workers: int = 2,
                            progress: bool = True) -> tuple[list[dict], dict]:
    """``build_oracle`` with the release's accepted human Python solutions of the problems
    in ``records`` (what ``build-dataset`` and the default dataset both do)."""
    from neocoder.techniques.human import solutions_by_language
    pids = list(dict.fromkeys(r["problem_id"] for r in records))
    humans = {pid: [src for lang, src in sols if lang == "python"]
              for pid, sols in solutions_by_language(release_dir, pids).items()}
    return build_oracle(records, humans, sandbox, cache_path, extended=extended, label_humans=label_humans,
                        seed=seed, workers=workers, progress=progress)

