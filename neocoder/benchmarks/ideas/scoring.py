"""LiveIdeaBench's scores: reading judge replies, the length and refusal rules, fluency,
flexibility, and a model's totals with bootstrap intervals over keywords.

The method (Ruan et al., "LiveIdeaBench: Evaluating LLMs' Divergent Thinking for
Scientific Idea Generation with Minimal Context", arXiv:2412.17596; restated in
``shared/liveideabench/README.md``), in our words:

- an idea model gets one keyword and writes one scientific idea of about 100 words;
  ideas over 200 words are left out (``max_words``), a refusal is asked again once
  with a fallback prompt;
- judges drawn from a panel (never the idea model) score each idea 1-10 for
  originality, feasibility and clarity; an idea's score on a criterion is the mean over
  its judges (panel.py draws three);
- **fluency**: for each keyword one judge grades how different the model's ideas for
  that keyword are: D identical, C similar ideas for similar problems, B different ideas
  for similar problems, A different ideas for different problems, mapped to the points
  ``FLUENCY_POINTS`` = D 1, C 4, B 7, A 10 (the mapping as the README above gives it);
- **flexibility**: the 30th percentile, over keywords, of the keyword's average of the
  four scores (originality, feasibility, clarity, fluency; the paper's "Flexibility"
  section): a model is as flexible as its weaker keywords allow.  One value is computed
  and shown everywhere, the paper's (issue 56: two numbers named flexibility, this one and
  a three-score one for the December 2024 leaderboard, were printed for one run).

What the method leaves open, decided here (docs/ideas.md):

- a model's originality (feasibility, clarity) is the mean over its judged ideas, pooled
  across keywords, of the idea's mean judge score; its fluency is the mean over graded
  keywords; a keyword's average is over the scores it has (a keyword with one kept idea
  has no fluency grade, so its average is over three);
- the percentile is numpy's default, linear interpolation between order statistics
  (Hyndman and Fan 1996, definition 7);
- the December 2024 leaderboard (``leaderboard-202412.csv``) predates clarity, so its
  Flexibility can only have averaged three scores (originality, feasibility, fluency); its
  Average is the mean of its four columns (checked on its rows: e.g. gemini-pro-1.5's
  (8.876 + 6.839 + 7.314 + 7.667) / 4 = 7.674).  The ``leaderboard`` block of a model's
  totals takes that Average over the model's fluency, feasibility, originality and its one
  ``flexibility`` (the paper's), so a run stands next to the published rows with the
  paper's definition, and docs/ideas.md says that column's published values lack clarity.
"""

from __future__ import annotations

import re

import numpy as np

from neocoder.metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVEL, summarize, weights
from neocoder.replies import Grammar, Reading, choice, number, opens_with_refusal, read_json_fields, within

CRITERIA = ("originality", "feasibility", "clarity")
FLUENCY_POINTS = {"A": 10.0, "B": 7.0, "C": 4.0, "D": 1.0}
FLEXIBILITY_PERCENTILE = 30.0
SCORE_MIN, SCORE_MAX = 1.0, 10.0
# the four scores a keyword row averages ("average"), whose 30th percentile is flexibility; the
# three of the December 2024 leaderboard (no clarity), a keyword row's "average_3", kept for comparisons
FOUR_SCORES = ("originality", "feasibility", "clarity", "fluency")
LEADERBOARD_SCORES = ("originality", "feasibility", "fluency")

_NUMBER = r"(\d+(?:\.\d+)?)"


_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)


def strip_reasoning(reply: str) -> str:
    """``reply`` without its reasoning text: every ``<think>...</think>`` (also
    ``<thinking>``, ``<reasoning>``) block, and everything up to a closing tag whose
    opening was cut off (some endpoints drop the opening ``<think>``).  A reply whose
    reasoning never closes has no answer: the empty string."""
    text = _REASONING.sub("", reply)
    for tag in ("think", "thinking", "reasoning"):
        close = text.lower().rfind(f"</{tag}>")
        if close >= 0:
            text = text[close + len(tag) + 3:]
        if re.search(rf"<{tag}>", text, re.I):
            return ""
    return text


def criterion_grammar(name: str) -> Grammar:
    """Our judge prompt's line ``<criterion>: N`` (``prompts/ideas_judge.txt``), or the same
    criterion as a tag ``<criterion>N</criterion>``: the last such marker counts (any case,
    markdown around the line allowed, "/10" after N allowed), N a number in 1..10; the
    prompt's placeholder ``N`` sent back is an echo; markers that disagree conflict."""
    return Grammar(f"ideas {name}",
                   marker=rf"(?:^[\s*_#>-]*{name}[\s*_]*[:=][\s*_]*|<{name}>\s*)([^\s*_<]+?)(?:\s*/\s*10)?"
                          rf"(?:[\s*_.]*$|\s*</{name}>)",
                   value=number, check=within(SCORE_MIN, SCORE_MAX), placeholders=("N",), flags=re.I | re.M,
                   describe=f"the last line '{name}: N' (or <{name}>N</{name}>), N from {SCORE_MIN:g} to {SCORE_MAX:g}")


