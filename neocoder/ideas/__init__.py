"""LiveIdeaBench in neocoder: ``neocoder ideas`` and ``run_ideas(IdeasConfig)``.

LiveIdeaBench (Ruan et al., "LiveIdeaBench: Evaluating LLMs' Divergent Thinking for
Scientific Idea Generation with Minimal Context", arXiv:2412.17596) asks a model for a
short scientific idea from a single keyword, has a panel of other models score each idea
for originality, feasibility and clarity, grades per keyword how different the model's
ideas are (fluency), and summarises the weaker keywords by a percentile (flexibility).
The modules:

- ``sources.py``: the keywords and the published leaderboard, read from
  ``../shared/liveideabench`` (or ``$LIVEIDEABENCH_DIR``) at run time;
- ``panel.py``: ``--judges`` with seat names, no self-judging, the seeded draws;
- ``scoring.py``: reading judge replies, the refusal and length rules, fluency points,
  flexibility, totals with bootstrap intervals over keywords (formulas and sources);
- ``loop.py``: the resumable loop over keywords; ``replay.py``: recorded ideas;
- ``records.py``: the ``Idea``, ``IdeaJudgement`` and ``FluencyGrade`` records.

docs/ideas.md describes the method, the formulas and the run folder.
"""

from __future__ import annotations

import hashlib
import time
from contextlib import ExitStack
from dataclasses import astuple, dataclass, field
from pathlib import Path

from ..config import IdeasConfig
from ..errors import NeocoderError
from ..models import ModelError, get_model
from ..models.base import load_prompt
from ..models.cache import CachedModel, CallCache
from ..records import Manifest
from ..store import RunFolder
from .panel import Seat, draw_judges, eligible, panel_names
from .records import FluencyGrade, Idea, IdeaJudgement
from .scoring import keyword_rows, model_scores
from .sources import Keyword, load_keywords

__all__ = ["IdeasResult", "run_ideas", "summarize_model"]


@dataclass
class IdeasResult:
    """What ``run_ideas`` returns: the run folder; per idea model its summary (as in
    ``metrics.json``'s ``models``: counts, the five scores, the leaderboard's columns,
    intervals, per keyword and per category rows); the call-cache stats; wall seconds."""

    run: Path
    models: dict[str, dict]
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


def _validate(config: IdeasConfig) -> None:
    if not config.judges:
        raise NeocoderError("no judges: give a panel with --judges J1,J2,J3")
    for name, minimum in (("ideas_per_keyword", 1), ("judges_per_idea", 1), ("max_words", 1),
                          ("judge_retries", 0), ("concurrency", 1)):
        if getattr(config, name) < minimum:
            raise NeocoderError(f"{name} must be at least {minimum}, got {getattr(config, name)}")
    if config.limit is not None and config.limit < 1:
        raise NeocoderError(f"limit must be at least 1, got {config.limit}")


def _open_idea_model(config: IdeasConfig):
    """The idea model: recorded ideas for ``replay/SOURCE``, else the provider's model."""
    if config.model.spec.startswith("replay/"):
        from .replay import load_recorded_ideas
        return load_recorded_ideas(config.model.spec)
    return get_model(config.model)


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


def run_ideas(config: IdeasConfig) -> IdeasResult:
    """LiveIdeaBench on ``config.model`` with the panel ``config.judges`` (ideas/loop.py).

    Writes the run folder ``config.out`` (resumed when it exists): ``manifest.json``
    (kind "ideas", the config, the panel, the prompts' texts and SHA-256), ``records.jsonl``
    (Idea, IdeaJudgement and FluencyGrade records as they happen), ``calls.jsonl`` (the
    call cache: a rerun pays for no call twice) and ``metrics.json`` (``{"benchmark":
    "ideas", "models": {name: summary}, "panel", "bootstrap"}``).  A recorded source of
    several models (``replay/FILE``) is judged per model.

    Raises NeocoderError before any model call for a bad config, an unreadable keywords
    file, or a panel with fewer than ``judges_per_idea`` seats besides the idea model
    (judged by spec, so a seat name never lets a model judge itself); ModelError
    (EndpointError) when an endpoint cannot be reached.
    """
    started = time.monotonic()
    _validate(config)
    names = panel_names(config.judges, config.judge_names)
    seat_specs = [(name, judge.spec) for name, judge in zip(names, config.judges)]
    replay = config.model.spec.startswith("replay/")
    if not replay:  # refused before a model (or a local server) starts
        eligible(seat_specs, {config.model.spec}, config.judges_per_idea, config.model.spec)
    keywords = load_keywords(config.keywords) if config.keywords is not None or not replay else None
    summaries = {}
    with ExitStack() as stack:
        raw = stack.enter_context(_open_idea_model(config))
        variants = raw.variants()
        allowed = {}
        for variant in variants:
            own = {config.model.spec} | set(getattr(variant, "recorded_models", ()) or ())
            allowed[variant.name] = eligible(seat_specs, own, config.judges_per_idea, variant.name)
        folder = RunFolder(config.out)  # made only once the panel is known to be large enough
        cache = CallCache(folder.calls_path)
        if keywords is None:  # a replayed source's own keywords
            keywords = getattr(raw, "keywords", None) or [Keyword(k) for k in raw.recorded_items()]
        keywords = keywords[:config.limit] if config.limit else keywords
        models: dict[tuple, object] = {}
        seats = {}
        needed = {name for names_ in allowed.values() for name in names_}
        for name, judge in zip(names, config.judges):
            if name not in needed:
                continue
            key = astuple(judge)
            if key not in models:
                try:
                    models[key] = stack.enter_context(get_model(judge))
                except ModelError as exc:
                    raise ModelError(f"judge seat {name!r}: {exc}") from exc
            seats[name] = Seat(name, judge.spec, CachedModel(models[key], cache))
        folder.write_manifest(Manifest.capture(
            "ideas", config.public(), keywords=len(keywords),
            panel=[{"name": n, "spec": s} for n, s in seat_specs],
            prompts={name: {"sha256": hashlib.sha256(load_prompt(name).encode()).hexdigest(),
                            "text": load_prompt(name)} for name in _prompt_files()}))
        from .loop import IdeaWriter, run_model
        for variant in variants:
            writer = IdeaWriter(variant, cache)
            run_model(keywords, writer, seats, allowed[variant.name], folder, config, progress=config.progress)
            summaries[variant.name] = summarize_model(folder, variant.name, allowed[variant.name], config, keywords)
    from ..bootstrap import LEVEL
    folder.write_metrics({"benchmark": "ideas", "models": summaries,
                          "panel": [{"name": n, "spec": s} for n, s in seat_specs],
                          "bootstrap": {"resamples": config.bootstrap, "seed": config.bootstrap_seed,
                                        "unit": "keyword", "level": LEVEL, "method": "percentile"},
                          "calls": cache.stats()})
    return IdeasResult(folder.path, summaries, cache.stats(), time.monotonic() - started)


def _prompt_files():
    from .loop import PROMPT_FILES
    return PROMPT_FILES
