"""From a model reply to the program the sandbox runs (the program contract, part 1).

Part 2, how the program is *entered*, lives in the in-container runner
(``prepare`` in ``sandbox/runner/contract.py``): ``solve()`` called once per test when nothing
calls it, the program run as written when it calls ``solve()`` itself, a test harness
removed; the rule that applied comes back as ``SubmissionResult.entry_rule``
(docs/sandbox.md, "The program contract").
"""

from __future__ import annotations

import re

from neocoder.models import Reply
from neocoder.models.base import strip_thinking

_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)


def extract_code(text: str) -> str:
    """Return the program inside a reply.

    Fenced blocks (```python ... ```; an unclosed fence runs to the end of the reply,
    as in a reply cut at the token limit) are preferred: the first block tagged
    python/py/python3 that defines ``solve``, else the first python-tagged block,
    else the longest block.  A reply with no fence is taken whole.
    """
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if not blocks:
        return text
    python = [b for tag, b in blocks if tag in ("python", "py", "python3")]
    for block in python:
        if re.search(r"^\s*def\s+solve\s*\(", block, re.M):
            return block
    if python:
        return python[0]
    return max((b for _, b in blocks), key=len)


def program_from_reply(reply: Reply) -> str:
    """The program for a reply: a completion reply continues its prompt's code prefix; a
    chat reply's program is extracted from its answer, with inline thinking
    (``<think>...</think>``, where a draft program may stand) left out first.  A reasoning
    model's separate reasoning text (``Reply.reasoning``) is never read."""
    if reply.code_prefix:
        return reply.code_prefix + reply.text
    return extract_code(strip_thinking(reply.text))
