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

from dataclasses import dataclass

from neocoder.config import CPP, PYTHON
from neocoder.models.base import Prompt, ReplayKey
from neocoder.resources import prompt_text
from neocoder.techniques.glossary import cpp_glossary_block

PROGRAM_START = "import sys"  # where the Python completion prompt's code prefix begins


@dataclass(frozen=True)
class SolvePrompts:
    """The prompt files of one language and how the statement sits in the completion
    prompt: ``start`` is where its code prefix begins, ``quote`` the statement's quoting
    (``close`` inside the statement becomes ``escaped``, so the quote is never closed early)."""

    system: str
    user: str
    completion: str
    start: str
    close: str
    escaped: str


# Per language (config.LANGUAGES): Python asks for solve() (the program contract), C++ for
# a complete program with main() (docs/sandbox.md, "C++ programs").
SOLVE_PROMPTS = {
    PYTHON: SolvePrompts("solve_system.txt", "solve_user.txt", "solve_completion.txt", PROGRAM_START,
                         '"""', "'''"),
    CPP: SolvePrompts("solve_cpp_system.txt", "solve_cpp_user.txt", "solve_cpp_completion.txt", "#include",
                      "*/", "* /"),
}


def constraint_glossary(statement: str, language: str = PYTHON, prefix: str = "") -> str:
    """What fills a prompt's ``{glossary}``: for C++, the C++ meaning of each technique the
    statement's constraints deny (``techniques.glossary.cpp_glossary_block``, lines starting
    with ``prefix``), "" for a statement without constraints; for Python always "" (the
    names are Python's own)."""
    return cpp_glossary_block(statement, prefix) if language == CPP else ""


def solve_prompt(statement: str, replay_key: ReplayKey | None = None, language: str = PYTHON) -> Prompt:
    """The prompt asking for a program in ``language`` ("python" or "cpp") that solves
    ``statement`` (surrounding whitespace stripped; inside the completion prompt's quote,
    a ``\"\"\"`` of the statement becomes ``'''`` for Python and a ``*/`` becomes ``* /`` for C++).
    A C++ prompt for a statement with constraints also gives, after its sentence about the
    constraints, the C++ meaning of each denied technique (``constraint_glossary``;
    docs/techniques.md, "The C++ glossary"); other prompts are the same as without it.

    ``replay_key`` says which recorded reply a replay model answers with (for a problem
    state: ``ReplayKey(problem_id, state, sample, source_index)``); it is never sent to a
    model.  Raises ResourceMissing when a prompt file is not installed, KeyError for a
    language with no prompts.
    """
    files = SOLVE_PROMPTS[language]
    system = prompt_text(files.system).strip()
    user = prompt_text(files.user).replace("{glossary}", constraint_glossary(statement, language)).replace(
        "{statement}", statement.strip())
    completion = prompt_text(files.completion).replace(
        "{glossary}", constraint_glossary(statement, language, "// ")).replace(
        "{statement}", statement.strip().replace(files.close, files.escaped))
    return Prompt(
        messages=({"role": "system", "content": system}, {"role": "user", "content": user}),
        completion=completion,
        code_prefix=completion[completion.index(files.start):],
        replay_key=replay_key,
    )
