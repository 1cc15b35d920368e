"""A board's checks of a submitted LiveIdeaBench run (``neocoder board add``; the descriptor's
``recompute`` and ``verify``, report/leaderboard/submissions.py).

Why: the scores are the judges', and the records that hold them are the submitter's file.
``rescore`` reads every recorded judge reply again with the run's protocol's own readers
(protocol.py ``reply_reader``: ours, the three-line format and the JSON block; official,
the authors' critic JSON and fluency letter), and refuses a judgement or a fluency grade
whose recorded scores, grade, points or per-reply readability the replies do not give.
It also refuses what would change a score without touching a reply: an idea's status
against the length rule, a drawn judge's judgement or a keyword's fluency grade missing,
a judgement of no kept idea, a live model's keyword short of its ideas.  ``recompute``
then gives each model's summary from the records as the task does
(summary.py ``summarize_model``: the seats drawn per idea, the run's bootstrap
settings from its manifest), which the board compares with metrics.json.

The official protocol needs the authors' clone for its prompts only; its replies are read
by scoring.py's grammars, so a board re-scores an official run fully without the clone.
What a board cannot check: whether a reply is what the judge really said (a reply
rewritten together with its scores reads consistently), and the idea model's replies
(an idea's "refused" or "no idea" reasons rest on the prompt and the reasoning text sent
back, which the records do not keep whole): those are taken as recorded.
"""

from __future__ import annotations

import math
from pathlib import Path

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.measures import bootstrap_settings, completion_api


def _read(folder: Path, model: str):
    """(the run folder, the model's ideas, judgements and fluency grades), the last record
    of each key."""
    from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
    from neocoder.store import RunFolder
    run = RunFolder(Path(folder), create=False)
    records = [r for r in run.read() if getattr(r, "model", None) == model]
    return (run, [r for r in records if isinstance(r, Idea)], [r for r in records if isinstance(r, IdeaJudgement)],
            [r for r in records if isinstance(r, FluencyGrade)])


def settings_of(folder: Path, config: dict):
    """The IdeasConfig a summary needs from a run's manifest ``config``: the draws
    (judges per idea, seed) and the bootstrap (resamples and seed, checked as
    ``measures.bootstrap_settings`` checks them).  Raises NeocoderError."""
    from neocoder.benchmarks.ideas.config import IdeasConfig
    from neocoder.config import ModelConfig
    resamples, seed = bootstrap_settings({"bootstrap": {"resamples": config.get("bootstrap"),
                                                        "seed": config.get("bootstrap_seed")}})
    per_idea, draws = config.get("judges_per_idea", 3), config.get("seed", 0)
    if type(per_idea) is not int or type(draws) is not int or per_idea < 1:
        from neocoder.errors import NeocoderError
        raise NeocoderError(f"manifest.json judges_per_idea {per_idea!r} or seed {draws!r} is not an integer")
    return IdeasConfig(model=ModelConfig(spec=str((config.get("model") or {}).get("spec"))), judges=[],
                       out=Path(folder), judges_per_idea=per_idea, seed=draws, bootstrap=resamples,
                       bootstrap_seed=seed, max_words=int(config.get("max_words", 200)),
                       ideas_per_keyword=int(config.get("ideas_per_keyword", 3)))


def seats_of(config: dict) -> dict[str, dict]:
    """The panel's seats as the run named them: seat name -> the judge's ModelConfig dict."""
    judges = [j for j in config.get("judges") or [] if isinstance(j, dict)]
    names = config.get("judge_names") or [j.get("spec") for j in judges]
    return dict(zip(names, judges))


def eligible_seats(config: dict, model: str, ideas) -> list[str]:
    """The seats that may judge ``model`` (panel.py ``eligible``: no seat of the idea
    model's spec, nor of a replayed idea's recorded model).  Raises NeocoderError when
    fewer than the run drew per idea remain."""
    from neocoder.benchmarks.ideas.panel import eligible
    own = {str((config.get("model") or {}).get("spec"))} | {i.recorded_model for i in ideas if i.recorded_model}
    seats = [(name, j.get("spec")) for name, j in seats_of(config).items()]
    return eligible(seats, own, int(config.get("judges_per_idea", 3)), model)


def keywords_of(config: dict, ideas) -> list:
    """The run's keywords in order: LiveIdeaBench's shipped ones cut to ``limit`` (the
    board's ``dataset`` check has made sure the run used them), or for a replayed source
    (which brings its own) the keywords its ideas name."""
    from neocoder.benchmarks.ideas.sources import Keyword, load_keywords
    if str((config.get("model") or {}).get("spec")).startswith("replay/"):
        named = {i.keyword_index: Keyword(i.keyword, i.category) for i in ideas}
        return [named.get(k, Keyword("")) for k in range(max(named, default=-1) + 1)]
    keywords = load_keywords()
    return keywords[:config["limit"]] if config.get("limit") else keywords


