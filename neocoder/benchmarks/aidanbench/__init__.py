"""AidanBench (McLaughlin et al.): how many new, coherent answers a model gives to an
open-ended question before it repeats itself or stops making sense; with the paper's
analyses (coherence-gated novelty, MMR_AB, the 1-10 scale), semantic entropy of the
answers, and re-scoring at other thresholds from stored scores (rescore.py)."""

from neocoder.benchmarks.aidanbench.scoring import (
           COHERENCE_STOP,
           NOVELTY_STOP,
           gated_novelty,
           mmr_ab,
           novelty,
           parse_score,
           parse_verdict,
           stop_reason,
)

__all__ = ["COHERENCE_STOP", "NOVELTY_STOP", "gated_novelty", "mmr_ab", "novelty", "parse_score", "parse_verdict",
           "stop_reason"]
