"""The two protocols of ``neocoder ideas``: ours (the default) and LiveIdeaBench's own.

A protocol is everything around the paper's definitions that decides what the models are
asked and how their replies are read: the idea, fallback, critic and fluency prompts, how
an idea is cut from its reply, the refusal rule, which ideas the fluency judge compares,
and how a critic's reply is parsed.  The loop (loop.py) asks its protocol for each of
these and never looks at which one it has.

- ``OursProtocol`` (``--protocol ours``): our own prompts in ``prompts/ideas_*.txt`` (a
  system prompt, an "Idea:" prefix, a three-line score reply), a refusal only at the
  reply's opening, fluency over all of a keyword's kept ideas in one prompt.  Its numbers
  are those of every earlier release (scripts/same_numbers.py checks them).
- ``OfficialProtocol`` (``--protocol official``): the authors' prompts read at run time
  from a LiveIdeaBench clone (official.py); the critic answers with an analysis and a JSON
  block, the fluency critic compares one pair of distinct ideas A and B per (keyword,
  model) and answers a letter, and a refusal phrase anywhere in the reply is a refusal.

Both protocols read judge replies with the same parser (``scoring.parse_reply``: the
three-line format and the analysis + JSON format, reasoning text such as
``<think>...</think>`` dropped first), so a judge that answers in the other format still
counts.  What a critic is sent (its token budget, its temperature) is the judge's own
ModelConfig: nothing here sets it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

# the protocols are named once, on the config (with their judges' budgets)
from neocoder.benchmarks.ideas.config import OFFICIAL, OURS
from neocoder.benchmarks.ideas.official import OfficialFiles, load_official, refusal_phrases
from neocoder.benchmarks.ideas.replay import FALLBACK, MAIN
from neocoder.benchmarks.ideas.scoring import (
    GRADE_GRAMMAR,
    OFFICIAL_GRADE_GRAMMAR,
    extract_idea,
    is_refusal,
    parse_grade,
    parse_official_grade,
    parse_reply,
    read_official_scores,
    scores_reason,
    strip_reasoning,
)
from neocoder.models import Prompt, ReplayKey
from neocoder.resources import prompt_text as load_prompt

PROTOCOLS = (OURS, OFFICIAL)

PROMPT_FILES = ("ideas_system.txt", "ideas_user.txt", "ideas_completion.txt", "ideas_fallback_user.txt",
                "ideas_fallback_completion.txt", "ideas_judge.txt", "ideas_judge_completion.txt", "ideas_fluency.txt",
                "ideas_fluency_completion.txt")
IDEA_STOP = ("\n\n", "\nKeyword:")
JUDGE_STOP = ("\n\n", "\nKeyword:")
OFFICIAL_STOP = ("\n\n\n\n",)  # completions API only: the authors' replies hold blank lines
REMINDER = ("\nYour previous reply could not be read (reminder {attempt} of {retries}). Reply in exactly the format "
            "asked for above, with your {what} in place of {slot}, and nothing else.\n")


def _fill(name: str, **fields) -> str:
    text = load_prompt(name)
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    return text


def idea_prompt(keyword: str, idea_num: int, fallback: bool = False) -> Prompt:
    """Our idea model's prompt for ``keyword`` (the fallback prompt after a refusal), in
    both shapes; its replay key is (keyword, idea number, MAIN or FALLBACK)."""
    user = _fill("ideas_fallback_user.txt" if fallback else "ideas_user.txt", keyword=keyword)
    completion = _fill("ideas_fallback_completion.txt" if fallback else "ideas_completion.txt", keyword=keyword)
    return Prompt(messages=({"role": "system", "content": load_prompt("ideas_system.txt").strip()},
                            {"role": "user", "content": user.strip()}),
                  completion=completion.rstrip("\n"), code_prefix="", stop=IDEA_STOP,
                  replay_key=ReplayKey(keyword, idea_num, FALLBACK if fallback else MAIN))


def judge_prompt(keyword: str, idea: str, attempt: int = 0, retries: int = 2) -> Prompt:
    """Our judge's prompt for one idea: ``ideas_judge.txt`` for chat models (``attempt`` > 0
    adds a reminder of the reply format, numbered, so each retry is a new call and not
    the cached reply just refused), and for a completions-API base model the worked
    examples of ``ideas_judge_completion.txt`` ending in "originality:", which the reply
    continues (``code_prefix`` holds it for parsing; a retry asks the same text, so at
    temperature 0 it comes from the call cache)."""
    idea = " ".join(idea.split())
    text = _fill("ideas_judge.txt", keyword=keyword, idea=idea)
    if attempt:
        text += REMINDER.format(what="scores", slot="N", attempt=attempt, retries=retries)
    completion = _fill("ideas_judge_completion.txt", keyword=keyword, idea=idea).rstrip("\n") + "\noriginality:"
    return Prompt(messages=({"role": "user", "content": text.strip()},), completion=completion,
                  code_prefix="originality:", stop=JUDGE_STOP)


def fluency_prompt(keyword: str, ideas: list[str], attempt: int = 0, retries: int = 2) -> Prompt:
    """Our fluency judge's prompt: the keyword and the kept ideas, numbered
    (``ideas_fluency.txt``; ``ideas_fluency_completion.txt`` ending in "grade:" for a
    completions-API base model)."""
    ideas = [" ".join(text.split()) for text in ideas]
    text = _fill("ideas_fluency.txt", keyword=keyword,
                 ideas="\n\n".join(f"Idea {i}: {idea}" for i, idea in enumerate(ideas, 1)))
    if attempt:
        text += REMINDER.format(what="letter", slot="X", attempt=attempt, retries=retries)
    completion = _fill("ideas_fluency_completion.txt", keyword=keyword,
                       ideas="\n".join(f"Idea {i}: {idea}" for i, idea in enumerate(ideas, 1)))
    return Prompt(messages=({"role": "user", "content": text.strip()},),
                  completion=completion.rstrip("\n") + "\ngrade:", code_prefix="grade:", stop=("\n",))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class OursProtocol:
    """Our protocol (the default; the module docstring)."""

    name = OURS
    prompt_files = PROMPT_FILES  # recorded in the manifest by the runner (text and SHA-256)

    def idea_prompt(self, keyword: str, idea_num: int, fallback: bool = False) -> Prompt:
        """Our idea prompt for ``keyword`` (module ``idea_prompt``: system + user, or the completion shape)."""
        return idea_prompt(keyword, idea_num, fallback)

    def judge_prompt(self, keyword: str, idea: str, attempt: int = 0, retries: int = 2) -> Prompt:
        """Our judge prompt for one idea (module ``judge_prompt``), with the reminder on a retry."""
        return judge_prompt(keyword, idea, attempt, retries)

    def fluency_prompt(self, keyword: str, ideas: list[str], attempt: int = 0, retries: int = 2) -> Prompt:
        """Our fluency prompt with every kept idea, numbered (module ``fluency_prompt``)."""
        return fluency_prompt(keyword, ideas, attempt, retries)

    def extract_idea(self, reply: str) -> str:
        """The idea: the text after a leading "Idea:" marker (scoring.extract_idea), reasoning dropped."""
        return extract_idea(strip_reasoning(reply))

    def refused(self, reply: str, idea: str) -> bool:
        """A refusal opens the extracted idea (scoring.is_refusal)."""
        return is_refusal(idea)

    def fluency_ideas(self, kept: list) -> list:
        """Every kept idea of the keyword, in one prompt."""
        return list(kept)

    def parse_reply(self, reply: str) -> tuple[dict | None, str | None]:
        """(scores or None, the analysis or None) of a judge reply in either format (``scoring.parse_reply``)."""
        return parse_reply(reply)

    def reply_reason(self, reply: str, finish_reason: str | None = None) -> str | None:
        """Why a judge reply gave no scores (``scoring.scores_reason``), None when readable."""
        return scores_reason(reply, finish_reason=finish_reason)

    def grade_reason(self, reply: str, finish_reason: str | None = None) -> str | None:
        """Why a fluency reply gave no grade (``scoring.GRADE_GRAMMAR``), None when readable."""
        return GRADE_GRAMMAR.read(reply, finish_reason=finish_reason).reason

    def parse_grade(self, reply: str) -> str | None:
        """The fluency grade "A".."D" of a reply, reasoning dropped (``scoring.parse_grade``); None if none."""
        return parse_grade(strip_reasoning(reply))

    def manifest(self) -> dict:
        """What the manifest records about the protocol (our prompt files' texts and hashes
        are recorded by the runner under ``prompts``)."""
        return {"protocol": OURS}


@dataclass
class OfficialProtocol:
    """LiveIdeaBench's protocol read from a clone (official.py ``load_official``)."""

    source: OfficialFiles
    phrases: tuple[str, ...] = ()
    name: str = OFFICIAL
    prompt_files: tuple = field(default=())  # none of ours is used

    def idea_prompt(self, keyword: str, idea_num: int, fallback: bool = False) -> Prompt:
        """The authors' idea (or fallback) prompt with the keyword, as one user message."""
        text = (self.source.fallback if fallback else self.source.idea).replace("{{keywords}}", keyword)
        return Prompt(messages=({"role": "user", "content": text},), completion=text + "\n\n", code_prefix="",
                      stop=OFFICIAL_STOP, replay_key=ReplayKey(keyword, idea_num, FALLBACK if fallback else MAIN))

    def judge_prompt(self, keyword: str, idea: str, attempt: int = 0, retries: int = 2) -> Prompt:
        """The authors' critic prompt as the system message, the idea as the user message;
        a retry after an unreadable reply adds our numbered reminder (a new call)."""
        user = idea.strip()
        if attempt:
            user += "\n" + REMINDER.format(what="scores", slot="<score_1_to_10>", attempt=attempt, retries=retries)
        messages = ({"role": "system", "content": self.source.critic}, {"role": "user", "content": user})
        return Prompt(messages=messages, completion=self.source.critic + "\n\n" + user + "\n\n", code_prefix="",
                      stop=OFFICIAL_STOP)

    def fluency_prompt(self, keyword: str, ideas: list[str], attempt: int = 0, retries: int = 2) -> Prompt:
        """The authors' fluency critic prompt with the keyword and the pair (A, B)."""
        first, second = ideas[0], ideas[1]
        text = (self.source.fluency.replace("{{keyword}}", keyword).replace("{{A}}", first.strip())
                .replace("{{B}}", second.strip()))
        if attempt:
            text += "\n" + REMINDER.format(what="letter", slot="A/B/C/D", attempt=attempt, retries=retries)
        return Prompt(messages=({"role": "user", "content": text},), completion=text + "\n\n", code_prefix="",
                      stop=("\n",))

    def extract_idea(self, reply: str) -> str:
        """The whole reply (the authors judge it as written), reasoning text dropped."""
        return strip_reasoning(reply).strip()

    def refused(self, reply: str, idea: str) -> bool:
        """A refusal phrase anywhere in the reply (case and typographic apostrophes ignored).
        An empty idea is no refusal: it is no idea (``loop.read_idea``, issue 56)."""
        low = strip_reasoning(reply).lower().replace("\u2019", "'")  # a typographic apostrophe as a plain one
        return any(p in low for p in self.phrases)

    def fluency_ideas(self, kept: list) -> list:
        """The pair the fluency critic compares: the first two kept ideas whose texts differ
        (whitespace and case ignored); the first two kept ideas when all are the same."""
        seen, pair = set(), []
        for idea in kept:
            key = " ".join(idea.idea.lower().split())
            if key not in seen:
                seen.add(key)
                pair.append(idea)
            if len(pair) == 2:
                return pair
        return list(kept[:2])

    def parse_reply(self, reply: str) -> tuple[dict | None, str | None]:
        """(scores or None, the analysis or None) of a critic reply in the authors' format
        only, the JSON block their critic prompt fixes (``scoring.read_official_scores``)."""
        reading, analysis = read_official_scores(reply)
        return (reading.value, analysis) if reading.readable else (None, None)

    def reply_reason(self, reply: str, finish_reason: str | None = None) -> str | None:
        """Why a critic reply gave no scores (``scoring.read_official_scores``), None when
        readable (a JSON reply has no marker to be cut before: ``finish_reason`` unused)."""
        return read_official_scores(reply)[0].reason

    def grade_reason(self, reply: str, finish_reason: str | None = None) -> str | None:
        """Why a fluency critic reply gave no letter (``scoring.OFFICIAL_GRADE_GRAMMAR``)."""
        return OFFICIAL_GRADE_GRAMMAR.read(reply, finish_reason=finish_reason).reason

    def parse_grade(self, reply: str) -> str | None:
        """The authors' fluency critic's letter "A".."D" ("ONLY ANSWER A/B/C/D"), reasoning
        dropped (``scoring.parse_official_grade``); None when unreadable."""
        return parse_official_grade(strip_reasoning(reply))

    def manifest(self) -> dict:
        """The protocol, the clone's folder and the SHA-256 of every file read from it."""
        return {"protocol": OFFICIAL, "liveideabench": str(self.source.root),
                "official_files": {name: _sha256(self.source.root / name) for name in self.source.files},
                "refusal_phrases": list(self.phrases)}


def make_protocol(name: str, clone: Path | None = None, phrases_file: Path | None = None):
    """The protocol named ``name`` ("ours" or "official"); "official" reads the clone at
    ``clone`` (official.py ``load_official``; NeocoderError when it is missing or damaged)."""
    if name == OURS:
        return OursProtocol()
    source = load_official(clone)
    return OfficialProtocol(source, refusal_phrases(phrases_file))


def reply_reader(name: str):
    """The protocol ``name``'s readers of recorded replies alone (``parse_reply``,
    ``parse_grade``, ``fluency_ideas``): what a board re-scores a run with (verify.py).
    Neither protocol's readers need the authors' clone (the critic's JSON block and the
    fluency letter are read by scoring.py's grammars); the official protocol's prompts
    do, so the object given for "official" has none (``source`` None: asking it for a
    prompt fails)."""
    if name == OURS:
        return OursProtocol()
    if name == OFFICIAL:
        return OfficialProtocol(source=None)
    raise ValueError(f"protocol {name!r}: use {' or '.join(PROTOCOLS)}")
