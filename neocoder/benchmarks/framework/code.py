"""The code domain's last stage: the program written from the step-wise plan and judged in
the sandbox, a ground truth for the judge's "correctness" verdict.

The plan's steps (stepwise.py) are put where ``self-plan`` puts its plan
(strategies/self_plan.py: a "# Plan:" comment block before the code prefix for base
models, an assistant turn for chat models); the program is then asked for with the
NeoCoder solve prompt (solve.py) at temperature 0 and judged by ``pipeline.judge_reply`` on
the state's example and extended tests, exactly as an ``eval`` sample is.
"""

from __future__ import annotations

from neocoder.benchmarks.framework.calls import Meter
from neocoder.benchmarks.neocoder.pipeline import judge_reply
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.benchmarks.neocoder.strategies.base import completion_head, prompt_with
from neocoder.models import Model
from neocoder.records import ProblemState, Sample
from neocoder.resources import prompt_text


def program_prompt(state: ProblemState, steps: list[str]):
    """The prompt asking for the program that follows ``steps``."""
    first = solve_prompt(state.statement.strip())
    plan_start = prompt_text("self_plan_completion.txt")
    lines = [f" {steps[0]}" if steps else " (no plan)"] + [f"# {i}. {s}" for i, s in enumerate(steps[1:], 2)]
    listed = "\n".join(lines) + "\n"
    plan = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    plan_user = prompt_text("self_plan_user.txt").replace("{statement}", state.statement.strip())
    return prompt_with(first, messages=(first.messages[0], {"role": "user", "content": plan_user},
                                        {"role": "assistant", "content": plan},
                                        {"role": "user", "content": prompt_text("self_plan_code_user.txt")}),
                       completion=completion_head(first) + plan_start + listed + first.code_prefix,
                       temperature=0.0)


def judge_program(state: ProblemState, steps: list[str], model: Model, sandbox, meter: Meter) -> Sample:
    """Write the program from ``steps`` and judge it in ``sandbox`` on every test of
    ``state``; returns the judged Sample (``correct``: every example test AC; ``plus``:
    the extended tests).  Raises what the model raises."""
    prompt = program_prompt(state, steps)
    reply = meter.ask(model, prompt)
    record = Sample(problem_id=state.problem_id, state=state.state, sample=0, model=model.name,
                    constraints=list(state.constraints), prompt_sha256=prompt.sha256(), strategy="framework-plan")
    return judge_reply(record, state, reply, sandbox, None)


def sandbox_truth(sample: Sample) -> bool:
    """The ground truth of the correctness criterion: every example test AC and, where the
    state has extended tests, every extended test too."""
    return sample.correct and (sample.plus is None or sample.plus.correct)
