"""LiveIdeaBench's typed, versioned records (the run folder's ``records.jsonl`` lines), declared
in its descriptor (descriptor.py) so any run folder reads back with no import first:

- ``Idea``: one idea of one model for one keyword (LiveIdeaBench's unit of judging);
- ``IdeaJudgement``: one judge's originality, feasibility and clarity scores of one idea;
- ``FluencyGrade``: one judge's grade of how different one model's ideas for one keyword are.

docs/records.md documents every field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neocoder.records import Record

IDEA_STATUSES = ("ok", "too long", "refused", "no idea", "error")  # the values of ``Idea.status``


@dataclass
class Idea(Record):
    """One idea of one model for one keyword (LiveIdeaBench's unit of judging)."""

    TYPE = "idea"

    model: str  # the idea model (PROVIDER/NAME; replay/<source>#<model> for a recorded source of several)
    keyword_index: int  # 0-based position of the keyword in the run's keyword list
    keyword: str
    idea_num: int  # 1-based position of the idea among the keyword's ideas
    category: str = ""  # the keyword's discipline (LiveIdeaBench's keywords.csv), "" when unknown
    idea: str = ""  # the idea as judged: the reply with a leading "Idea:" marker and quotes removed
    reply: str | None = None  # the model's raw reply (to the fallback prompt when that was used)
    words: int = 0  # whitespace-separated words of ``idea``
    status: str = "ok"  # "ok" (judged), "too long" (over max_words), "refused" (twice), "no idea" (the reply held
    # none: ``no_idea`` says why; neither judged nor a refusal), "error"
    fallback: bool = False  # the first reply was a refusal and the fallback prompt was asked
    refused_reply: str | None = None  # the first reply, when it was a refusal
    recorded_model: str | None = None  # who wrote a replayed idea (``--model replay/...``)
    error: str | None = None  # the model error, when the call failed
    finish_reason: str | None = None  # the endpoint's finish reason ("length": cut at --max-tokens)
    no_idea: str | None = None  # why the reply that settled the idea held none (neocoder/replies.py ANSWER_REASONS:
    # refusal for a "refused" idea; empty, reasoning only, echo, cut off for "no idea"); None for an idea
    tokens: dict = field(default_factory=dict)  # {"prompt": int | None, "completion": int | None}, both calls
    seconds: float = 0.0  # wall time of the idea model's calls

    @property
    def key(self) -> tuple:
        """The resume key: (idea model, keyword_index, idea_num)."""
        return (self.model, int(self.keyword_index), int(self.idea_num))

    @property
    def finished(self) -> bool:
        """An idea whose model call failed is asked again on resume."""
        return self.status != "error"


@dataclass
class IdeaJudgement(Record):
    """One judge's scores of one idea: originality, feasibility and clarity, 1-10 each."""

    TYPE = "idea_judgement"

    model: str  # the idea model
    keyword_index: int
    keyword: str
    idea_num: int
    judge: str  # the judge's name in the panel (an alias or its spec)
    judge_spec: str  # the judge's PROVIDER/NAME
    scores: dict | None = None  # {"originality", "feasibility", "clarity"}: floats in [1, 10]; None on an error
    error: str | None = None  # why there are no scores: unparseable replies, or a model error
    replies: list = field(default_factory=list)  # the judge's raw replies, retries included
    tokens: dict = field(default_factory=dict)  # {"prompt": int, "completion": int}, summed over attempts
    analysis: str | None = None  # the critic's analysis before its JSON block (LiveIdeaBench's reply format)
    reasons: list = field(default_factory=list)  # per reply: None (readable) or why not (neocoder/replies.py)

    def to_dict(self) -> dict:
        """As Record.to_dict, without ``analysis`` when there is none (a three-line reply),
        so records of our protocol read as they always did."""
        data = super().to_dict()
        if data.get("analysis") is None:
            data.pop("analysis", None)
        return data

    @property
    def key(self) -> tuple:
        """The resume key: (idea model, keyword_index, idea_num, judge)."""
        return (self.model, int(self.keyword_index), int(self.idea_num), self.judge)

    @property
    def finished(self) -> bool:
        """A judgement that ended in an error is asked again on resume (from the call cache
        when the replies were unparseable: the same replies, so the same error)."""
        return self.error is None


@dataclass
class FluencyGrade(Record):
    """One judge's grade of how different one model's ideas for one keyword are."""

    TYPE = "idea_fluency"

    model: str  # the idea model
    keyword_index: int
    keyword: str
    judge: str  # the judge's name in the panel
    judge_spec: str
    idea_nums: list = field(default_factory=list)  # the kept ideas shown to the judge, in order
    grade: str | None = None  # "A", "B", "C" or "D"; None on an error
    score: float | None = None  # the grade's points: A 10, B 7, C 4, D 1 (ideas/scoring.py FLUENCY_POINTS)
    error: str | None = None
    replies: list = field(default_factory=list)
    tokens: dict = field(default_factory=dict)
    reasons: list = field(default_factory=list)  # per reply: None (readable) or why not (neocoder/replies.py)

    @property
    def key(self) -> tuple:
        """The resume key: (idea model, keyword_index)."""
        return (self.model, int(self.keyword_index))

    @property
    def finished(self) -> bool:
        """A grade that ended in an error is asked again on resume."""
        return self.error is None
