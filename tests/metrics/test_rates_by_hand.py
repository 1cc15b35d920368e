"""The rates' edges worked by hand (issue 50): the boundaries where a multi-sample rate
starts to exist, the estimators' normalisation, what a behaviour is made of, the spend of
a sample that reports no cost, Eq. 6 with a problem that has no human solution, and the
correlation's refusal on a constant.  Each test was written against a mutant of
neocoder/metrics/rates.py that no earlier test failed (scripts/mutation.sh metrics)."""

from math import comb

import numpy as np
import pytest

from neocoder.metrics.rates import (
    behaviour,
    best_of_k,
    cost_per_sample,
    entropy_divergent_r,
    human_ratios,
    human_rows,
    pass_at_k,
    problem_values,
    score_humans,
    score_samples,
    score_state,
    state_ratios,
    unique_share,
)
from neocoder.records import ProblemState, Sample, TierResult


def sample(pid: str, index: int, correct: bool, divergent: float | None = 0.5, *, outputs=("a",), plus=None,
           techniques=(), state: int = 0, **extra) -> Sample:
    """A judged sample whose example tests printed ``outputs`` (one per test; each its
    stdout hash); ``plus`` the extended tier's outputs (None: no extended tests)."""
    verdict = "AC" if correct else "WA"
    tier = lambda outs: TierResult([{"verdict": verdict, "stdout_sha256": o} for o in outs], correct)  # noqa: E731
    return Sample(problem_id=pid, state=state, sample=index, model="m", constraints=[], prompt_sha256="0" * 64,
                  examples=tier(outputs), plus=None if plus is None else tier(plus), follows=True,
                  divergent=divergent, techniques=list(techniques), **extra)


def test_the_estimators_refuse_a_k_outside_one_to_n_and_say_what_they_got():
    with pytest.raises(ValueError, match=r"n=2 c=3 k=1"):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError, match=r"best-of-k needs 1 <= k <= n, got n=2 k=3"):
        best_of_k([0.1, 0.2], 3)
    with pytest.raises(ValueError, match=r"got n=2 k=0"):
        best_of_k([0.1, 0.2], 0)


def test_best_of_k_is_the_expected_maximum_over_k_subsets():
    # k = 1: the mean (the lower bound of its range is allowed)
    assert best_of_k([0.2, 0.6], 1) == pytest.approx(0.4)
    # n = 3, k = 2: subsets {0, 1} -> 1, {0, .5} -> .5, {1, .5} -> 1: mean 2.5 / 3
    assert best_of_k([0.0, 1.0, 0.5], 2) == pytest.approx(2.5 / 3)
    # n = 4, k = 2 by enumeration, where C(n, k) = 6 is not 1
    values = [0.1, 0.4, 0.3, 0.9]
    pairs = [max(a, b) for i, a in enumerate(values) for b in values[i + 1:]]
    assert len(pairs) == comb(4, 2) and best_of_k(values, 2) == pytest.approx(sum(pairs) / 6)


def test_two_samples_are_enough_for_best_of_k_and_the_entropies():
    """A problem with exactly 2 samples has best-of-k NeoGauge (k = 2) and semantic and
    technique entropy; one sample has none of them."""
    two = [sample("A", 0, True, 1.0, outputs=("x",), techniques=("sorting",)),
           sample("A", 1, True, 0.0, outputs=("y",), techniques=("hash map",))]
    got = problem_values(two)["A"]
    assert got["neogauge_best@5"] == pytest.approx(1.0)  # max of (1 * 1.0, 1 * 0.0)
    assert got["semantic_entropy"] == pytest.approx(np.log(2))  # two behaviour classes of one sample each
    assert got["technique_entropy"] == pytest.approx(np.log(2))
    assert problem_values(two[:1])["A"] == {}


def test_a_behaviour_is_every_example_then_every_extended_test():
    both = sample("A", 0, True, outputs=("e1", "e2"), plus=("p1",))
    assert behaviour(both) == ("e1", "e2", "p1")
    no_examples = Sample(problem_id="A", state=0, sample=0, model="m", constraints=[], prompt_sha256="0" * 64,
                         plus=TierResult([{"verdict": "TLE"}], False))
    assert behaviour(no_examples) == ("TLE",)
    failed = sample("A", 0, False, outputs=("e1", "e2"), plus=("p1",), compile_error="SyntaxError")
    assert behaviour(failed) == ("compile error",) * 3


