"""AidanBench scores: novelty, the stop rule, and reading a judge's score.

Formulas (the method in shared/aidanbench/README.md, McLaughlin et al. "AidanBench"):

- novelty of answer i: N_i = 1 - max_j cos(e_i, e_j) over the earlier answers j < i,
  and N_1 = 1 (no earlier answer);
- a question stops at the first answer with coherence C <= 15 or novelty N <= 0.15;
- its score is the number of answers before that stop; the paper also reports the sum
  of N over those answers.
"""

from __future__ import annotations

import re

import numpy as np

from ..config import COHERENCE_STOP, NOVELTY_STOP  # noqa: F401 (re-exported: the stop rule's defaults)


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
    ``coherence`` None means no judge (novelty only)."""
    if coherence is not None and coherence <= coherence_stop:
        return "incoherent"
    if novelty_score <= novelty_stop:
        return "repetitive"
    return None


_TAGGED = re.compile(r"<score>\s*(-?\d+(?:\.\d+)?)\s*</score>", re.I)
_LOOSE = re.compile(r"(?:score|rating)\s*(?:is|:|=)?\s*(-?\d+(?:\.\d+)?)", re.I)


def parse_score(reply: str) -> float | None:
    """A 0-100 score from a judge reply: ``<score>N</score>``, else "score: N", else a
    reply that is only a number.  None when there is none or it is outside 0..100
    (the caller retries, then records an error: never a 0)."""
    text = reply.strip()
    for pattern in (_TAGGED, _LOOSE):
        m = pattern.search(text)
        if m:
            value = float(m.group(1))
            return value if 0 <= value <= 100 else None
    if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
        value = float(text)
        return value if 0 <= value <= 100 else None
    return None
