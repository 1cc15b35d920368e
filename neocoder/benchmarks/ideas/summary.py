"""A LiveIdeaBench model's summary from its records (``metrics.json``'s ``models``) and
what the ``ideas`` task returns (``IdeasResult``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.panel import draw_judges
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.scoring import keyword_rows, model_scores
from neocoder.benchmarks.ideas.sources import Keyword
from neocoder.store import RunFolder


@dataclass
class IdeasResult:
    """What the ideas task (``api.run_ideas``) returns: the run folder; per idea model its summary (as in
    ``metrics.json``'s ``models``: counts, the five scores, the leaderboard's columns,
    intervals, per keyword and per category rows); the call-cache stats; wall seconds."""

    run: Path
    models: dict[str, dict]
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


def summarize_model(folder: RunFolder, model_name: str, eligible_seats: list[str], settings: IdeasConfig,
                    keywords: list[Keyword]) -> dict:
    """A model's summary from its records in ``folder``: counts, scores with intervals,
    keyword and category rows (``metrics.json``'s ``models[name]``; docs/ideas.md).

    Only the judgements of the seats drawn for an idea now count (a folder resumed with
    another panel or ``judges_per_idea`` may hold others), and only the keywords of this
    run (the first ``limit``)."""
    wanted = {(i, k.text) for i, k in enumerate(keywords)}
    records = [r for r in folder.read() if getattr(r, "model", None) == model_name
               and (getattr(r, "keyword_index", None), getattr(r, "keyword", None)) in wanted]
    ideas = [r for r in records if isinstance(r, Idea)]
    judgements = [r for r in records if isinstance(r, IdeaJudgement)]
    grades = [r for r in records if isinstance(r, FluencyGrade)]

    def drawn(idea):
        return draw_judges(eligible_seats, settings.judges_per_idea, settings.seed, idea.keyword, idea.idea_num)
    kept = {(i.keyword_index, i.idea_num): i for i in ideas if i.status == "ok"}
    counted = [j for j in judgements if (j.keyword_index, j.idea_num) in kept
               and j.judge in drawn(kept[(j.keyword_index, j.idea_num)])]
    rows = keyword_rows(ideas, counted, grades, drawn)
    scores = model_scores(rows, settings.bootstrap, settings.bootstrap_seed)
    by_category: dict[str, list[dict]] = {}
    for row in rows:
        by_category.setdefault(row["category"] or "-", []).append(row)
    categories = {}
    for name, members in sorted(by_category.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        s = model_scores(members, resamples=0)
        categories[name] = {"keywords": len(members), **{k: s[k] for k in
                                                          ("originality", "feasibility", "clarity", "fluency",
                                                           "flexibility")}}
    judged_by: dict[str, int] = {}
    for j in counted:
        judged_by[j.judge] = judged_by.get(j.judge, 0) + 1
    return {
        "keywords": len(rows),
        "ideas": len(ideas),
        "kept": sum(1 for i in ideas if i.status == "ok"),
        "too_long": sum(1 for i in ideas if i.status == "too long"),
        "refused": sum(1 for i in ideas if i.status == "refused"),
        "fallback_asked": sum(1 for i in ideas if i.fallback),
        "fallback_kept": sum(1 for i in ideas if i.fallback and i.status == "ok"),
        "errors": sum(1 for i in ideas if i.status == "error"),
        "mean_words": round(sum(i.words for i in ideas if i.status == "ok") / max(1, len(kept)), 1),
        "judgements": sum(1 for j in counted if j.scores),
        "judge_errors": sum(1 for j in counted if j.error),
        "fluency_graded": sum(1 for g in grades if g.grade is not None),
        "fluency_errors": sum(1 for g in grades if g.error),
        "judges": dict(sorted(judged_by.items())),
        "eligible_judges": list(eligible_seats),
        **scores,
        "per_keyword": [{k: v for k, v in row.items() if k not in ("sums", "counts")} for row in rows],
        "per_category": categories,
    }
