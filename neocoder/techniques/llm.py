"""Technique detection through a chat model (``--detector llm``).

The model gets the taxonomy and the program (``prompts/detect_techniques.txt``) and
answers with a bullet list, one technique of the list per line, or the single line
``- none``.  The reply is read by ``parse_labels`` (docs/techniques.md, "Reply grammars"):
each bullet is mapped to a taxonomy name through the aliases; bullets outside the
taxonomy are dropped and counted.  A reply that is empty, only reasoning, an echo of the
prompt (its ``<technique>`` placeholder or the whole taxonomy), a refusal, cut off at the
token limit (a cut list may miss techniques), has no bullet from the taxonomy, or says
``none`` beside techniques is *unreadable*, with its reason (replies.REASONS), and counted
in the detector's ``tally`` under ``ROLE``.  An unreadable reply is asked again, at most
``retries`` times, and then raises DetectionError: the program's techniques are unknown,
never guessed as none.

This module is not part of the tree-sitter detector's fingerprint (techniques/human.py
``_detector_files``): the shipped human technique sets are made by the rules alone.
"""

from __future__ import annotations

import re

from neocoder.errors import NeocoderError
from neocoder.models import Model, ModelError, Prompt
from neocoder.replies import (
    CONFLICT,
    CUT_OFF,
    ECHO,
    NO_MARKER,
    REASONING_ONLY,
    REFUSAL,
    Reading,
    Tally,
    answer_text,
    copied_from,
    opens_with_refusal,
)
from neocoder.resources import prompt_text as load_prompt
from neocoder.techniques.taxonomy import TAXONOMY, canonical

ROLE = "technique detector"
PLACEHOLDER = "<technique>"  # the prompt's example bullet: an echo, never a technique
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*(.+?)\s*$")
_NONE = ("none", "no techniques", "nothing")


class DetectionError(NeocoderError):
    """The detector could not get a readable answer; ``reason`` is the last reply's
    unreadable reason (replies.REASONS)."""

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason


def parse_labels(reply: str | None, prompt: str | None = None, finish_reason: str | None = None) -> Reading:
    """A bullet-list reply read as ``Reading((techniques, dropped))``: the set of taxonomy
    names and the list of labels outside the taxonomy; ``- none`` alone gives an empty
    set.  Labels are matched case-insensitively, trailing punctuation and backticks
    removed, aliases applied.  ``prompt`` is the text asked (an echo of its lines, its
    placeholder or its whole taxonomy is no answer); ``finish_reason`` "length" makes the
    reply ``cut off`` (a cut list may miss techniques).  Unreadable, with the reason:
    empty, reasoning only, echo, refusal, cut off, no marker (no bullet naming a
    technique of the list, nor ``- none``), conflicting markers (``- none`` beside
    other bullets)."""
    text, early = answer_text(reply, prompt)
    if early is not None:
        return early
    found: set[str] = set()
    dropped: list[str] = []
    nones = placeholders = 0
    for line in text.splitlines():
        m = _BULLET.match(line)
        if not m:
            continue
        label = m.group(1).strip("`*_ .,;:").strip()
        if label.lower() in _NONE:
            nones += 1
        elif label.lower() == PLACEHOLDER:
            placeholders += 1
        elif (name := canonical(label)) is None:
            dropped.append(label)
        else:
            found.add(name)
    if finish_reason == "length":
        return Reading.unreadable(CUT_OFF)
    if found == set(TAXONOMY):  # the prompt's list copied back: no program uses every technique
        return Reading.unreadable(ECHO)
    if nones and (found or dropped):
        return Reading.unreadable(CONFLICT)
    if found or nones:
        return Reading((found, dropped))
    if placeholders:
        return Reading.unreadable(ECHO)
    if opens_with_refusal(text.lstrip()):
        return Reading.unreadable(REFUSAL)
    if copied_from(text, prompt):  # only the prompt's own lines came back
        return Reading.unreadable(ECHO)
    return Reading.unreadable(NO_MARKER)


class LLMDetector:
    """Detect techniques with ``model`` (a chat model); ``dropped`` counts labels
    outside the taxonomy over the detector's life, ``tally`` every reply read
    (replies.Tally under ``ROLE``: readable, unreadable by reason)."""

    def __init__(self, model: Model, retries: int = 2):
        self.model, self.retries = model, retries
        self.dropped = 0
        self.tally = Tally()

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
        """Techniques of ``source``; raises DetectionError (with the last reason) after
        ``retries`` + 1 unreadable replies, and passes ModelError through."""
        prompt = self.prompt(source, language)
        asked = prompt.messages[0]["content"]
        last, reading = "", None
        for _ in range(self.retries + 1):
            reply = self.model.generate(prompt)
            # a completion reply continues the "-" of its first bullet; an empty one stays empty
            text = reply.code_prefix + reply.text if reply.text.strip() else reply.text
            if not text.strip() and reply.reasoning:  # thinking returned apart, no answer after it
                reading = Reading.unreadable(REASONING_ONLY)
            else:
                reading = parse_labels(text, asked, reply.extra.get("finish_reason"))
            self.tally.add(ROLE, reading)
            if reading.readable:
                found, dropped = reading.value
                self.dropped += len(dropped)
                return found
            last = text
        raise DetectionError(f"technique detector: no usable technique list after {self.retries + 1} replies, "
                             f"each unreadable (last: {reading.reason}): {last[:200]!r}", reading.reason)


__all__ = ["DetectionError", "LLMDetector", "ModelError", "parse_labels"]