CRITERION_GRAMMARS = {c: criterion_grammar(c) for c in CRITERIA}
GRADE_GRAMMAR = Grammar("ideas fluency", marker=r"^[\s*_#>-]*grade[\s*_]*[:=][\s*_\"']*([^\s*_\"'.]+)[\s*_\"'.]*$",
                        value=choice("A", "B", "C", "D"), placeholders=("X",), flags=re.I | re.M,
                        describe="the last line 'grade: X', X one of A, B, C, D")
# The authors' fluency critic: "ONLY ANSWER A/B/C/D" (LiveIdeaBench utils/prompts.json): the
# reply's first word, a capital letter (an article "a" in a sentence is no answer).
OFFICIAL_GRADE_GRAMMAR = Grammar("ideas fluency (official)", marker=r"\A[\s*_\"'(]*([ABCD])(?![\w])",
                                 value=choice("A", "B", "C", "D"), loose=r"(?<![\w])([ABCD])[.)](?=\s|$)", flags=0,
                                 describe="the reply's first word, a capital A, B, C or D")


def read_scores(reply: str | None, prompt: str | None = None, finish_reason: str | None = None) -> dict:
    """Our judge reply read criterion by criterion (``CRITERION_GRAMMARS``): ``{criterion:
    Reading}``, each a score in 1..10 or unreadable with its reason (neocoder/replies.py)."""
    return {c: g.read(reply, prompt, finish_reason) for c, g in CRITERION_GRAMMARS.items()}


def read_official_scores(reply: str | None, prompt: str | None = None) -> tuple[Reading, str | None]:
    """The authors' critic reply (LiveIdeaBench utils/prompts.json: an analysis, then a JSON
    block ``{"originality": N, "feasibility": N, "clarity": N}``), read by
    ``replies.read_json_fields``: (``Reading({criterion: score})`` or unreadable with its
    reason, the analysis before the JSON or None)."""
    reading = read_json_fields(reply, CRITERIA, value=_json_number, check=within(SCORE_MIN, SCORE_MAX),
                               prompt=prompt)
    analysis = None
    if reading.readable:
        text = strip_reasoning(reply or "")
        cut = text.rfind("{")
        analysis = re.sub(r"`{3}\s*(?:json)?\s*$", "", text[:cut].strip(), flags=re.I).strip() or None
    return reading, analysis


def _json_number(v) -> float:
    """A JSON field as a score: a number (or a numeric string); ValueError otherwise."""
    if isinstance(v, str):
        return number(v.strip())
    return float(v)


def parse_reply(reply: str) -> tuple[dict[str, float] | None, str | None]:
    """A judge reply in either format: the authors' JSON block when the reply holds a
    ``{`` (``read_official_scores``), else ours (``parse_scores``).  Returns (scores or None
    when unreadable, the analysis before the JSON block or None).  Never a guess: see
    ``read_official_scores`` and ``read_scores``."""
    if "{" in strip_reasoning(reply or ""):
        reading, analysis = read_official_scores(reply)
        return (reading.value, analysis) if reading.readable else (None, None)
    return parse_scores(reply), None


def parse_scores(reply: str) -> dict[str, float] | None:
    """The three criteria's scores from our judge's reply, ``{"originality": 8.0,
    "feasibility": 6.0, "clarity": 7.0}`` (``read_scores``); None when any criterion is
    unreadable (the caller asks again and finally records it, never a score)."""
    readings = read_scores(reply)
    if not all(r.readable for r in readings.values()):
        return None
    return {c: r.value for c, r in readings.items()}


def scores_reason(reply: str, official: bool = False, finish_reason: str | None = None) -> str | None:
    """Why a judge reply gave no scores (the first unreadable criterion's reason), None when
    it is readable: the reason the records keep and metrics.json counts."""
    if official or "{" in strip_reasoning(reply or ""):
        return read_official_scores(reply)[0].reason
    return next((r.reason for r in read_scores(reply, finish_reason=finish_reason).values() if not r.readable), None)