def recompute(folder: Path, model: str, config: dict, metrics: dict) -> dict:
    """The run's ``models`` block (metrics.json's layout) for ``model`` recomputed from its
    records as the task scores them (summary.py ``summarize_model`` with the seats that may
    judge it and the run's bootstrap settings from its manifest).  Raises NeocoderError
    for settings out of bounds or a panel too small for its draws."""
    from neocoder.benchmarks.ideas.summary import summarize_model
    run, ideas, _, _ = _read(folder, model)
    settings = settings_of(folder, config)
    summary = summarize_model(run, model, eligible_seats(config, model, ideas), settings, keywords_of(config, ideas))
    return {"models": {model: summary}}


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def readings(reply: str, parse, prefix: str, completion: bool | None) -> list:
    """A recorded judge reply read by ``parse`` as the seat sent it: as recorded (chat), with
    the ``prefix`` its completion prompt ended with put back (loop.py ``ask_judge`` reads
    ``code_prefix + text``), or both when the manifest cannot say.  Each reading's value."""
    texts = [reply] if completion is False or not prefix else [prefix + reply] if completion else \
        [reply, prefix + reply]
    return [parse(t) for t in texts]


def check_replies(record, parse, prefix: str, completion: bool | None, recorded, where: str) -> None:
    """Refuse (RecordsDisagree) a judgement or grade whose replies do not give what it
    records: every reply but the last unreadable (the loop asks again only after one), the
    last one's reading equal to ``recorded`` (None: no reply readable), and each reply's
    recorded reason None exactly when it reads."""
    if recorded is not None and not record.replies:
        raise RecordsDisagree(f"{where}: {recorded!r} with no recorded judge reply behind it")
    for n, reply in enumerate(record.replies):
        got = readings(reply, parse, prefix, completion)
        last = n == len(record.replies) - 1
        want = recorded if last else None
        if not any(_same_reading(g, want) for g in got):
            raise RecordsDisagree(f"{where}: {want!r} in records.jsonl, {got[0]!r} read from its recorded judge "
                                  f"reply {n + 1}")
        reasons = record.reasons if len(record.reasons) == len(record.replies) else None
        if reasons is None or (reasons[n] is None) != (want is not None):
            raise RecordsDisagree(f"{where}: reply {n + 1}'s recorded reason {reasons and reasons[n]!r} does not "
                                  "say whether it reads")


def _same_reading(got, want) -> bool:
    if isinstance(got, dict) and isinstance(want, dict):
        return set(got) == set(want) and all(_same(got[k], want[k]) for k in got)
    return _same(got, want)


def _prefixes(proto) -> tuple[str, str]:
    """The prefixes a completions-API seat's recorded score and grade replies lack (ours:
    "originality:", "grade:"; the official protocol asks no completion prefix)."""
    from neocoder.benchmarks.ideas.config import OURS
    if proto.name != OURS:
        return "", ""
    from neocoder.benchmarks.ideas.protocol import fluency_prompt, judge_prompt
    return judge_prompt("", "").code_prefix, fluency_prompt("", ["", ""]).code_prefix


def _where(record, keyword: str | None = None) -> str:
    num = getattr(record, "idea_num", None)
    return f"keyword {keyword or record.keyword!r}" + (f" idea {num}" if num is not None else "")


def check_ideas(ideas, settings, live: bool) -> dict:
    """Refuse (RecordsDisagree) an idea whose status the length rule does not give (an
    "ok" idea over ``max_words`` words, a "too long" one within them, a word count that is
    not its idea's), and for a live idea model a keyword short of its ideas.  The kept
    ideas, keyed (keyword index, idea number)."""
    from neocoder.benchmarks.ideas.scoring import word_count
    by_keyword: dict[int, list] = {}
    for i in sorted(ideas, key=lambda i: i.key):
        by_keyword.setdefault(i.keyword_index, []).append(i.idea_num)
        if i.status in ("ok", "too long"):
            if i.words != word_count(i.idea):
                raise RecordsDisagree(f"{_where(i)}: {i.words} words in records.jsonl, {word_count(i.idea)} "
                                      "counted in its idea")
            if (i.status == "ok") != (i.words <= settings.max_words):
                raise RecordsDisagree(f"{_where(i)}: status {i.status!r} in records.jsonl with {i.words} words "
                                      f"(the length rule: at most {settings.max_words})")
    want = list(range(1, settings.ideas_per_keyword + 1))
    for k, nums in sorted(by_keyword.items()):
        if live and nums != want:
            keyword = next(i.keyword for i in ideas if i.keyword_index == k)
            raise RecordsDisagree(f"keyword {keyword!r}: ideas {nums} in records.jsonl, {want} asked")
    return {(i.keyword_index, i.idea_num): i for i in ideas if i.status == "ok"}


