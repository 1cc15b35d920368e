"""The AidanBench loop: answer, judge, embed, stop; resumable, one JSONL of results.

Per question: the generator sees every earlier answer and is asked for a new one; the
judge rates its coherence (0-100); its novelty is 1 - the largest cosine similarity to
the earlier answers (one matrix-vector product against the stored embeddings: each
answer is embedded once); the question stops at the first answer with coherence <= 15
or novelty <= 0.15 (optionally also judge-rated similarity, ``llm_similarity``), at
``max_answers``, or at an error.  Formulas: neocoder/aidanbench/scoring.py.

Results go to the run folder's ``records.jsonl`` as they happen: one ``Answer`` record
per answer and one ``QuestionResult`` when a question ends (records.py).  A rerun with
the same folder skips ended questions and continues unfinished ones after their last
answer.  The settings are the run's ``AidanConfig`` (config.py).
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Ratio, replicates, summarize, weights
from ..config import AidanConfig
from ..models import Model, ModelError, NoRecordedReply, Prompt, ReplayKey
from ..models.base import load_prompt
from ..records import Answer, QuestionResult
from ..store import RunFolder
from .scoring import novelty, parse_score, stop_reason

ANSWER_STOP = ("\n\n", "\nQuestion:")
PROMPT_FILES = ("aidan_answer_system.txt", "aidan_answer_user.txt", "aidan_answer_completion.txt",
                "aidan_coherence.txt", "aidan_similarity.txt")


def answer_prompt(question: str, previous: list[str]) -> Prompt:
    """The generator's prompt: the question and every earlier answer (chat and completion)."""
    listed = "\n".join(f"{i}. {a}" for i, a in enumerate(previous, 1)) or "(none yet)"
    user = load_prompt("aidan_answer_user.txt").replace("{question}", question).replace("{previous}", listed)
    numbered = "".join(f"{i}. {' '.join(a.split())}\n\n" for i, a in enumerate(previous, 1))
    completion = (load_prompt("aidan_answer_completion.txt").replace("{question}", question)
                  .replace("{numbered}", numbered).replace("{next_number}", str(len(previous) + 1)))
    return Prompt(messages=({"role": "system", "content": load_prompt("aidan_answer_system.txt").strip()},
                            {"role": "user", "content": user}),
                  completion=completion.rstrip("\n"), code_prefix="",
                  stop=ANSWER_STOP + (f"\n{len(previous) + 2}.",),
                  replay_key=ReplayKey(question, len(previous) + 1))


def _score_prompt(name: str, attempt: int, **fields) -> Prompt:
    text = load_prompt(name)
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    if attempt:
        text += "\nYour previous reply could not be read. Reply with <score>N</score>, your number in place of N, and nothing else.\n"
    return Prompt(messages=({"role": "user", "content": text},), completion=text.rstrip("\n") + "\n<score>",
                  code_prefix="", stop=("</score>", "\n"))


def judge_score(judge: Model, name: str, retries: int, **fields) -> tuple[float | None, list[str], dict]:
    """Ask ``judge`` with prompt ``name``; returns (score or None, the replies, tokens).
    An unparseable reply is asked again up to ``retries`` times with a reminder; None
    after that (the caller records an error, never a 0).  ModelError propagates."""
    replies, tokens = [], {"prompt": 0, "completion": 0}
    for attempt in range(retries + 1):
        reply = judge.generate(_score_prompt(name, attempt, **fields))
        replies.append(reply.text)
        tokens["prompt"] += reply.prompt_tokens or 0
        tokens["completion"] += reply.completion_tokens or 0
        score = parse_score(reply.text)
        if score is not None:
            return score, replies, tokens
    return None, replies, tokens


