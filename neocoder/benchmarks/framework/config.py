"""What a run of the creativity-evaluation framework is asked to do: one typed config per
command, each option declared once (neocoder/options.py), so the CLI (``neocoder
framework``, ``neocoder run framework``), the server's schema and the client derive from
it.  The defaults are the paper's (creativity-framework, App. C.1 and App. D: n = 10
candidates per step at T = 1.0, top_p = 0.9; j = 4, k = 5, l = 8, T = 0.5, two rounds,
150-word replies); docs/framework.md lists them with their sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from neocoder.config import (
    BOOTSTRAP,
    BOOTSTRAP_SEED,
    MAX_ERRORS,
    PROGRESS,
    Config,
    GenerateDefaults,
    ModelConfig,
    SandboxConfig,
)
from neocoder.options import Option, option

DOMAINS = ("macgyver", "hypogen", "bookmia", "code")
ENTAILMENT = ("nli", "llm", "embedding")
NLI_MODEL = "tasksource/deberta-base-long-nli"  # the paper's choice (its Table 1)
JUDGES = ("retrieval", "chateval", "both", "none")


# The judges' settings (App. D.2), declared once for the run and its validation.
DISCUSS_K = Option(5, "k: fragments an analyst retrieves to discuss (App. D.2).", ge=1, cap=50)
SCORE_J = Option(4, "j: fragments an analyst retrieves to score its confidence.", ge=1, cap=50)
VERDICT_L = Option(8, "l: fragments the most confident analyst retrieves for its verdict.", ge=1, cap=50)
THRESHOLD = Option(0.5, "T: the discussion stops when the mean confidence exceeds this.", ge=0, le=1)
ROUNDS = Option(2, "Discussion rounds at most.", ge=1, cap=10)
WORDS = Option(150, "Words per analyst reply at most (asked in the prompt).", ge=10, cap=1000)
CHATEVAL_ROUNDS = Option(2, "ChatEval: rounds of one-by-one discussion.", ge=1, cap=10)


@dataclass(kw_only=True)
class JudgeOptions:
    """The judges' settings (App. D.2) as config fields, for the run and its validation alike
    (keyword-only, so they may follow a config's required fields)."""

    discuss_k: int = DISCUSS_K.field()
    score_j: int = SCORE_J.field()
    verdict_l: int = VERDICT_L.field()
    threshold: float = THRESHOLD.field()
    rounds: int = ROUNDS.field()
    words: int = WORDS.field()
    chateval_rounds: int = CHATEVAL_ROUNDS.field()


# the analysts (and ChatEval's agents) answer in about 150 words, greedily; a reasoning judge gets room to think
JUDGE_DEFAULTS = GenerateDefaults(temperature=0.0, max_tokens=256, reasoning_max_tokens=4096)


@dataclass
class FrameworkConfig(Config, JudgeOptions):
    """``neocoder framework``: ``model`` solves each problem of ``domain`` step by step
    (``candidates`` samples per step, classes by bidirectional entailment, semantic
    entropy per step, the greedy candidate appended, STOP by majority); ``judge`` then
    judges the solution per criterion with the retrieval-based multi-agent judge and/or
    ChatEval one-by-one (``judges``)."""

    # the generator writes a step (its candidates are sampled at sample_temperature, sample_top_p);
    # the judge is the analysts (JUDGE_DEFAULTS)
    roles: ClassVar[dict[str, GenerateDefaults]] = {
        "model": GenerateDefaults(temperature=0.0, max_tokens=1024, reasoning_max_tokens=16384),
        "judge": JUDGE_DEFAULTS}

    model: ModelConfig = Option(help="The generator.", required=True).field()
    judge: ModelConfig = Option(help="The judge model (the analysts).", required=True).field()
    out: Path
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)  # --domain code: where the programs are judged
    domain: str = option("macgyver", "macgyver (shipped), hypogen or bookmia (--data FILE), code (NeoCoder "
                         "problem states, judged in the sandbox).", choices=DOMAINS)
    data: Path | None = option(None, "HypoGen or BookMIA: the local copy of the published file (.jsonl, .json or "
                               ".csv; docs/framework.md lists the fields).", file=True)
    limit: int | None = option(None, "Only the first N problems.", ge=1)
    candidates: int = option(10, "Candidate next steps sampled per step (the paper's n).", ge=2, cap=50)
    sample_temperature: float = option(1.0, "Sampling temperature of the candidates (paper App. C.1); the "
                                       "generator's own --temperature is not used for them.", ge=0, cap=2)
    sample_top_p: float = option(0.9, "Nucleus sampling of the candidates (paper App. C.1); overrides the "
                                 "generator's --top-p for them.", gt=0, le=1)
    max_steps: int = option(8, "Steps per solution at most (the step cap).", ge=1, cap=50)
    step_tokens: int = option(64, "Tokens per candidate step at most.", ge=8, cap=1024)
    entailment: str = option("llm", "How candidates are put into meaning classes: an NLI cross-encoder "
                             "(transformers; the paper's, with --nli-model), the judge model asked (the default: "
                             "no NLI model ships here), or embedding cosine (an approximation).",
                             choices=ENTAILMENT)
    nli_model: str = option(NLI_MODEL, "--entailment nli: a local folder or a Hub name (read offline unless the Hub "
                            "is reachable).")
    nli_batch: int = option(16, "--entailment nli: pairs per forward pass.", ge=1, cap=512)
    similarity: float = option(0.85, "--entailment embedding: cosine at or above which two steps are one class.",
                               ge=-1.0, le=1.0)
    embedder: str = option("local/all-MiniLM-L6-v2", "Embeddings for --entailment embedding and the judge's "
                           "fragment index.")
    judges: str = option("retrieval", "Which judge runs: the retrieval-based multi-agent judge, ChatEval "
                         "one-by-one, both (the token comparison), or none.", choices=JUDGES)
    concurrency: int = option(1, "Problems in flight at once.", ge=1, cap=32)
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = BOOTSTRAP_SEED.field()
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()


@dataclass
class ValidateConfig(Config, JudgeOptions):
    """``neocoder framework validate``: the judge against ground truth (MacGyver's human
    annotations, or sandbox verdicts of the shipped GPT-4 programs on the code domain),
    accuracy and AUARC with bootstrap intervals; with ``run``, the entropy of a framework
    run against average cosine, self-BLEU and distinct-n (Spearman, with intervals)."""

    roles: ClassVar[dict[str, GenerateDefaults]] = {"judge": JUDGE_DEFAULTS}

    judge: ModelConfig | None = Option(help="The judge model.", required=True).field()
    out: Path
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)  # --against code
    against: str = option("macgyver", "Ground truth: MacGyver's human annotations or the sandbox's verdicts on the "
                          "shipped GPT-4 programs (code).", choices=("macgyver", "code"))
    pairs: int = option(20, "Annotated solutions drawn (seeded) for the judge.", ge=1, cap=5000)
    sample_seed: int = option(0, "Seed of the draw of solutions.")
    judges: str = option("retrieval", "Which judge is validated.", choices=("retrieval", "chateval", "both"))
    embedder: str = option("local/all-MiniLM-L6-v2", "Embeddings of the judge's fragment index and of the "
                           "diversity baselines.")
    concurrency: int = option(1, "Solutions in flight at once.", ge=1, cap=32)
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = BOOTSTRAP_SEED.field()
    progress: bool = PROGRESS.field()
