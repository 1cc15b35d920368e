"""The NeoCoder solve prompt: one problem statement as a ``Prompt`` in both shapes.

NeoCoder asks a model for a Python program that defines ``solve()`` (the program contract,
judge/verdicts.py ENTRY_RULES) and avoids the techniques the statement's constraints block
forbids.  The texts are ``prompts/solve_system.txt`` and ``solve_user.txt`` for chat APIs,
and ``solve_completion.txt`` for completions APIs: a commented file quoting the statement
that ends in the start of the program (``import sys`` onwards), which the model continues.

This is NeoCoder's, not the model layer's: ``neocoder/models`` knows prompts and replies
in general and nothing of any benchmark.  The strategies (``strategies/base.py``
``Context.solve_prompt``), Denial Prompting (``denial.py``) and the HTTP service build
their first prompt here.
"""

from __future__ import annotations

from neocoder.models.base import Prompt, ReplayKey
from neocoder.resources import prompt_text

PROGRAM_START = "import sys"  # where the completion prompt's code prefix begins


def solve_prompt(statement: str, replay_key: ReplayKey | None = None) -> Prompt:
    """The prompt asking for a program that solves ``statement`` (surrounding whitespace
    stripped; ``\"\"\"`` in it becomes ``'''`` inside the completion prompt's docstring).

    ``replay_key`` says which recorded reply a replay model answers with (for a problem
    state: ``ReplayKey(problem_id, state, sample, source_index)``); it is never sent to a
    model.  Raises ResourceMissing when a prompt file is not installed.
    """
    system = prompt_text("solve_system.txt").strip()
    user = prompt_text("solve_user.txt").replace("{statement}", statement.strip())
    completion = prompt_text("solve_completion.txt").replace(
        "{statement}", statement.strip().replace('"""', "'''"))
    return Prompt(
        messages=({"role": "system", "content": system}, {"role": "user", "content": user}),
        completion=completion,
        code_prefix=completion[completion.index(PROGRAM_START):],
        replay_key=replay_key,
    )
