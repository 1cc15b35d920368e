"""The framework's numbers with bootstrap intervals over problems (neocoder/metrics/bootstrap.py),
and the judge-validation measures.

- ``mean_interval``: a per-problem value's mean and its 95% percentile interval;
- ``run_scores``: divergent creativity (mean, min, max aggregations of the step entropies,
  App. C.7.2) and, per judge and criterion, the share of YES verdicts over the readable
  ones with the paper's Overall beside them (the mean of the criteria, Tables 3-5); the
  judges' calls and tokens per solution and their ratio (the token saving of App. D.3,
  Table 15); the ``"unreadable"`` replies per judge role (replies.Tally's form) and per
  judge and criterion; a measure whose replies are mostly unreadable
  (replies.mostly_unreadable) is ``{"value": None, "unreadable": True}``, never a number;
- ``outcome``: how the run's solutions ended (runner.Outcome, unit "solution");
- ``auarc``: the area under the accuracy-rejection curve (Nadeem et al. 2009): solutions
  sorted by the judge's confidence, most confident first, AUARC = (1/n) sum_{k=1..n}
  accuracy of the k most confident; a judge whose confidence ranks its right verdicts
  first scores above its plain accuracy.
"""

from __future__ import annotations

import numpy as np

from neocoder.metrics.bootstrap import Ratio, bootstrap_info, replicates, summarize, weights
from neocoder.replies import Tally, mostly_unreadable
from neocoder.runner import Outcome

STEP_ROLE = "step candidate"  # the generator's sampled steps (grammars.read_candidate)
ENTAIL_ROLE = "entailment"  # the LLM entailment backend's replies (grammars.ENTAIL)


def mean_interval(values: dict[str, float], resamples: int, seed: int) -> dict:
    """``{"value", "low", "high", "se", "n"}``: the mean of ``values`` ({unit: value},
    None values left out) and its bootstrap interval over the units."""
    kept = {u: float(v) for u, v in values.items() if v is not None}
    if not kept:
        return {"value": None, "n": 0}
    units = sorted(kept)
    ratio = Ratio.from_terms((u, kept[u], 1.0) for u in units)
    out = {"value": ratio.value(), "n": len(units)}
    got = summarize(replicates(ratio, units, weights(len(units), resamples, seed))) if len(units) > 1 else None
    return {**out, **(got or {})}


def auarc(correct: list[bool], confidence: list[float]) -> float | None:
    """AUARC of verdicts ``correct`` (right or wrong) ranked by ``confidence`` (higher
    first; ties keep the given order).  None for no verdicts."""
    if not correct:
        return None
    order = sorted(range(len(correct)), key=lambda i: -confidence[i])
    hits = np.cumsum([1.0 if correct[i] else 0.0 for i in order])
    return float(np.mean(hits / np.arange(1, len(order) + 1)))


def auarc_interval(correct: dict[str, bool], confidence: dict[str, float], resamples: int, seed: int) -> dict:
    """AUARC with a bootstrap interval over the units (each replicate draws units with
    replacement and recomputes the curve)."""
    units = sorted(correct)
    value = auarc([correct[u] for u in units], [confidence[u] for u in units])
    if len(units) < 2:
        return {"value": value, "n": len(units)}
    rng = np.random.default_rng(seed)
    reps = np.array([auarc([correct[units[i]] for i in draw], [confidence[units[i]] for i in draw])
                     for draw in rng.integers(0, len(units), size=(resamples, len(units)))])
    return {"value": value, "n": len(units), **(summarize(reps) or {})}


def reply_tallies(solutions: list, steps: list = ()) -> tuple[Tally, dict]:
    """The replies read by the framework's grammars, counted: ``(roles, criteria)`` where
    ``roles`` is a Tally per role ("retrieval verdict", "retrieval confidence", "retrieval
    stance", "chateval verdict", "chateval probability", ``ENTAIL_ROLE``, ``STEP_ROLE``)
    and ``criteria`` is ``{judge: Tally per criterion}`` of the verdict replies.  From the
    solutions' ``verdicts[judge][criterion]["readings"]`` and the FrameworkSteps ``steps``."""
    from neocoder.replies import Reading
    roles, criteria = Tally(), {}
    for s in solutions:
        for judge, by in (s.verdicts or {}).items():
            for criterion, v in (by or {}).items():
                for r in (v or {}).get("readings") or []:
                    reading = Reading(r.get("value"), r.get("reason"))
                    roles.add(f"{judge} {r['role']}", reading)
                    if r["role"] == "verdict":
                        criteria.setdefault(judge, Tally()).add(criterion, reading)
    for st in steps:
        for reason in st.unreadable or []:
            roles.add_reason(STEP_ROLE, reason)
        e = st.entailment_replies or {}
        if e.get("replies"):
            c = roles.counts.setdefault(ENTAIL_ROLE, {"replies": 0, "unreadable": 0, "reasons": {}})
            c["replies"] += e["replies"]
            c["unreadable"] += e["unreadable"]
            for why, n in (e.get("reasons") or {}).items():
                c["reasons"][why] = c["reasons"].get(why, 0) + n
    return roles, criteria


def unreadable_block(block: dict, replies: dict) -> dict:
    """``block`` (a mean_interval) as shown when ``replies`` (unreadable_summary's form) are
    mostly unreadable: ``{"value": None, "unreadable": True, "n", "replies"}``; else
    ``block`` as it is."""
    if not mostly_unreadable(replies):
        return block
    return {"value": None, "unreadable": True, "n": block.get("n", 0), "replies": replies}


