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
from neocoder.benchmarks.measures import bootstrap_settings

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


def _coherence(reply: str, scale: int) -> float | None:
    """A recorded coherence reply read by the judge's grammar; a completion-mode reply
    (recorded without the ``<score>`` tag its prompt ended with) is read with it put back."""
    from neocoder.benchmarks.aidanbench.scoring import coherence_range, read_score
    low, high = coherence_range(scale)
    reading = read_score(reply, low, high)
    if not reading.readable and "<score>" not in (reply or ""):
        reading = read_score("<score>" + (reply or "") + ("" if "</score>" in (reply or "") else "</score>"),
                             low, high)
    return reading.value if reading.readable else None


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    return a == b


def rescore(folder: Path, model: str, config: dict, scratch: Path) -> str:
    """Re-score ``model``'s answers from their recorded judge replies: each answer's
    coherence read again from its last recorded reply (``judge_replies``), each ended
    question's result replayed with the run's stop rule; returns "re-scored from recorded
    judgements: N of N judge replies and M of M questions agree (novelty as recorded)".
    Raises RecordsDisagree naming the first answer or question that differs (an answer
    scored with no reply behind it included)."""
    from neocoder.benchmarks.aidanbench.rescore import rescore_question, source_rule
    run, answers, results = _read(folder)
    scale = int(config.get("coherence_scale", 100))
    judged = config.get("judge") is not None
    replies = 0
    for a in sorted((a for a in answers if a.model == model), key=lambda a: a.key):
        if a.coherence is None or not judged:
            continue
        where = f"question {a.question_index + 1} answer {a.answer_num}"
        if not a.judge_replies:
            raise RecordsDisagree(f"{where}: coherence {a.coherence} with no recorded judge reply behind it")
        got = _coherence(a.judge_replies[-1], scale)
        if got is None or not _same(got, a.coherence):
            raise RecordsDisagree(f"{where}: coherence {a.coherence} in records.jsonl, {got} read from its "
                                  "recorded judge reply")
        replies += 1
    rule = source_rule(config)
    by_key = {a.key: a for a in answers}
    ended = sorted((q for q in results if q.model == model), key=lambda q: q.question_index)
    for q in ended:
        _, new = rescore_question(run, by_key, q, rule, rule.max_answers, config)
        for name in COMPARED:
            if not _same(getattr(q, name), getattr(new, name)):
                raise RecordsDisagree(f"question {q.question_index + 1}: {name} is {getattr(q, name)!r} in "
                                      f"records.jsonl, {getattr(new, name)!r} re-scored")
    return (f"re-scored from recorded judgements: {replies} of {replies} judge replies and {len(ended)} of "
            f"{len(ended)} questions agree (novelty as recorded)")


def question_ids(manifest) -> set[str] | None:
    """The shipped questions when the run used them (no ``--questions`` file), else None."""
    if manifest.config.get("questions"):
        return None
    from neocoder.benchmarks.aidanbench.task import load_questions
    return set(load_questions())
