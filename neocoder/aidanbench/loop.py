"""The AidanBench loop: answer, judge, embed, stop; resumable, one JSONL of results.

Per question: the generator sees every earlier answer and is asked for a new one; the
judge rates its coherence (0-100); its novelty is 1 - the largest cosine similarity to
the earlier answers (one matrix-vector product against the stored embeddings: each
answer is embedded once); the question stops at the first answer with coherence <= 15
or novelty <= 0.15 (optionally also judge-rated similarity, ``llm_similarity``), at
``max_answers``, or at an error.  Formulas: neocoder/aidanbench/scoring.py.

Results go to ``answers.jsonl`` as they happen: one ``"type": "answer"`` line per
answer and one ``"type": "question"`` line when a question ends.  A rerun with the same
folder skips ended questions and continues unfinished ones after their last answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..models import Model, ModelError, Prompt
from ..models.base import load_prompt
from ..store import append_jsonl, end_line
from .scoring import COHERENCE_STOP, NOVELTY_STOP, novelty, parse_score, stop_reason

ANSWER_STOP = ("\n\n", "\nQuestion:")


@dataclass
class Settings:
    """What decides a run; recorded in its manifest."""

    coherence_stop: float = COHERENCE_STOP
    novelty_stop: float = NOVELTY_STOP
    max_answers: int = 100
    judge_retries: int = 2
    llm_similarity: bool = False
    prompts: dict = field(default_factory=lambda: {
        "answer": ["aidan_answer_system.txt", "aidan_answer_user.txt", "aidan_answer_completion.txt"],
        "coherence": "aidan_coherence.txt", "similarity": "aidan_similarity.txt"})


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
                  stop=ANSWER_STOP + (f"\n{len(previous) + 2}.",))


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
        reply = judge.generate(_score_prompt(name, attempt, **fields), {})
        replies.append(reply.text)
        tokens["prompt"] += reply.prompt_tokens or 0
        tokens["completion"] += reply.completion_tokens or 0
        score = parse_score(reply.text)
        if score is not None:
            return score, replies, tokens
    return None, replies, tokens


class Results:
    """The run's ``answers.jsonl``: appended and flushed per line, read back on resume."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        end_line(self.path)

    def read(self) -> list[dict]:
        if not self.path.exists():
            return []
        rows = []
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # the line being written when the run died
        return rows

    def append(self, row: dict) -> None:
        with self.lock:
            append_jsonl(self.path, row)


def run_question(index: int, question: str, generator: Model, judge: Model | None, embedder, results: Results,
                 settings: Settings, done_answers: list[dict]) -> dict:
    """Answer ``question`` until the stop rule; append every answer and the final
    question line to ``results``; return the question line.  ``done_answers`` are this
    question's answer lines from an interrupted run (continued, not redone)."""
    answers = [a["answer"] for a in done_answers]
    novelty_sum = sum(a["novelty"] for a in done_answers)
    matrix = embedder.embed(answers) if answers else None  # once, to rebuild the stored matrix
    reason, error = None, None
    while reason is None:
        if len(answers) >= settings.max_answers:
            reason = "max answers"
            break
        t0 = time.monotonic()
        try:
            reply = generator.generate(answer_prompt(question, answers),
                                       {"question": question, "answer_num": len(answers) + 1})
        except ModelError as exc:
            reason, error = "error", f"generator: {exc}"
            break
        text = reply.text.strip()
        if reply.extra.get("exhausted"):
            reason = "max answers"  # a replayed file has no more answers for this question
            break
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
        reason = "error" if error else stop_reason(coherence, n, settings.coherence_stop, settings.novelty_stop)
        if reason is None and llm_novelty is not None and llm_novelty <= settings.novelty_stop:
            reason = "repetitive"
        results.append({
            "type": "answer", "model": generator.name, "question_index": index, "question": question,
            "answer_num": len(answers) + 1, "answer": text, "coherence": coherence, "novelty": n,
            "llm_novelty": llm_novelty, "stop": reason, "error": error, "judge_replies": judge_replies,
            "tokens": {"generator": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens},
                       "judge": judge_tokens},
            "seconds": {"generate": round(t1 - t0, 3), "embed": round(t2 - t1, 3), "judge": round(t3 - t2, 3)},
        })
        if reason is None:
            answers.append(text)
            novelty_sum += n
            matrix = vector[None, :] if matrix is None else np.vstack([matrix, vector])
    line = {"type": "question", "model": generator.name, "question_index": index, "question": question,
            "answers": len(answers), "novelty_sum": round(novelty_sum, 6), "stop_reason": reason, "error": error}
    results.append(line)
    return line


def resume_state(rows: list[dict], model_name: str) -> tuple[dict, dict]:
    """(ended questions: index -> question line, unfinished: index -> answer lines in
    order) of ``model_name`` in an existing results file.  Answer lines that ended their
    question (``stop`` set) are left out of the unfinished ones: that answer is redone.
    A question that ended in an error is unfinished again (retried on resume)."""
    ended, partial = {}, {}
    for r in rows:
        if r.get("model") != model_name:
            continue
        if r["type"] == "question":
            if r["stop_reason"] == "error":
                ended.pop(r["question_index"], None)
            else:
                ended[r["question_index"]] = r
        elif r["type"] == "answer" and r.get("stop") is None:
            partial.setdefault(r["question_index"], {})[r["answer_num"]] = r
    unfinished = {}
    for i, answers in partial.items():
        if i in ended:
            continue
        ordered = [answers[k] for k in sorted(answers)]
        ordered = [a for k, a in enumerate(ordered, 1) if a["answer_num"] == k]  # a gap ends the prefix
        unfinished[i] = ordered
    return ended, unfinished


def totals(question_lines: list[dict]) -> dict:
    """Per-model totals: the README's score (answers before the stop, summed), the paper's
    (novelty summed), and the stop reasons."""
    return {"questions": len(question_lines),
            "answers": sum(q["answers"] for q in question_lines),
            "novelty_sum": round(sum(q["novelty_sum"] for q in question_lines), 6),
            "stop_reasons": dict(Counter(q["stop_reason"] for q in question_lines)),
            "errors": sum(1 for q in question_lines if q["stop_reason"] == "error")}


def run_benchmark(questions: list[str], generator: Model, judge: Model | None, embedder, out: Path,
                  settings: Settings, concurrency: int = 1, progress: bool = True) -> tuple[list[dict], dict]:
    """Run (or resume) every question; returns (question lines in question order, totals).

    Questions already ended in ``out/answers.jsonl`` are skipped; unfinished ones
    continue after their last answer.  ``concurrency`` questions run at once.
    """
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    results = Results(Path(out) / "answers.jsonl")
    ended, unfinished = resume_state(results.read(), generator.name)
    todo = [(i, q) for i, q in enumerate(questions) if i not in ended]
    bar = tqdm(total=len(questions), initial=len(questions) - len(todo), desc=f"aidanbench {generator.name}",
               unit="question", disable=not progress)

    def one(item):
        i, q = item
        line = run_question(i, q, generator, judge, embedder, results, settings, unfinished.get(i, []))
        bar.update(1)
        return line

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for line in pool.map(one, todo):
            ended[line["question_index"]] = line
    bar.close()
    lines = [ended[i] for i in sorted(ended) if i < len(questions)]
    return lines, totals(lines)