def parse_grade(reply: str) -> str | None:
    """A fluency grade "A".."D" from our fluency judge's reply, the last line
    ``grade: X`` (``GRADE_GRAMMAR``); None when unreadable (a bare letter, a placeholder
    ``X``, lines that disagree)."""
    return GRADE_GRAMMAR.read(reply).value


def parse_official_grade(reply: str) -> str | None:
    """The authors' fluency critic's letter (``OFFICIAL_GRADE_GRAMMAR``), None when unreadable."""
    return OFFICIAL_GRADE_GRAMMAR.read(reply).value


def fluency_points(grade: str) -> float:
    """The points of a fluency grade: A 10, B 7, C 4, D 1 (LiveIdeaBench's mapping, as
    shared/liveideabench/README.md states it).  Raises KeyError for another letter."""
    return FLUENCY_POINTS[grade.upper()]


def extract_idea(reply: str) -> str:
    """The idea in a reply: the text after a leading "Idea:" marker (markdown allowed,
    e.g. ``**Idea:**``) when a line starts with one, else the whole reply; surrounding
    whitespace and quotes removed."""
    text = reply.strip()
    m = re.search(r"^[\s*_#>]*(?:final\s+)?idea[\s*_]*:[\s*_]*", text, re.I | re.M)
    if m:
        text = text[m.end():]
    return text.strip().strip('"“”').strip()


def word_count(text: str) -> int:
    """Words of ``text``: its whitespace-separated tokens (the length rule counts these)."""
    return len(text.split())


# A refusal opens the reply: the first words say the model will not or cannot do it.
def is_refusal(idea: str) -> bool:
    """True when ``idea`` (the extracted idea) is a refusal: it *opens* with a refusal
    ("I'm sorry", "Sorry", "I apologise", "Unfortunately, I", "I cannot", "I can't", "I
    won't", "I will not", "I must decline", "I am unable", "I'm not able", "I don't feel
    comfortable", "As an AI"), after optional quotes or markdown.  Only the opening counts,
    so an idea that says "cells cannot divide" later is no refusal.  An empty idea is no
    refusal: it is no idea (``loop.read_idea``, issue 56).  The rule is the judges'
    (``replies.opens_with_refusal``), one for every reply; typographic apostrophes count as
    plain ones."""
    return opens_with_refusal(idea)


def percentile(values, q: float = FLEXIBILITY_PERCENTILE) -> float | None:
    """The ``q``-th percentile of ``values`` with linear interpolation between order
    statistics (numpy's default; Hyndman and Fan 1996, definition 7): for sorted x_0 <=
    ... <= x_{n-1}, h = (n - 1) q / 100 and P = x_floor(h) + (h - floor(h)) (x_ceil(h) -
    x_floor(h)).  None for no values."""
    v = np.asarray(list(values), dtype=float)
    return float(np.percentile(v, q)) if len(v) else None


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def idea_scores(judgements) -> dict[str, float | None]:
    """An idea's score per criterion: the mean over its judgements that have scores (None
    for a criterion no judge scored)."""
    scored = [j.scores for j in judgements if j.scores]
    return {c: _mean(s[c] for s in scored) for c in CRITERIA}


def keyword_rows(ideas, judgements, grades, judges_of=None) -> list[dict]:
    """One row per keyword (in keyword order) of one model's records.

    ``ideas``: Idea records; ``judgements``: IdeaJudgement records; ``grades``:
    FluencyGrade records.  ``judges_of(idea)`` -> the judge names whose judgements count
    for that idea (default: all of the idea's judgements).  A row: ``{"keyword_index",
    "keyword", "category", "ideas", "kept", "too_long", "refused", "errors", "sums":
    {criterion: sum of idea scores}, "counts": {criterion: ideas scored}, "no_idea" (replies that
    held no idea), "originality",
    "feasibility", "clarity" (keyword means), "fluency" (points), "grade", "average"
    (mean of the four scores present), "average_3" (originality, feasibility, fluency)}``.
    """
    by_idea: dict[tuple, list] = {}
    for j in judgements:
        by_idea.setdefault((j.keyword_index, j.idea_num), []).append(j)
    grade_of = {g.keyword_index: g for g in grades if g.grade is not None}
    rows: dict[int, dict] = {}
    for idea in sorted(ideas, key=lambda i: (i.keyword_index, i.idea_num)):
        row = rows.setdefault(idea.keyword_index, {
            "keyword_index": idea.keyword_index, "keyword": idea.keyword, "category": idea.category,
            "ideas": 0, "kept": 0, "too_long": 0, "refused": 0, "no_idea": 0, "errors": 0,
            "sums": {c: 0.0 for c in CRITERIA}, "counts": {c: 0 for c in CRITERIA}})
        row["ideas"] += 1
        key = {"ok": "kept", "too long": "too_long", "refused": "refused", "no idea": "no_idea"}.get(idea.status,
                                                                                                     "errors")
        row[key] += 1
        if idea.status != "ok":
            continue
        js = by_idea.get((idea.keyword_index, idea.idea_num), [])
        if judges_of is not None:
            wanted = set(judges_of(idea))
            js = [j for j in js if j.judge in wanted]
        for c, value in idea_scores(js).items():
            if value is not None:
                row["sums"][c] += value
                row["counts"][c] += 1
    for k, row in rows.items():
        for c in CRITERIA:
            row[c] = row["sums"][c] / row["counts"][c] if row["counts"][c] else None
        g = grade_of.get(k)
        row["grade"], row["fluency"] = (g.grade, g.score) if g else (None, None)
        row["average"] = _mean(row[s] for s in FOUR_SCORES)
        row["average_3"] = _mean(row[s] for s in LEADERBOARD_SCORES)
    return [rows[k] for k in sorted(rows)]


