"""AidanBench (McLaughlin et al.): how many new, coherent answers a model gives to an
open-ended question before it repeats itself or stops making sense; with the paper's
analyses (coherence-gated novelty, MMR_AB, the 1-10 scale), semantic entropy of the
answers, and re-scoring at other thresholds from stored scores (rescore.py)."""
