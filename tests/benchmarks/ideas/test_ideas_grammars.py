"""The ideas judges' reply grammars (neocoder/benchmarks/ideas/scoring.py, issue 46): ours
(``criterion: N`` lines, ``grade: X``) and the authors' (a JSON block; one letter A-D)."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.ideas.scoring import (
    parse_official_grade,
    read_official_scores,
    read_scores,
    scores_reason,
)

GOOD = "originality: 8\nfeasibility: 6\nclarity: 7"


@pytest.mark.parametrize("reply,reason", [
    (GOOD, None),
    ("The idea is bold.\n**Originality:** 8\nFeasibility: 6/10\nclarity = 7.", None),
    ("", "empty"),
    ("<think>originality: 8</think>", "reasoning only"),
    ("originality: N\nfeasibility: N\nclarity: N", "echo"),
    ("I'm sorry, I cannot rate this idea.", "refusal"),
    (GOOD + "\noriginality: 3", "conflicting markers"),
    ("<originality>8</originality> <feasibility>6</feasibility> <clarity>7</clarity>", None),
    ("<Originality>8</Originality>\nfeasibility: 6\nclarity: 7\n<originality>2</originality>", "conflicting markers"),
    ("originality: 11\nfeasibility: 6\nclarity: 7", "out of range"),
    ("Originality is high, feasibility middling, clarity good.", "no marker"),
    ("originality: 8\nfeasibility: 6", "no marker"),  # clarity missing
])
def test_our_scores_are_read_line_by_line_the_last_line_counting(reply, reason):
    readings = read_scores(reply)
    assert scores_reason(reply, official=False) == reason
    if reason is None:
        assert {c: r.value for c, r in readings.items()} == {"originality": 8.0, "feasibility": 6.0, "clarity": 7.0}


def test_a_cut_reply_is_cut_off():
    assert read_scores("originality: 8\nfeasib", finish_reason="length")["feasibility"].reason == "cut off"


@pytest.mark.parametrize("reply,reason", [
    ('Novel.\n```json\n{"originality": 8, "feasibility": 6, "clarity": 7}\n```', None),
    ('Here: {"originality": 8, "feasibility": 6, "clarity": 7} as asked.', None),
    ('{"originality": 8, "feasibility": 6, "clarity": 7', "broken JSON"),
    ('{"originality": <score_1_to_10>, "feasibility": <score_1_to_10>, "clarity": <score_1_to_10>}', "broken JSON"),
    ('{"originality": 8, "feasibility": 6}', "broken JSON"),
    ('{"originality": 0, "feasibility": 6, "clarity": 7}', "out of range"),
    ("I'm sorry, I can't review this.", "refusal"),
    ("", "empty"),
])
def test_the_authors_json_block_is_read_exactly(reply, reason):
    reading, analysis = read_official_scores(reply)
    assert reading.reason == reason
    if reason is None:
        assert reading.value == {"originality": 8.0, "feasibility": 6.0, "clarity": 7.0}


@pytest.mark.parametrize("reply,grade", [
    ("B", "B"), ("C.", "C"), ("**D**", "D"), ("A. Completely different ideas", "A"),
    ("", None), ("b", None), ("The answer is B.", None), ("B. or maybe C.", None), ("E", None),
])
def test_the_authors_fluency_letter_is_the_first_word(reply, grade):
    assert parse_official_grade(reply) == grade
