"""The board's checks of a submitted NeoCoder run that need no sandbox (neocoder/benchmarks/
neocoder/verify.py), worked by hand on small records: two judged values compared (numbers
to 1e-9 relative or 1e-12 absolute, everything else exactly), the recorded and re-judged
samples compared key by key with the exact line naming the first that differs, the metrics
recomputed from a run folder's Sample records with the run's model and bootstrap settings,
and the settings a replay cannot re-judge refused before anything is judged.

The re-judging itself, in the Docker sandbox, is test_neocoder_rejudge_by_hand.py."""

from __future__ import annotations

import pytest

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.neocoder.verify import _differs, compare, recompute, rejudge
from neocoder.errors import NeocoderError
from neocoder.records import ProblemState, Sample, TierResult
from neocoder.store import RunFolder

METRICS = {"bootstrap": {"resamples": 20, "seed": 3}}  # neither is the default (2000, 0)


def sample(problem: str = "p1", state: int = 0, k: int = 0, ok: bool = True, **more) -> Sample:
    """A judged sample: one example test, AC when ``ok``; following its state's (no)
    constraints, Eq. 3 divergent 0.5 unless ``more`` says otherwise."""
    fields = dict(examples=TierResult([{"verdict": "AC" if ok else "WA"}], ok), follows=True, divergent=0.5,
                  code_sha256="c0de")
    return Sample(problem, state, k, "m", [], "feed", **{**fields, **more})


def run_folder(path, *records):
    """A run folder holding ``records``."""
    RunFolder(path).write_all(list(records))
    return path


# _differs: two floats within 1e-9 relative or 1e-12 absolute agree; anything else exactly

@pytest.mark.parametrize("a, b", [(0.5, 0.5), (0.1 + 0.2, 0.3), (0.0, 1e-13), (1e-13, 0.0), (1e6, 1e6 + 1e-4),
                                  (None, None), (["dp"], ["dp"]), (1, 1.0), (True, True)])
def test_values_a_rejudging_may_give_again_do_not_differ(a, b):
    assert not _differs(a, b) and not _differs(b, a)


@pytest.mark.parametrize("a, b", [(0.5, 0.9), (0.0, 1e-11), (1e6, 1e6 + 1e-2), (0.0, 1.0), (None, 0.5), (0.5, None),
                                  (0.5, "0.5"), (["dp"], ["greedy"]), (True, False), (None, False)])
def test_values_that_differ_are_told_apart(a, b):
    assert _differs(a, b) and _differs(b, a)


# compare: every sample of either side, in key order, every judged field

def refusal(recorded: list, rejudged: list) -> str:
    """The line ``compare`` refuses ``recorded`` against ``rejudged`` with."""
    with pytest.raises(RecordsDisagree) as got:
        compare(recorded, rejudged)
    return str(got.value)


def test_samples_that_agree_in_every_judged_field_are_counted():
    mine = [sample("p1"), sample("p2", ok=False), sample("p1", 2, 1, divergent=None, techniques=["dp"])]
    theirs = [sample("p1", 2, 1, divergent=None, techniques=["dp"]), sample("p2", ok=False),
              sample("p1", divergent=0.5 + 1e-12)]
    assert compare(mine, theirs) == 3
    assert compare([], []) == 0


def test_a_sample_the_rejudging_did_not_give_is_refused_naming_its_problem_state_and_sample():
    assert refusal([sample("p1"), sample("p1", 2, 1)], [sample("p1")]) == (
        "problem p1 state 2 sample 1: in records.jsonl, but not a sample the run's settings hold")


def test_a_rejudged_sample_the_records_do_not_hold_is_refused_naming_it():
    assert refusal([sample("p2", 3, 0)], [sample("p2", 3, 0), sample("p2", 3, 4)]) == (
        "problem p2 state 3 sample 4: missing from records.jsonl")


def test_the_first_sample_in_key_order_is_named():
    mine = [sample("p2"), sample("p1", 1, 0, ok=False), sample("p1", 0, 0)]
    theirs = [sample("p2", ok=False), sample("p1", 1, 0), sample("p1", 0, 1)]
    assert refusal(mine, theirs) == "problem p1 state 0 sample 0: in records.jsonl, but not a sample the run's " \
                                    "settings hold"
    assert refusal(mine[:2], theirs[:2]) == "problem p1 state 1 sample 0: correct is False in records.jsonl, " \
                                            "True re-judged"


