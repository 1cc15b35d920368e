"""AidanBench scores: novelty, the stop rule, reading a judge's reply, and the paper's
analyses over a question's answers.

Formulas (the method in shared/aidanbench/README.md, McLaughlin, Campbell, Uppuluri,
"AidanBench: Evaluating Novel Idea Generation on Open-Ended Questions"):

- novelty of answer i: N_i = 1 - max_j cos(e_i, e_j) over the earlier answers j < i,
  and N_1 = 1 (no earlier answer);
- a question stops at the first answer with coherence C <= 15 (0-100 scale; <= 3 on the
  paper's 1-10 scale) or novelty N <= 0.15;
- its score is the number of answers before that stop; the paper also reports the sum
  of N over those answers;
- coherence-gated novelty (the paper's App. D): the sum of N_i over the answers whose
  coherence is above the threshold, C_i > tau_C (``gated_novelty``);
- MMR_AB (the paper's Eq. 3, AidanBench read as Maximal Marginal Relevance, Carbonell
  and Goldstein 1998): per answer lambda * relevance - (1 - lambda) * redundancy, with
  coherence as relevance and the largest cosine similarity to an earlier answer,
  1 - N_i, as redundancy (``mmr_ab``).
"""

from __future__ import annotations

import numpy as np

from neocoder.benchmarks.aidanbench.config import COHERENCE_STOP, NOVELTY_STOP  # noqa: F401 (re-exported: the stop rule's defaults)
from neocoder.replies import Grammar, Reading, choice, number, tagged, within

COHERENCE_RANGES = {100: (0.0, 100.0), 10: (1.0, 10.0)}  # judge scale -> the scores a reply may give


def coherence_range(scale: int) -> tuple[float, float]:
    """(lowest, highest) coherence score on ``scale`` (100: the README's 0-100; 10: the
    paper's 1-10).  Raises ValueError for another scale."""
    if scale not in COHERENCE_RANGES:
        raise ValueError(f"coherence scale {scale!r}: use 10 or 100")
    return COHERENCE_RANGES[scale]


def novelty(vector: np.ndarray, earlier: np.ndarray) -> float:
    """1 - the largest cosine similarity between ``vector`` (shape (d,)) and the rows of
    ``earlier`` (shape (k, d)); 1.0 when k = 0.  One vectorised product; the rows need
    not be normalised (they are normalised here).  Raises ValueError on a dimension
    mismatch or a zero vector."""
    v = np.asarray(vector, dtype=np.float64)
    if earlier is None or len(earlier) == 0:
        return 1.0
    m = np.asarray(earlier, dtype=np.float64)
    if m.ndim != 2 or m.shape[1] != v.shape[0]:
        raise ValueError(f"novelty: vector of size {v.shape} against matrix of shape {m.shape}")
    vn, mn = np.linalg.norm(v), np.linalg.norm(m, axis=1)
    if vn == 0 or not np.all(mn > 0):
        raise ValueError("novelty: zero embedding vector")
    return float(1.0 - np.max(m @ v / (mn * vn)))


def stop_reason(coherence: float | None, novelty_score: float, coherence_stop: float = COHERENCE_STOP,
                novelty_stop: float = NOVELTY_STOP) -> str | None:
    """"incoherent" if C <= coherence_stop, "repetitive" if N <= novelty_stop, else None;
    ``coherence`` None means no judge (novelty only).  Both thresholds are inclusive
    (the published rule: stop at C <= 15 or N <= 0.15)."""
    if coherence is not None and coherence <= coherence_stop:
        return "incoherent"
    if novelty_score <= novelty_stop:
        return "repetitive"
    return None


def gated_novelty(coherences, novelties, coherence_stop: float) -> float:
    """Coherence-gated novelty (AidanBench paper, App. D): sum_i N_i * [C_i > tau_C].

    ``coherences`` and ``novelties``: one per answer (same length k >= 0), coherence on
    the run's scale; ``coherence_stop``: tau_C on that scale (an answer exactly at it is
    incoherent, as in the stop rule).  0.0 for no answers.  Raises ValueError for
    different lengths or a missing (None) score: gating needs a judge score per answer.
    """
    cs, ns = list(coherences), list(novelties)
    if len(cs) != len(ns):
        raise ValueError(f"gated_novelty: {len(cs)} coherence scores for {len(ns)} novelties")
    for i, (c, n) in enumerate(zip(cs, ns)):
        if c is None or n is None:
            raise ValueError(f"gated_novelty: answer {i + 1} has no {'coherence' if c is None else 'novelty'} score")
    return float(sum(n for c, n in zip(cs, ns) if c > coherence_stop))


