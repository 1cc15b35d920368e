"""Validation of the judge against ground truth (``neocoder framework validate``), as a
runner task: resumable, with the call cache and bootstrap intervals.

Ground truths:

- ``macgyver``: MacGyver's human annotations of 4,417 solutions to the shipped solvable
  problems (data/macgyver): an annotation starting ``correct_`` (correct_efficient,
  correct_inefficient, correct_unsolvable) is a correct solution, one starting ``wrong_``
  (wrong_entire_wrong_solution, wrong_fail_solvability_status, wrong_partial_correct) a
  wrong one.  ``pairs`` of them are drawn with ``sample_seed`` (a larger sample extends a
  smaller one).  The judge's verdict on a solution is "correct" when every criterion
  (feasibility, safety, effectiveness) gets YES, "wrong" when one gets NO; a solution whose
  readable verdicts are all YES but one or more is unreadable (grammars.py) has no verdict
  and is set aside, as a framework run sets unreadable verdicts aside: it is counted,
  never taken for NO.
- ``code``: the release's recorded GPT-4 programs shipped with neocoder, each run in the
  sandbox on its problem state's tests (all AC: correct); the judge's verdict is its
  "correctness" criterion.

Per judge: accuracy and AUARC (scores.auarc; confidence = the mean over criteria of the
judge's readable confidences, 0 with none) over the solutions with a verdict, with 95%
bootstrap intervals over the pairs, how many were set aside, the verdict replies per
criterion with their unreadable counts (replies.Tally's form, as a framework run counts
them), the base rate of correct solutions, and the calls and tokens per pair (with both
judges, their ratio).  ``"unreadable"`` (per judge role) and ``"outcome"`` (per solution)
are a framework run's (scores.reply_tallies, scores.outcome).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from neocoder.benchmarks.framework.config import ValidateConfig
from neocoder.benchmarks.framework.descriptor import FRAMEWORK_VALIDATE
from neocoder.benchmarks.framework.domains import CRITERIA, macgyver_annotations, macgyver_problems
from neocoder.benchmarks.framework.records import JudgedPair
from neocoder.benchmarks.framework.scores import (
    auarc_interval,
    mean_interval,
    outcome,
    reply_tallies,
    token_ratio,
)
from neocoder.benchmarks.framework.task import PROMPT_FILES, open_judges
from neocoder.models import ModelError, Reply
from neocoder.models.openai_compat import EndpointError
from neocoder.runner import Run, Task

NAME = FRAMEWORK_VALIDATE  # the task and the manifest kind (descriptor.py)
GPT4 = "gpt-4-1106-preview"


def seeded_prefix(rows: list, count: int, seed: int) -> list:
    """The first ``count`` of ``rows`` shuffled with ``seed`` (random.Random.shuffle): a
    larger sample extends a smaller one, so ``--pairs 5`` scores the first five pairs of an
    unfinished ``--pairs 20`` run folder."""
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    return rows[:count]


def macgyver_pairs(count: int, seed: int) -> list[dict]:
    """``count`` annotated solutions drawn with ``seed`` (``seeded_prefix``),
    each ``{"pair_id", "problem", "solution", "truth", "label"}``."""
    problems = {p.problem_id: p.text for p in macgyver_problems()}
    rows = [a for a in macgyver_annotations() if a["problem_id"] in problems]
    drawn = seeded_prefix(rows, count, seed)
    return [{"pair_id": f"{a['problem_id']}-{a['index']}", "problem": problems[a["problem_id"]],
             "solution": a["solution"].replace("<br>", ""), "truth": a["annotation"].startswith("correct"),
             "label": a["annotation"]} for a in drawn]


def code_pairs(count: int, seed: int) -> list[dict]:
    """``count`` (problem state, recorded GPT-4 program) pairs drawn with ``seed``; their
    truth comes from the sandbox when they are solved."""
    from neocoder.dataset.shipped import load_states, recorded_codes
    codes = recorded_codes(GPT4)
    rows = []
    for s in load_states():
        listed = codes.get(s.problem_id) or []
        i = s.source_index if s.source_index is not None else s.state
        if 0 <= i < len(listed) and listed[i]:
            rows.append({"pair_id": f"{s.problem_id}-{s.state}", "problem": s.statement.strip(),
                         "solution": listed[i], "state": s})
    return seeded_prefix(rows, count, seed)


@dataclass
class ValidateInputs:
    """What a validation run works with (``ValidateTask.open``): the annotated ``pairs`` by
    id and their ``order``, the ``judges``, the ``sandbox`` (against the code domain); once
    scored, the ``pairs_done``."""

    pairs: dict
    order: list
    judges: list
    sandbox: Any
    pairs_done: list = field(default_factory=list)


class ValidateTask(Task, name=NAME, config_type=ValidateConfig, unit="solution", prompts=PROMPT_FILES,
                   record_type=JudgedPair):
    """The judge against ground truth (see the module)."""

    def open(self, run: Run) -> "ValidateInputs":
        """Draw the pairs against the ground truth ``--against`` names (``--pairs`` of them, with
        ``--sample-seed``), open the judge model, the embedder where the retrieval judge needs one
        (at the judge's ``--base-url`` with its ``--api-key``: ``embedders.embedder_for``) and the
        sandbox (code)."""
        from neocoder.models.embedders import embedder_for
        config = self.config
        pairs = macgyver_pairs(config.pairs, config.sample_seed) if config.against == "macgyver" \
            else code_pairs(config.pairs, config.sample_seed)
        judge = run.cached(run.open_model(config.judge))
        embedder = embedder_for(config.embedder, config.judge) if config.judges in ("retrieval", "both") else None
        return ValidateInputs(pairs={p["pair_id"]: p for p in pairs}, order=[p["pair_id"] for p in pairs],
                              judges=open_judges(config, judge, embedder),
                              sandbox=run.open_sandbox(config.sandbox) if config.against == "code" else None)

    def items(self, run: Run) -> list:
        """One item per pair, ``(pair_id,)``, in the drawn order."""
        return [(pid,) for pid in run.inputs.order]

    def key(self, item) -> tuple:
        """(against, pair_id): the key of the pair's JudgedPair."""
        return (self.config.against, item[0])

    def solve(self, item, run: Run):
        """Judge one pair with every judge (the code domain's truth first comes from the
        sandbox) and yield its JudgedPair; a model failure is kept as its ``error`` (retried on
        resume).  Raises EndpointError (every call would fail alike)."""
        pair = run.inputs.pairs[item[0]]
        truth, label = pair.get("truth"), pair.get("label", "")
        if truth is None:  # code: the sandbox decides
            truth, label = self._sandbox(pair, run)
        record = JudgedPair(self.config.against, pair["pair_id"], pair["problem"], pair["solution"], truth, label)
        try:
            for judge in run.inputs.judges:
                result = judge.judge(pair["problem"], pair["solution"], CRITERIA[self.config.against])
                record.verdicts[judge.name] = result.verdicts
                record.judge_cost[judge.name] = result.cost
                record.discussion[judge.name] = result.transcript
        except EndpointError:
            raise
        except ModelError as exc:
            record.error = str(exc)
        yield record

    def _sandbox(self, pair: dict, run: Run) -> tuple[bool, str]:
        from neocoder.benchmarks.framework.code import sandbox_truth
        from neocoder.benchmarks.neocoder.pipeline import judge_reply
        from neocoder.records import Sample
        state = pair["state"]
        sample = Sample(problem_id=state.problem_id, state=state.state, sample=0, model=GPT4,
                        constraints=list(state.constraints), prompt_sha256="", strategy="recorded")
        judge_reply(sample, state, Reply(text=f"```python\n{pair['solution']}\n```"), run.inputs.sandbox, None)
        verdicts = [t.get("verdict") for tier in (sample.examples, sample.plus) if tier for t in tier.tests]
        return sandbox_truth(sample), ",".join(sorted(set(v for v in verdicts if v)))

    def score(self, run: Run) -> dict:
        """The judges' accuracy, AUARC and cost per pair (``judge_accuracy``) on the finished pairs,
        with the share of correct solutions, the unreadable replies per judge role and the
        outcome per solution, and, with both judges, their token ratio."""
        config = self.config
        latest = {r.pair_id: r for r in run.folder.read(JudgedPair)
                  if r.against == config.against and r.pair_id in run.inputs.pairs}
        done = {p: r for p, r in latest.items() if r.finished}
        out = {"benchmark": NAME, "against": config.against, "judge": config.judge.spec, "pairs": len(done),
               "correct_share": mean_interval({p: float(r.truth) for p, r in done.items()}, config.bootstrap,
                                              config.bootstrap_seed)["value"], "judges": {}}
        for name in sorted({j for r in done.values() for j in r.verdicts}):
            out["judges"][name] = judge_accuracy(done, name, config.bootstrap, config.bootstrap_seed)
        if {"retrieval", "chateval"} <= set(out["judges"]):
            out["token_ratio"] = token_ratio(list(done.values()))
        out["unreadable"] = reply_tallies(list(done.values()))[0].to_dict()
        out["outcome"] = outcome(list(latest.values()), judged_by=True).to_dict()
        run.inputs.pairs_done = done
        return out


def verdict_of(verdicts: dict) -> tuple[bool | None, float]:
    """(the judge says correct: True when every criterion is YES, False when one is NO, None
    when the readable ones are all YES but one is unreadable (set aside, never read as NO);
    its confidence: the mean over criteria of the readable confidences, 0.0 with none)."""
    said = [v.get("verdict") for v in verdicts.values()]
    if not said or any(v is False for v in said):
        says = False if said else None
    else:
        says = True if all(v is True for v in said) else None
    confs = [v.get("confidence") for v in verdicts.values() if v.get("confidence") is not None]
    return says, sum(confs) / len(confs) if confs else 0.0


def judge_accuracy(done: dict, name: str, resamples: int, seed: int) -> dict:
    """Accuracy, AUARC (intervals over pairs), share said correct, the solutions set aside for
    an unreadable verdict, the verdict replies per criterion (replies.Tally's form) and the
    cost per pair of judge ``name`` on the JudgedPairs ``done``."""
    right, conf, says, aside = {}, {}, {}, 0
    for pid, r in done.items():
        if name not in r.verdicts:
            continue
        said, c = verdict_of(r.verdicts[name])
        if said is None:
            aside += 1
            continue
        right[pid], conf[pid], says[pid] = said == r.truth, c, said
    per_criterion = reply_tallies([r for r in done.values() if name in r.verdicts])[1].get(name)
    criteria = per_criterion.to_dict() if per_criterion else {}
    return {"accuracy": mean_interval({p: float(v) for p, v in right.items()}, resamples, seed),
            "auarc": auarc_interval(right, conf, resamples, seed),
            "said_correct": mean_interval({p: float(v) for p, v in says.items()}, resamples, seed)["value"],
            "set_aside": aside, "unreadable": criteria,
            "unreadable_verdicts": sum(c["unreadable"] for c in criteria.values()),
            "cost_per_pair": {k: sum(r.judge_cost.get(name, {}).get(k, 0) or 0 for r in done.values()) /
                              max(1, len(right) + aside) for k in ("calls", "prompt_tokens", "completion_tokens")}}
