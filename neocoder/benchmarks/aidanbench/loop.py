"""The AidanBench loop: answer, judge, embed, stop; resumable, one JSONL of results.

Per question: the generator sees every earlier answer and is asked for a new one
(``cot``: it reasons first and its answer is what follows "Answer:"); the judge rates
its coherence (0-100, or 1-10 with ``coherence_scale`` 10); its novelty is 1 - the
largest cosine similarity to the earlier answers (one matrix-vector product against the
stored embeddings: each answer is embedded once); the question stops at the first
answer with coherence <= the stop (15, or 3 on the 1-10 scale) or novelty <= 0.15
(optionally also judge-rated similarity, ``llm_similarity``), at ``max_answers``, or at
an error.  With ``entailment`` each answer also gets a meaning class (bidirectional
entailment asked of the judge, or embedding similarity), for the semantic entropy of
the question's answers.  Formulas: scoring.py, analyses.py, neocoder/metrics/entropy.py.

Results go to the run folder's ``records.jsonl`` as they happen: one ``Answer`` record
per answer and one ``QuestionResult`` when a question ends (records.py), appended by the
runner as ``run_question`` yields them (the aidanbench task, neocoder/benchmarks/aidanbench/task.py).
A rerun with the same folder skips ended questions and continues unfinished ones after
their last answer.  The settings are the run's ``AidanConfig`` (config.py).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from neocoder.benchmarks.aidanbench.analyses import question_result
from neocoder.benchmarks.aidanbench.answers import (
    NO_ANSWER,
    embedded,
    no_answer_record,
    read_generator_reply,
)
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.scoring import (
    COHERENCE,
    ENTAILMENT,
    SIMILARITY,
    coherence_range,
    novelty,
    read_score,
    read_verdict,
    stop_reason,
)
from neocoder.errors import NeocoderError
from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Ratio, replicates, summarize, weights
from neocoder.metrics.entropy import GreedyClasses, bidirectional, cosine_equivalence
from neocoder.models import Model, ModelError, NoRecordedReply, Prompt, ReplayKey, Reply
from neocoder.models.base import EndpointError
from neocoder.replies import Reading
from neocoder.resources import prompt_text as load_prompt
from neocoder.store import RunFolder

ANSWER_STOP = ("\n\n", "\nQuestion:")
PROMPT_FILES = ("aidan_answer_system.txt", "aidan_answer_user.txt", "aidan_answer_completion.txt",
                "aidan_answer_user_cot.txt", "aidan_answer_completion_cot.txt", "aidan_coherence.txt",
                "aidan_coherence_10.txt", "aidan_similarity.txt", "aidan_entailment.txt")
COHERENCE_PROMPTS = {100: "aidan_coherence.txt", 10: "aidan_coherence_10.txt"}


def answer_prompt(question: str, previous: list[str], cot: bool = False, logprobs: int | None = None) -> Prompt:
    """The generator's prompt: the question and every earlier answer (chat and completion).
    ``cot``: the chain-of-thought variant (``prompts/aidan_answer_*_cot.txt``), which asks
    for reasoning first and the answer after "Answer:".  ``logprobs``: ask for the
    tokens' log-probabilities (the semantic entropy's log-probability estimate)."""
    suffix = "_cot" if cot else ""
    listed = "\n".join(f"{i}. {a}" for i, a in enumerate(previous, 1)) or "(none yet)"
    user = load_prompt(f"aidan_answer_user{suffix}.txt").replace("{question}", question).replace("{previous}", listed)
    label = "Answer: " if cot else ""
    numbered = "".join(f"{i}. {label}{' '.join(a.split())}\n\n" for i, a in enumerate(previous, 1))
    completion = (load_prompt(f"aidan_answer_completion{suffix}.txt").replace("{question}", question)
                  .replace("{numbered}", numbered).replace("{next_number}", str(len(previous) + 1)))
    return Prompt(messages=({"role": "system", "content": load_prompt("aidan_answer_system.txt").strip()},
                            {"role": "user", "content": user}),
                  completion=completion.rstrip("\n"), code_prefix="",
                  stop=ANSWER_STOP + (f"\n{len(previous) + 2}.",),
                  replay_key=ReplayKey(question, len(previous) + 1), logprobs=logprobs)


def _ask_prompt(name: str, attempt: int, tag: str, reminder: str, **fields) -> Prompt:
    text = load_prompt(name)
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    if attempt:  # each retry its own text: the call cache would answer a repeated prompt with the same reply
        text += f"\nYour previous {'reply' if attempt == 1 else f'{attempt} replies'} could not be read. {reminder}\n"
    # a completion ends with the opening tag and stops at the closing one: the reply is the
    # tag's content, read with both tags put back (``_answer_text``)
    return Prompt(messages=({"role": "user", "content": text},), completion=text.rstrip("\n") + f"\n<{tag}>",
                  code_prefix=f"<{tag}>", stop=(f"</{tag}>", "\n"))


def _answer_text(reply: Reply) -> str:
    """The judge's reply as the grammar reads it: a completion-mode reply (its
    ``code_prefix`` the opening tag the prompt ended with) gets the opening tag back, and
    the closing tag it stopped at unless it was cut at the token limit."""
    if not reply.code_prefix:
        return reply.text
    closing = "</" + reply.code_prefix[1:]
    cut = (reply.extra or {}).get("finish_reason") == "length"
    return reply.code_prefix + reply.text + ("" if cut or closing in reply.text else closing)


def _score_prompt(name: str, attempt: int, **fields) -> Prompt:
    return _ask_prompt(name, attempt, "score", "Reply with <score>N</score>, your number in place of N, "
                       "and nothing else.", **fields)


def _ask(judge: Model, prompts, read, retries: int, role: str, log: list | None):
    """Ask ``judge`` ``prompts(attempt)`` until ``read(text, prompt, finish_reason)`` gives a
    readable ``Reading`` or ``retries`` more asks are spent; every reply's reading goes to
    ``log`` as ``[role, reason]`` (reason None: readable).  Returns (the last Reading,
    the replies, tokens)."""
    replies, tokens = [], {"prompt": 0, "completion": 0}
    reading = None
    for attempt in range(retries + 1):
        prompt = prompts(attempt)
        reply = judge.generate(prompt)
        replies.append(reply.text)
        tokens["prompt"] += reply.prompt_tokens or 0
        tokens["completion"] += reply.completion_tokens or 0
        if reply.reasoning_tokens is not None:  # a reasoning judge's: a part of the completion tokens
            tokens["reasoning"] = tokens.get("reasoning", 0) + reply.reasoning_tokens
        reading = read(_answer_text(reply), prompt.messages[-1]["content"], (reply.extra or {}).get("finish_reason"))
        if log is not None:
            log.append([role, reading.reason])
        if reading.readable:
            break
    return reading, replies, tokens


def judge_score(judge: Model, name: str, retries: int, low: float = 0.0, high: float = 100.0,
                role: str = COHERENCE, log: list | None = None, **fields) -> tuple[Reading, list[str], dict]:
    """Ask ``judge`` with prompt ``name``; returns (the Reading of its last reply, a score
    in ``low..high`` or unreadable with its reason; the replies; tokens).  An unreadable
    reply (``scoring.score_grammar``) is asked again up to ``retries`` times with a
    reminder; unreadable after that (the caller records it, never a 0).  Every reply's
    reading goes to ``log`` under ``role``.  ModelError propagates."""
    return _ask(judge, lambda attempt: _score_prompt(name, attempt, **fields),
                lambda text, prompt, finish: read_score(text, low, high, prompt, finish, role), retries, role, log)


def judge_verdict(judge: Model, retries: int, log: list | None = None, **fields) -> tuple[Reading, list[str], dict]:
    """Ask ``judge`` whether answer ``a`` entails answer ``b`` (``prompts/aidan_entailment.txt``,
    fields question, a, b); returns (the Reading of its last reply: True / False, or
    unreadable with its reason after ``retries`` more asks; the replies; tokens).  Every
    reply's reading goes to ``log`` under "entailment".  ModelError propagates."""
    return _ask(judge, lambda attempt: _ask_prompt("aidan_entailment.txt", attempt, "verdict",
                                                   "Reply with <verdict>yes</verdict> or <verdict>no</verdict> "
                                                   "and nothing else.", **fields),
                read_verdict, retries, ENTAILMENT, log)


