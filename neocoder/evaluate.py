"""The main job: problem states -> model -> sandbox -> techniques -> metrics.

``evaluate`` is what ``neocoder eval`` runs.  Each sample flows one way through
the stages and is appended to ``samples.jsonl`` as soon as it is judged; a rerun
with the same output folder skips samples already there (resume).
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from tqdm import tqdm

from .judge import Limits, PooledSandbox, SubmissionResult
from .metrics import all_states, divergent_ratio
from .models import Model, ModelError, solve_prompt
from .program import program_from_reply
from .runs import RunDir, sample_key
from .techniques import DETECTED, detect


def judge_constraints(constraints: list[str], techniques: set[str]) -> tuple[list[str], list[str]]:
    """Return (violated, unchecked) constraints of a state for a solution's techniques.

    A constraint the detector cannot decide yet (not in DETECTED) is *unchecked*:
    reported, and not counted as a violation.
    """
    violated = [c for c in constraints if c in DETECTED and c in techniques]
    unchecked = [c for c in constraints if c not in DETECTED]
    return violated, unchecked


def solve_one(state: dict, sample: int, model: Model, sandbox: PooledSandbox,
              human: set[str] | None, cpu_scale: float = 1.0) -> dict:
    """Run one sample of one problem state through every stage; return its record.

    A model failure is recorded as ``error`` (the sample is retried on resume and
    left out of the metrics); a sandbox failure shows as INFRA verdicts and also
    excludes the sample from the metrics.
    """
    prompt = solve_prompt(state["statement"])
    record = {"problem_id": state["problem_id"], "state": state["state"], "sample": sample,
              "model": model.name, "constraints": state["constraints"],
              "prompt_sha256": prompt.sha256()}
    t0 = time.monotonic()
    try:
        reply = model.generate(prompt, state)
    except ModelError as exc:
        record.update(error=str(exc), excluded=True)
        return record
    code = program_from_reply(reply)
    examples, extended = state["tests"], state.get("extended_tests") or []
    result: SubmissionResult = sandbox.run(code, examples + extended, Limits.for_state(state, cpu_scale),
                                           checker=state.get("checker"))
    ext_verdicts = result.tests[len(examples):]
    result.tests = result.tests[:len(examples)]
    techniques = detect(code)
    violated, unchecked = judge_constraints(state["constraints"], techniques)
    record.update(
        reply=reply.text, code=code, code_sha256=hashlib.sha256(code.encode()).hexdigest(),
        entry=result.entry, compile_error=result.compile_error,
        verdicts=[t.to_dict() for t in result.tests],
        correct=result.accepted,
        correct_extended=all(v.verdict == "AC" for v in ext_verdicts) if extended else None,
        extended_verdicts=[v.verdict for v in ext_verdicts] if extended else None,
        techniques=sorted(techniques),
        violated_constraints=violated, unchecked_constraints=unchecked, follows=not violated,
        human_techniques=sorted(human) if human is not None else None,
        new_techniques=sorted(techniques - human) if human is not None else None,
        divergent=divergent_ratio(techniques, human) if human is not None else None,
        excluded=result.infra_failure or any(v.verdict == "INFRA" for v in ext_verdicts),
        tokens={"prompt": reply.prompt_tokens, "completion": reply.completion_tokens},
        timings={"model_s": round(reply.seconds, 4), "judge_s": round(result.seconds, 4),
                 "total_s": round(time.monotonic() - t0, 4)},
    )
    return record


def evaluate(states: list[dict], model: Model, sandbox: PooledSandbox, human_sets: dict,
             run: RunDir, samples: int = 1, workers: int = 2, cpu_scale: float = 1.0,
             progress: bool = True) -> dict:
    """Evaluate ``model`` on ``states`` and return ``{"model", "states": {...}}``.

    ``human_sets`` maps problem_id -> {"techniques": set | None} (see
    techniques.human).  ``workers`` samples are in flight at once.  The metrics cover
    every sample in the run folder for these states, including resumed ones, and
    are also written to ``metrics.json``.
    """
    done = run.done()
    todo = [(s, i) for s in states for i in range(samples)
            if sample_key(s["problem_id"], s["state"], i) not in done]
    bar = tqdm(total=len(states) * samples, initial=len(states) * samples - len(todo),
               desc=f"eval {model.name}", unit="sample", disable=not progress)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(solve_one, s, i, model, sandbox,
                               (human_sets.get(s["problem_id"]) or {}).get("techniques"), cpu_scale)
                   for s, i in todo]
        for fut in as_completed(futures):
            rec = fut.result()
            run.append(rec)
            bar.update(1)
    bar.close()
    wanted = {(s["problem_id"], s["state"]) for s in states}
    kept = [s for s in run.read_samples() if (s["problem_id"], s["state"]) in wanted]
    metrics = {"model": model.name, "states": all_states(kept)}
    run.write_json("metrics.json", metrics)
    return metrics


def format_table(metrics: dict) -> str:
    """The metrics as a plain-text table (rates shown as percentages)."""
    cols = [("state", None), ("n", "n"), ("pass@1", "pass@1"), ("follow", "constraint_following"),
            ("convergent", "convergent"), ("divergent", "divergent"), ("NeoGauge", "neogauge"),
            ("cum.NeoGauge", "cumulative_neogauge")]
    if any(m.get("n_extended") for m in metrics["states"].values()):
        cols.insert(3, ("pass@1+ext", "pass@1_plus"))
    lines = [f"model: {metrics['model']}", "  ".join(f"{c:>12}" for c, _ in cols)]
    for t, m in metrics["states"].items():
        cells = [f"{t:>12}", f"{m['n']:>12}"]
        for _, key in cols[2:]:
            v = m.get(key)
            cells.append(f"{'-' if v is None else f'{100 * v:.1f}%':>12}")
        lines.append("  ".join(cells))
    excluded = sum(m["excluded"] for m in metrics["states"].values())
    if excluded:
        lines.append(f"({excluded} samples excluded: sandbox INFRA failures or model errors; rerun to retry)")
    return "\n".join(lines)
