"""What the strategies say and expect in each language of ``neocoder eval --language``
(config.LANGUAGES): the prompt files of self-correct and self-plan, how a program's line
is commented out in a completion prompt, and where a plan ends and code begins.

Python's texts are the strategies' original ones (prompts/self_correct_*.txt,
prompts/self_plan_*.txt); C++'s ask for one complete C++17 program with ``main()`` in a
```cpp block, as the C++ solve prompt does (prompts/solve_cpp_*.txt), and are in files
of their own (prompts/self_correct_cpp_*.txt, prompts/self_plan_cpp_*.txt).  The first
prompt of every strategy is the language's solve prompt (solve.py ``SOLVE_PROMPTS``), so
direct, sample and mcts need nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass

from neocoder.config import CPP, PYTHON


@dataclass(frozen=True)
class StrategyTexts:
    """One language's strategy texts.  ``comment`` is its line-comment marker; the
    ``*.txt`` fields name files in prompts/; ``plan_stop`` are the stop sequences of the
    plan call (where a model that skipped the plan starts writing code); ``name`` is how
    feedback names the language."""

    name: str
    comment: str
    correct_user: str
    correct_completion: str
    plan_user: str
    plan_code_user: str
    plan_completion: str
    plan_stop: tuple[str, ...]


TEXTS = {
    PYTHON: StrategyTexts("Python", "#", "self_correct_user.txt", "self_correct_completion.txt",
                          "self_plan_user.txt", "self_plan_code_user.txt", "self_plan_completion.txt",
                          ("\nimport", "\ndef ", "\nclass ", "\n\n\n", "```")),
    CPP: StrategyTexts("C++", "//", "self_correct_cpp_user.txt", "self_correct_cpp_completion.txt",
                       "self_plan_cpp_user.txt", "self_plan_cpp_code_user.txt", "self_plan_cpp_completion.txt",
                       ("\n#include", "\nusing namespace", "\nint main", "\n\n\n", "```")),
}


def texts(language: str) -> StrategyTexts:
    """The strategy texts of ``language`` ("python" or "cpp"); raises ValueError naming
    the languages that have them."""
    if language not in TEXTS:
        raise ValueError(f"no strategy prompts for language {language!r}; known: {', '.join(TEXTS)}")
    return TEXTS[language]


def comment_out(text: str, language: str) -> str:
    """``text`` as line comments of ``language`` (every line marked, a blank line by the
    bare marker), so a completion prompt can quote a program or feedback above the code.
    A C++ line comment ending in a backslash runs on into the next line, which is a
    comment too, so the quote never leaks into code."""
    marker = texts(language).comment
    return "\n".join(f"{marker} {line}" if line else marker for line in text.splitlines())