class Unclassified(Exception):
    """The judge's entailment verdict could not be read: the answer gets no class."""


def meaning_classes(settings: AidanConfig, judge: Model | None, question: str, tokens: dict,
                    log: list | None = None) -> GreedyClasses | None:
    """The greedy meaning classes of one question's answers (neocoder/metrics/entropy.py) for
    ``settings.entailment``: "judge" asks ``judge`` both directions of entailment
    (a class's first answer -> the new one, then back); "embedding" joins a class whose
    first answer has cosine similarity >= ``settings.entailment_threshold`` (an
    approximation).  Items are (text, unit vector) pairs.  The judge's tokens are added
    to ``tokens``, each verdict reply's reading to ``log``.  None without ``entailment``."""
    if not settings.entailment:
        return None
    if settings.entailment == "embedding":
        close = cosine_equivalence(settings.entailment_threshold)
        return GreedyClasses(lambda a, b: close(a[1], b[1]))

    def entails(a, b) -> bool:
        verdict, _, used = judge_verdict(judge, settings.judge_retries, log, question=question, a=a[0], b=b[0])
        for k in used:
            tokens[k] = tokens.get(k, 0) + used[k]
        if not verdict.readable:
            raise Unclassified(verdict.reason)
        return verdict.value
    return GreedyClasses(bidirectional(entails))