def run_question(index: int, question: str, generator: Model, judge: Model | None, embedder, folder: RunFolder,
                 settings: AidanConfig, done_answers: list[Answer]) -> QuestionResult:
    """Answer ``question`` until the stop rule; append every ``Answer`` and the final
    ``QuestionResult`` to ``folder``; return the latter.  ``done_answers`` are this
    question's answers from an interrupted run (continued, not redone).  A replayed
    source whose recorded answers end stops the question as "max answers"."""
    answers = [a.answer for a in done_answers]
    novelty_sum = sum(a.novelty for a in done_answers)
    matrix = embedder.embed(answers) if answers else None  # once, to rebuild the stored matrix
    reason, error = None, None
    while reason is None:
        if len(answers) >= settings.max_answers:
            reason = "max answers"
            break
        t0 = time.monotonic()
        try:
            reply = generator.generate(answer_prompt(question, answers))
        except NoRecordedReply:
            reason = "max answers"  # a replayed source has no more answers for this question
            break
        except ModelError as exc:
            reason, error = "error", f"generator: {exc}"
            break
        text = reply.text.strip()
        t1 = time.monotonic()
        vector = embedder.embed([text])[0]
        n = round(novelty(vector, matrix), 6)  # as stored: a resumed run sums the same numbers
        t2 = time.monotonic()
        coherence, judge_replies, judge_tokens = None, [], {"prompt": 0, "completion": 0}
        llm_novelty = None
        try:
            if judge is not None:
                coherence, judge_replies, judge_tokens = judge_score(
                    judge, "aidan_coherence.txt", settings.judge_retries, question=question, answer=text)
                if coherence is None:
                    error = f"judge reply unparseable after {settings.judge_retries + 1} attempts"
                if settings.llm_similarity and answers and error is None:
                    sims = []
                    for earlier in answers:
                        s, _, tok = judge_score(judge, "aidan_similarity.txt", settings.judge_retries,
                                                question=question, a=earlier, b=text)
                        judge_tokens = {k: judge_tokens[k] + tok[k] for k in judge_tokens}
                        if s is None:
                            error = "similarity judge reply unparseable"
                            break
                        sims.append(s / 100.0)
                    if error is None:
                        llm_novelty = 1.0 - max(sims)
        except ModelError as exc:
            error = f"judge: {exc}"
        t3 = time.monotonic()
        reason = "error" if error else stop_reason(coherence, n, settings.stop_at_coherence(), settings.novelty_stop)
        if reason is None and llm_novelty is not None and llm_novelty <= settings.novelty_stop:
            reason = "repetitive"
        folder.append(Answer(
            model=generator.name, question_index=index, question=question, answer_num=len(answers) + 1,
            answer=text, coherence=coherence, novelty=n, llm_novelty=llm_novelty, stop=reason, error=error,
            judge_replies=judge_replies,
            tokens={"generator": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens},
                    "judge": judge_tokens},
            seconds={"generate": round(t1 - t0, 3), "embed": round(t2 - t1, 3), "judge": round(t3 - t2, 3)}))
        if reason is None:
            answers.append(text)
            novelty_sum += n
            matrix = vector[None, :] if matrix is None else np.vstack([matrix, vector])
    result = QuestionResult(model=generator.name, question_index=index, question=question, answers=len(answers),
                            novelty_sum=round(novelty_sum, 6), stop_reason=reason, error=error)
    folder.append(result)
    return result


def resume_state(folder: RunFolder, model_name: str) -> tuple[dict, dict]:
    """(ended questions: index -> QuestionResult, unfinished: index -> Answers in order) of
    ``model_name`` in a run folder.  Answers that ended their question (``stop`` set) are
    left out of the unfinished ones: that answer is redone.  A question that ended in an
    error is unfinished again (the resume rule: it is not ``finished``)."""
    ended = {q.question_index: q for q in folder.read(QuestionResult) if q.model == model_name and q.finished}
    partial: dict[int, dict[int, Answer]] = {}
    for a in folder.read(Answer):
        if a.model == model_name and a.stop is None and a.question_index not in ended:
            partial.setdefault(a.question_index, {})[a.answer_num] = a
    unfinished = {}
    for i, answers in partial.items():
        ordered = [answers[k] for k in sorted(answers)]
        unfinished[i] = [a for k, a in enumerate(ordered, 1) if a.answer_num == k]  # a gap ends the prefix
    return ended, unfinished


def totals(results: list[QuestionResult]) -> dict:
    """Per-model totals: the README's score (answers before the stop, summed), the paper's
    (novelty summed), and the stop reasons."""
    return {"questions": len(results),
            "answers": sum(q.answers for q in results),
            "novelty_sum": round(sum(q.novelty_sum for q in results), 6),
            "stop_reasons": dict(Counter(q.stop_reason for q in results)),
            "errors": sum(1 for q in results if q.stop_reason == "error")}


def total_intervals(results: list[QuestionResult], resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> dict:
    """Intervals of a model's totals (``answers``, ``novelty_sum``) from a bootstrap that
    resamples questions (neocoder/bootstrap.py): total -> {"low", "high", "se"}."""
    units = [str(q.question_index) for q in results]
    if not units:
        return {}
    w = weights(len(units), resamples, seed)
    return {name: summarize(replicates(Ratio({str(q.question_index): getattr(q, name) for q in results}), units, w))
            for name in ("answers", "novelty_sum")}


def run_benchmark(questions: list[str], generator: Model, judge: Model | None, embedder, folder: RunFolder,
                  settings: AidanConfig, progress: bool = True) -> tuple[list[QuestionResult], dict]:
    """Run (or resume) every question for one generator; returns (its QuestionResults in
    question order, totals).

    Questions already ended in ``folder`` are skipped; unfinished ones continue after
    their last answer.  ``settings.concurrency`` questions run at once.
    """
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    ended, unfinished = resume_state(folder, generator.name)
    todo = [(i, q) for i, q in enumerate(questions) if i not in ended]
    bar = tqdm(total=len(questions), initial=len(questions) - len(todo), desc=f"aidanbench {generator.name}",
               unit="question", disable=not progress)

    def one(item):
        i, q = item
        result = run_question(i, q, generator, judge, embedder, folder, settings, unfinished.get(i, []))
        bar.update(1)
        return result

    with ThreadPoolExecutor(max_workers=settings.concurrency) as pool:
        for result in pool.map(one, todo):
            ended[result.question_index] = result
    bar.close()
    lines = [ended[i] for i in sorted(ended) if i < len(questions)]
    return lines, totals(lines)
