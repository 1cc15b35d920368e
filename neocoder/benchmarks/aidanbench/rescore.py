"""Re-scoring an AidanBench run at other thresholds from its stored scores, with no
model call: ``neocoder aidanbench rescore RUN --coherence-stop X --novelty-stop Y`` (the
``aidanbench-rescore`` task in neocoder/benchmarks/aidanbench/task.py; the pieces are here).

Every answer a run recorded keeps its judge score (coherence, on the run's scale), its
novelty, its judge-rated novelty (``--llm-similarity``), its log-probability and its
meaning class.  The stop rule is replayed over each question's stored answers in order
with the new thresholds (scoring.stop_reason); the counts, novelty sums, gated novelty,
MMR_AB and semantic entropy follow (analyses.question_result).  Nothing imports or
builds a model or an embedder here: the numbers are all on disk.

What a re-score can know.  The answers up to a stop are the same at any thresholds (each
answer's prompt holds only the answers before it), so a stricter rule (a higher
coherence stop, a higher novelty stop, fewer answers) gives exactly the run the loop
would have made.  A looser rule can keep the answer that stopped the question; the run
has no answer after it, so such a question ends "out of answers" and its count is a
lower bound (the table and metrics say how many).

The result is a new run folder (default: next to the run, ``<run>-rescore-c<X>-n<Y>``,
plus ``-m<K>`` / ``-l<lambda>`` where those differ from the run's),
never the run itself: ``manifest.json`` (kind "aidanbench", the run's config with the
new thresholds, ``extra.rescored_from``), ``records.jsonl`` (each question's answers up
to its new stop, with ``stop`` set anew, and a ``QuestionResult`` per question and
model) and ``metrics.json`` (per-model totals with intervals, and the run's own totals
recomputed from its records under ``original``).  ``neocoder report`` reads it like any
AidanBench run.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from neocoder.benchmarks.aidanbench.analyses import question_result
from neocoder.benchmarks.aidanbench.config import COHERENCE_STOP, COHERENCE_STOP_10, NOVELTY_STOP
from neocoder.benchmarks.aidanbench.loop import total_intervals, totals
from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.scoring import stop_reason
from neocoder.errors import NeocoderError
from neocoder.store import RunFolder

OUT_OF_ANSWERS = "out of answers"


@dataclass
class StopRule:
    """The thresholds a re-score applies: stop at coherence <= ``coherence_stop`` (on
    the run's scale) or novelty <= ``novelty_stop`` (also judge-rated novelty, where the
    run stored it), or after ``max_answers``; ``mmr_lambda`` weighs MMR_AB."""

    coherence_stop: float
    novelty_stop: float
    max_answers: int
    mmr_lambda: float


@dataclass
class RescoreResult:
    """What a re-score (the aidanbench-rescore task) returns: the new run folder, the run it re-scored, per model
    its new question results (question order) and totals, the run's own totals (from
    its records), the rule applied, and the wall time in seconds."""

    run: Path
    source: Path
    rule: StopRule
    results: dict = field(default_factory=dict)  # model -> list[QuestionResult]
    totals: dict = field(default_factory=dict)  # model -> totals (loop.totals, with intervals)
    original: dict = field(default_factory=dict)  # model -> the run's totals
    unfinished: int = 0  # questions the run had not ended (no QuestionResult): left out
    seconds: float = 0.0


def replay_stop(answers: list[Answer], original: QuestionResult, rule: StopRule,
                source_max_answers: int) -> tuple[int, str, str | None, Answer | None]:
    """(answers kept, stop reason, error, the answer that stopped it or None) of one
    question under ``rule``, from its stored
    ``answers`` in order (the run's kept answers, then the one that stopped it, if any).

    The loop's own order: the max-answers cap before each answer, then a reply that held
    no answer (``no_answer``), then an answer that ended in an error, then one whose judge
    replies could not be read (``unreadable``: it has no coherence, so without this it
    would pass as kept), then coherence, novelty, judge-rated novelty.  When every stored
    answer passes: "max answers" at the cap; the run's own ending when it was not caused
    by an answer (a generator error, or a replayed source that ran out below the cap);
    otherwise "out of answers" (the count is a lower bound).
    """
    kept = 0
    for a in answers:
        if kept >= rule.max_answers:
            return kept, "max answers", None, None
        if a.no_answer is not None:  # the generator's reply held no answer: a stop at any thresholds
            return kept, "no answer", f"the generator's reply held no answer ({a.no_answer})", a
        if a.error is not None:
            return kept, "error", a.error, a
        if a.unreadable is not None:  # the judge's replies could not be read: a stop at any thresholds
            return kept, "unreadable", a.unreadable, a
        reason = stop_reason(a.coherence, a.novelty, rule.coherence_stop, rule.novelty_stop)
        if reason is None and a.llm_novelty is not None and a.llm_novelty <= rule.novelty_stop:
            reason = "repetitive"
        if reason is not None:
            return kept, reason, None, a
        kept += 1
    if kept >= rule.max_answers:
        return kept, "max answers", None, None
    ended_without_answer = original.answers == len(answers)
    if ended_without_answer and original.stop_reason == "error":
        return kept, "error", original.error, None
    if ended_without_answer and original.stop_reason == "max answers" and original.answers < source_max_answers:
        return kept, "max answers", None, None  # the replayed source held no more answers
    return kept, OUT_OF_ANSWERS, None, None


def _sequence(folder: RunFolder, answers: dict, q: QuestionResult) -> list[Answer]:
    """The answers of question ``q`` in order: its kept ones and the one that stopped it.
    Raises NeocoderError naming the file and record when a kept answer is missing."""
    seq = []
    for num in range(1, q.answers + 2):
        a = answers.get((q.model, q.question_index, num))
        if a is None:
            if num <= q.answers:
                raise NeocoderError(f"{folder.records_path}: question record ({q.model}, question "
                                    f"{q.question_index + 1}) counts {q.answers} answers, but answer_num {num} has "
                                    "no answer record")
            break
        if num <= q.answers and a.stop is not None:
            raise NeocoderError(f"{folder.records_path}: answer record ({q.model}, question {q.question_index + 1}, "
                                f"answer_num {num}), field stop: {a.stop!r}, yet the question counts it as kept")
        seq.append(a)
    return seq


def _number(x: float) -> str:
    return re.sub(r"\.?0+$", "", f"{x:.6f}") if x != int(x) else str(int(x))


def default_out(run: Path, rule: StopRule, run_rule: StopRule | None = None) -> Path:
    """``<run>-rescore-c<coherence stop>-n<novelty stop>`` beside the run, with
    ``-m<max answers>`` and ``-l<lambda>`` added where they differ from the run's own
    (``run_rule``), so re-scores with different settings do not replace each other."""
    run = Path(run)
    name = f"{run.name}-rescore-c{_number(rule.coherence_stop)}-n{_number(rule.novelty_stop)}"
    if run_rule is not None and rule.max_answers != run_rule.max_answers:
        name += f"-m{rule.max_answers}"
    if run_rule is not None and rule.mmr_lambda != run_rule.mmr_lambda:
        name += f"-l{_number(rule.mmr_lambda)}"
    return run.parent / name


def source_rule(config: dict) -> StopRule:
    """The stop rule a run was made with, from its manifest's ``config``: the coherence
    stop in force on its scale, novelty stop, max answers and lambda."""
    scale = config.get("coherence_scale", 100)
    if config.get("coherence_stop") is not None:
        run_stop = config["coherence_stop"]
    else:
        run_stop = COHERENCE_STOP_10 if scale == 10 else COHERENCE_STOP
    return StopRule(coherence_stop=run_stop, novelty_stop=config.get("novelty_stop", NOVELTY_STOP),
                    max_answers=config.get("max_answers", 100), mmr_lambda=config.get("mmr_lambda", 0.5))


def new_rule(run_rule: StopRule, coherence_stop: float | None = None, novelty_stop: float | None = None,
             max_answers: int | None = None, mmr_lambda: float | None = None) -> StopRule:
    """``run_rule`` with the thresholds given changed.  Raises NeocoderError for a lambda
    outside [0, 1] or fewer than one answer."""
    rule = StopRule(
        coherence_stop=run_rule.coherence_stop if coherence_stop is None else float(coherence_stop),
        novelty_stop=run_rule.novelty_stop if novelty_stop is None else float(novelty_stop),
        max_answers=run_rule.max_answers if max_answers is None else int(max_answers),
        mmr_lambda=run_rule.mmr_lambda if mmr_lambda is None else float(mmr_lambda))
    if not 0.0 <= rule.mmr_lambda <= 1.0:
        raise NeocoderError(f"--mmr-lambda {rule.mmr_lambda}: lambda must be in [0, 1]")
    if rule.max_answers < 1:
        raise NeocoderError(f"--max-answers {rule.max_answers}: at least 1")
    return rule


def check_out(source: Path, out: Path) -> None:
    """Refuse to write a re-score to the run itself or over a folder that is not an
    earlier re-score (NeocoderError)."""
    if out.resolve() == source.resolve():
        raise NeocoderError(f"{out}: the run itself; a re-score is written to another folder (--out)")
    if (out / RunFolder.RECORDS).exists() or (out / RunFolder.MANIFEST).exists():
        earlier = RunFolder(out, create=False).read_manifest() if (out / RunFolder.MANIFEST).exists() else None
        if earlier is None or "rescored_from" not in earlier.extra:
            raise NeocoderError(f"{out}: holds a run that is not a re-score; it is never overwritten (choose another "
                                "--out)")


def rescore_question(source: RunFolder, answers: dict, q: QuestionResult, rule: StopRule, source_max: int,
                     config: dict) -> tuple[list[Answer], QuestionResult]:
    """One ended question ``q`` of the run ``source`` under ``rule``: (its answers up to
    the new stop, with ``stop`` set anew, and its new QuestionResult), from the stored
    ``answers`` (key -> Answer).  Raises NeocoderError for records that contradict each
    other."""
    seq = _sequence(source, answers, q)
    kept, reason, error, stopper = replay_stop(seq, q, rule, source_max)
    shown = [dataclasses.replace(a, stop=None) for a in seq[:kept]]
    if stopper is not None:
        shown.append(dataclasses.replace(stopper, stop=reason))
    new = question_result(q.model, q.question_index, q.question, shown, kept, reason, error,
                          coherence_stop=rule.coherence_stop, mmr_lambda=rule.mmr_lambda,
                          coherence_scale=config.get("coherence_scale", 100), judged=config.get("judge") is not None,
                          entailment=config.get("entailment") is not None)
    return shown, new


def model_totals(results: dict[str, list[QuestionResult]], resamples: int, seed: int) -> dict[str, dict]:
    """Per model the totals of its re-scored questions with intervals and the count that
    ended "out of answers"."""
    out = {}
    for model, qs in results.items():
        out[model] = totals(qs)
        out[model]["intervals"] = total_intervals(qs, resamples, seed)
        out[model]["out_of_answers"] = sum(1 for q in qs if q.stop_reason == OUT_OF_ANSWERS)
    return out