def check_settings(settings: AidanConfig, judged: bool) -> None:
    """Refuse settings the loop cannot honour, with the option's name: an unknown
    coherence scale or entailment, lambda outside [0, 1], --entailment judge without a
    judge, a threshold that is not a cosine similarity."""
    if settings.coherence_scale not in (10, 100):
        raise NeocoderError(f"--coherence-scale {settings.coherence_scale}: use 10 or 100")
    if not 0.0 <= settings.mmr_lambda <= 1.0:
        raise NeocoderError(f"--mmr-lambda {settings.mmr_lambda}: lambda must be in [0, 1]")
    if settings.entailment not in (None, "judge", "embedding"):
        raise NeocoderError(f"--entailment {settings.entailment!r}: use judge or embedding")
    if settings.entailment == "judge" and not judged:
        raise NeocoderError("--entailment judge asks the judge model: give --judge (not none), or use "
                            "--entailment embedding")
    if not -1.0 <= settings.entailment_threshold <= 1.0:
        raise NeocoderError(f"--entailment-threshold {settings.entailment_threshold}: a cosine similarity, "
                            "between -1 and 1")


def check_scale(folder: RunFolder, answers: list[Answer], scale: int) -> None:
    """A run folder holds coherence on one scale: refuse to add answers on another."""
    for a in answers:
        if a.coherence is not None and a.coherence_scale != scale:
            raise NeocoderError(
                f"{folder.records_path}: answer {a.answer_num} of question {a.question_index + 1} ({a.model}), field "
                f"coherence_scale: scored on the {a.coherence_scale}-point scale, this run asks for {scale}; "
                "continue with the same --coherence-scale or give another --out")


@dataclass
class Judged:
    """What the judge says of one answer: coherence (None: no judge or unreadable), the
    raw replies, judge tokens, judge-rated novelty (``llm_similarity``), meaning class
    (``entailment``), every judge reply's reading as ``[role, reason]`` (``readings``;
    reason None: readable), why the judge's replies could not be read (``unreadable``:
    the question ends unreadable) and the error that ends the question, if any."""

    coherence: float | None = None
    replies: list = field(default_factory=list)
    tokens: dict = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    llm_novelty: float | None = None
    semantic_class: int | None = None
    error: str | None = None
    readings: list = field(default_factory=list)
    unreadable: str | None = None

    def add_tokens(self, used: dict) -> None:
        """Add a judge call's token counts (``used``) to ``tokens``."""
        self.tokens = {k: self.tokens.get(k, 0) + used.get(k, 0) for k in {**self.tokens, **used}}


