"""LiveIdeaBench's declaration (neocoder/benchmarks/descriptor.py): its task, records,
headline measures, suite sizes and the surfaces' extensions.

LiveIdeaBench (Ruan et al. 2024) counts originality, fluency and flexibility as divergent
thinking and feasibility and clarity as convergent, each on the judges' 1-10 scale.  Its
scores are per keyword cluster, with no per-item ratio here, so runs are compared by
their intervals.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks.descriptor import CONVERGENT, DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import answers_text, model_value

IDEAS = "ideas"  # ideas from keywords, judged by a panel (task.py)
SOURCE = "LiveIdeaBench (Ruan et al. 2024)"


def suite_config(suite, model, out: Path, options: dict):
    """The IdeasConfig the suite runs: the panel is every suite judge (never the idea model
    itself: up to three eligible judges per idea), seats named judge1, judge2, ..."""
    from neocoder.benchmarks.ideas.config import IdeasConfig
    eligible = [j for j in suite.judges if j.spec != model.spec]
    return IdeasConfig(model=model, judges=list(suite.judges), out=out,
                       judges_per_idea=max(1, min(3, len(eligible))), bootstrap=suite.bootstrap,
                       bootstrap_seed=suite.bootstrap_seed, progress=suite.progress,
                       judge_names=[f"judge{i + 1}" for i in range(len(suite.judges))], **options)


def run_items(folder: Path, model: str) -> list[str]:
    """The keywords a run gave ``model`` ideas on, sorted."""
    from neocoder.benchmarks.ideas.records import Idea
    from neocoder.store import RunFolder
    return sorted({i.keyword for i in RunFolder(Path(folder), create=False).read(Idea) if i.model == model})


def default_items(manifest) -> int | None:
    """LiveIdeaBench's 1180 keywords, where its keywords file is here (a run given its own
    --keywords file, or none found: None)."""
    from neocoder.benchmarks.ideas.sources import load_keywords
    from neocoder.errors import NeocoderError
    if manifest.config.get("keywords"):
        return None
    try:
        return len(load_keywords())
    except NeocoderError:
        return None


def default_ids(manifest) -> set[str] | None:
    """LiveIdeaBench's keywords, where its keywords file is here and the run used it (None
    otherwise)."""
    from neocoder.benchmarks.ideas.sources import load_keywords
    from neocoder.errors import NeocoderError
    if manifest.config.get("keywords"):
        return None
    try:
        return {k.text for k in load_keywords()}
    except NeocoderError:
        return None


BENCHMARK = Benchmark(
    name=IDEAS, title="LiveIdeaBench: ideas from keywords",
    tasks={IDEAS: "neocoder.benchmarks.ideas.task:IdeasTask"},
    records={"idea": "neocoder.benchmarks.ideas.records:Idea",
             "idea_judgement": "neocoder.benchmarks.ideas.records:IdeaJudgement",
             "idea_fluency": "neocoder.benchmarks.ideas.records:FluencyGrade"},
    unit="keyword",
    measures=(
        Measure("originality", "originality", DIVERGENT, "1-10", model_value("originality"), SOURCE),
        Measure("fluency", "fluency", DIVERGENT, "1-10", model_value("fluency"), SOURCE),
        Measure("flexibility", "flexibility", DIVERGENT, "1-10",
                model_value("flexibility", "leaderboard.flexibility", where="leaderboard"), SOURCE),
        Measure("feasibility", "feasibility", CONVERGENT, "1-10", model_value("feasibility"), SOURCE),
        Measure("clarity", "clarity", CONVERGENT, "1-10", model_value("clarity"), SOURCE),
    ),
    presets={QUICK: {"limit": 10, "ideas_per_keyword": 2}, FULL: {}},
    suite_config=suite_config, answers=answers_text, needs_judges=True,
    section="neocoder.report.sections.liveideabench:LiveIdeaBenchSection",
    commands=("neocoder.cli.ideas",),
    inspect=("neocoder.inspect_tasks.ideas_task",),
    published="neocoder.report.sections.liveideabench:published_rows",
    items=run_items, default_items=default_items, default_ids=default_ids,
    recompute="neocoder.benchmarks.ideas.verify:recompute",
    verify="neocoder.benchmarks.ideas.verify:rescore",
)
