"""From a model reply to the program the sandbox runs (the program contract, part 1).

Part 2, how the program is *entered*, lives in the in-container runner
(``prepare`` in ``sandbox/runner/contract.py``): ``solve()`` called once per test when nothing
calls it, the program run as written when it calls ``solve()`` itself, a test harness
removed; the rule that applied comes back as ``SubmissionResult.entry_rule``
(docs/sandbox.md, "The program contract").
"""

from __future__ import annotations

import re

from neocoder.config import PYTHON
from neocoder.models import Reply
from neocoder.models.base import strip_thinking

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