def _llm_novelty(judge: Model, settings: AidanConfig, question: str, texts: list[str], text: str,
                 judged: Judged) -> None:
    """1 - the largest judge-rated similarity of ``text`` to the earlier answers, into
    ``judged`` (or, when a similarity reply cannot be read, why: ``judged.unreadable``)."""
    sims = []
    for earlier in texts:
        score, _, used = judge_score(judge, "aidan_similarity.txt", settings.judge_retries, role=SIMILARITY,
                                     log=judged.readings, question=question, a=earlier, b=text)
        judged.add_tokens(used)
        if not score.readable:
            judged.unreadable = f"similarity judge reply unreadable ({score.reason})"
            return
        sims.append(score.value / 100.0)
    judged.llm_novelty = 1.0 - max(sims)


def judge_answer(judge: Model | None, settings: AidanConfig, question: str, texts: list[str], text: str, vector,
                 classes: GreedyClasses | None, class_tokens: dict, class_log: list | None = None) -> Judged:
    """Coherence, judge-rated novelty and meaning class of the new answer ``text`` (its
    unit embedding ``vector``), after the earlier answers ``texts``.  A judge's
    ModelError becomes the error; an unreadable coherence or similarity reply (after the
    retries) makes the answer unreadable (``judged.unreadable``); an unclassifiable answer
    gets no class, never a guess.  ``class_log``: the entailment readings ``classes``
    logs, moved into ``judged.readings``."""
    judged = Judged()
    class_log = class_log if class_log is not None else []
    try:
        if judge is not None:
            low, high = coherence_range(settings.coherence_scale)
            coherence, judged.replies, used = judge_score(
                judge, COHERENCE_PROMPTS[settings.coherence_scale], settings.judge_retries, low, high,
                role=COHERENCE, log=judged.readings, question=question, answer=text)
            judged.add_tokens(used)
            judged.coherence = coherence.value
            if not coherence.readable:
                judged.unreadable = (f"coherence judge reply unreadable ({coherence.reason}) after "
                                     f"{len(judged.replies)} attempts")
            if settings.llm_similarity and texts and judged.unreadable is None:
                _llm_novelty(judge, settings, question, texts, text, judged)
        if classes is not None and judged.unreadable is None:
            before = dict(class_tokens)
            try:
                judged.semantic_class = classes.add((text, vector))
            except Unclassified:
                judged.semantic_class = None  # the question's entropy is then left out
            judged.add_tokens({k: class_tokens[k] - before[k] for k in before})
            judged.readings.extend(class_log)
            class_log.clear()
    except EndpointError:
        raise  # every call would be refused the same way: the run stops (runner.py)
    except ModelError as exc:
        judged.error = f"judge: {exc}"
    return judged


def _reclassify(kept: list[Answer], classes: GreedyClasses, matrix):
    """Work out the meaning classes of a resumed question's answers again (from the call
    cache), updating ``kept`` and yielding each answer whose class changed.  ModelError
    propagates."""
    for k, a in enumerate(kept):
        try:
            c = classes.add((a.answer, matrix[k]))
        except Unclassified:
            c = None
        if c != a.semantic_class:
            kept[k] = dataclasses.replace(a, semantic_class=c)
            yield kept[k]


def _resumed_classes(kept: list[Answer], classes, matrix):
    """``_reclassify`` the resumed answers, yielding those whose class changed; returns
    ``(None, None)``, or ``("error", "judge: <why>")`` when the judge failed (a ModelError;
    an EndpointError stops the run)."""
    try:
        yield from _reclassify(kept, classes, matrix)
    except EndpointError:
        raise
    except ModelError as exc:
        return "error", f"judge: {exc}"
    return None, None


