"""Recorded outputs answered without any network: ``replay/gpt-4-1106-preview``.

The NeoCoder release records, for every problem and Denial Prompting round, the
augmentation model's own solution (``codes`` in NeoCoder.json, written by
gpt-4-1106-preview).  State t of a problem is answered with the code recorded at
the state's ``source_index`` (the first round that holds its constraint list).
"""

from __future__ import annotations

from pathlib import Path

from ..dataset import load_release_problems
from .base import Model, ModelError, Prompt, Reply

RECORDED_MODELS = {"gpt-4-1106-preview"}


class ReplayModel(Model):
    """Answers from ``codes`` in ``<release_dir>/NeoCoder.json``.

    Raises ModelError for an unknown recorded model, or when a state asks for a
    problem or index the release does not hold.
    """

    def __init__(self, name: str, recorded: str, release_dir: Path):
        if recorded not in RECORDED_MODELS:
            raise ModelError(f"no recorded outputs for {recorded!r}; known: {', '.join(sorted(RECORDED_MODELS))}")
        self.name = name
        self.codes = {p["problem_id"]: p["codes"] for p in load_release_problems(release_dir)}

    def generate(self, prompt: Prompt, state: dict) -> Reply:
        codes = self.codes.get(state["problem_id"])
        index = state.get("source_index", state["state"])
        if codes is None or not 0 <= index < len(codes):
            raise ModelError(f"{self.name}: no recorded code for {state['problem_id']} index {index}")
        return Reply(text=codes[index])
