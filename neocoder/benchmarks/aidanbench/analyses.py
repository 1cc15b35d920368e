"""A question's outcome and its analyses from its stored answers: the answer count and
novelty sum, coherence-gated novelty, MMR_AB and the semantic entropy of the answers.

One function builds every ``QuestionResult``, so the loop (loop.py) and a re-score from
stored scores (rescore.py) compute the same numbers the same way.  The formulas are in
scoring.py (gated novelty, MMR_AB) and neocoder/metrics/entropy.py (semantic entropy).
"""

from __future__ import annotations

from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.scoring import gated_novelty, mmr_ab
from neocoder.metrics.entropy import discrete_entropy, rao_blackwell_entropy


def question_result(model: str, index: int, question: str, answers: list[Answer], kept: int, stop: str,
                    error: str | None, *, coherence_stop: float, mmr_lambda: float, coherence_scale: int,
                    judged: bool, entailment: bool) -> QuestionResult:
    """The ``QuestionResult`` of one question.

    ``answers``: the question's answers in order, the ``kept`` ones counted before the
    stop and then, if there is one, the answer that stopped it.  ``stop``, ``error``: how
    it ended.  ``judged``: a coherence judge scored the answers (else the gated novelty
    and MMR_AB are None); ``entailment``: the answers carry meaning classes.

    - answers, novelty_sum: the count and summed novelty of the kept answers (README,
      paper);
    - gated_novelty: sum of N over every answer here with a coherence score above
      ``coherence_stop`` (App. D; the stopping answer counts when it was coherent, e.g.
      a repetitive one; an answer whose judging failed has no score and does not count);
    - mmr: MMR_AB (Eq. 3) summed over the kept answers at ``mmr_lambda``;
    - semantic_classes, semantic_entropy: the kept answers' meaning classes and their
      discrete entropy (None for no kept answer or one left unclassified);
      semantic_entropy_rb: the same with the answers' log-probabilities, where every kept
      answer has one.
    """
    counted = answers[:kept]
    result = QuestionResult(model=model, question_index=index, question=question, answers=kept,
                            novelty_sum=round(sum(a.novelty for a in counted), 6), stop_reason=stop, error=error)
    if judged:
        scored = [a for a in answers if a.coherence is not None]
        result.gated_novelty = round(gated_novelty([a.coherence for a in scored], [a.novelty for a in scored],
                                                   coherence_stop), 6)
        if all(a.coherence is not None for a in counted):
            result.mmr = round(mmr_ab([a.coherence for a in counted], [a.novelty for a in counted], mmr_lambda,
                                      coherence_scale), 6)
    classes = [a.semantic_class for a in counted]
    if entailment and counted and None not in classes:
        result.semantic_classes = len(set(classes))
        result.semantic_entropy = round(discrete_entropy(classes), 6)
        logprobs = [a.logprob for a in counted]
        if None not in logprobs:
            result.semantic_entropy_rb = round(rao_blackwell_entropy(classes, logprobs), 6)
    return result