def outcome(records: list, judged_by: bool) -> Outcome:
    """How the solutions ``records`` (the latest FrameworkSolution per problem, finished or
    in error) ended: in error (``error``: a model or protocol failure), unreadable (every
    verdict reply of every judge unreadable, or, with no judge (``judged_by`` False), no
    step readable), else judged."""
    out = Outcome("solution")
    for s in records:
        if s.error:
            out.add(error=s.error)
            continue
        if judged_by:
            replies = [r for by in (s.verdicts or {}).values() for v in (by or {}).values()
                       for r in (v or {}).get("readings") or [] if r["role"] == "verdict"]
            readable = any(r.get("reason") is None for r in replies)
            out.add(judged=readable, unreadable=not readable)
        else:
            out.add(judged=s.divergent is not None, unreadable=s.divergent is None)
    return out


def run_scores(solutions: list, resamples: int, seed: int, drop_repeated: bool, steps: list = ()) -> dict:
    """metrics.json of a framework run from its finished FrameworkSolution records (and their
    FrameworkSteps ``steps``, for the candidates' and the entailment backend's replies)."""
    kept = [s for s in solutions if not (drop_repeated and s.repeated)]
    by = {s.problem_id: s for s in kept}
    mine = [st for st in steps if st.problem_id in by]
    roles, per_criterion = reply_tallies(kept, mine)
    counted = roles.to_dict()
    out = {"problems": len(kept), "filtered_repeated": len(solutions) - len(kept),
           "steps": sum(len(s.steps) for s in kept),
           "divergent": {agg: mean_interval({p: getattr(s, key) for p, s in by.items()}, resamples, seed)
                         for agg, key in (("mean", "divergent"), ("min", "divergent_min"),
                                          ("max", "divergent_max"))}}
    for role in (STEP_ROLE, ENTAIL_ROLE):
        out["divergent"] = {agg: unreadable_block(b, counted.get(role)) for agg, b in out["divergent"].items()}
    judges: dict = {}
    for name in sorted({j for s in kept for j in s.verdicts}):
        crit = sorted({c for s in kept for c in s.verdicts.get(name, {})})
        replies = per_criterion.get(name, Tally()).to_dict()
        yes = {c: unreadable_block(mean_interval({p: _yes(s.verdicts.get(name, {}).get(c)) for p, s in by.items()},
                                                 resamples, seed), replies.get(c)) for c in crit}
        whole = mean_interval({p: overall(s.verdicts.get(name, {}), crit) for p, s in by.items()}, resamples, seed)
        if any(b.get("unreadable") for b in yes.values()):  # the mean of the criteria needs every criterion
            whole = {"value": None, "unreadable": True, "n": whole.get("n", 0),
                     "criteria": [c for c, b in yes.items() if b.get("unreadable")]}
        judges[name] = {"yes": yes, "overall": whole, "unreadable": replies,
                        "cost_per_solution": {k: mean_interval({p: s.judge_cost.get(name, {}).get(k)
                                                                for p, s in by.items()}, resamples, seed)["value"]
                                              for k in ("calls", "prompt_tokens", "completion_tokens")}}
    out["judges"] = judges
    out["unreadable"] = counted
    if {"retrieval", "chateval"} <= set(judges):
        out["token_ratio"] = token_ratio(kept)
    code = {p: s for p, s in by.items() if s.sandbox_correct is not None}
    if code:
        out["sandbox"] = {"correct": mean_interval({p: float(s.sandbox_correct) for p, s in code.items()},
                                                   resamples, seed)}
        for name in judges:
            agree = {p: (_yes(s.verdicts.get(name, {}).get("correctness")) == float(s.sandbox_correct))
                     for p, s in code.items() if _yes(s.verdicts.get(name, {}).get("correctness")) is not None}
            out["sandbox"][f"{name}_accuracy"] = mean_interval({p: float(v) for p, v in agree.items()},
                                                               resamples, seed)
    out["bootstrap"] = bootstrap_info(resamples, seed, "problem")
    return out


def overall(verdicts: dict, criteria: list[str]) -> float | None:
    """One solution's Overall: the mean over ``criteria`` of its YES verdicts (1.0 YES, 0.0
    NO), the criteria without a readable verdict left out; None with none readable.  Over
    solutions with every verdict readable its mean is the mean of the criteria's YES shares,
    the creativity-framework paper's "Overall" (Tables 3-5: e.g. GPT-4o on MacGyver,
    (0.82 + 0.86 + 0.21) / 3 = 0.63)."""
    values = [v for v in (_yes(verdicts.get(c)) for c in criteria) if v is not None]
    return sum(values) / len(values) if values else None


def _yes(verdict: dict | None) -> float | None:
    if not verdict or verdict.get("verdict") is None:
        return None
    return float(bool(verdict["verdict"]))


def token_ratio(records: list) -> dict:
    """Retrieval judge tokens over ChatEval's on the same items: input, output and total
    (sums over the items both judged)."""
    both = [r for r in records if "retrieval" in r.judge_cost and "chateval" in r.judge_cost]
    sums = {j: {k: sum(r.judge_cost[j].get(k, 0) or 0 for r in both) for k in ("prompt_tokens", "completion_tokens",
                                                                                "calls")}
            for j in ("retrieval", "chateval")}
    ratio = {}
    for k in ("prompt_tokens", "completion_tokens", "calls"):
        ratio[k] = sums["retrieval"][k] / sums["chateval"][k] if sums["chateval"][k] else None
    total_r = sums["retrieval"]["prompt_tokens"] + sums["retrieval"]["completion_tokens"]
    total_c = sums["chateval"]["prompt_tokens"] + sums["chateval"]["completion_tokens"]
    ratio["total_tokens"] = total_r / total_c if total_c else None
    return {"items": len(both), "sums": sums, "ratio": ratio,
            "per_item": {j: {k: v / len(both) for k, v in s.items()} for j, s in sums.items()} if both else {}}
