"""LiveIdeaBench's config (``IdeasConfig``): the idea model and the judge panel with their
defaults, each option declared once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from neocoder.config import BOOTSTRAP, BOOTSTRAP_SEED, MAX_ERRORS, PROGRESS, Config, GenerateDefaults, ModelConfig
from neocoder.options import Option, option

OURS, OFFICIAL = "ours", "official"  # the protocols: our prompts and replies, or LiveIdeaBench's own
# the official critic's reply is a short analysis, then a JSON block of the three scores
OFFICIAL_JUDGES = GenerateDefaults(temperature=0.0, max_tokens=1024, reasoning_max_tokens=4096)


@dataclass
class IdeasConfig(Config):
    """``neocoder ideas`` (LiveIdeaBench): ``model`` writes ``ideas_per_keyword`` research
    ideas for each keyword; ``judges_per_idea`` judges drawn with ``seed`` from ``judges``
    (never the idea model itself) score originality, feasibility and clarity 1-10; one judge
    grades fluency per keyword.  Ideas over ``max_words`` words are left out and counted.
    ``judge_names`` name the panel's seats (one per judge; None: their specs), so one model
    can sit in several seats; a seat never judges ideas of its own spec (docs/ideas.md)."""

    # The idea model samples (0.7) with room for a short idea; each judge gives three scores, greedily.
    # (reasoning models, LiveIdeaBench's own critics among them, get a budget their thinking fits in)
    roles: ClassVar[dict[str, GenerateDefaults]] = {
        "model": GenerateDefaults(temperature=0.7, max_tokens=400, reasoning_max_tokens=8192),
        "judges": GenerateDefaults(temperature=0.0, max_tokens=64, reasoning_max_tokens=4096)}

    model: ModelConfig = Option(help="The idea model.", required=True).field()
    judges: list[ModelConfig] = Option(help="The judge panel.", required=True).field()
    out: Path
    keywords: Path | None = option(None, "A .csv with a keyword column (and category), or one keyword per line "
                                   "(default: LiveIdeaBench's 1180 keywords from $LIVEIDEABENCH_DIR, else "
                                   "$NEOCODER_SHARED/liveideabench, else shared/liveideabench beside the checkout).",
                                   file=True)
    limit: int | None = option(None, "Only the first N keywords.", ge=1)
    ideas_per_keyword: int = option(3, "Ideas per keyword; fluency grades a keyword with at least 2 kept ideas.",
                                    ge=1, cap=20)
    judges_per_idea: int = option(3, "Judges drawn from the panel for each idea.", ge=1, cap=20)
    max_words: int = option(200, "Ideas over this many words are left out and counted.", ge=1)
    judge_retries: int = option(2, "Asks again after an unparseable judge reply, then records an error.", ge=0,
                                cap=10)
    seed: int = option(0, "Seed of the judge draws.")
    concurrency: int = option(1, "Keywords in flight at once.", ge=1, cap=32)
    bootstrap: int = BOOTSTRAP.field()
    bootstrap_seed: int = dataclasses.replace(BOOTSTRAP_SEED, flag=None).field()  # --seed is the judge draws' here
    judge_names: list[str] | None = option(None, "The seats' names, one per judge (None: the judges' specs).",
                                           flag="")
    progress: bool = PROGRESS.field()
    max_errors: int = MAX_ERRORS.field()
    # LiveIdeaBench's own protocol and panel (protocol.py, official.py, panel_file.py; docs/ideas.md)
    protocol: str = option(OURS, "ours: our prompts and reply format; official: LiveIdeaBench's prompts, critic "
                           "reply, fluency pair and refusal rule, read from --liveideabench.",
                           choices=(OURS, OFFICIAL))
    liveideabench: Path | None = option(None, "A clone of the LiveIdeaBench repository (utils/prompts.json, "
                                        "config.py, csvs/), read at run time for --protocol official (default: "
                                        "$LIVEIDEABENCH_REPO).")
    refusal_phrases: Path | None = option(None, "For --protocol official: a file of refusal phrases, one a line, "
                                          "matched anywhere in a reply (default: neocoder's list).", file=True)
    panel: Path | None = option(None, "A panel file (TOML, [[judge]] name, spec, organisation, base, reasoning, "
                                "model options) instead of --judges (default with --protocol official and no "
                                "--judges: the authors' critics, neocoder/benchmarks/ideas/liveideabench_panel.toml).",
                                file=True)
    panel_rules: str = option("refuse", "A panel breaking LiveIdeaBench's rules (two models per organisation, one "
                              "per base/reasoning pair) is refused, or only warned about.", choices=("refuse", "warn"))

    def role_defaults(self) -> dict[str, GenerateDefaults]:
        """The roles' defaults in force: the official protocol's critics answer with an
        analysis before their scores, so they get room for it (``OFFICIAL_JUDGES``)."""
        return {**self.roles, "judges": OFFICIAL_JUDGES} if self.protocol == OFFICIAL else self.roles

    def resolved(self) -> "IdeasConfig":
        """The models' role defaults and the panel's seat names written out (each judge's
        spec where ``judge_names`` is None), so every surface records the same panel."""
        config = super().resolved()
        if config.judge_names is not None:
            return config
        return dataclasses.replace(config, judge_names=[judge.spec for judge in config.judges])
