"""AidanBench (McLaughlin et al.): how many new, coherent answers a model gives to an
open-ended question before it repeats itself or stops making sense."""

from .scoring import COHERENCE_STOP, NOVELTY_STOP, novelty, parse_score, stop_reason

__all__ = ["COHERENCE_STOP", "NOVELTY_STOP", "novelty", "parse_score", "stop_reason"]
