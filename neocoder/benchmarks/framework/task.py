"""The framework as a runner task (``neocoder framework``, ``neocoder run framework``).

An item is one problem of the domain; solving it (``solve_problem``, the per-problem loop
the inspect task ``neocoder/framework`` runs too) runs the step-wise loop (stepwise.py),
yielding each ``FrameworkStep`` as it is made, then (code domain) writes the program from
the plan and judges it in the sandbox, then runs the judges (retrieval.py, chateval.py) on
the solution and yields the ``FrameworkSolution``.  A rerun resumes: finished problems
are skipped, an unfinished one continues after its recorded steps, and the run's call
cache answers every call made before.  The runner (neocoder/runner.py) owns the rest.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neocoder.benchmarks.framework.calls import Meter
from neocoder.benchmarks.framework.config import FrameworkConfig
from neocoder.benchmarks.framework.descriptor import FRAMEWORK
from neocoder.benchmarks.framework.domains import DatasetError, Problem, load_problems
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.benchmarks.framework.retrieval import JudgeSettings
from neocoder.benchmarks.framework.stepwise import StepSettings, run_steps, summarise
from neocoder.models import ModelError
from neocoder.models.openai_compat import EndpointError
from neocoder.runner import Run, Task

NAME = FRAMEWORK  # the task and the manifest kind (descriptor.py)
PROMPT_FILES = ("framework_step.txt", "framework_task_macgyver.txt", "framework_task_hypogen.txt",
                "framework_task_bookmia.txt", "framework_task_code.txt", "framework_entail.txt",
                "framework_analyst_init.txt", "framework_analyst_discuss.txt", "framework_confidence.txt",
                "framework_verdict.txt", "framework_chateval_turn.txt", "framework_chateval_verdict.txt")


def judge_settings(config) -> JudgeSettings:
    """The judges' settings from a FrameworkConfig or ValidateConfig."""
    return JudgeSettings(config.discuss_k, config.score_j, config.verdict_l, config.threshold, config.rounds,
                         config.words, config.judge.max_tokens, config.chateval_rounds)


def open_judges(config, model, embedder) -> list:
    """The judges ``config.judges`` names ("retrieval", "chateval", "both", "none")."""
    from neocoder.benchmarks.framework.chateval import ChatEvalJudge
    from neocoder.benchmarks.framework.retrieval import RetrievalJudge
    settings = judge_settings(config)
    out = []
    if config.judges in ("retrieval", "both"):
        out.append(RetrievalJudge(model, embedder, settings))
    if config.judges in ("chateval", "both"):
        out.append(ChatEvalJudge(model, settings))
    return out


def solution_text(problem: Problem, steps: list[str]) -> str:
    """The solution the judges read: numbered steps, or the story's sentences."""
    if problem.domain == "bookmia":
        return " ".join(steps)
    return "\n".join(f"Step {i}: {s}" for i, s in enumerate(steps, 1))


@dataclass
class FrameworkInputs:
    """What a framework run works with (``FrameworkTask.open``): the ``problems`` by id and
    their ``order``, the generator ``model`` and the ``judge`` behind the call cache, the
    ``embedder`` (None when nothing needs one), the ``entailment`` backend, the ``judges``
    (retrieval and/or ChatEval), the ``sandbox`` (code domain); then the ``steps`` an
    earlier run kept per problem and, once scored, the ``solutions``."""

    problems: dict
    order: list
    model: Any
    judge: Any
    embedder: Any
    entailment: Any
    judges: list
    sandbox: Any
    steps: dict = field(default_factory=dict)
    solutions: list = field(default_factory=list)


def needs_embedder(config) -> bool:
    """Whether ``config`` (a resolved FrameworkConfig) needs an embedder: the embedding
    entailment backend or the retrieval judge's fragment index."""
    return config.entailment == "embedding" or config.judges in ("retrieval", "both")


