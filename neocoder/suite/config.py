"""``neocoder suite``: what a suite run is asked to do, declared once (options.py).

The suite runs every registered benchmark with suite sizes (registry.py) for one model into one run
folder; its config names the model, its judges, a stand-in for the benchmarks a
recorded model has no answers for, the size (``preset``) and which benchmarks.  The
command line (``neocoder suite`` and ``neocoder run suite``), the service's
``POST /v1/runs {"task": "suite"}`` and the Python API all read these declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from neocoder.benchmarks.descriptor import FULL, QUICK
from neocoder.config import (
    BOOTSTRAP,
    BOOTSTRAP_SEED,
    LANGUAGE,
    MAX_ERRORS,
    PROGRESS,
    Config,
    ModelConfig,
    SandboxConfig,
)
from neocoder.options import Option, option
from neocoder.suite.registry import names as suite_names

ALL = "all"  # --benchmarks all: every benchmark the suite runs (the default)


def parse_benchmarks(text: str) -> list[str]:
    """'eval,ideas' -> ['eval', 'ideas']; 'all' -> every benchmark the suite runs
    (registry.py ``names``, read when called, so a benchmark registered later is one of
    them).  Raises ValueError for a name the suite does not run."""
    known = suite_names()
    if str(text).strip() == ALL:
        return known
    names = [t.strip() for t in str(text).split(",") if t.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ValueError(f"{text!r}: give some of {', '.join(known)}, comma-separated, or {ALL}")
    return names


@dataclass
class SuiteConfig(Config):
    """``neocoder suite``: ``model`` through every benchmark in ``benchmarks`` at the size
    ``preset`` names (each benchmark's ``presets``), into one run folder ``out`` with a
    sub-folder per benchmark and one call cache.  ``judges`` judge where a benchmark needs
    a judge: AidanBench's coherence judge is the first, LiveIdeaBench's panel is all of
    them (none: AidanBench by novelty only, LiveIdeaBench left out).  ``stand_in`` answers
    the benchmarks ``model`` has no recorded answers for (a ``replay/`` model records only
    some); the profile names it beside each measure it answered."""

    model: ModelConfig = Option(help="The model profiled.", required=True).field()
    out: Path
    release_dir: Path
    judges: list[ModelConfig] = Option(help="Judges: AidanBench's is the first, LiveIdeaBench's panel all of them.",
                                       factory=list, flag="").field()
    stand_in: ModelConfig | None = Option(help="Answers the benchmarks a replay model has no recordings for.",
                                          flag="").field()
    preset: str = option(QUICK, "Size: quick (minutes on a hosted model) or full (every item; the papers' sizes).",
                         choices=(QUICK, FULL))
    benchmarks: list[str] = Option(help="Benchmarks to run, comma-separated, or all (every registered benchmark "
                                   "with suite sizes).", parse=parse_benchmarks, text=ALL,
                                   factory=suite_names).field()
    embedder: str = option("local/all-MiniLM-L6-v2", "AidanBench's embedder: local/all-MiniLM-L6-v2 (offline) or "
                           "openai/<embedding model> at the model's endpoint.")
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = BOOTSTRAP_SEED.field()
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()
    language: str = LANGUAGE.field()  # NeoCoder's programs' language (python|cpp); the other benchmarks have none
