"""Algorithm classes by a model's judgement: are two correct programs one algorithm?

After Lee et al. (EMNLP 2025), who measure the diversity of correct programs by asking
a language model whether two of them implement the same algorithm and grouping them by
its answers: here the grouping is NoveltyBench's greedy partition (measures.partition),
as for every other measure, so a program is compared with the first member of each
class so far, at most (classes so far) calls per program.

The prompt is ours (``prompts/same_algorithm.txt`` for chat models,
``prompts/same_algorithm_completion.txt`` with two worked examples for a
completions-API base model, whose reply continues after "Verdict:"): the problem
statement and the two programs, asking for SAME or DIFFERENT on the first line.  The
reply's first SAME or DIFFERENT word decides; a reply with neither counts as
DIFFERENT and is counted in ``unparsed`` (a model that cannot answer makes classes,
not merges).  Calls are greedy (temperature 0) and go through the call cache
(models/cache.py), so a rerun pays for no call twice.

Any provider works (``neocoder.models.get_model``).  What a small model's verdicts are
worth is measured, not assumed: ``neocoder diversity validate --judge-model`` scores
them against the labelled pairs like every other measure (docs/metrics.md).
"""

from __future__ import annotations

import re
from pathlib import Path

from neocoder.metrics.diversity.measures import partition
from neocoder.models import Model, Prompt
from neocoder.models.cache import CachedModel, CallCache
from neocoder.resources import prompt_text

CHAT_PROMPT, COMPLETION_PROMPT = "same_algorithm.txt", "same_algorithm_completion.txt"
MAX_STATEMENT_CHARS = 2000  # the statement's story and format; the rest (examples) is cut
MAX_PROGRAM_CHARS = 3000  # a longer program (a reply with its test harness) is cut
_VERDICT = re.compile(r"\b(SAME|DIFFERENT)\b", re.I)


def _cut(text: str, limit: int) -> str:
    text = text.replace("\r", "").strip()
    return text if len(text) <= limit else text[:limit] + "\n..."


def judge_prompt(statement: str, first: str, second: str) -> Prompt:
    """The prompt asking whether ``first`` and ``second`` (program sources) solve the
    problem ``statement`` with one algorithm: chat messages and the completion text
    (which ends in "Verdict:", kept as ``code_prefix``).  Statement and programs are cut
    at MAX_STATEMENT_CHARS and MAX_PROGRAM_CHARS."""
    fields = {"statement": _cut(statement, MAX_STATEMENT_CHARS), "first": _cut(first, MAX_PROGRAM_CHARS),
              "second": _cut(second, MAX_PROGRAM_CHARS)}
    chat = prompt_text(CHAT_PROMPT).format(**fields)
    completion = prompt_text(COMPLETION_PROMPT).format(**fields).rstrip("\n") + "\nVerdict:"
    return Prompt(messages=({"role": "user", "content": chat.strip()},), completion=completion,
                  code_prefix="Verdict:", stop=("\n",), temperature=0.0, max_tokens=48)


def parse_verdict(text: str) -> bool | None:
    """True for SAME, False for DIFFERENT (the reply's first such word), None for neither."""
    got = _VERDICT.search(text or "")
    return None if got is None else got.group(1).upper() == "SAME"


class Judge:
    """A model as an algorithm-class measure.  ``model`` is any ``Model``; with
    ``cache`` (a calls.jsonl path) its calls are cached there.  ``statements`` maps a
    problem id to its statement.  ``calls``, ``unparsed`` count the verdicts asked and
    the replies with no verdict."""

    def __init__(self, model: Model, statements: dict[str, str], cache: Path | None = None):
        self.model = CachedModel(model, CallCache(Path(cache))) if cache is not None else model
        self.statements = statements
        self.calls = self.unparsed = 0
        self.limit: int | None = None  # programs per problem to class (validity.classer); None: all

    def same(self, problem: str, first: str, second: str) -> bool:
        """The model's verdict: do ``first`` and ``second`` implement one algorithm?
        Raises KeyError for a problem without a statement, ModelError when the model fails."""
        reply = self.model.generate(judge_prompt(self.statements[problem], first, second))
        self.calls += 1
        verdict = parse_verdict(reply.text)
        if verdict is None:
            self.unparsed += 1
        return bool(verdict)

    def partition(self, problem: str, codes: list[str]) -> list[int]:
        """Class indexes of ``codes`` (programs of ``problem``) by the greedy partition."""
        return partition(codes, lambda head, code: self.same(problem, head, code))
