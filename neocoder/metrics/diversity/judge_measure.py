"""Algorithm classes by a model's judgement: are two correct programs one algorithm?

After Lee et al. (EMNLP 2025), who measure the diversity of correct programs by asking
a language model whether two of them implement the same algorithm and grouping them by
its answers: here the grouping is NoveltyBench's greedy partition (measures.partition),
as for every other measure, so a program is compared with the first member of each
class so far, at most (classes so far) calls per program.

The prompt is ours (``prompts/same_algorithm.txt`` for chat models,
``prompts/same_algorithm_completion.txt`` with two worked examples for a
completions-API base model, whose reply continues after "Verdict: [[", read by ``COMPLETION_GRAMMAR``): the problem
statement and the two programs, asking for one final marker, ``[[SAME]]`` or
``[[DIFFERENT]]`` (the prompt's example is the placeholder ``[[<verdict>]]``).  The reply
is read by ``GRAMMAR`` (neocoder/replies.py; docs/techniques.md, "Reply grammars"): the last
marker decides; conflicting markers, no marker, an echo of the prompt, a refusal, only
reasoning, an empty or cut-off reply are *unreadable*, with their reason, and counted
per reason in ``tally`` under the role ``ROLE``.  An unreadable verdict is never taken as
SAME or DIFFERENT: the program it was asked for is set aside (class None), so none of
its pairs is scored.  Calls are greedy (temperature 0) and go through the call cache
(models/cache.py), so a rerun pays for no call twice.

Any provider works (``neocoder.models.get_model``).  What a small model's verdicts are
worth is measured, not assumed: ``neocoder diversity validate --judge-model`` scores
them against the labelled pairs like every other measure (docs/metrics.md).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from neocoder.models import Model, Prompt
from neocoder.models.base import strip_thinking
from neocoder.models.cache import CachedModel, CallCache
from neocoder.replies import ECHO, NO_MARKER, REASONING_ONLY, Reading, Tally, bracketed, copied_from
from neocoder.resources import prompt_text

CHAT_PROMPT, COMPLETION_PROMPT = "same_algorithm.txt", "same_algorithm_completion.txt"
MAX_STATEMENT_CHARS = 2000  # the statement's story and format; the rest (examples) is cut
MAX_PROGRAM_CHARS = 3000  # a longer program (a reply with its test harness) is cut
MAX_TOKENS = 160  # one sentence of reason and the final marker
ROLE = "diversity judge"
PLACEHOLDER = "<verdict>"  # the prompts' example marker, [[<verdict>]]: an echo, never a verdict
_WORDS = ("SAME", "DIFFERENT")
_DESCRIBE = "the last [[SAME]] or [[DIFFERENT]]"
GRAMMAR = replace(bracketed(ROLE, _WORDS, describe=_DESCRIBE), placeholders=(PLACEHOLDER,))
# the completion prompt ends in "Verdict: [[": a base model's "SAME]]" gets its opening back
COMPLETION_GRAMMAR = replace(bracketed(ROLE, _WORDS, opened=True, describe=_DESCRIBE), placeholders=(PLACEHOLDER,))


def _cut(text: str, limit: int) -> str:
    text = text.replace("\r", "").strip()
    return text if len(text) <= limit else text[:limit] + "\n..."


def judge_prompt(statement: str, first: str, second: str) -> Prompt:
    """The prompt asking whether ``first`` and ``second`` (program sources) solve the
    problem ``statement`` with one algorithm: chat messages and the completion text
    (which ends in "Verdict: [[", kept as ``code_prefix``).  Statement and programs are cut
    at MAX_STATEMENT_CHARS and MAX_PROGRAM_CHARS."""
    fields = {"statement": _cut(statement, MAX_STATEMENT_CHARS), "first": _cut(first, MAX_PROGRAM_CHARS),
              "second": _cut(second, MAX_PROGRAM_CHARS)}
    chat = prompt_text(CHAT_PROMPT).format(**fields)
    completion = prompt_text(COMPLETION_PROMPT).format(**fields).rstrip("\n") + "\nVerdict: [["
    return Prompt(messages=({"role": "user", "content": chat.strip()},), completion=completion,
                  code_prefix="Verdict: [[", stop=("\n",), temperature=0.0, max_tokens=MAX_TOKENS)


def read_verdict(text: str | None, prompt: str | None = None, finish_reason: str | None = None,
                 completion: bool = False) -> Reading:
    """The judge's reply read by its grammar: ``Reading(True)`` for SAME, ``Reading(False)``
    for DIFFERENT, else unreadable with its reason (replies.REASONS).  ``prompt`` is the
    text asked (for echoes), ``finish_reason`` the endpoint's (for ``cut off``);
    ``completion``: the reply continues the completion prompt's "Verdict: [[" opening."""
    reading = (COMPLETION_GRAMMAR if completion else GRAMMAR).read(text, prompt=prompt, finish_reason=finish_reason)
    if reading.reason == NO_MARKER and copied_from(strip_thinking(text or ""), prompt):
        return Reading.unreadable(ECHO)  # only the prompt's own lines came back, however short
    return reading if not reading.readable else Reading(reading.value == "SAME")


