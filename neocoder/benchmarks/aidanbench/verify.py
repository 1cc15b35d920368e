"""A board's checks of a submitted AidanBench run (``neocoder board add``; the descriptor's
``recompute`` and ``verify``, report/leaderboard/submissions.py).

Why: the records are the submitter's file, and a count of answers is only as good as the
coherence scores that ended each question.  ``rescore`` reads every recorded coherence
judge reply again with the judge's grammar (scoring.score_grammar, as the loop read it)
and replays each question's stop with the run's own rule (rescore.py ``rescore_question``,
as ``neocoder aidanbench rescore`` does); a recorded score or question result that the
replies do not give is named.  Novelty (an embedding's cosine similarity) is taken as
recorded: re-embedding needs the embedding model, which a board does not call; the cell
says so.
"""

from __future__ import annotations

import math
from pathlib import Path

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.measures import bootstrap_settings, completion_api

COMPARED = ("answers", "novelty_sum", "stop_reason", "gated_novelty", "mmr")  # a question's result, re-scored


def _read(folder: Path):
    from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
    from neocoder.store import RunFolder
    run = RunFolder(Path(folder), create=False)
    return run, run.read(Answer), run.read(QuestionResult)


def recompute(folder: Path, model: str, config: dict, metrics: dict) -> dict:
    """The run's ``models`` block (metrics.json's layout) for ``model`` recomputed from its
    QuestionResult records as the task scores them (the judged, finished questions in
    order; ``loop.totals`` and ``total_intervals`` with the run's bootstrap settings).
    Raises NeocoderError for bootstrap settings out of bounds."""
    from neocoder.benchmarks.aidanbench.loop import total_intervals, totals
    resamples, seed = bootstrap_settings(metrics)
    _, _, results = _read(folder)
    mine = sorted((q for q in results if q.model == model and q.finished and q.stop_reason != "unreadable"),
                  key=lambda q: q.question_index)
    block = totals(mine)
    block["intervals"] = total_intervals(mine, resamples, seed)
    return {"models": {model: block}}


def coherence_readings(reply: str, scale: int, completion: bool | None) -> list[float | None]:
    """A recorded coherence reply read by the judge's grammar (``scoring.read_score``) as
    the run's judge sent it: a chat reply as recorded, a completion-mode reply with the
    ``<score>`` tag its prompt ended with put back (loop.py ``_answer_text``); both when
    the mode is unknown.  Each reading's value, None where unreadable."""
    from neocoder.benchmarks.aidanbench.scoring import coherence_range, read_score
    low, high = coherence_range(scale)
    text = reply or ""
    wrapped = "<score>" + text + ("" if "</score>" in text else "</score>")
    texts = [text] if completion is False else [wrapped] if completion is True else [text, wrapped]
    return [read_score(t, low, high).value for t in texts]


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    return a == b


def check_coherence(a, scale: int, completion: bool | None) -> bool:
    """Refuse (RecordsDisagree) a judged answer whose recorded coherence its last recorded
    judge reply does not give: a score read otherwise, a reply the grammar reads where the
    answer says unreadable (or none where it gives a score), no reply, or no coherence
    with no reason for it.  An answer that ended in an error or held no answer has no
    coherence to check: False; True when checked."""
    if a.error is not None or a.no_answer is not None:
        return False
    where = f"question {a.question_index + 1} answer {a.answer_num}"
    if a.coherence is None and a.unreadable is None:
        raise RecordsDisagree(f"{where}: no coherence recorded, yet neither an error, nor an unreadable reply, "
                              "nor no answer")
    if not a.judge_replies:
        raise RecordsDisagree(f"{where}: coherence {a.coherence} with no recorded judge reply behind it")
    got = coherence_readings(a.judge_replies[-1], scale, completion)
    want = None if a.unreadable is not None else a.coherence
    if not any(_same(g, want) for g in got):
        raise RecordsDisagree(f"{where}: coherence {want} in records.jsonl, {got[0]} read from its recorded "
                              "judge reply")
    return True


def _replay(run, answers, results, model: str, config: dict) -> int:
    """Replay each ended question of ``model`` with the run's stop rule (``rescore_question``)
    and compare its result; refuse an answer beyond the ones its question's replay reads,
    an answer of a question the run did not end, and (for a generator that is no recorded
    source, which can run out) a "max answers" ending below the cap.  The questions
    replayed."""
    from neocoder.benchmarks.aidanbench.rescore import rescore_question, source_rule
    rule = source_rule(config)
    by_key = {a.key: a for a in answers}
    live = not str((config.get("model") or {}).get("spec") or "").startswith("replay/")
    ended = {q.question_index: q for q in results if q.model == model}
    read = {}
    for i, q in sorted(ended.items()):
        if live and q.stop_reason == "max answers" and q.answers < rule.max_answers:
            raise RecordsDisagree(f"question {i + 1}: ends at max answers after {q.answers} of "
                                  f"{rule.max_answers} answers")
        shown, new = rescore_question(run, by_key, q, rule, rule.max_answers, config)
        read[i] = len(shown)
        for name in COMPARED:
            if not _same(getattr(q, name), getattr(new, name)):
                raise RecordsDisagree(f"question {i + 1}: {name} is {getattr(q, name)!r} in records.jsonl, "
                                      f"{getattr(new, name)!r} re-scored")
    for a in sorted((a for a in answers if a.model == model), key=lambda a: a.key):
        where = f"question {a.question_index + 1} answer {a.answer_num}"
        if a.question_index not in read:
            raise RecordsDisagree(f"{where}: an answer of a question the run did not end")
        if a.answer_num > read[a.question_index]:
            raise RecordsDisagree(f"{where}: an answer after its question's last recorded one")
    return len(ended)


def rescore(folder: Path, model: str, config: dict, scratch: Path) -> str:
    """Re-score ``model``'s answers from their recorded judge replies: each answer's
    coherence (or its unreadable reply) read again from its last recorded reply
    (``judge_replies``, ``check_coherence``), each ended question's result replayed with
    the run's stop rule (``_replay``); returns "re-scored from recorded judgements: N of N
    judge replies and M of M questions agree (novelty as recorded)".  Raises
    RecordsDisagree naming the first answer or question that differs."""
    run, answers, results = _read(folder)
    scale = int(config.get("coherence_scale", 100))
    completion = completion_api(config.get("judge"))
    replies = 0
    if config.get("judge") is not None:
        mine = sorted((a for a in answers if a.model == model), key=lambda a: a.key)
        replies = sum(check_coherence(a, scale, completion) for a in mine)
    ended = _replay(run, answers, results, model, config)
    return (f"re-scored from recorded judgements: {replies} of {replies} judge replies and {ended} of "
            f"{ended} questions agree (novelty as recorded)")


def question_ids(manifest) -> set[str] | None:
    """The shipped questions when the run used them (no ``--questions`` file), else None."""
    if manifest.config.get("questions"):
        return None
    from neocoder.benchmarks.aidanbench.task import load_questions
    return set(load_questions())
