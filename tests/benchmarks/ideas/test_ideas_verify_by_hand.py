"""The settings a board re-scores a LiveIdeaBench run with, read from its manifest
(neocoder/benchmarks/ideas/verify.py ``settings_of``, ``seats_of``; issue 56, item 5),
worked by hand: every field taken from the manifest, every default where it is silent,
and a manifest whose draws are not integers refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from neocoder.benchmarks.ideas.verify import seats_of, settings_of
from neocoder.errors import NeocoderError

CONFIG = {"model": {"spec": "openai/writer"}, "judges_per_idea": 2, "seed": 7, "bootstrap": 300,
          "bootstrap_seed": 11, "max_words": 150, "ideas_per_keyword": 5}


def test_every_setting_comes_from_the_manifest(tmp_path):
    got = settings_of(tmp_path, CONFIG)
    assert (got.model.spec, got.judges, got.out) == ("openai/writer", [], Path(tmp_path))
    assert (got.judges_per_idea, got.seed, got.bootstrap, got.bootstrap_seed) == (2, 7, 300, 11)
    assert (got.max_words, got.ideas_per_keyword) == (150, 5)


def test_the_run_defaults_where_the_manifest_is_silent(tmp_path):
    got = settings_of(tmp_path, {"model": {"spec": "openai/writer"}, "bootstrap": 300, "bootstrap_seed": 11})
    assert (got.judges_per_idea, got.seed, got.max_words, got.ideas_per_keyword) == (3, 0, 200, 3)


@pytest.mark.parametrize("change", [{"judges_per_idea": "2"}, {"seed": 1.0}, {"judges_per_idea": 0},
                                    {"judges_per_idea": True}, {"seed": None}])
def test_draws_that_are_not_positive_integers_are_refused(tmp_path, change):
    with pytest.raises(NeocoderError, match=r"^manifest.json judges_per_idea .* or seed .* is not an integer"):
        settings_of(tmp_path, {**CONFIG, **change})


def test_one_judge_per_idea_is_a_draw_the_board_accepts(tmp_path):
    assert settings_of(tmp_path, {**CONFIG, "judges_per_idea": 1}).judges_per_idea == 1


def test_the_panel_seats_are_named_as_the_run_named_them():
    judges = [{"spec": "openai/a"}, {"spec": "openai/b"}, "not a seat"]
    assert seats_of({"judges": judges, "judge_names": ["j1", "j2"]}) == {"j1": {"spec": "openai/a"},
                                                                         "j2": {"spec": "openai/b"}}
    assert seats_of({"judges": judges}) == {"openai/a": {"spec": "openai/a"}, "openai/b": {"spec": "openai/b"}}
    assert seats_of({}) == {}


def idea(k: int, keyword: str, category: str = "Science", recorded: str | None = None):
    from neocoder.benchmarks.ideas.records import Idea
    return Idea(model="m", keyword_index=k, keyword=keyword, category=category, idea_num=1, idea="x",
                recorded_model=recorded)


def test_a_live_run_reads_the_shipped_keywords_cut_to_its_limit():
    from neocoder.benchmarks.ideas.sources import load_keywords
    from neocoder.benchmarks.ideas.verify import keywords_of
    shipped = load_keywords()
    assert keywords_of({"model": {"spec": "openai/writer"}, "limit": 3}, []) == shipped[:3]
    assert keywords_of({"model": {"spec": "openai/writer"}}, []) == shipped
    assert keywords_of({"model": {"spec": "openai/writer"}, "limit": None}, []) == shipped


def test_a_replayed_run_reads_the_keywords_its_ideas_name_in_order():
    from neocoder.benchmarks.ideas.sources import Keyword
    from neocoder.benchmarks.ideas.verify import keywords_of
    ideas = [idea(2, "tides", "Earth"), idea(0, "bees", "Biology")]
    assert keywords_of({"model": {"spec": "replay/runs/x"}, "limit": 1}, ideas) == [
        Keyword("bees", "Biology"), Keyword(""), Keyword("tides", "Earth")]
    assert keywords_of({"model": {"spec": "replay/runs/x"}}, []) == []


def test_the_seats_that_may_judge_leave_out_the_idea_model_and_a_replayed_writer():
    from neocoder.benchmarks.ideas.verify import eligible_seats
    config = {"model": {"spec": "openai/a"}, "judges_per_idea": 2, "judge_names": ["j1", "j2", "j3", "j4"],
              "judges": [{"spec": "openai/a"}, {"spec": "openai/b"}, {"spec": "openai/c"}, {"spec": "openai/d"}]}
    assert eligible_seats(config, "openai/a", []) == ["j2", "j3", "j4"]
    assert eligible_seats(config, "openai/a", [idea(0, "bees", recorded="openai/c")]) == ["j2", "j4"]
    with pytest.raises(NeocoderError, match=r"1 judge\(s\) besides the idea model, fewer than the 2"):
        eligible_seats(config, "openai/a", [idea(0, "bees", recorded="openai/c"), idea(1, "tides",
                                                                                    recorded="openai/b")])
    assert eligible_seats({**config, "judges_per_idea": 3}, "openai/a", []) == ["j2", "j3", "j4"]
    with pytest.raises(NeocoderError, match=r"fewer than the 3"):
        eligible_seats(config | {"judges_per_idea": 3}, "openai/a", [idea(0, "bees", recorded="openai/c")])
