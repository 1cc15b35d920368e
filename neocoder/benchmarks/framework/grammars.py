"""The framework's reply grammars (neocoder/replies.py; docs/framework.md "Reply grammars").

One grammar per judge role, each reading the marker the paper's prompts fix
(creativity-framework App. D.2, D.4), the last one only:

- ``VERDICT``: the retrieval judge's verdict, ``[[YES]]`` or ``[[NO]]`` (the prompt ends
  with "Verdict: [[", so a base model's ``YES]] ...`` gets its opening put back);
- ``CONFIDENCE``: an analyst's certainty, ``[[c]]`` with c in [0, 1] (another number in
  single square brackets, ``[0.2]``, is a contradiction);
- ``STANCE``: an analyst's current stance beside its certainty, ``([YES])`` or ``([NO])``;
- ``CHATEVAL_VERDICT``: a ChatEval debater's final ``[[YES]]`` or ``[[NO]]`` ("Judgement: [[");
- ``PROBABILITY``: a ChatEval debater's probability that the criterion is met, ``([p])``,
  p in [0, 1] (another number in square brackets, ``[0.6]``, is a contradiction);
- ``ENTAIL``: the LLM entailment backend's answer, its first word ``yes`` or ``no``;
- ``read_candidate``: a sampled step, the step's text or the word STOP.

The prompts show each marker with a placeholder (``[[<verdict>]]``, ``[[<certainty>]]``,
``([<stance>])``, ``([<probability>])``), so an echoed example is ``echo``, never an
answer.  ``read`` reads a ``Reply`` (its finish reason says ``cut off``; a reply with only
provider-side reasoning is ``reasoning only``); ``reading_dict`` is the form the records
keep: ``{"value", "reason"}``.
"""

from __future__ import annotations

import re
from dataclasses import replace

from neocoder.replies import (
    ECHO,
    EMPTY,
    REASONING_ONLY,
    REFUSAL,
    Grammar,
    Reading,
    bracketed,
    choice,
    copied_from,
    drop_echo,
    first_word,
    number,
    opens_with_refusal,
    within,
)

_DOUBLE = r"(?<!\[)\[\[\s*([^\[\]\n]{1,40}?)\s*\]\](?!\])"  # [[content]]
_PAREN = r"\(\[\s*([^\[\]\n]{1,40}?)\s*\]\)"  # ([content])
_LOOSE_YES_NO = r"[\[(*]+\s*(YES|NO)\s*[\])*]+"
_LOOSE_NUMBER = r"\[\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*\]"  # a number in single square brackets

VERDICT = replace(bracketed("retrieval verdict", ("YES", "NO"), opened=True,
                            describe="the last [[YES]] or [[NO]] (the prompt ends with \"Verdict: [[\")"),
                  placeholders=("<verdict>",))
CHATEVAL_VERDICT = replace(bracketed("chateval verdict", ("YES", "NO"), opened=True,
                                     describe="the last [[YES]] or [[NO]] (the prompt ends with \"Judgement: [[\")"),
                           placeholders=("<verdict>",))
CONFIDENCE = Grammar("retrieval confidence", marker=_DOUBLE, value=number, check=within(0.0, 1.0),
                     loose=_LOOSE_NUMBER, placeholders=("<certainty>",),
                     describe="the last [[c]], c a number in [0, 1]")
STANCE = Grammar("retrieval stance", marker=_PAREN, value=choice("YES", "NO"), loose=_LOOSE_YES_NO,
                 placeholders=("<stance>",), describe="the last ([YES]) or ([NO])")
PROBABILITY = Grammar("chateval probability", marker=_PAREN, value=number, check=within(0.0, 1.0),
                      loose=_LOOSE_NUMBER, placeholders=("<probability>",),
                      describe="the last ([p]), p a number in [0, 1]")
ENTAIL = first_word("entailment", ("yes", "no"), describe="the reply's first word: yes or no")

GRAMMARS = {g.name: g for g in (VERDICT, CHATEVAL_VERDICT, CONFIDENCE, STANCE, PROBABILITY, ENTAIL)}
STOP_WORD = "STOP"


def read(grammar: Grammar, reply, prompt: str | None = None) -> Reading:
    """``grammar`` reading a ``neocoder.models.Reply`` (its ``text``; ``extra
    ["finish_reason"]`` for ``cut off``; an empty text beside provider-side ``reasoning`` is
    ``reasoning only``; a reply made only of the prompt's lines is ``echo``: replies.py
    ``copied_from``), with ``prompt`` the text asked."""
    text = reply.text or ""
    if not text.strip() and (reply.reasoning or "").strip():
        return Reading.unreadable(REASONING_ONLY)
    if copied_from(text, prompt):  # the prompt, or lines of it, sent back (a list grammar cannot ask this)
        return Reading.unreadable(ECHO)
    return grammar.read(text, prompt=prompt, finish_reason=(reply.extra or {}).get("finish_reason"))


def reading_dict(reading: Reading) -> dict:
    """``{"value", "reason"}``: a reading as the records keep it (value None when unreadable)."""
    return {"value": reading.value, "reason": reading.reason}


def as_bool(reading: Reading) -> bool | None:
    """A YES/NO reading as True/False; None when unreadable."""
    return None if not reading.readable else str(reading.value).upper() == "YES"


_STEP_LABEL = re.compile(r"^\s*(?:step\s*\d+\s*[:.)-]\s*)+", re.I)


def read_candidate(text: str | None, prompt: str | None = None, reasoning: str | None = None) -> Reading:
    """A sampled step (creativity-framework Sec. 3.2): ``Reading(STOP_WORD)`` when its first
    word is STOP (any case, markdown and punctuation around it ignored), else
    ``Reading(step)``, the step being the first non-blank line without a leading "Step N:"
    label.  Unreadable: ``empty`` (nothing, or only a label), ``reasoning only`` (only
    thinking, inline or provider-side), ``refusal``, ``echo`` (the line is the prompt's own
    text, ``prompt`` being the instructions and the problem).  A step cut at the token limit
    is still a step: its first line is what it proposes."""
    from neocoder.models.base import strip_thinking
    if text is None or not text.strip():
        return Reading.unreadable(REASONING_ONLY if (reasoning or "").strip() else EMPTY)
    answer = strip_thinking(text)
    if not answer.strip():
        return Reading.unreadable(REASONING_ONLY)
    lines = [line for line in answer.splitlines() if line.strip()]
    step = _STEP_LABEL.sub("", lines[0]).strip()
    core = step.strip("*_#:.- \"'").upper()
    if not core:
        return Reading.unreadable(EMPTY)
    if core.split()[0].strip(".,!:;") == STOP_WORD:
        return Reading(STOP_WORD)
    if opens_with_refusal(step):
        return Reading.unreadable(REFUSAL)
    kept, echoed = drop_echo(step, prompt)
    if echoed and not kept.strip():
        return Reading.unreadable(ECHO)
    return Reading(step)
