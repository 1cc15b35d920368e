"""AidanBench's configs: a run (``AidanConfig``, with the generator's and the judge's
defaults) and a re-score from stored scores (``RescoreConfig``), each option declared once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from neocoder.config import BOOTSTRAP, BOOTSTRAP_SEED, MAX_ERRORS, PROGRESS, Config, GenerateDefaults, ModelConfig
from neocoder.options import Option, option

# AidanBench's stop rule (its README): an answer with coherence <= 15 (0-100 judge scale) or
# novelty <= 0.15 ends a question.  Defaults of the config; scoring.py uses them.
COHERENCE_STOP = 15.0  # on the README's 0-100 coherence scale
COHERENCE_STOP_10 = 3.0  # on the AidanBench paper's 1-10 scale (stop at <= 3)
NOVELTY_STOP = 0.15


@dataclass
class AidanConfig(Config):
    """``neocoder aidanbench``: ``model`` answers each question until the ``judge`` (None:
    novelty only) finds an answer incoherent (score <= ``coherence_stop``) or the embedder
    finds it repetitive (novelty <= ``novelty_stop``), or ``max_answers`` is reached."""

    # AidanBench's generator samples (0.7) with a short answer budget; the judge answers one score, greedily.
    # (a reasoning model, e.g. the o1-mini judge AidanBench names, gets a budget its thinking fits in)
    roles: ClassVar[dict[str, GenerateDefaults]] = {
        "model": GenerateDefaults(temperature=0.7, max_tokens=256, reasoning_max_tokens=8192),
        "judge": GenerateDefaults(temperature=0.0, max_tokens=16, reasoning_max_tokens=4096)}

    model: ModelConfig = Option(help="The generator.", required=True).field()
    judge: ModelConfig | None = Option(help="The coherence judge (None: novelty only).", required=True).field()
    out: Path
    embedder: str = option("local/all-MiniLM-L6-v2", "local/all-MiniLM-L6-v2 (offline) or openai/<embedding model>.")
    questions: Path | None = option(None, "One question per line (default: the 65 AidanBench questions).",
                                    file=True)
    limit: int | None = option(None, "Only the first N questions.", ge=1)
    max_answers: int = option(100, "Answers per question at most.", ge=1, cap=1000)
    coherence_stop: float | None = option(
        None, f"Stop at coherence <= this, on the scale (default: {COHERENCE_STOP:g} on 0-100, "
        f"{COHERENCE_STOP_10:g} on 1-10).")
    novelty_stop: float = option(NOVELTY_STOP, "Stop at novelty <= this.")
    llm_similarity: bool = option(False, "Also stop when the judge rates an answer as similar to an earlier one "
                                  "(1 - max similarity/100 <= --novelty-stop).")
    judge_retries: int = option(2, "Asks again after an unparseable judge reply, then records an error.", ge=0,
                                cap=10)
    concurrency: int = option(1, "Questions in flight at once.", ge=1, cap=32)
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = BOOTSTRAP_SEED.field()
    coherence_scale: int = option(100, "The judge's coherence scale: 0-100 (the README's) or 1-10 (the paper's).",
                                  choices=(100, 10))
    cot: bool = option(False, "Chain-of-thought answer prompt: the generator reasons first, and its answer is what "
                       "follows 'Answer:'.")
    mmr_lambda: float = option(0.5, "MMR_AB's weight on coherence against redundancy (paper Eq. 3).", ge=0.0, le=1.0)
    entailment: str | None = option(None, "Semantic entropy of each question's answers, with meaning classes from "
                                    "bidirectional entailment asked of the judge, or from embedding similarity "
                                    "(an approximation).", choices=("judge", "embedding"))
    entailment_threshold: float = option(0.85, "--entailment embedding: cosine similarity at or above which an "
                                         "answer joins a class.", ge=-1.0, le=1.0)
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()

    def resolved(self) -> "AidanConfig":
        """The models' role defaults and the coherence stop in force written out (the
        manifest says 15 or 3, not "the scale's default")."""
        config = super().resolved()
        return dataclasses.replace(config, coherence_stop=config.stop_at_coherence())

    def stop_at_coherence(self) -> float:
        """The coherence stop in force: ``coherence_stop``, else the scale's default."""
        if self.coherence_stop is not None:
            return self.coherence_stop
        return COHERENCE_STOP_10 if self.coherence_scale == 10 else COHERENCE_STOP


@dataclass
class RescoreConfig(Config):
    """``neocoder aidanbench rescore``: the AidanBench run folder ``run`` re-scored with the
    thresholds given (None: the run's own), with no model call, into ``out`` (None:
    beside the run, ``<run>-rescore-c<X>-n<Y>``).  Coherence thresholds are on the run's
    coherence scale."""

    run: Path = Option(help="The AidanBench run folder to re-score (never changed).", required=True).field()
    out: Path | None = None
    coherence_stop: float | None = option(None, "Stop at coherence <= this, on the run's scale (default: the run's).")
    novelty_stop: float | None = option(None, "Stop at novelty <= this (default: the run's).")
    max_answers: int | None = option(None, "Answers per question at most (default: the run's).", ge=1)
    mmr_lambda: float | None = option(None, "MMR_AB's lambda (default: the run's).", ge=0.0, le=1.0)
    bootstrap: int | None = option(None, "Bootstrap resamples of questions (default: the run's).", ge=2, cap=100000)
    bootstrap_seed: int | None = option(None, "Seed of the bootstrap resampling (default: the run's).", flag="--seed")
    progress: bool = dataclasses.replace(PROGRESS, default=False).field()