def framework_inputs(config, problems: list, model, judge, embedder, sandbox) -> "FrameworkInputs":
    """The ``FrameworkInputs`` of ``problems`` (a list of Problem) for the resolved
    FrameworkConfig ``config``: the generator ``model`` and the ``judge`` (neocoder
    Models, cached or not), the ``embedder`` (None unless ``needs_embedder``), the
    ``sandbox`` (code domain, else None); the entailment backend and the judges are opened
    here from ``config``, so every surface (the runner's task, the inspect task) builds
    them alike.  Raises NeocoderError as ``open_entailment`` does (an NLI model that
    cannot load)."""
    from neocoder.benchmarks.framework.entailment import open_entailment
    return FrameworkInputs(problems={p.problem_id: p for p in problems}, order=[p.problem_id for p in problems],
                           model=model, judge=judge, embedder=embedder,
                           entailment=open_entailment(config.entailment, nli_model=config.nli_model,
                                                      batch=config.nli_batch, judge=judge, embedder=embedder,
                                                      threshold=config.similarity),
                           judges=open_judges(config, judge, embedder), sandbox=sandbox)


def step_settings(config) -> StepSettings:
    """How the candidates of a step are sampled, from a FrameworkConfig (candidates, their
    temperature and top_p, the step cap and the tokens per step)."""
    return StepSettings(config.candidates, config.sample_temperature, config.sample_top_p, config.max_steps,
                        config.step_tokens)


def solve_problem(config, inputs: "FrameworkInputs", problem_id: str):
    """The framework's per-problem loop: yield each ``FrameworkStep`` of problem
    ``problem_id`` of ``inputs`` as it is made (after the steps ``inputs.steps`` already
    holds for it), then its ``FrameworkSolution`` (scores, the code domain's sandbox
    verdict, the judges' verdicts; ``finish_solution``).  A model failure yields a
    solution with ``error`` set (retried on resume); EndpointError is raised (every call
    would fail alike).  ``neocoder framework`` and the inspect task ``neocoder/framework``
    both run this."""
    problem = inputs.problems[problem_id]
    steps = list(inputs.steps.get(problem.problem_id, []))
    try:
        for step in run_steps(problem, inputs.model, inputs.entailment, step_settings(config), steps):
            steps.append(step)
            yield step
        yield finish_solution(config, inputs, problem, steps)
    except EndpointError:
        raise
    except ModelError as exc:
        yield FrameworkSolution(domain=problem.domain, problem_id=problem.problem_id, model=config.model.spec,
                                steps=[], entropies=[], divergent=None, divergent_min=None,
                                divergent_max=None, stop_reason="error", error=str(exc))


def finish_solution(config, inputs: "FrameworkInputs", problem: Problem,
                    steps: list[FrameworkStep]) -> FrameworkSolution:
    """The solution record of ``problem`` from its ``steps``: scores (``summarise``),
    (code) the program written from the plan and its sandbox verdict, and each judge's
    verdicts per criterion with their calls and tokens.  Raises what the models raise."""
    summary = summarise(steps, config.max_steps)
    record = FrameworkSolution(domain=problem.domain, problem_id=problem.problem_id, model=config.model.spec,
                               **summary)
    text = solution_text(problem, summary["steps"])
    if problem.domain == "code":
        from neocoder.benchmarks.framework.code import judge_program, sandbox_truth
        meter = Meter()
        sample = judge_program(problem.extra["state"], summary["steps"], inputs.judge, inputs.sandbox, meter)
        record.program = sample.code
        record.sandbox_correct = sandbox_truth(sample)
        record.sandbox_verdicts = [t.get("verdict") for tier in (sample.examples, sample.plus) if tier
                                   for t in tier.tests]
        record.judge_cost["program"] = meter.to_dict()
        text = f"Plan:\n{text}\n\nProgram:\n{sample.code}"
    for judge in inputs.judges:
        result = judge.judge(problem.text, text, problem.criteria)
        record.verdicts[judge.name] = result.verdicts
        record.judge_cost[judge.name] = result.cost
        record.discussion[judge.name] = result.transcript
    return record


