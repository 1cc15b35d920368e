"""From a model reply to the program the sandbox runs (the program contract, part 1).

``read_program`` first decides whether a reply holds a program at all (issue 56, item 2;
``replies.read_answer``, the reasons the judges' replies get): a reply with none (empty,
reasoning only, an echo of the prompt, cut off at the token limit, a refusal, prose with
no code) is recorded with its reason and never judged.  ``program_from_reply`` then gives
the program of a reply that holds one.

Part 2, how the program is *entered*, lives in the in-container runner
(``prepare`` in ``sandbox/runner/contract.py``): ``solve()`` called once per test when nothing
calls it, the program run as written when it calls ``solve()`` itself, a test harness
removed; the rule that applied comes back as ``SubmissionResult.entry_rule``
(docs/sandbox.md, "The program contract").
"""

from __future__ import annotations

import ast
import re

from neocoder.config import PYTHON
from neocoder.models import Prompt, Reply
from neocoder.models.base import strip_thinking
from neocoder.replies import CUT_OFF, EMPTY, NO_PROGRAM, REASONING_ONLY, Reading, read_answer

# Per language (config.LANGUAGES): the fence tags that name it, and the line its program's
# entry point starts with (Python: the contract's solve(); C++: main()).
FENCE_TAGS = {"python": ("python", "py", "python3"), "cpp": ("cpp", "c++", "cxx", "cc", "c")}
ENTRY_LINE = {"python": r"^\s*def\s+solve\s*\(", "cpp": r"^\s*(?:signed|int)\s+main\s*\("}

_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)


def extract_code(text: str, language: str = PYTHON) -> str:
    """Return the program in ``language`` ("python" or "cpp") inside a reply.

    Fenced blocks (```python ... ```; an unclosed fence runs to the end of the reply,
    as in a reply cut at the token limit) are preferred: the first block tagged with the
    language (FENCE_TAGS: python/py/python3; cpp/c++/cxx/cc/c) that holds its entry point
    (ENTRY_LINE: ``def solve(``; ``int main(``), else the first block tagged with it, else
    the longest block.  A reply with no fence is taken whole.
    """
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if not blocks:
        return text
    tagged = [b for tag, b in blocks if tag in FENCE_TAGS[language]]
    for block in tagged:
        if re.search(ENTRY_LINE[language], block, re.M):
            return block
    if tagged:
        return tagged[0]
    return max((b for _, b in blocks), key=len)


def program_from_reply(reply: Reply, language: str = PYTHON) -> str:
    """The program for a reply: a completion reply continues its prompt's code prefix; a
    chat reply's program in ``language`` is extracted from its answer, with inline thinking
    (``<think>...</think>``, where a draft program may stand) left out first.  A reasoning
    model's separate reasoning text (``Reply.reasoning``) is never read."""
    if reply.code_prefix:
        return reply.code_prefix + reply.text
    return extract_code(strip_thinking(reply.text), language)


# An unfenced reply (or a block not tagged with the language) holds a program when it reads
# as one: Python parses with a statement that does something, or has a line opening a
# definition or an import (a program cut short or with a syntax error is still a program,
# judged CE); C++ has an #include or an entry point.
CODE_LINE = {"python": r"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+[ \t]*[(:]"
                       r"|import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import[ \t])",
             "cpp": r"^[ \t]*(?:#[ \t]*include\b|(?:signed|int)[ \t]+main[ \t]*\()"}
# what a Python statement must be to count: not a bare name, number or string (prose like
# "Yes" or "42" parses too)
_INERT = (ast.Constant, ast.Name)
LENGTH = ("length", "max_tokens")  # finish reasons saying the reply stopped at the token limit


def looks_like(code: str, language: str = PYTHON) -> bool:
    """True when ``code`` (text with no fence) reads as a program in ``language``: for
    Python, it parses (``ast.parse``) and holds a statement other than a bare name, number
    or string, or has a line opening a ``def``, ``class`` or import; for C++, a line
    ``#include`` or ``int main(`` (CODE_LINE).  Prose ("I would sort the array.") is no
    program, while a program cut short or with a syntax error is (it is judged, CE)."""
    if not code.strip():
        return False
    if re.search(CODE_LINE[language], code, re.M):
        return True
    if language != PYTHON:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(not (isinstance(node, ast.Expr) and isinstance(node.value, _INERT)) for node in tree.body)