def parse_verdict(text: str | None) -> bool | None:
    """True for SAME, False for DIFFERENT (``read_verdict``), None for an unreadable reply."""
    return read_verdict(text).value


class Judge:
    """A model as an algorithm-class measure.  ``model`` is any ``Model``; with
    ``cache`` (a calls.jsonl path) its calls are cached there.  ``statements`` maps a
    problem id to its statement.  ``calls`` counts the verdicts asked, ``tally`` the
    replies read (replies.Tally, role ``ROLE``: readable and unreadable by reason),
    ``set_aside`` the programs set aside for an unreadable verdict, as (problem, index,
    programs classed in that problem)."""

    def __init__(self, model: Model, statements: dict[str, str], cache: Path | None = None):
        self.model = CachedModel(model, CallCache(Path(cache))) if cache is not None else model
        self.statements = statements
        self.calls = 0
        self.tally = Tally()
        self.set_aside: list[tuple[str, int, int]] = []
        self.limit: int | None = None  # programs per problem to class (validity.classer); None: all

    @property
    def unreadable(self) -> int:
        """Replies that gave no verdict."""
        return self.tally.counts.get(ROLE, {}).get("unreadable", 0)

    def verdict(self, problem: str, first: str, second: str) -> Reading:
        """The model's verdict on ``first`` and ``second``: ``Reading(True)`` for one
        algorithm, ``Reading(False)`` for two, or unreadable with its reason (counted in
        ``tally``).  Raises KeyError for a problem without a statement, ModelError when
        the model fails."""
        prompt = judge_prompt(self.statements[problem], first, second)
        reply = self.model.generate(prompt)
        self.calls += 1
        completion = bool(reply.code_prefix)
        if not (reply.text or "").strip() and reply.reasoning:  # thinking returned apart, no answer after it
            reading = Reading.unreadable(REASONING_ONLY)
        else:
            reading = read_verdict(reply.text, prompt.completion if completion else prompt.messages[0]["content"],
                                   reply.extra.get("finish_reason"), completion=completion)
        self.tally.add(ROLE, reading)
        return reading

    def same(self, problem: str, first: str, second: str) -> bool | None:
        """``verdict``'s value: True, False, or None for an unreadable reply."""
        return self.verdict(problem, first, second).value

    def partition(self, problem: str, codes: list[str]) -> list[int | None]:
        """Class indexes of ``codes`` (programs of ``problem``) by the greedy partition
        (measures.partition): each program is compared with the first member of every class
        so far and joins the first the judge calls SAME.  A program for which a verdict is
        unreadable cannot be placed without a guess: it gets None (set aside, with all its
        pairs; recorded in ``set_aside``) and heads no class."""
        heads: list[tuple[int, str]] = []
        labels: list[int | None] = []
        for index, code in enumerate(codes):
            label: int | None = None
            for class_index, (_, head) in enumerate(heads):
                verdict = self.same(problem, head, code)
                if verdict is None:
                    self.set_aside.append((problem, index, len(codes)))
                    label = -1
                    break
                if verdict:
                    label = class_index
                    break
            if label is None:
                heads.append((index, code))
                label = len(heads) - 1
            labels.append(None if label == -1 else label)
        return labels

    def pairs_set_aside(self) -> int:
        """Program pairs left unscored because a program of the pair was set aside."""
        by_problem: dict[str, tuple[int, int]] = {}
        for problem, _, n in self.set_aside:
            count, _n = by_problem.get(problem, (0, n))
            by_problem[problem] = (count + 1, n)
        return sum(s * (n - s) + s * (s - 1) // 2 for s, n in by_problem.values())