def check_judgements(kept: dict, judgements, eligible: list[str], settings, proto, completion: dict) -> int:
    """Refuse (RecordsDisagree) a judgement of no kept idea, a kept idea with no judgement
    of a seat drawn to judge it (panel.py ``draw_judges``), and a judgement whose replies do
    not give its scores (``check_replies`` with the protocol's ``parse_reply``).  The
    judge replies read."""
    from neocoder.benchmarks.ideas.panel import draw_judges
    prefix = _prefixes(proto)[0]
    seen, replies = set(), 0
    for j in sorted(judgements, key=lambda j: j.key):
        idea = kept.get((j.keyword_index, j.idea_num))
        where = f"{_where(j)} judge {j.judge}"
        if idea is None or idea.keyword != j.keyword:
            raise RecordsDisagree(f"{where}: a judgement of no kept idea")
        check_replies(j, lambda text: proto.parse_reply(text)[0], prefix, completion.get(j.judge), j.scores, where)
        seen.add((j.keyword_index, j.idea_num, j.judge))
        replies += len(j.replies)
    for (k, num), idea in sorted(kept.items()):
        for seat in draw_judges(eligible, settings.judges_per_idea, settings.seed, idea.keyword, num):
            if (k, num, seat) not in seen:
                raise RecordsDisagree(f"{_where(idea)}: no judgement of seat {seat}, drawn to judge it")
    return replies


def check_grades(kept: dict, grades, proto, completion: dict) -> int:
    """Refuse (RecordsDisagree) a fluency grade whose replies do not give its letter, or
    whose points are not the letter's (scoring.py ``fluency_points``), a grade of a keyword
    with fewer than two kept ideas, and a keyword with two or more and no grade.  The
    judge replies read."""
    from neocoder.benchmarks.ideas.scoring import fluency_points
    prefix = _prefixes(proto)[1]
    kept_per: dict[int, int] = {}
    for k, _ in kept:
        kept_per[k] = kept_per.get(k, 0) + 1
    graded, replies = set(), 0
    for g in sorted(grades, key=lambda g: g.key):
        where = f"{_where(g)} fluency judge {g.judge}"
        if kept_per.get(g.keyword_index, 0) < 2:
            raise RecordsDisagree(f"{where}: a grade of a keyword with fewer than two kept ideas")
        check_replies(g, proto.parse_grade, prefix, completion.get(g.judge), g.grade, where)
        points = None if g.grade is None else fluency_points(g.grade)
        if not _same(g.score, points):
            raise RecordsDisagree(f"{where}: score {g.score} in records.jsonl, {points} for grade {g.grade}")
        graded.add(g.keyword_index)
        replies += len(g.replies)
    for k in sorted(set(kept_per) - graded):
        if kept_per[k] >= 2:
            idea = next(i for (kk, _), i in sorted(kept.items()) if kk == k)
            raise RecordsDisagree(f"keyword {idea.keyword!r}: {kept_per[k]} kept ideas and no fluency grade")
    return replies


def rescore(folder: Path, model: str, config: dict, scratch: Path) -> str:
    """Re-score ``model``'s ideas from their recorded judge replies with the run's protocol's
    readers (see the module): the ideas' statuses, every judgement and fluency grade;
    returns "re-scored from recorded judgements: N of N judge replies agree (M ideas, K
    keywords)".  Raises RecordsDisagree naming the first keyword, idea and judge that
    differs; NeocoderError for settings a board cannot read."""
    from neocoder.benchmarks.ideas.config import OURS
    from neocoder.benchmarks.ideas.protocol import reply_reader
    try:
        proto = reply_reader(config.get("protocol", OURS))
    except ValueError as exc:
        from neocoder.errors import NeocoderError
        raise NeocoderError(f"manifest.json: {exc}") from exc
    _, ideas, judgements, grades = _read(folder, model)
    settings = settings_of(folder, config)
    live = not settings.model.spec.startswith("replay/")
    completion = {name: completion_api(judge) for name, judge in seats_of(config).items()}
    kept = check_ideas(ideas, settings, live)
    eligible = eligible_seats(config, model, ideas)
    replies = check_judgements(kept, judgements, eligible, settings, proto, completion)
    replies += check_grades(kept, grades, proto, completion)
    keywords = len({i.keyword_index for i in ideas})
    return (f"re-scored from recorded judgements: {replies} of {replies} judge replies agree ({len(kept)} kept "
            f"ideas, {keywords} keywords)")
