"""``neocoder/ideas``: LiveIdeaBench as an inspect_ai task (see loops.py for the pattern).

One sample per keyword; the solver runs neocoder's ``ideas.loop.run_keyword`` unchanged with
inspect's model as the idea model (bridge.py) and the panel ``judges`` (neocoder model specs,
comma-separated: ``-T judges=openai/a,openai/b,openai/c``) as the seats; the records it
yields (ideas, judgements, the fluency grade) stay in the sample's metadata.  The metric
writes them into a scratch run folder and calls ``ideas.summarize_model``, the function
behind ``neocoder ideas``'s metrics.json, so the five scores are the same computation.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.dataset import Sample as InspectSample
from inspect_ai.model import ModelOutput
from inspect_ai.model import get_model as inspect_model
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver

from neocoder.benchmarks.ideas.records import Idea
from neocoder.inspect_tasks.bridge import InspectModel, generate_config, run_loop
from neocoder.records import record_type

SCORES = ("originality", "feasibility", "clarity", "fluency", "flexibility")


def ideas_config(judges: str | list[str], judge_base_url: str | None = None, temperature: float | None = None,
                 max_tokens: int | None = None, judge_temperature: float | None = None,
                 judge_max_tokens: int | None = None, **options):
    """The ``IdeasConfig`` the task stands for, with IdeasConfig's defaults filled in
    (``resolved``) wherever a value is None: the idea model's ``temperature`` and
    ``max_tokens`` (inspect's model sends them), the panel ``judges`` as ``neocoder ideas
    --judges`` takes it (``[NAME=]PROVIDER/MODEL,...``, on ``judge_base_url`` where given)
    with their own, and the loop's ``options``.  No run folder: inspect writes the log.
    Raises NeocoderError for a bad panel or option."""
    from neocoder.benchmarks.ideas.config import IdeasConfig
    from neocoder.benchmarks.ideas.panel import parse_judges
    from neocoder.config import ModelConfig
    given = lambda **kw: {k: v for k, v in kw.items() if v is not None}  # noqa: E731  (None: the declared default)
    text = ",".join(map(str, judges)) if isinstance(judges, (list, tuple)) else str(judges or "")
    seats = parse_judges(text)  # inspect's -T judges=a,b,c arrives as a list
    panel = [ModelConfig(s.spec, **given(base_url=judge_base_url, temperature=judge_temperature,
                                         max_tokens=judge_max_tokens)) for s in seats]
    config = IdeasConfig(model=ModelConfig("inspect/task", **given(temperature=temperature, max_tokens=max_tokens)),
                         judges=panel, judge_names=[s.name for s in seats], out=Path("inspect-log"), progress=False,
                         **given(**options))
    config.check()
    return config.resolved()


_PANELS: dict[tuple, tuple] = {}


def _panel(config, model_name: str):
    """(seat name -> Seat, the seat names that may judge ``model_name``), built once per panel."""
    from dataclasses import astuple

    from neocoder.benchmarks.ideas.panel import Seat, eligible
    from neocoder.models import get_model
    key = (tuple(astuple(j) for j in config.judges), tuple(config.judge_names), config.judges_per_idea, model_name)
    if key not in _PANELS:
        seats = list(zip(config.judge_names, config.judges))
        allowed = eligible([(n, j.spec) for n, j in seats], {model_name}, config.judges_per_idea, model_name)
        _PANELS[key] = {n: Seat(n, j.spec, get_model(j)) for n, j in seats if n in allowed}, allowed
    return _PANELS[key]


def _records(records: list) -> list[dict]:
    return [r.to_dict() for r in records]


@solver
def ideas_solver(judges: str, **options):
    """Write, judge and grade the sample's keyword's ideas with inspect's model."""
    from neocoder.benchmarks.ideas.loop import IdeaWriter, run_keyword
    from neocoder.benchmarks.ideas.sources import Keyword
    from neocoder.models.cache import CallCache

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        config = ideas_config(judges, **options)
        name = str(state.model)
        seats, allowed = _panel(config, name)
        with tempfile.TemporaryDirectory() as scratch:
            writer = IdeaWriter(InspectModel(inspect_model(), name=name), CallCache(Path(scratch) / "calls.jsonl"))
            keyword = Keyword(state.input_text, state.metadata.get("category", ""))
            empty = {"ideas": {}, "judgements": {}, "fluency": None}
            records = await run_loop(run_keyword, int(state.metadata["index"]), keyword, writer, seats, allowed,
                                     config, empty)
        state.metadata.update(records=_records(records), allowed=allowed)
        ideas = [r for r in records if isinstance(r, Idea)]
        state.output = ModelOutput.from_content(model=name, content="\n\n".join(i.idea or "" for i in ideas))
        return state
    return solve


@metric
def ideas_scores(judges: str, **options):
    """LiveIdeaBench's five scores over the keywords (``ideas.summarize_model``: originality,
    feasibility, clarity as judge means, fluency, flexibility), on the judges' scales."""
    from neocoder.benchmarks.ideas.sources import Keyword
    from neocoder.benchmarks.ideas.summary import summarize_model
    from neocoder.store import RunFolder

    def compute(scores: list[SampleScore]) -> dict:
        metas = sorted((s.score.metadata for s in scores), key=lambda m: m["index"])
        if not metas:
            return {}
        records = [record_type(d["type"]).from_dict(d) for m in metas for d in m["records"]]
        keywords = [Keyword(m["keyword"], m.get("category", "")) for m in metas]
        with tempfile.TemporaryDirectory() as scratch:
            folder = RunFolder(Path(scratch))
            folder.write_all(records)
            summary = summarize_model(folder, metas[0]["model"], metas[0]["allowed"],
                                      ideas_config(judges, **options), keywords)
        return {k: float(summary[k]) for k in SCORES if isinstance(summary.get(k), (int, float))}
    return compute


def ideas_scorer_for(judges: str, **options):
    """The scorer (and its metric) of a panel: the keyword's records as the score's metadata."""
    @scorer(metrics=[ideas_scores(judges, **options)], name="ideas_scorer")
    def ideas_scorer():
        async def score(state: TaskState, target: Target) -> Score:
            kept = [r for r in state.metadata["records"] if r["type"] == "idea" and r.get("status") == "ok"]
            return Score(value={"ideas_kept": len(kept)}, explanation=f"{len(kept)} ideas kept",
                         metadata={"records": state.metadata["records"], "allowed": state.metadata["allowed"],
                                   "index": state.metadata["index"], "keyword": state.input_text,
                                   "category": state.metadata.get("category", ""), "model": str(state.model)})
        return score
    return ideas_scorer()


@task
def ideas(judges: str | list[str], limit: int | None = None, keywords: str | None = None,
          ideas_per_keyword: int | None = None, judges_per_idea: int | None = None, seed: int | None = None,
          judge_base_url: str | None = None, temperature: float | None = None, max_tokens: int | None = None,
          judge_temperature: float | None = None, judge_max_tokens: int | None = None) -> Task:
    """LiveIdeaBench (Ruan et al.) on inspect's model: one sample per keyword (LiveIdeaBench's
    keywords.csv, or ``keywords``), judged by the panel ``judges`` (neocoder model specs, on
    ``judge_base_url`` where given; see ``ideas_config``).  Every option left None takes
    IdeasConfig's declared default (``neocoder ideas``'s)."""
    from neocoder.benchmarks.ideas.sources import load_keywords
    options = dict(ideas_per_keyword=ideas_per_keyword, judges_per_idea=judges_per_idea, seed=seed,
                   judge_base_url=judge_base_url, temperature=temperature, max_tokens=max_tokens,
                   judge_temperature=judge_temperature, judge_max_tokens=judge_max_tokens, limit=limit,
                   keywords=Path(keywords) if keywords else None)
    config = ideas_config(judges, **options)  # refuse a bad option before any sample runs
    words = load_keywords(config.keywords)[:config.limit]
    return Task(dataset=MemoryDataset([InspectSample(id=i, input=k.text, metadata={"index": i, "category": k.category})
                                       for i, k in enumerate(words)], name="ideas"),
                solver=ideas_solver(judges, **options), scorer=ideas_scorer_for(judges, **options),
                config=generate_config(config.model), metadata={"neocoder": config.public()})
