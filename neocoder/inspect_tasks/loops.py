"""``neocoder/aidanbench``: AidanBench as an inspect_ai task (ideas_task.py follows the same pattern).

Each sample is one AidanBench question; the solver runs neocoder's loop for it unchanged
(``aidanbench.loop.run_question``) with inspect's model as the generator (bridge.py), and
keeps the records it yields in the sample's metadata; the scorer reads them, and the metric
is neocoder's own totals (``aidanbench.loop.totals``), so nothing is scored twice.  The
coherence judge stays a neocoder model (``judge=openai/<model>``, ``replay/...``): it is part
of the benchmark's scoring, not the model under test.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.dataset import Sample as InspectSample
from inspect_ai.model import ModelOutput
from inspect_ai.model import get_model as inspect_model
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.inspect_tasks.bridge import InspectModel, generate_config, run_loop
from neocoder.inspect_tasks.bridge import shared_embedder as _embedder
from neocoder.inspect_tasks.bridge import shared_model as _judge


def aidan_config(judge: str | None = None, judge_base_url: str | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, judge_temperature: float | None = None,
                 judge_max_tokens: int | None = None, **options):
    """The ``AidanConfig`` the task stands for, with AidanConfig's defaults filled in
    (``resolved``) wherever a value is None: the generator's ``temperature`` and
    ``max_tokens`` (inspect's model sends them), the ``judge`` (a neocoder model spec, on
    ``judge_base_url`` where given; none: novelty only) with its own, and the loop's
    ``options``.  No run folder: inspect writes the log.  Raises NeocoderError for a bad value."""
    from pathlib import Path

    from neocoder.benchmarks.aidanbench.config import AidanConfig
    from neocoder.config import ModelConfig
    given = lambda **kw: {k: v for k, v in kw.items() if v is not None}  # noqa: E731  (None: the declared default)
    judge_model = None if judge in (None, "", "none") else ModelConfig(
        judge, **given(base_url=judge_base_url, temperature=judge_temperature, max_tokens=judge_max_tokens))
    config = AidanConfig(model=ModelConfig("inspect/task", **given(temperature=temperature, max_tokens=max_tokens)),
                         out=Path("inspect-log"), judge=judge_model, progress=False, **given(**options))
    config.check()
    return config.resolved()


@solver
def aidanbench_solver(**options):
    """Answer the sample's question until AidanBench's stop rule, with inspect's model."""
    from neocoder.benchmarks.aidanbench.loop import run_question

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        config = aidan_config(**options)
        generator = InspectModel(inspect_model(), name=str(state.model))
        records = await run_loop(run_question, int(state.metadata["index"]), state.input_text, generator,
                                 _judge(config.judge), _embedder(config.embedder), config, [])
        answers = [r for r in records if isinstance(r, Answer)]
        state.metadata["answers"] = [a.to_dict() for a in answers]
        state.metadata["result"] = next(r for r in records if isinstance(r, QuestionResult)).to_dict()
        state.output = ModelOutput.from_content(model=str(state.model),
                                                content="\n\n".join(f"{a.answer_num}. {a.answer}" for a in answers))
        return state
    return solve


@metric
def aidanbench_totals():
    """AidanBench's totals over the questions (``aidanbench.loop.totals``): answers before the
    stop summed (the README's score), novelty summed (the paper's), errors."""
    from neocoder.benchmarks.aidanbench.loop import totals

    def compute(scores: list[SampleScore]) -> dict:
        results = [QuestionResult.from_dict(s.score.metadata["result"]) for s in scores]
        return {k: float(v) for k, v in totals(results).items() if isinstance(v, (int, float))}
    return compute


@scorer(metrics=[aidanbench_totals()])
def aidanbench_scorer():
    """The question's result as its score: answers before the stop and their novelty sum."""
    async def score(state: TaskState, target: Target) -> Score:
        result = state.metadata["result"]
        return Score(value={"answers": result["answers"], "novelty_sum": result["novelty_sum"]},
                     explanation=f"stopped: {result['stop_reason']}", metadata={"result": result})
    return score


@task
def aidanbench(limit: int | None = None, questions: str | None = None, judge: str | None = None,
               judge_base_url: str | None = None, max_answers: int | None = None, novelty_stop: float | None = None,
               embedder: str | None = None, temperature: float | None = None, max_tokens: int | None = None,
               judge_temperature: float | None = None, judge_max_tokens: int | None = None,
               coherence_scale: int | None = None) -> Task:
    """AidanBench (McLaughlin et al.) on inspect's model: one sample per question (the 65
    shipped, or ``questions``, one a line), answered until incoherent (``judge``: a neocoder
    model spec; none: novelty only) or repetitive (novelty with ``embedder``).  Every
    option left None takes AidanConfig's declared default (``neocoder aidanbench``'s)."""
    from pathlib import Path

    from neocoder.benchmarks.aidanbench.task import load_questions
    options = dict(judge=judge, judge_base_url=judge_base_url, temperature=temperature, max_tokens=max_tokens,
                   judge_temperature=judge_temperature, judge_max_tokens=judge_max_tokens, max_answers=max_answers,
                   novelty_stop=novelty_stop, embedder=embedder, coherence_scale=coherence_scale, limit=limit,
                   questions=Path(questions) if questions else None)
    config = aidan_config(**options)  # refuse a bad option before any sample runs
    asked = load_questions(config.questions)[:config.limit]
    return Task(dataset=MemoryDataset([InspectSample(id=i, input=q, metadata={"index": i})
                                       for i, q in enumerate(asked)], name="aidanbench"),
                solver=aidanbench_solver(**options), scorer=aidanbench_scorer(),
                config=generate_config(config.model), metadata={"neocoder": config.public()})