def test_the_spend_of_samples_that_report_no_cost_is_their_tokens_and_one_call():
    bare = sample("A", 0, True, tokens={})  # an endpoint that reports no usage
    counted = sample("A", 1, True, tokens={"prompt": 30, "completion": 10})
    assert cost_per_sample([bare]) == {"calls": 1.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "tokens": 0.0}
    assert cost_per_sample([bare, counted]) == {"calls": 1.0, "prompt_tokens": 15.0, "completion_tokens": 5.0,
                                                "tokens": 20.0}
    thinking = sample("A", 2, True, cost={"calls": 2, "prompt_tokens": 40, "completion_tokens": 100,
                                          "reasoning_tokens": 60})
    spent = cost_per_sample([counted, thinking])
    assert spent["reasoning_tokens"] == pytest.approx(30.0)  # (0 + 60) / 2
    assert spent["calls"] == pytest.approx(1.5) and spent["completion_tokens"] == pytest.approx(55.0)


def test_human_rows_skip_a_problem_without_solutions_and_go_on():
    """Eq. 5 and 6 by hand: problem B's three solutions {a, b}, {b}, {c} under the
    constraint {c}: follows 2/3; unique shares 1/2, 0, 1 (mean 1/2); NeoGauge the mean
    of follows x unique share = (1/2 + 0 + 0) / 3."""
    states = [ProblemState(problem_id="A", state=0, constraints=[], statement="", tests=[]),
              ProblemState(problem_id="B", state=1, constraints=["c"], statement="", tests=[])]
    rows = human_rows(states, {"A": [], "B": [{"a", "b"}, {"b"}, {"c"}]})
    assert [(r.problem_id, r.state, r.solutions) for r in rows] == [("B", 1, 3)]
    (row,) = rows
    assert row.follows == pytest.approx(2 / 3)
    assert row.divergent == pytest.approx(0.5)
    assert row.neogauge == pytest.approx(0.5 / 3)
    assert isinstance(row.follows, float) and isinstance(row.neogauge, float)
    metrics = score_humans(rows, resamples=20).to_dict()
    assert metrics["bootstrap"]["unit"] == "problem" and metrics["states"]["1"]["neogauge"] == pytest.approx(0.5 / 3)


def test_state_ratios_use_the_values_given_and_compute_them_when_not():
    kept = [sample("A", 0, True), sample("A", 1, False)]
    computed = state_ratios(kept)
    assert computed["pass@1"].value() == pytest.approx(0.5)
    assert computed["semantic_entropy"].value() == pytest.approx(0.0)  # both printed "a"
    given = state_ratios(kept, {"A": {"semantic_entropy": 0.25}})
    assert given["semantic_entropy"].value() == pytest.approx(0.25) and "technique_entropy" not in given


def test_entropy_divergent_r_is_none_when_either_side_is_constant():
    """Pearson's r needs both the entropies and the mean divergences to vary: three
    problems whose divergence is constant, then three whose entropy is."""
    kept = [sample(p, 0, True, d) for p, d in (("A", 0.1), ("B", 0.5), ("C", 0.9))]
    values = {"A": {"semantic_entropy": 0.0}, "B": {"semantic_entropy": 0.3}, "C": {"semantic_entropy": 0.9}}
    r = entropy_divergent_r(kept, values)
    assert r == pytest.approx(float(np.corrcoef([0.0, 0.3, 0.9], [0.1, 0.5, 0.9])[0, 1]))
    flat_divergence = [sample(p, 0, True, 0.5) for p in "ABC"]
    assert entropy_divergent_r(flat_divergence, values) is None
    flat_entropy = {p: {"semantic_entropy": 0.7} for p in "ABC"}  # their float std() is 1e-16, not 0
    assert entropy_divergent_r(kept, flat_entropy) is None


def test_a_state_whose_every_sample_was_excluded_has_n_zero():
    infra = Sample(problem_id="A", state=0, sample=0, model="m", constraints=[], prompt_sha256="0" * 64,
                   examples=TierResult([{"verdict": "INFRA"}], False, infra=True))
    metrics, ratios = score_state([infra])
    assert metrics.n == 0 and metrics.excluded == 1 and ratios == {}
    assert score_samples("m", [sample("A", 0, True)], resamples=20).to_dict()["bootstrap"]["unit"] == "problem"


def test_a_human_solution_with_no_technique_is_no_share_of_anything():
    """Eq. 6's 0 for an empty T(s): a solution whose techniques the detector found none of
    adds nothing new, and it pulls the problem's mean down."""
    assert unique_share(set(), [{"a"}]) == 0.0 and unique_share(set(), []) == 0.0
    state = ProblemState(problem_id="A", state=0, constraints=[], statement="", tests=[])
    (row,) = human_rows([state], {"A": [set(), {"a"}]})
    assert row.divergent == pytest.approx(0.5)  # (0 + 1) / 2
    ratios = human_ratios([row])
    assert ratios[0]["divergent"].value() == pytest.approx(0.5) and ratios[0]["convergent"].value() == 1.0


def test_metrics_name_the_language_only_when_it_is_not_python():
    samples = [sample("A", 0, True)]
    assert score_samples("m", samples, resamples=20, language="cpp").to_dict()["language"] == "cpp"
    for python in ("python", None):
        assert "language" not in score_samples("m", samples, resamples=20, language=python).to_dict()