def _read(reply: Reply, question: str, texts: list[str], cot: bool) -> tuple[str, str | None, str | None]:
    """``answers.read_generator_reply`` of ``reply`` against the prompt it answered (and,
    after the first answer, the question's first prompt, so an earlier answer sent again is
    no echo)."""
    first = answer_prompt(question, [], cot).shown() if texts else None
    return read_generator_reply(reply, answer_prompt(question, texts, cot).shown(), first, cot)


def run_question(index: int, question: str, generator: Model, judge: Model | None, embedder,
                 settings: AidanConfig, done_answers: list[Answer]):
    """Answer ``question`` until the stop rule, yielding every ``Answer`` as it is judged
    and the final ``QuestionResult`` last (the runner appends each to the run folder).
    ``done_answers`` are this question's answers from an interrupted run (continued, not
    redone; with ``entailment`` their classes are worked out again, from the call cache,
    and an answer whose class changes is yielded again).  A replayed source whose
    recorded answers end stops the question as "max answers", a failed call (``embedded``) as
    "error".  The caller has checked that ``done_answers`` are on the run's coherence scale.
    """
    kept = list(done_answers)
    texts = [a.answer for a in kept]
    matrix, reason, error = embedded(embedder, texts) if texts else (None, None, None)  # the stored matrix, rebuilt
    class_tokens = {"prompt": 0, "completion": 0}
    class_log: list = []
    classes = meaning_classes(settings, judge, question, class_tokens, class_log)
    stopper = None
    if classes is not None and reason is None:
        reason, error = yield from _resumed_classes(kept, classes, matrix)
        class_log.clear()  # the resumed answers' verdicts were counted when they were first judged
    while reason is None:
        if len(kept) >= settings.max_answers:
            reason = "max answers"
            break
        t0 = time.monotonic()
        reply, reason, error = next_reply(generator, question, texts, settings, classes is not None)
        if reply is None:
            break
        text, reasoning, missing = _read(reply, question, texts, settings.cot)
        t1 = time.monotonic()
        if missing is not None:  # no answer: not embedded, not judged, the question ends here
            reason, error = NO_ANSWER, f"the generator's reply held no answer ({missing})"
            stopper = no_answer_record(generator.name, index, question, len(kept) + 1, reply, missing,
                                       settings.coherence_scale, t1 - t0)
            yield stopper
            break
        vectors, reason, error = embedded(embedder, [text])
        if vectors is None:
            break
        vector = vectors[0]
        n = round(novelty(vector, matrix), 6)  # as stored: a resumed run sums the same numbers
        t2 = time.monotonic()
        judged = judge_answer(judge, settings, question, texts, text, vector, classes, class_tokens, class_log)
        reason = "error" if judged.error else "unreadable" if judged.unreadable else \
            stop_reason(judged.coherence, n, settings.stop_at_coherence(), settings.novelty_stop)
        if reason is None and judged.llm_novelty is not None and judged.llm_novelty <= settings.novelty_stop:
            reason = "repetitive"
        record = answer_record(generator.name, index, question, len(kept) + 1, text, reasoning, reply, n, judged,
                               reason, settings.coherence_scale, (t0, t1, t2, time.monotonic()))
        yield record
        if reason is None:
            kept.append(record)
            texts.append(text)
            matrix = vector[None, :] if matrix is None else np.vstack([matrix, vector])
        else:
            stopper, error = record, judged.error or judged.unreadable
    yield question_result(generator.name, index, question, kept + ([stopper] if stopper else []), len(kept),
                          reason, error, coherence_stop=settings.stop_at_coherence(), mmr_lambda=settings.mmr_lambda,
                          coherence_scale=settings.coherence_scale, judged=judge is not None,
                          entailment=classes is not None)


