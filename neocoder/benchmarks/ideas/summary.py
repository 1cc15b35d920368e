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
from neocoder.replies import Tally, mostly_unreadable
from neocoder.store import RunFolder

# what each measure rests on: the judges' score replies, the fluency replies, or both
RESTS_ON = {"originality": ("scores",), "feasibility": ("scores",), "clarity": ("scores",),
            "fluency": ("fluency",), "flexibility": ("scores", "fluency")}


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
    run (the first ``limit``).  ``replies``: the judge replies the scores and the fluency
    grades rest on (``judge_replies``); a measure most of whose replies were unreadable is
    listed in ``unreadable_measures`` and has no value, interval or leaderboard column
    (``unreadable_measures``, ``without``): never a number resting on the few readable ones."""
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
    replies = judge_replies(counted, grades)
    unreadable = unreadable_measures(replies)
    scores = without(scores, unreadable)
    judged_by: dict[str, int] = {}
    for j in counted:
        judged_by[j.judge] = judged_by.get(j.judge, 0) + 1
    return {
        "keywords": len(rows),
        "ideas": len(ideas),
        "kept": sum(1 for i in ideas if i.status == "ok"),
        "too_long": sum(1 for i in ideas if i.status == "too long"),
        "refused": sum(1 for i in ideas if i.status == "refused"),
        "no_idea": sum(1 for i in ideas if i.status == "no idea"),
        "no_idea_reasons": _reasons(i.no_idea for i in ideas if i.status == "no idea"),
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
        "replies": replies,
        "unreadable_measures": unreadable,
        "per_keyword": [{k: v for k, v in row.items() if k not in ("sums", "counts")} for row in rows],
        "per_category": per_category(rows),
    }


def per_category(rows: list[dict]) -> dict[str, dict]:
    """Per discipline (a keyword row's ``category``, "-" for none), largest first: its
    keywords and its five scores (``model_scores`` over its rows, no bootstrap)."""
    by_category: dict[str, list[dict]] = {}
    for row in rows:
        by_category.setdefault(row["category"] or "-", []).append(row)
    categories = {}
    for name, members in sorted(by_category.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        s = model_scores(members, resamples=0)
        categories[name] = {"keywords": len(members), **{k: s[k] for k in
                                                          ("originality", "feasibility", "clarity", "fluency",
                                                           "flexibility")}}
    return categories


def _reasons(reasons) -> dict[str, int]:
    """``{reason: count}`` of ``reasons``, most frequent first."""
    out: dict[str, int] = {}
    for r in reasons:
        out[r] = out.get(r, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def judge_replies(judgements, grades) -> dict:
    """The judge replies a model's measures rest on, retries included (the last record of
    each judgement and grade): ``{"scores": ..., "fluency": ...}``, each
    ``replies.unreadable_summary``'s form (``{"replies", "readable", "unreadable", "share",
    "reasons"}``), or None where no reply was asked."""
    tally = Tally()
    for j in {j.key: j for j in judgements}.values():
        for reason in j.reasons:
            tally.add_reason("scores", reason)
    for g in {g.key: g for g in grades}.values():
        for reason in g.reasons:
            tally.add_reason("fluency", reason)
    got = tally.to_dict()
    return {"scores": got.get("scores"), "fluency": got.get("fluency")}


def unreadable_measures(replies: dict) -> list[str]:
    """The measures (of originality, feasibility, clarity, fluency, flexibility) whose
    replies (``judge_replies``) were mostly unreadable (``replies.mostly_unreadable``: more
    than half, or none readable); flexibility rests on both the scores and the fluency
    grades (docs/replies.md: such a measure is shown as unreadable, never as a number)."""
    bad = {part for part, block in replies.items() if mostly_unreadable(block)}
    return [m for m, parts in RESTS_ON.items() if bad & set(parts)]


def without(scores: dict, unreadable: list[str]) -> dict:
    """``model_scores``'s ``scores`` with the ``unreadable`` measures emptied: their value,
    interval and leaderboard column None (the leaderboard's Average too, which rests on
    them all), so no number or published rank is given from them."""
    if not unreadable:
        return scores
    out = {**scores, **{m: None for m in unreadable}}
    board = dict(scores.get("leaderboard") or {})
    for m in unreadable:
        if m in board:
            board[m] = None
    if any(m in unreadable for m in ("originality", "feasibility", "fluency", "flexibility")):
        board["average"] = None
    out["leaderboard"] = board
    gone = set(unreadable) | {f"leaderboard.{m}" for m in board if board[m] is None}
    out["intervals"] = {k: v for k, v in (scores.get("intervals") or {}).items() if k not in gone}
    return out
