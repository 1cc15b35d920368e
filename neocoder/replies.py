"""Reply grammars: how every judge reply is read, and what makes one unreadable.

A judge's reply becomes a number only through a ``Grammar``: the prompt asks for one
final marker (``[[YES]]``, ``<score>N</score>``, ``[[SAME]]``), the grammar reads the
last one, and everything else is *unreadable* with its reason, never a guess:

- ``empty``: nothing, or only white space;
- ``reasoning only``: only thinking (``<think>...</think>``), no answer after it;
- ``echo``: only the prompt's own text or its placeholder (``[[<certainty>]]``) came back;
- ``refusal``: the reply opens with a refusal and holds no marker;
- ``cut off``: no marker, and the endpoint says it stopped at the token limit;
- ``no marker``: text, but none of the grammar's markers;
- ``conflicting markers``: markers with different values (``[[YES]] ... [[NO]]``), or
  the grammar's words in other brackets that say otherwise (``[[YES]]`` beside ``[NO]``);
- ``out of range``: the last marker's number lies outside the grammar's range;
- ``broken JSON``: a JSON reply that does not parse, or lacks a field.

``Reading`` is the one typed result every benchmark gets: a value, or None with the
reason; ``Tally`` counts readings per role for ``metrics.json``.  docs/replies.md lists
each benchmark's grammars.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from neocoder.models.base import strip_thinking

EMPTY = "empty"
REASONING_ONLY = "reasoning only"
ECHO = "echo"
REFUSAL = "refusal"
CUT_OFF = "cut off"
NO_MARKER = "no marker"
CONFLICT = "conflicting markers"
OUT_OF_RANGE = "out of range"
BROKEN_JSON = "broken JSON"
NO_PROGRAM = "no program"
REASONS = (EMPTY, REASONING_ONLY, ECHO, REFUSAL, CUT_OFF, NO_MARKER, CONFLICT, OUT_OF_RANGE, BROKEN_JSON)
# Why a reply of the model under test holds no answer (``read_answer``): the judges' first
# reasons, and ``no program`` where the benchmark needs one (NeoCoder).
ANSWER_REASONS = (EMPTY, REASONING_ONLY, ECHO, CUT_OFF, REFUSAL, NO_PROGRAM)

# A refusal opens the reply: its first words say the model will not or cannot do it.
_REFUSAL = re.compile(
    r"^[\s*_\"'>#]*(?:(?:i'?m|i am)\s+(?:so\s+|very\s+)?sorry|sorry\b|i\s+apologi[sz]e|unfortunately,?\s+i\b"
    r"|i\s+(?:cannot|can\s*not|can'?t|won'?t|will\s+not|must\s+decline|decline|am\s+unable|'m\s+unable"
    r"|am\s+not\s+able|'m\s+not\s+able|do\s+not\s+feel\s+comfortable|don'?t\s+feel\s+comfortable)"
    r"|i'?m\s+(?:unable|not\s+able)|as\s+an\s+ai\b)", re.I)
ECHO_LINE = 24  # a reply line at least this long found verbatim in the prompt is an echo of it


def opens_with_refusal(text: str) -> bool:
    """True when ``text`` opens with a refusal ("I'm sorry", "Sorry", "I apologise",
    "Unfortunately, I", "I cannot", "I can't", "I won't", "I will not", "I must decline",
    "I am unable", "I'm not able", "I don't feel comfortable", "As an AI"), after optional
    quotes or markdown.  Only the opening counts: "cells cannot divide" later is no refusal."""
    return bool(_REFUSAL.match(text.replace("\u2019", "'")))


@dataclass(frozen=True)
class Reading:
    """One reply as read: ``value`` (None when unreadable) and ``reason`` (one of
    ``REASONS`` when unreadable, else None)."""

    value: Any = None
    reason: str | None = None

    @property
    def readable(self) -> bool:
        """True when the reply gave a value."""
        return self.reason is None

    @classmethod
    def unreadable(cls, reason: str) -> "Reading":
        """A reading with no value, for ``reason``."""
        return cls(None, reason)


def drop_echo(reply: str, prompt: str | None) -> tuple[str, bool]:
    """``reply`` without the lines it copied from ``prompt`` (lines of at least
    ``ECHO_LINE`` characters found verbatim in it: the instructions, the discussion, an
    example), and whether any was dropped."""
    if not prompt:
        return reply, False
    kept, dropped = [], False
    for line in reply.splitlines():
        bare = line.strip()
        if len(bare) >= ECHO_LINE and bare in prompt:
            dropped = True
        else:
            kept.append(line)
    return "\n".join(kept), dropped


def _unmarked(text: str, finish_reason: str | None) -> Reading:
    """The reason a reply with no marker is unreadable."""
    if opens_with_refusal(text):
        return Reading.unreadable(REFUSAL)
    if finish_reason == "length":
        return Reading.unreadable(CUT_OFF)
    return Reading.unreadable(NO_MARKER)


def _prepare(reply: str | None, prompt: str | None) -> tuple[str | None, Reading | None]:
    """The reply's answer text (thinking and echoed prompt lines dropped), or the reading
    that ends it early (empty, reasoning only, echo)."""
    if reply is None or not reply.strip():
        return None, Reading.unreadable(EMPTY)
    text = strip_thinking(reply)
    if not text.strip():
        return None, Reading.unreadable(REASONING_ONLY)
    text, echoed = drop_echo(text, prompt)
    if not text.strip():
        return None, Reading.unreadable(ECHO if echoed else EMPTY)
    return text, None


@dataclass(frozen=True)
class Grammar:
    """A reply grammar: the marker a judge role answers with.

    ``name`` names the role (``"framework verdict"``); ``marker`` is a regex whose first
    group is the marker's content; ``value(content)`` turns a content into the answer
    (raising ValueError for a content that is not one: that marker is not this grammar's);
    ``check(value)`` is False for a value out of range; ``loose`` finds the grammar's
    words in other brackets or case (group 1 the content), read only to catch a
    contradiction; ``opened`` is the marker's opening when the prompt ends with it (a base
    model continues after it, so a reply not starting with a marker gets it put back);
    ``placeholders`` are the contents the prompt shows as its example (``<certainty>``),
    an echo, never an answer; ``describe`` says the grammar in words, for docs and errors.
    """

    name: str
    marker: str
    value: Callable[[str], Any]
    describe: str
    check: Callable[[Any], bool] = lambda v: True
    loose: str | None = None
    opened: str = ""
    placeholders: tuple[str, ...] = ()
    flags: int = re.I
    _compiled: dict = field(default_factory=dict, repr=False, compare=False)

    def _re(self, which: str) -> re.Pattern:
        if which not in self._compiled:
            self._compiled[which] = re.compile(getattr(self, which), self.flags)
        return self._compiled[which]

    def read(self, reply: str | None, prompt: str | None = None, finish_reason: str | None = None) -> Reading:
        """Read ``reply`` (the model's text; ``prompt`` the text it was asked, for echoes;
        ``finish_reason`` the endpoint's, for ``cut off``).  The last marker counts; see the
        module for every unreadable reason."""
        text, early = _prepare(reply, prompt)
        if early is not None:
            return early
        stripped = text.lstrip()
        if self.opened and not stripped.startswith(self.opened):
            text = self.opened + stripped
        values, echoes, spans = [], 0, []
        for m in self._re("marker").finditer(text):
            content = m.group(1).strip()
            if content.lower() in (p.lower() for p in self.placeholders):
                echoes += 1
                spans.append(m.span())
                continue
            try:
                values.append(self.value(content))
            except ValueError:
                continue
            spans.append(m.span())
        others = self._loose_values(text, spans)
        if not values:
            if len(set(others)) > 1:  # no marker, but the grammar's words in other brackets disagree
                return Reading.unreadable(CONFLICT)
            return Reading.unreadable(ECHO) if echoes else _unmarked(stripped, finish_reason)
        last = values[-1]
        if any(v != last for v in values + others):
            return Reading.unreadable(CONFLICT)
        if not self.check(last):
            return Reading.unreadable(OUT_OF_RANGE)
        return Reading(last)


    def _loose_values(self, text: str, spans: list) -> list:
        """The grammar's values written outside its markers (other brackets or case)."""
        out = []
        if not self.loose:
            return out
        for m in self._re("loose").finditer(text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            try:
                out.append(self.value(m.group(1).strip()))
            except ValueError:
                continue
        return out


def choice(*words: str) -> Callable[[str], str]:
    """A marker content reader for one of ``words`` (any case): returns the word as given."""
    table = {w.lower(): w for w in words}

    def read(content: str) -> str:
        try:
            return table[content.lower()]
        except KeyError:
            raise ValueError(content) from None
    return read


def number(content: str) -> float:
    """A marker content read as a number ("7", "0.6", ".5", "-3"); ValueError otherwise."""
    if not re.fullmatch(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)", content):
        raise ValueError(content)
    return float(content)


def within(low: float, high: float) -> Callable[[float], bool]:
    """A range check: ``low <= v <= high``."""
    return lambda v: low <= v <= high


def bracketed(name: str, words: tuple[str, ...], opened: bool = False, describe: str = "") -> Grammar:
    """A ``[[WORD]]`` grammar over ``words`` (case ignored); ``opened``: the prompt ends
    with "[[".  Other brackets around the same words (``[NO]``, ``(NO)``, ``[[NO]``,
    ``**NO**``) are caught as contradictions, never read as the answer."""
    alt = "|".join(re.escape(w) for w in words)
    return Grammar(name, marker=r"(?<!\[)\[\[\s*([^\[\]\n]{1,40}?)\s*\]\](?!\])", value=choice(*words),
                   loose=rf"[\[(*]+\s*({alt})\s*[\])*]+", opened="[[" if opened else "",
                   describe=describe or f"the last [[{']] or [['.join(words)}]]")


def first_word(name: str, words: tuple[str, ...], describe: str = "") -> Grammar:
    """A grammar whose answer is the reply's first word, one of ``words`` (case and the
    punctuation around it ignored); the same words later, saying otherwise, conflict."""
    alt = "|".join(re.escape(w) for w in words)
    return Grammar(name, marker=rf"\A[\s\W_]*({alt})\b", value=choice(*words), loose=rf"\b({alt})\b",
                   describe=describe or f"the reply's first word: {' or '.join(words)}")


def tagged(name: str, tag: str, value: Callable[[str], Any], check=lambda v: True, describe: str = "",
           placeholders: tuple[str, ...] = ()) -> Grammar:
    """A ``<tag>content</tag>`` grammar (tag case ignored); the last tag counts."""
    return Grammar(name, marker=rf"<{tag}>\s*([^<]*?)\s*</{tag}>", value=value, check=check,
                   placeholders=placeholders, describe=describe or f"the last <{tag}>...</{tag}>")


def read_json_fields(reply: str | None, fields: tuple[str, ...], value: Callable[[Any], Any] = float,
                     check: Callable[[Any], bool] = lambda v: True, prompt: str | None = None) -> Reading:
    """The last JSON object in ``reply`` holding every one of ``fields`` (key case
    ignored; a fenced block or text around it allowed): ``Reading({field: value})``.
    Unreadable: empty, reasoning only, echo, ``broken JSON`` (an object that does not
    parse, or one missing a field or with a field that is not a value), ``out of range``
    (``check`` False for a field), ``refusal`` or ``no marker`` (no object at all)."""
    text, early = _prepare(reply, prompt)
    if early is not None:
        return early
    objects = list(re.finditer(r"\{[^{}]*\}", text, re.S))
    if not objects:
        return Reading.unreadable(BROKEN_JSON if "{" in text else _unmarked(text.lstrip(), None).reason)
    m = objects[-1]
    try:
        data = json.loads(m.group(0))
    except json.JSONDecodeError:
        return Reading.unreadable(BROKEN_JSON)
    if not isinstance(data, dict):
        return Reading.unreadable(BROKEN_JSON)
    data = {str(k).strip().lower(): v for k, v in data.items()}
    out = {}
    for f in fields:
        if f not in data or isinstance(data[f], bool):
            return Reading.unreadable(BROKEN_JSON)
        try:
            out[f] = value(data[f])
        except (TypeError, ValueError):
            return Reading.unreadable(BROKEN_JSON)
        if not check(out[f]):
            return Reading.unreadable(OUT_OF_RANGE)
    return Reading(out)


@dataclass
class Tally:
    """Readings counted per role: ``add(role, reading)``; ``to_dict()`` gives, per role,
    ``{"replies", "readable", "unreadable", "share", "reasons": {reason: n}}`` (share:
    unreadable / replies, None for no reply), the form every ``metrics.json`` uses."""

    counts: dict = field(default_factory=dict)

    def add(self, role: str, reading: Reading | None) -> None:
        """Count ``reading`` under ``role`` (None: not asked, not counted)."""
        if reading is None:
            return
        c = self.counts.setdefault(role, {"replies": 0, "unreadable": 0, "reasons": {}})
        c["replies"] += 1
        if not reading.readable:
            c["unreadable"] += 1
            c["reasons"][reading.reason] = c["reasons"].get(reading.reason, 0) + 1

    def add_reason(self, role: str, reason: str | None) -> None:
        """Count a reply under ``role`` by its recorded reason (None: readable)."""
        self.add(role, Reading.unreadable(reason) if reason else Reading(True))

    def to_dict(self) -> dict:
        """Per role, in the order first seen: the counts and the unreadable share."""
        return {role: unreadable_summary(c["replies"], c["unreadable"], c["reasons"])
                for role, c in self.counts.items()}


def unreadable_summary(replies: int, unreadable: int, reasons: dict | None = None) -> dict:
    """``{"replies", "readable", "unreadable", "share", "reasons"}`` for ``metrics.json``;
    ``share`` is unreadable / replies (None for no reply)."""
    return {"replies": replies, "readable": replies - unreadable, "unreadable": unreadable,
            "share": unreadable / replies if replies else None, "reasons": dict(sorted((reasons or {}).items()))}


MOSTLY_UNREADABLE = 0.5  # a measure whose replies are more than this share unreadable is shown as such


def mostly_unreadable(summary: dict | None) -> bool:
    """True when ``summary`` (``unreadable_summary``'s form) says more than
    ``MOSTLY_UNREADABLE`` of the replies were unreadable, or no reply was readable."""
    if not summary or not summary.get("replies"):
        return False
    return summary["readable"] == 0 or (summary.get("share") or 0.0) > MOSTLY_UNREADABLE


def answer_text(reply: str | None, prompt: str | None = None) -> tuple[str | None, Reading | None]:
    """The answer text of ``reply`` for a reader that is not a ``Grammar`` (e.g. the LLM
    detector's bullet list): thinking and lines echoed from ``prompt`` dropped, and None
    with the unreadable reading (empty, reasoning only, echo) when nothing is left."""
    return _prepare(reply, prompt)


def read_answer(reply: str | None, prompt: str | None = None, finish_reason: str | None = None,
                holds: Callable[[str], bool] | None = None, cut_off: bool = True,
                missing: str = NO_PROGRAM) -> Reading:
    """Read a reply of the *model under test* before it is judged: ``Reading(text)`` (the
    reply without inline thinking) when it holds an answer, else unreadable with its
    reason, checked in this order:

    - ``empty``: nothing, or only white space;
    - ``reasoning only``: only thinking (``<think>...</think>``), no answer after it;
    - ``echo``: only lines of ``prompt`` came back (long lines found in it, or every line
      one of its lines: ``drop_echo``, ``copied_from``);
    - ``cut off``: ``finish_reason`` is ``"length"`` (the endpoint stopped at the token
      limit) and ``cut_off`` is True (a benchmark whose answers may be cut passes False);
    - ``refusal``: no answer (``holds`` False, or no ``holds``) and the reply opens with a
      refusal (``opens_with_refusal``): "I'm sorry, but here is the code: ..." holding a
      program is an answer;
    - ``missing`` (default ``no program``): ``holds(text)`` is False, where the benchmark
      requires something in the reply (NeoCoder: a program).

    The same reasons the judges' grammars give (docs/replies.md), so a run counts the
    model's replies as it counts its judges'.  ``prompt``: the text the model was asked;
    ``holds``: None when any text is an answer."""
    text, early = _prepare(reply, prompt)
    if early is not None:
        return early
    answer = strip_thinking(reply)
    if copied_from(answer, prompt):
        return Reading.unreadable(ECHO)
    if cut_off and finish_reason == "length":
        return Reading.unreadable(CUT_OFF)
    has = holds(answer) if holds is not None else None
    if not has and opens_with_refusal(answer):
        return Reading.unreadable(REFUSAL)
    if has is False:
        return Reading.unreadable(missing)
    return Reading(answer)


def copied_from(reply: str | None, prompt: str | None) -> bool:
    """True when every non-blank line of ``reply`` is a line of ``prompt`` (white space
    around it ignored): the prompt, or a piece of it, sent back, however short its lines
    (``drop_echo`` drops only long ones).  False for an empty reply or no prompt."""
    if not reply or not prompt:
        return False
    lines = [line.strip() for line in reply.splitlines() if line.strip()]
    asked = {line.strip() for line in prompt.splitlines()}
    return bool(lines) and all(line in asked for line in lines)
