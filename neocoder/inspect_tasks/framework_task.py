"""``neocoder/framework``: the creativity-evaluation framework as an inspect_ai task (see loops.py
for the pattern).

One sample per problem of the chosen ``domain``; the solver runs the framework's own
per-problem loop unchanged (``framework.task.solve_problem``: the step-wise loop with
semantic entropy per step, then the judges) with inspect's model as the generator
(bridge.py): its candidates are sampled through inspect at FrameworkConfig's
``sample_temperature``/``sample_top_p`` with log-probabilities asked for.  The judge (the
analysts, and the ``llm`` entailment backend) stays a neocoder model (``judge=openai/<model>``
on ``judge_base_url``): it is the benchmark's scoring, not the model under test.  The
records the loop yields (``FrameworkStep`` per step, the ``FrameworkSolution``) stay in the
sample's metadata; the scorer gives the sample's divergent score (the mean of its step
entropies, Eq. 3 per step) and its verdicts, and the metric hands the solutions to
``framework.scores.run_scores``, the function behind ``neocoder framework``'s metrics.json,
so nothing is computed twice.  The code domain judges the program in neocoder's sandbox
(the one ``neocoder/neocoder``'s scorer uses, scoring.py).
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.dataset import Sample as InspectSample
from inspect_ai.model import ModelOutput
from inspect_ai.model import get_model as inspect_model
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver

from neocoder.benchmarks.framework.config import FrameworkConfig
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.inspect_tasks.bridge import InspectModel, generate_config, run_loop, shared_embedder, shared_model
from neocoder.inspect_tasks.params import keyword, task_parameters, with_parameters


def framework_config(judge: str, judge_base_url: str | None = None, temperature: float | None = None,
                     max_tokens: int | None = None, judge_temperature: float | None = None,
                     judge_max_tokens: int | None = None, workers: int | None = None, sandbox: str | None = None,
                     **options):
    """The ``FrameworkConfig`` the task stands for, with its declared defaults filled in
    (``resolved``) wherever a value is None: the generator's ``temperature`` and
    ``max_tokens`` (inspect's model sends them outside the candidate calls), the ``judge``
    (a neocoder model spec, on ``judge_base_url`` where given) with its own, the code
    domain's sandbox (``sandbox`` kind, ``workers``) and the loop's and judges' ``options``
    (FrameworkConfig's fields: domain, data, limit, candidates, sample_temperature, ...).
    No run folder: inspect writes the log.  Raises NeocoderError for a bad value, as
    ``neocoder framework`` would."""
    from neocoder.config import ModelConfig, SandboxConfig
    given = lambda **kw: {k: v for k, v in kw.items() if v is not None}  # noqa: E731  (None: the declared default)
    config = FrameworkConfig(
        model=ModelConfig("inspect/task", **given(temperature=temperature, max_tokens=max_tokens)),
        judge=ModelConfig(str(judge), **given(base_url=judge_base_url, temperature=judge_temperature,
                                              max_tokens=judge_max_tokens)),
        out=Path("inspect-log"), sandbox=SandboxConfig(**given(kind=sandbox, workers=workers)), progress=False,
        **given(**options))
    config.check()
    return config.resolved()


@lru_cache(maxsize=4)
def _problems(domain: str, data: str | None) -> dict:
    from neocoder.benchmarks.framework.domains import load_problems
    return {p.problem_id: p for p in load_problems(domain, Path(data) if data else None)}


def problems_of(config) -> list:
    """The problems of ``config``'s domain (``data`` where it reads the user's copy), the
    first ``limit``.  Raises DatasetError as ``load_problems`` does."""
    problems = list(_problems(config.domain, str(config.data) if config.data else None).values())
    return problems[:config.limit] if config.limit else problems


@solver
def framework_solver(**options):
    """Solve the sample's problem step by step with inspect's model and judge the solution
    (``framework.task.solve_problem``); the records go into the sample's metadata."""
    from dataclasses import replace

    from neocoder.benchmarks.framework.task import framework_inputs, needs_embedder, solve_problem

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        import anyio

        config = framework_config(**options)
        name = str(state.model)
        config = replace(config, model=config.model.with_(spec=name))  # the records name inspect's model
        problem = _problems(config.domain, str(config.data) if config.data else None)[state.metadata["problem_id"]]
        box = None
        if config.domain == "code":
            from neocoder.inspect_tasks.scoring import shared_sandbox
            box = await anyio.to_thread.run_sync(shared_sandbox, config.sandbox)
        inputs = framework_inputs(config, [problem], InspectModel(inspect_model(), name=name),
                                  shared_model(config.judge),
                                  shared_embedder(config.embedder) if needs_embedder(config) else None, box)
        records = await run_loop(solve_problem, config, inputs, problem.problem_id)
        solution = next(r for r in records if isinstance(r, FrameworkSolution))
        state.metadata["steps"] = [r.to_dict() for r in records if isinstance(r, FrameworkStep)]
        state.metadata["solution"] = solution.to_dict()
        state.output = ModelOutput.from_content(model=name, content="\n".join(
            f"Step {i}: {s}" for i, s in enumerate(solution.steps, 1)) or (solution.error or ""))
        return state
    return solve


def flat_metrics(metrics: dict, prefix: str = "") -> dict[str, float]:
    """``metrics`` (``run_scores``'s metrics.json) as inspect's flat ``{name: float}``: a
    number keeps its path (``problems``, ``steps``), an interval ``{"value", ...}`` gives its
    value (``divergent/mean``, ``retrieval/yes/safety``, ``retrieval/cost_per_solution/calls``);
    None values and the ``bootstrap`` description are left out."""
    out: dict[str, float] = {}
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if key == "bootstrap" or value is None or isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            out[name] = float(value)
        elif isinstance(value, dict) and "value" in value:
            if isinstance(value["value"], (int, float)):
                out[name] = float(value["value"])
        elif isinstance(value, dict):
            out.update(flat_metrics(value, f"{name}/"))
    return out


@metric
def framework_scores(**options):
    """The framework's numbers over the problems (``framework.scores.run_scores``, the
    function behind ``neocoder framework``'s metrics.json, on the finished solutions):
    divergent creativity (mean, min, max of the step entropies, nats; App. C.7.2), per
    judge and criterion the share of YES verdicts, the judges' cost per solution, and
    (code) the sandbox's share correct; flattened by ``flat_metrics``."""
    from neocoder.benchmarks.framework.scores import run_scores

    def compute(scores: list[SampleScore]) -> dict:
        config = framework_config(**options)
        solutions = [FrameworkSolution.from_dict(s.score.metadata["solution"]) for s in scores]
        done = [s for s in solutions if s.finished]
        return flat_metrics(run_scores(done, config.bootstrap, config.bootstrap_seed,
                                       drop_repeated=config.domain == "bookmia"))
    return compute


def sample_values(solution: FrameworkSolution) -> dict:
    """A sample's score: ``divergent`` (the mean step entropy, nats), ``steps`` (chosen),
    and per judge and criterion ``<judge>/<criterion>`` = 1.0 for YES, 0.0 for NO (left out
    when the judge gave no verdict or the solution failed)."""
    out = {"steps": float(len(solution.steps))}
    if solution.divergent is not None:
        out["divergent"] = float(solution.divergent)
    for judge, verdicts in solution.verdicts.items():
        for criterion, verdict in verdicts.items():
            if (verdict or {}).get("verdict") is not None:
                out[f"{judge}/{criterion}"] = float(bool(verdict["verdict"]))
    return out


def framework_scorer_for(**options):
    """The scorer (and its metric) of a config: the solution's values, its records as the
    score's metadata."""
    @scorer(metrics=[framework_scores(**options)], name="framework_scorer")
    def framework_scorer():
        async def score(state: TaskState, target: Target) -> Score:
            solution = FrameworkSolution.from_dict(state.metadata["solution"])
            steps = state.metadata["steps"]
            why = (f"error: {solution.error}" if solution.error else
                   f"{len(solution.steps)} steps ({solution.stop_reason}); estimator "
                   f"{', '.join(sorted({s['estimator'] for s in steps})) or '-'}")
            return Score(value=sample_values(solution), answer=state.output.completion, explanation=why,
                         metadata={"solution": state.metadata["solution"], "steps": steps})
        return score
    return framework_scorer()


def framework(judge: str, **given) -> Task:
    """The creativity-evaluation framework (creativity-framework paper) on inspect's model:
    one sample per problem of ``domain`` (macgyver shipped; hypogen and bookmia from
    ``data``; code: NeoCoder's states at t = 0, judged in the sandbox), solved step by
    step and judged by ``judge`` (a neocoder model spec, on ``judge_base_url`` where given).
    Its parameters are FrameworkConfig's declared options (``params.task_parameters``) and
    the model and sandbox settings; every one left None takes FrameworkConfig's declared
    default (``neocoder framework``'s).  Raises NeocoderError for a bad option or a domain
    whose file is missing."""
    options = dict(given, judge=judge)
    if options.get("data"):
        options["data"] = Path(options["data"])
    config = framework_config(**options)  # refuse a bad option before any sample runs
    from neocoder.benchmarks.framework.task import FrameworkTask
    FrameworkTask(config).check()  # a domain whose local copy is missing, as `neocoder framework` refuses it
    asked = problems_of(config)
    return Task(dataset=MemoryDataset([InspectSample(id=p.problem_id, input=p.text,
                                                     metadata={"problem_id": p.problem_id, "domain": p.domain})
                                       for p in asked], name=f"framework-{config.domain}"),
                solver=framework_solver(**options), scorer=framework_scorer_for(**options),
                config=generate_config(config.model), metadata={"neocoder": config.public()})


framework = task(with_parameters(framework, task_parameters(
    FrameworkConfig, first=[inspect.Parameter("judge", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str)],
    skip={"concurrency"},
    last=[keyword("judge_base_url", str | None), keyword("temperature", float | None),
          keyword("max_tokens", int | None), keyword("judge_temperature", float | None),
          keyword("judge_max_tokens", int | None), keyword("workers", int | None), keyword("sandbox", str | None)])))