@pytest.mark.parametrize("edit, line", [
    ({"code_sha256": "beef"}, "code_sha256 is 'beef' in records.jsonl, 'c0de' re-judged"),
    ({"ok": False}, "correct is False in records.jsonl, True re-judged"),
    ({"plus": TierResult([{"verdict": "AC"}], True)}, "correct_plus is True in records.jsonl, None re-judged"),
    ({"follows": False}, "follows is False in records.jsonl, True re-judged"),
    ({"techniques": ["dp"]}, "techniques is ['dp'] in records.jsonl, [] re-judged"),
    ({"violated_constraints": ["dp"]}, "violated_constraints is ['dp'] in records.jsonl, [] re-judged"),
    ({"divergent": 0.75}, "divergent is 0.75 in records.jsonl, 0.5 re-judged"),
    ({"divergent": None}, "divergent is None in records.jsonl, 0.5 re-judged"),
    ({"error": "timeout"}, "excluded is True in records.jsonl, False re-judged")])
def test_a_judged_field_that_differs_is_refused_naming_it_and_both_values(edit, line):
    assert refusal([sample("p1", 1, 2, **edit)], [sample("p1", 1, 2)]) == f"problem p1 state 1 sample 2: {line}"


def test_fields_a_rate_does_not_read_may_differ():
    theirs = sample(reply="print(1)", timings={"judge_s": 2.0}, examples=TierResult([{"verdict": "TLE"}], False))
    assert compare([sample(reply="print(2)", examples=TierResult([{"verdict": "WA"}], False))], [theirs]) == 1


# recompute: the run's Sample records scored with its model and bootstrap settings

def test_metrics_are_recomputed_from_the_samples_with_the_runs_model_and_bootstrap(tmp_path):
    folder = run_folder(tmp_path / "run", sample("p1"), sample("p2", ok=False),
                        ProblemState("p1", 0, [], "a statement", []))  # a record of another kind: not a sample
    got = recompute(folder, "openai/gen", {}, METRICS)
    assert got["model"] == "openai/gen"
    assert {k: got["bootstrap"][k] for k in ("resamples", "seed", "unit")} == {"resamples": 20, "seed": 3,
                                                                               "unit": "problem"}
    t0 = got["states"]["0"]
    assert (t0["n"], t0["pass@1"], t0["constraint_following"], t0["convergent"], t0["divergent"],
            t0["neogauge"]) == (2, 0.5, 1.0, 0.5, 0.5, 0.25)  # 1 of 2 correct, both follow, Eq. 4: 0.5 x 0.5
    assert recompute(folder, "openai/gen", {}, {"bootstrap": {"resamples": 20, "seed": 4}})["bootstrap"]["seed"] == 4


def test_bootstrap_settings_out_of_bounds_are_refused(tmp_path):
    folder = run_folder(tmp_path / "run", sample())
    with pytest.raises(NeocoderError, match="bootstrap.seed is None, not an integer"):
        recompute(folder, "m", {}, {"bootstrap": {"resamples": 20}})


def test_a_missing_run_folder_is_refused_and_not_made(tmp_path):
    for call in (lambda f: recompute(f, "m", {}, METRICS), lambda f: rejudge(f, "m", {}, tmp_path / "scratch")):
        with pytest.raises(NeocoderError) as got:
            call(tmp_path / "missing")
        assert str(got.value) == f"{tmp_path / 'missing'}: no such run folder"
        assert not (tmp_path / "missing").exists()


# rejudge: the settings a replay cannot re-judge, refused before anything is judged

@pytest.mark.parametrize("config, line", [
    ({"strategy": "cot"}, "--strategy 'cot': only runs with strategy direct are re-judged from their records"),
    ({"language": "cpp"}, "--language 'cpp': only runs with language python are re-judged from their records"),
    ({"paper": ["all"]}, "--paper ['all']: only runs with paper none are re-judged from their records"),
    ({"strategy": "direct", "paper": ["checker"]},
     "--paper ['checker']: only runs with paper none are re-judged from their records")])
def test_a_run_a_replay_cannot_rejudge_is_refused_naming_the_setting(tmp_path, config, line):
    folder = run_folder(tmp_path / "run", sample())
    with pytest.raises(NeocoderError) as got:
        rejudge(folder, "m", config, tmp_path / "scratch")
    assert type(got.value) is NeocoderError and str(got.value) == line
    assert not (tmp_path / "scratch").exists()  # nothing judged


@pytest.mark.parametrize("config", [{}, {"strategy": "direct", "language": "python", "paper": []},
                                    {"strategy": None, "language": None, "paper": None}])
def test_a_run_of_the_settings_a_replay_rejudges_gets_past_them_to_its_records(tmp_path, config):
    folder = run_folder(tmp_path / "run", ProblemState("p1", 0, [], "a statement", []))
    with pytest.raises(RecordsDisagree) as got:
        rejudge(folder, "m", config, tmp_path / "scratch")
    assert str(got.value) == "records.jsonl holds no sample"
