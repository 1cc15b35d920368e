"""AidanBench's typed, versioned records (the run folder's ``records.jsonl`` lines), declared
in its descriptor (descriptor.py) so any run folder reads back with no import first:

- ``Answer``: one answer of one generator to one question, with its coherence (the judge's
  score), its novelty (1 - the highest cosine similarity to the earlier answers) and the
  stop it caused;
- ``QuestionResult``: how one question ended for one model: answers kept, novelty summed,
  the stop reason, and the paper's analyses (gated novelty, MMR_AB, semantic entropy).

docs/records.md documents every field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neocoder.records import Record


@dataclass
class Answer(Record):
    """One AidanBench answer with its scores (McLaughlin et al., AidanBench)."""

    TYPE = "answer"

    model: str  # the generator
    question_index: int  # 0-based position of the question in the run's question list
    question: str
    answer_num: int  # 1-based position of the answer within its question
    answer: str
    coherence: float | None = None  # judge's score on coherence_scale (None: --judge none, or an error)
    novelty: float | None = None  # 1 - max cosine similarity to the earlier answers
    llm_novelty: float | None = None  # 1 - max judge-rated similarity / 100 (--llm-similarity)
    stop: str | None = None  # the stop reason this answer caused ("incoherent", "repetitive", "unreadable", "error",
    # "no answer": the generator's reply held none, ``no_answer`` says why)
    error: str | None = None
    judge_replies: list = field(default_factory=list)  # the judge's raw coherence replies, retries included
    judge_readings: list = field(default_factory=list)  # every judge reply's reading, [role, reason]: role
    # coherence, similarity or entailment; reason None (readable) or why not (neocoder/replies.py REASONS)
    unreadable: str | None = None  # why the judge's replies about this answer could not be read (stop "unreadable")
    tokens: dict = field(default_factory=dict)  # {"generator": {...}, "judge": {...}}
    seconds: dict = field(default_factory=dict)  # {"generate", "embed", "judge"}
    coherence_scale: int = 100  # 100: the 0-100 judge prompt; 10: the paper's 1-10 scale
    reasoning: str | None = None  # --cot: the reply's reasoning before "Answer:" (``answer`` is what follows it)
    logprob: float | None = None  # the reply's length-normalised log-probability (nats per token), where reported
    semantic_class: int | None = None  # --entailment: meaning class among the question's answers (0, 1, ... in
    # order of first appearance); None without --entailment or when the judge's verdict could not be read
    no_answer: str | None = None  # why the generator's reply held no answer (neocoder/replies.py ANSWER_REASONS:
    # empty, reasoning only, echo, refusal, cut off): not judged, not embedded, it stops the question
    finish_reason: str | None = None  # the endpoint's finish_reason for the generator's reply ("length": cut)

    @property
    def key(self) -> tuple:
        """The resume key: (model, question_index, answer_num)."""
        return (self.model, self.question_index, self.answer_num)

    def recorded_reply(self) -> tuple[tuple, str, str]:
        """The answer, keyed (question text, answer number, 0), for ``--model replay/<run>``."""
        return (self.question, self.answer_num, 0), self.answer, ""


@dataclass
class QuestionResult(Record):
    """How one question ended for one model: answers kept, novelty summed, stop reason."""

    TYPE = "question"

    model: str
    question_index: int
    question: str
    answers: int  # answers before the stop (AidanBench's count)
    novelty_sum: float  # sum of those answers' novelty (the paper's score)
    stop_reason: str  # "incoherent", "repetitive", "max answers", "unreadable" (a judge reply could not be
    # read after the retries), "no answer" (the generator's reply held none), "error"; a rescore adds "out of answers"
    error: str | None = None  # the error, or for "unreadable" why the judge's reply could not be read
    gated_novelty: float | None = None  # App. D: novelty summed over the question's answers with C > the stop
    mmr: float | None = None  # MMR_AB (Eq. 3) summed over the answers before the stop, at the run's lambda
    semantic_classes: int | None = None  # --entailment: meaning classes among the answers before the stop
    semantic_entropy: float | None = None  # their discrete semantic entropy, nats (neocoder/metrics/entropy.py)
    semantic_entropy_rb: float | None = None  # the same from the answers' log-probabilities, where reported

    @property
    def key(self) -> tuple:
        """The resume key: (model, question_index)."""
        return (self.model, self.question_index)

    @property
    def finished(self) -> bool:
        """A question that ended in an error is retried on resume."""
        return self.stop_reason != "error"