def _arrays(rows: list[dict]) -> dict[str, np.ndarray]:
    """The keyword rows as arrays of shape (n,) (NaN: undefined), for weighted sums."""
    arr = {f"sum_{c}": np.array([r["sums"][c] for r in rows], dtype=float) for c in CRITERIA}
    arr.update({f"n_{c}": np.array([r["counts"][c] for r in rows], dtype=float) for c in CRITERIA})
    for key in ("fluency", "average", "average_3"):
        arr[key] = np.array([np.nan if r[key] is None else r[key] for r in rows], dtype=float)
    return arr


def _scores(arr: dict[str, np.ndarray], w: np.ndarray) -> dict[str, float | None]:
    """The model's scores from keyword arrays (``_arrays``), keyword k weighted by w[k] (a
    bootstrap replicate's draw counts; all ones for the point estimate)."""
    out: dict[str, float | None] = {}
    for c in CRITERIA:
        den = float(w @ arr[f"n_{c}"])
        out[c] = float(w @ arr[f"sum_{c}"]) / den if den else None
    graded = ~np.isnan(arr["fluency"])
    den = float(w[graded].sum())
    out["fluency"] = float(w[graded] @ arr["fluency"][graded]) / den if den else None
    # flexibility: one value, the paper's (P30 of the keyword average of the four scores; docs/ideas.md)
    keep = ~np.isnan(arr["average"]) & (w > 0)
    out["flexibility"] = percentile(np.repeat(arr["average"][keep], w[keep].astype(int))) if keep.any() else None
    parts = [out["fluency"], out["feasibility"], out["originality"], out["flexibility"]]
    out["average"] = None if any(p is None for p in parts) else float(np.mean(parts))
    return out


SCORE_NAMES = ("originality", "feasibility", "clarity", "fluency", "flexibility")


def model_scores(rows: list[dict], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = LEVEL) -> dict:
    """A model's five scores, the leaderboard's columns, and their intervals.

    ``rows``: ``keyword_rows``.  Returns ``{"originality", "feasibility", "clarity",
    "fluency", "flexibility", "leaderboard": {"fluency", "feasibility", "originality",
    "flexibility", "average"}, "intervals": {name: {"low", "high", "se"}}}``, scores on the
    1-10 scale (None where undefined).  Interval names are the five scores and
    ``leaderboard.flexibility`` and ``leaderboard.average``; they come from a bootstrap
    that resamples keywords (``resamples`` replicates, ``seed``; neocoder/metrics/bootstrap.py's
    ``weights`` and percentile ``summarize``): every score of a replicate is computed as
    above from the keyword rows weighted by how often each keyword was drawn, so an
    idea's judges and a keyword's ideas move together (a cluster bootstrap).
    """
    arr = _arrays(rows)
    point = _scores(arr, np.ones(len(rows)))
    out = {name: point[name] for name in SCORE_NAMES}
    out["leaderboard"] = {"fluency": point["fluency"], "feasibility": point["feasibility"],
                          "originality": point["originality"], "flexibility": point["flexibility"],
                          "average": point["average"]}
    intervals = {}
    if len(rows) >= 2 and resamples >= 2:
        reps = [_scores(arr, w) for w in weights(len(rows), resamples, seed)]
        for name, key in [(n, n) for n in SCORE_NAMES] + [("leaderboard.flexibility", "flexibility"),
                                                            ("leaderboard.average", "average")]:
            values = np.array([np.nan if r[key] is None else r[key] for r in reps], dtype=float)
            got = summarize(values, level)
            if got is not None and point[key] is not None:
                intervals[name] = got
    out["intervals"] = intervals
    return out