def mmr_ab(coherences, novelties, mmr_lambda: float, scale: int = 100) -> float:
    """MMR_AB summed over a question's answers (AidanBench paper, Eq. 3, after Carbonell
    and Goldstein's Maximal Marginal Relevance):

        MMR_AB = sum_i [ lambda * C_i / C_max - (1 - lambda) * max_{j < i} cos(e_i, e_j) ]
               = sum_i [ lambda * C_i / C_max - (1 - lambda) * (1 - N_i) ]

    with relevance the judge's coherence scaled to [0, 1] by the scale's maximum (100 or
    10; so lambda weighs two quantities on the same footing) and redundancy the largest
    cosine similarity to an earlier answer (0 for the first answer, N_1 = 1).  lambda = 1
    sums coherence only, lambda = 0 sums minus the redundancy only.

    ``coherences``, ``novelties``: one per answer, same length; returns 0.0 for none.
    Raises ValueError for lambda outside [0, 1], different lengths, a missing score or
    an unknown scale.
    """
    if not 0.0 <= mmr_lambda <= 1.0:
        raise ValueError(f"mmr_lambda {mmr_lambda}: lambda must be in [0, 1]")
    top = coherence_range(scale)[1]
    cs, ns = list(coherences), list(novelties)
    if len(cs) != len(ns):
        raise ValueError(f"mmr_ab: {len(cs)} coherence scores for {len(ns)} novelties")
    total = 0.0
    for i, (c, n) in enumerate(zip(cs, ns)):
        if c is None or n is None:
            raise ValueError(f"mmr_ab: answer {i + 1} has no {'coherence' if c is None else 'novelty'} score")
        total += mmr_lambda * c / top - (1.0 - mmr_lambda) * (1.0 - n)
    return float(total)


COHERENCE = "coherence"  # judge roles, the keys of metrics.json's "unreadable"
SIMILARITY = "similarity"
ENTAILMENT = "entailment"
JUDGE_ROLES = (COHERENCE, SIMILARITY, ENTAILMENT)


def score_grammar(role: str = COHERENCE, low: float = 0.0, high: float = 100.0) -> Grammar:
    """The grammar of a scoring judge (``role`` coherence or similarity): the authors'
    ``<score>N</score>`` (AidanBench's judge format), the last tag counts, its content a
    number in ``low..high`` (0..100; 1..10 on the paper's scale).  An echo of the
    prompt's ``<score>N</score>`` is unreadable (``echo``); so is a bare number, a
    "Score: 7", a number out of range, tags that disagree (docs/aidanbench.md, "Reply grammars")."""
    return tagged(f"aidanbench {role}", "score", number, within(low, high), placeholders=("N",),
                  describe=f"the last <score>N</score>, N a number from {low:g} to {high:g}")


VERDICT_GRAMMAR = tagged("aidanbench entailment", "verdict", choice("yes", "no"),
                         describe="the last <verdict>yes</verdict> or <verdict>no</verdict>")


def read_score(reply: str | None, low: float = 0.0, high: float = 100.0, prompt: str | None = None,
               finish_reason: str | None = None, role: str = COHERENCE) -> Reading:
    """A scoring judge's reply read by ``score_grammar(role, low, high)``: ``Reading(float)``
    or unreadable with its reason (neocoder/replies.py); ``prompt`` (for echoes) and
    ``finish_reason`` (for ``cut off``) as the endpoint gave them."""
    return score_grammar(role, low, high).read(reply, prompt, finish_reason)


def read_verdict(reply: str | None, prompt: str | None = None, finish_reason: str | None = None) -> Reading:
    """An entailment judge's reply read by ``VERDICT_GRAMMAR``: ``Reading(True)`` for yes,
    ``Reading(False)`` for no, or unreadable with its reason (two tags that disagree are
    ``conflicting markers``; a bare "yes" is ``no marker``)."""
    r = VERDICT_GRAMMAR.read(reply, prompt, finish_reason)
    return Reading(r.value.lower() == "yes") if r.readable else r


def parse_score(reply: str | None, low: float = 0.0, high: float = 100.0) -> float | None:
    """``read_score``'s value: the score, or None when the reply is unreadable."""
    return read_score(reply, low, high).value


def parse_verdict(reply: str | None) -> bool | None:
    """``read_verdict``'s value: True / False, or None when the reply is unreadable."""
    return read_verdict(reply).value
