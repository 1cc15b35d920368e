"""Technique detection through a chat model (``--detector llm``).

The model gets the taxonomy and the program (``prompts/detect_techniques.txt``) and
answers with a bullet list.  Each bullet is mapped to a taxonomy name through the
aliases; bullets outside the taxonomy are dropped and counted.  A reply without a
single usable bullet is asked again, at most ``retries`` times, and then raises
DetectionError: there is no silent default.
"""

from __future__ import annotations

import re

from neocoder.errors import NeocoderError
from neocoder.models import Model, ModelError, Prompt
from neocoder.resources import prompt_text as load_prompt
from neocoder.techniques.taxonomy import TAXONOMY, canonical

_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*(.+?)\s*$")


class DetectionError(NeocoderError):
    """The detector could not get a usable answer."""


def parse_labels(reply: str) -> tuple[set[str] | None, list[str]]:
    """(techniques, dropped labels) from a bullet-list reply.

    Returns (None, dropped) when the reply has no bullet at all; "- none" gives an
    empty set.  Labels are matched case-insensitively, trailing punctuation and
    backticks removed, aliases applied.
    """
    found: set[str] = set()
    dropped: list[str] = []
    bullets = 0
    for line in reply.splitlines():
        m = _BULLET.match(line)
        if not m:
            continue
        bullets += 1
        label = m.group(1).strip("`*_ .,;:").strip()
        if label.lower() in ("none", "no techniques", "nothing"):
            continue
        name = canonical(label)
        if name is None:
            dropped.append(label)
        else:
            found.add(name)
    return (found if bullets else None), dropped


class LLMDetector:
    """Detect techniques with ``model`` (a chat model); ``dropped`` counts labels
    outside the taxonomy over the detector's life."""

    def __init__(self, model: Model, retries: int = 2):
        self.model, self.retries = model, retries
        self.dropped = 0

    def prompt(self, source: str, language: str) -> Prompt:
        """The detection prompt for ``source`` in ``language`` (prompts/detect_techniques.txt
        with the taxonomy listed); a completion model continues its first bullet after "-"."""
        text = (load_prompt("detect_techniques.txt")
                .replace("{language}", language)
                .replace("{techniques}", "\n".join(f"- {t}" for t in TAXONOMY))
                .replace("{code}", source))
        # a completions API continues the first bullet, so the reply starts after "-"
        return Prompt(messages=({"role": "user", "content": text},), completion=text + "\n-", code_prefix="-")

    def detect(self, source: str, language: str = "python") -> set[str]:
        """Techniques of ``source``; raises DetectionError after ``retries`` + 1
        unusable replies, and passes ModelError through."""
        prompt = self.prompt(source, language)
        last = ""
        for _ in range(self.retries + 1):
            reply = self.model.generate(prompt)
            text = reply.code_prefix + reply.text
            found, dropped = parse_labels(text)
            self.dropped += len(dropped)
            if found is not None:
                return found
            last = text
        raise DetectionError(f"no usable technique list after {self.retries + 1} replies; last: {last[:200]!r}")


__all__ = ["DetectionError", "LLMDetector", "ModelError", "parse_labels"]
