"""``neocoder/aidanbench``: AidanBench as an inspect_ai task (ideas_task.py follows the same pattern).

Each sample is one AidanBench question; the solver runs neocoder's loop for it unchanged
(``aidanbench.loop.run_question``) with inspect's model as the generator (bridge.py), and
keeps the records it yields in the sample's metadata; the scorer reads them, and the metric
is neocoder's own totals (``aidanbench.loop.totals``), so nothing is scored twice.  The
coherence judge stays a neocoder model (``judge=openai/<model>``, ``replay/...``): it is part
of the benchmark's scoring, not the model under test.
"""

from __future__ import annotations

from functools import lru_cache

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample as InspectSample
from inspect_ai.model import ModelOutput, get_model as inspect_model
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver

from ..records import Answer, QuestionResult
from .bridge import InspectModel, run_loop


@lru_cache(maxsize=2)
def _embedder(spec: str):
    from ..aidanbench.embedders import get_embedder
    return get_embedder(spec)


@lru_cache(maxsize=4)
def _judge(spec: str | None):
    from ..models import get_model
    return None if spec in (None, "", "none") else get_model(spec)


def aidan_config(**options):
    """The ``AidanConfig`` the task stands for (no run folder: inspect writes the log)."""
    from pathlib import Path

    from ..config import AidanConfig, ModelConfig
    judge = options.pop("judge", None)
    return AidanConfig(model=ModelConfig("inspect/task"), out=Path("inspect-log"),
                       judge=None if judge in (None, "", "none") else ModelConfig(judge), progress=False, **options)


@solver
def aidanbench_solver(judge: str | None, **options):
    """Answer the sample's question until AidanBench's stop rule, with inspect's model."""
    from ..aidanbench.loop import run_question

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        config = aidan_config(judge=judge, **options)
        generator = InspectModel(inspect_model(), name=str(state.model))
        records = await run_loop(run_question, int(state.metadata["index"]), state.input_text, generator,
                                 _judge(judge), _embedder(config.embedder), config, [])
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
    from ..aidanbench.loop import totals

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
               max_answers: int = 100, novelty_stop: float | None = None, embedder: str = "local/all-MiniLM-L6-v2",
               temperature: float = 0.7) -> Task:
    """AidanBench (McLaughlin et al.) on inspect's model: one sample per question (the 65
    shipped, or ``questions``, one a line), answered until incoherent (``judge``: a neocoder
    model spec; none: novelty only) or repetitive (novelty with ``embedder``)."""
    from pathlib import Path

    from inspect_ai.model import GenerateConfig

    from ..tasks.aidanbench import load_questions
    options = dict(max_answers=int(max_answers), embedder=embedder,
                   **({} if novelty_stop is None else {"novelty_stop": float(novelty_stop)}))
    aidan_config(judge=judge, **options)  # refuse a bad option before any sample runs
    asked = load_questions(Path(questions) if questions else None)[:None if limit is None else int(limit)]
    return Task(dataset=MemoryDataset([InspectSample(id=i, input=q, metadata={"index": i})
                                       for i, q in enumerate(asked)], name="aidanbench"),
                solver=aidanbench_solver(judge, **options), scorer=aidanbench_scorer(),
                config=GenerateConfig(temperature=float(temperature)))