def holds_program(text: str, language: str = PYTHON) -> bool:
    """True when a chat reply's answer ``text`` (thinking removed) holds a program in
    ``language``: the block ``extract_code`` picks is tagged with the language and not
    blank, or (an untagged block, another tag, or no fence: the whole text) ``looks_like``
    one.  A block tagged ```python that holds a syntax error is a program (judged CE)."""
    code = extract_code(text, language)
    tags = {m.group(1).lower() for m in _FENCE.finditer(text) if m.group(2) == code}
    if code.strip() and tags & set(FENCE_TAGS[language]):
        return True
    return looks_like(code, language)


def closed_block(text: str, language: str = PYTHON) -> bool:
    """True when the block ``extract_code`` picks from ``text`` is fenced and its closing
    fence came: the program ended before the reply did (a reply cut at the token limit
    after it still holds the whole program)."""
    code = extract_code(text, language)
    return any(m.group(2) == code and m.group(0).rstrip().endswith("```") and m.group(0).count("```") >= 2
               for m in _FENCE.finditer(text))


def prompt_text(prompt: Prompt | None) -> str | None:
    """Every text ``prompt`` shows the model but its own earlier turns (the contents of its
    messages not the assistant's, and its completion text), for ``read_program``'s echo
    check: a model writing its earlier program again (self-correct) answers, it does not
    echo; None for no prompt."""
    if prompt is None:
        return None
    parts = [m.get("content") for m in prompt.messages
             if isinstance(m.get("content"), str) and m.get("role") != "assistant"]
    return "\n".join(parts + [prompt.completion or ""])


def read_program(reply: Reply, prompt: str | None = None, language: str = PYTHON) -> Reading:
    """Read a reply of the model under test before it is judged: ``Reading(program)`` (the
    program ``program_from_reply`` gives) when it holds one, else unreadable with its reason
    (``replies.ANSWER_REASONS``; ``replies.read_answer``, in its order):

    - ``empty``: no text, or only white space;
    - ``reasoning only``: only thinking (inline ``<think>``, or the provider's separate
      reasoning beside an empty text);
    - ``echo``: the reply is lines of ``prompt`` (the text the model was shown, e.g.
      ``prompt_text(Prompt)``; None: not checked);
    - ``cut off``: the endpoint stopped at the token limit (``finish_reason`` "length", or
      inspect's "max_tokens", in ``reply.extra``) before the program ended: an unfenced
      reply, a completion, or a fence never closed.  A fenced program closed before the
      limit is whole and is judged;
    - ``refusal``: it opens with a refusal and holds no program;
    - ``no program``: text, but no program in ``language`` (``holds_program``: a fenced
      block tagged with the language, or text that ``looks_like`` a program).

    A completion reply (``reply.code_prefix``: it continues the prompt's ``def solve():``)
    holds a program when its continuation is not blank.  Sources: issue 56, item 2;
    the reasons are the judges' (docs/replies.md)."""
    finish = "length" if reply.extra.get("finish_reason") in LENGTH else reply.extra.get("finish_reason")
    text = reply.text or ""
    if not text.strip():
        if finish == "length":
            return Reading.unreadable(CUT_OFF)  # the budget ran out (a reasoning model thinking, most often)
        return Reading.unreadable(REASONING_ONLY if (reply.reasoning or "").strip() else EMPTY)
    if reply.code_prefix:
        reading = read_answer(text, prompt, finish, holds=lambda t: bool(t.strip()))
    else:
        answer = strip_thinking(text)
        reading = read_answer(text, prompt, finish, holds=lambda t: holds_program(t, language),
                              cut_off=not closed_block(answer, language), missing=NO_PROGRAM)
    return reading if not reading.readable else Reading(program_from_reply(reply, language))