class FrameworkTask(Task, name=NAME, config_type=FrameworkConfig, unit="problem", prompts=PROMPT_FILES,
                    record_type=FrameworkSolution):
    """The creativity-evaluation framework (see the module)."""

    def check(self) -> None:
        """Refuse a domain whose input is missing, before anything is written."""
        if self.config.domain in ("hypogen", "bookmia") and self.config.data is None:
            raise DatasetError(f"--domain {self.config.domain} reads your local copy of the published file: give "
                               "--data FILE (docs/framework.md lists the fields)")

    def open(self, run: Run) -> "FrameworkInputs":
        """Read the domain's problems (cut to ``--limit``), open the generator and the judge (the
        generator's own model at the judge's temperature when both name the same spec), the
        embedder where one is needed (at the generator's ``--base-url`` with its ``--api-key``,
        as AidanBench's: ``embedders.embedder_for``) and the sandbox (code domain).  Raises
        DatasetError as ``load_problems`` does."""
        from neocoder.models.embedders import embedder_for
        config = self.config
        problems = load_problems(config.domain, config.data)
        problems = problems[:config.limit] if config.limit else problems
        raw = run.open_model(config.model)
        shared = raw.with_temperature(config.judge.temperature) if config.judge.spec == config.model.spec else None
        judge = run.cached(shared or run.open_model(config.judge))
        return framework_inputs(config, problems, run.cached(raw), judge,
                                embedder_for(config.embedder, config.model) if needs_embedder(config) else None,
                                run.open_sandbox(config.sandbox) if config.domain == "code" else None)

    def items(self, run: Run) -> list:
        """One item per problem, ``(problem_id,)``, in the domain's order."""
        return [(pid,) for pid in run.inputs.order]

    def key(self, item) -> tuple:
        """(domain, problem_id): the key of the problem's FrameworkSolution."""
        return (self.config.domain, item[0])

    def pending(self, run: Run, items: list) -> list:
        """The problems with no finished solution yet; the steps the folder holds per problem
        (this domain's) are kept in ``run.inputs.steps`` for ``solve`` to continue after."""
        steps = defaultdict(list)
        for s in run.folder.read(FrameworkStep):
            if s.domain == self.config.domain:
                steps[s.problem_id].append(s)
        run.inputs.steps = steps
        return super().pending(run, items)

    def solve(self, item, run: Run):
        """Run the framework's per-problem loop on the problem (``solve_problem``)."""
        return solve_problem(self.config, run.inputs, item[0])

    def label(self, run: Run) -> str:
        """The progress bar's description: "framework", the domain and the generator's spec."""
        return f"framework {self.config.domain} {self.config.model.spec}"

    def manifest(self, run: Run) -> dict:
        """The number of problems and the entailment backend's name (``entailment_backend``)."""
        return {"problems": len(run.inputs.order), "entailment_backend": run.inputs.entailment.name}

    def score(self, run: Run) -> dict:
        """``scores.run_scores`` of the domain's finished solutions (BookMIA's repeated stories
        dropped), under the benchmark, domain, model, judge and entailment backend, with the
        ``"outcome"`` of every solution in the run (``scores.outcome``: in error, unreadable or
        judged), so a run that lost solutions fails (runner.check_outcome)."""
        from neocoder.benchmarks.framework.scores import outcome, run_scores
        latest = {s.problem_id: s for s in run.folder.read(FrameworkSolution)
                  if s.domain == self.config.domain and s.problem_id in run.inputs.problems}
        done = {p: s for p, s in latest.items() if s.finished}
        steps = [s for s in run.folder.read(FrameworkStep) if s.domain == self.config.domain]
        metrics = run_scores(list(done.values()), self.config.bootstrap, self.config.bootstrap_seed,
                             drop_repeated=self.config.domain == "bookmia", steps=steps)
        run.inputs.solutions = done
        return {"benchmark": NAME, "domain": self.config.domain, "model": self.config.model.spec,
                "judge": self.config.judge.spec, "entailment": run.inputs.entailment.name, **metrics,
                "outcome": outcome(list(latest.values()), bool(run.inputs.judges)).to_dict()}

    def result(self, run: Run, metrics: dict):
        """``{"run", "metrics", "calls", "seconds"}``: the run folder (str), the metrics,
        call-cache stats and wall seconds."""
        return {"run": str(Path(run.folder.path)), "metrics": metrics, "calls": run.cache.stats(),
                "seconds": run.seconds()}