def next_reply(generator: Model, question: str, texts: list[str], settings: AidanConfig,
               entailment: bool) -> tuple[Reply | None, str | None, str | None]:
    """The generator's next answer to ``question`` after the kept answers ``texts``, or why
    there is none, as (reply, stop reason, error): (reply, None, None); (None, "max answers",
    None) when a replayed source has no more answers for this question; (None, "error",
    message) when the generator fails.  An endpoint that cannot be reached or refuses the
    request (EndpointError) stops the run instead.  With ``entailment`` (meaning classes
    kept) the request asks for the tokens' log-probabilities as well."""
    try:
        return generator.generate(answer_prompt(question, texts, settings.cot, 1 if entailment else None)), None, None
    except NoRecordedReply:
        return None, "max answers", None
    except EndpointError:
        raise
    except ModelError as exc:
        return None, "error", f"generator: {exc}"


def answer_record(model: str, index: int, question: str, number: int, text: str, reasoning: str | None, reply,
                  novelty_: float, judged: Judged, reason: str | None, scale: int, times: tuple) -> Answer:
    """The ``Answer`` record of one answer: ``times`` are the monotonic seconds before
    generating, after generating, after embedding and after judging."""
    t0, t1, t2, t3 = times
    logprob = reply.mean_logprob
    return Answer(
        model=model, question_index=index, question=question, answer_num=number, answer=text,
        coherence=judged.coherence, novelty=novelty_, llm_novelty=judged.llm_novelty, stop=reason,
        error=judged.error, unreadable=judged.unreadable, judge_replies=judged.replies,
        judge_readings=judged.readings,
        tokens={"generator": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens,
                              **({"reasoning": reply.reasoning_tokens} if reply.reasoning_tokens is not None else {})},
                "judge": judged.tokens},
        seconds={"generate": round(t1 - t0, 3), "embed": round(t2 - t1, 3), "judge": round(t3 - t2, 3)},
        coherence_scale=scale, reasoning=reasoning, logprob=None if logprob is None else round(logprob, 6),
        semantic_class=judged.semantic_class, finish_reason=(reply.extra or {}).get("finish_reason"))


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


ANALYSES = ("gated_novelty", "mmr")  # per-question sums, totalled where a judge scored the answers
ENTROPIES = ("semantic_entropy", "semantic_entropy_rb")  # per-question values, averaged where present


def totals(results: list[QuestionResult]) -> dict:
    """Per-model totals: the README's score (answers before the stop, summed), the paper's
    (novelty summed), the stop reasons; where present, the coherence-gated novelty and
    MMR_AB summed over questions, and the mean semantic entropies over the questions
    that have one (with ``<name>_questions``, how many)."""
    out = {"questions": len(results),
           "answers": sum(q.answers for q in results),
           "novelty_sum": round(sum(q.novelty_sum for q in results), 6),
           "stop_reasons": dict(Counter(q.stop_reason for q in results)),
           "errors": sum(1 for q in results if q.stop_reason == "error")}
    for name in ANALYSES:
        values = [getattr(q, name) for q in results if getattr(q, name) is not None]
        if values:
            out[name] = round(sum(values), 6)
    for name in ENTROPIES:
        values = [getattr(q, name) for q in results if getattr(q, name) is not None]
        if values:
            out[name] = round(sum(values) / len(values), 6)
            out[f"{name}_questions"] = len(values)
    return out


def total_intervals(results: list[QuestionResult], resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> dict:
    """Intervals of a model's totals (``answers``, ``novelty_sum``, and where present the
    gated novelty, MMR_AB and the mean semantic entropies) from a bootstrap that
    resamples questions (neocoder/metrics/bootstrap.py): total -> {"low", "high", "se"}."""
    units = [str(q.question_index) for q in results]
    if not units:
        return {}
    w = weights(len(units), resamples, seed)
    out = {name: summarize(replicates(Ratio({str(q.question_index): getattr(q, name) for q in results}), units, w))
           for name in ("answers", "novelty_sum")}
    for name in ANALYSES + ENTROPIES:
        have = {str(q.question_index): getattr(q, name) for q in results if getattr(q, name) is not None}
        if have:
            ratio = Ratio(have, {u: 1.0 for u in have}) if name in ENTROPIES else Ratio(have)
            out[name] = summarize(replicates(ratio, units, w))
    return out
