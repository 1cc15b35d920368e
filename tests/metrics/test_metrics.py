import math

import pytest

from neocoder.metrics.rates import all_states, divergent_ratio, pass_at_k, state_metrics
from neocoder.records import ProblemState, Sample, TierResult


def s(pid, state, correct, follows, divergent, excluded=False, plus=None):
    """A judged sample: ``excluded`` as an INFRA verdict on the examples; ``plus`` the
    extended tier's correctness (None: the state has no extended tests)."""
    verdict = "INFRA" if excluded else ("AC" if correct else "WA")
    return Sample(problem_id=pid, state=state, sample=0, model="m", constraints=[], prompt_sha256="0" * 64,
                  examples=TierResult([{"verdict": verdict}], correct, infra=excluded), follows=follows,
                  divergent=divergent,
                  plus=None if plus is None else TierResult([{"verdict": "AC" if plus else "WA"}], plus))


def test_pass_at_k_matches_the_closed_form():
    assert pass_at_k(1, 1, 1) == 1.0 and pass_at_k(1, 0, 1) == 0.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # 1 - C(3,2)/C(4,2)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def test_divergent_ratio_eq3():
    assert divergent_ratio({"for loop", "heap", "set"}, {"for loop"}) == pytest.approx(2 / 3)
    assert divergent_ratio(set(), {"for loop"}) == 0.0
    assert divergent_ratio({"for loop"}, set()) == 1.0


def test_hand_computed_example():
    # state 0: A correct+follows, div 0.5; B correct but violates, div 1.0; C wrong, div 0
    # state 1: A correct+follows, div 1.0; B correct+follows, no human set; C INFRA (excluded)
    samples = [s("A", 0, True, True, 0.5), s("B", 0, True, False, 1.0), s("C", 0, False, True, 0.0),
               s("A", 1, True, True, 1.0), s("B", 1, True, True, None), s("C", 1, False, True, 0.0, excluded=True)]
    m = all_states(samples)
    m0, m1 = m["0"], m["1"]
    assert m0["n"] == 3 and m0["excluded"] == 0
    assert m0["pass@1"] == pytest.approx(2 / 3)
    assert m0["constraint_following"] == pytest.approx(2 / 3)
    assert m0["convergent"] == pytest.approx(1 / 3)           # only A (Eq. 2)
    assert m0["divergent"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert m0["neogauge"] == pytest.approx((1 * 0.5 + 0 * 1.0 + 0 * 0.0) / 3)  # Eq. 4
    assert m1["n"] == 2 and m1["excluded"] == 1 and m1["n_divergent"] == 1
    assert m1["pass@1"] == 1.0 and m1["convergent"] == 1.0
    assert m1["divergent"] == 1.0 and m1["neogauge"] == 1.0
    assert m0["cumulative_neogauge"] == pytest.approx(1 / 6)
    assert m1["cumulative_neogauge"] == pytest.approx(1 / 6 + 1.0)


def test_pass_at_1_averages_over_problems_with_several_samples():
    samples = [s("A", 0, True, True, 0), s("A", 0, False, True, 0), s("B", 0, False, True, 0)]
    assert state_metrics(samples)["pass@1"] == pytest.approx((0.5 + 0.0) / 2)


def test_tiers_side_by_side_give_pass_at_1_plus():
    # A: right on both tiers; B: right on the examples only; C: no extended tests
    samples = [s("A", 0, True, True, 0, plus=True), s("B", 0, True, True, 0, plus=False), s("C", 0, True, True, 0)]
    m = state_metrics(samples)
    assert m["n_extended"] == 2 and m["pass@1"] == 1.0
    assert m["pass@1_examples_tiered"] == 1.0 and m["pass@1_plus"] == pytest.approx(0.5)
    assert samples[1].correct and samples[1].correct_plus is False and samples[2].correct_plus is None


def test_a_model_error_excludes_the_sample():
    failed = Sample(problem_id="A", state=0, sample=0, model="m", constraints=[], prompt_sha256="0" * 64,
                    error="boom")
    assert failed.excluded and not failed.finished
    assert state_metrics([failed, s("B", 0, True, True, 0)])["excluded"] == 1


def test_empty_state_has_no_rates():
    assert state_metrics([s("A", 0, True, True, 0, excluded=True)])["pass@1"] is None


def test_human_baselines_eq5_eq6_hand_computed():
    from neocoder.metrics.rates import human_rows, score_humans, unique_share
    sols = {"A": [{"for loop", "if statement"}, {"for loop", "heap"}, {"while loop"}]}
    states = [ProblemState("A", 0, [], "s", []), ProblemState("A", 1, ["for loop"], "s", [])]
    assert unique_share({"for loop", "heap"}, [{"for loop", "if statement"}, {"while loop"}]) == 0.5
    m = score_humans(human_rows(states, sols), 100, 0).to_dict()["states"]
    # Eq. 6: shares 1/2 (if), 1/2 (heap), 1/1 (while)
    assert m["0"]["divergent"] == pytest.approx((0.5 + 0.5 + 1.0) / 3)
    assert m["0"]["convergent"] == 1.0 and m["0"]["n"] == 3
    # Eq. 5 at state 1: only the while-loop solution avoids "for loop"
    assert m["1"]["convergent"] == pytest.approx(1 / 3)
    assert m["1"]["neogauge"] == pytest.approx(1.0 / 3)
    assert m["1"]["cumulative_neogauge"] == pytest.approx(m["0"]["neogauge"] + 1.0 / 3)
    assert m["0"]["pass@1"] is None


# ----------------------------------------------------------------- intervals (neocoder/bootstrap.py)

def test_bootstrap_se_of_a_bernoulli_rate_is_close_to_the_formula():
    """n independent problems, one sample each, a share p correct: the bootstrap standard
    error of pass@1 approaches sqrt(p (1 - p) / n), and the 95% interval holds p."""
    from neocoder.metrics.rates import score_samples
    n, p = 400, 0.3
    samples = [s(f"P{i}", 0, i < p * n, True, 0.5) for i in range(n)]
    states = score_samples("m", samples, resamples=4000, seed=1).to_dict()["states"]
    got = states["0"]["intervals"]["pass@1"]
    expected = (p * (1 - p) / n) ** 0.5
    assert abs(got["se"] - expected) / expected < 0.06
    assert got["low"] < p < got["high"] and abs((got["high"] - got["low"]) - 2 * 1.96 * expected) < 0.01


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    from neocoder.metrics.rates import score_samples
    samples = [s(f"P{i}", t, (i * 7 + t) % 3 == 0, i % 2 == 0, (i % 5) / 5) for i in range(60) for t in (0, 1)]
    first = score_samples("m", samples, 500, 0).to_dict()["states"]
    again = score_samples("m", samples, 500, 0).to_dict()["states"]
    other = score_samples("m", samples, 500, 1).to_dict()["states"]
    assert first == again and first["1"]["intervals"] != other["1"]["intervals"]
    assert set(first["1"]["intervals"]) == {"pass@1", "constraint_following", "convergent", "divergent", "neogauge",
                                            "cumulative_neogauge"}


def test_ratios_reproduce_the_point_estimates_exactly_enough():
    """The bootstrap's per-problem sums give the metrics' own values (several samples per
    problem, an excluded sample, a missing human set, an extended tier)."""
    from neocoder.metrics.rates import sample_ratios
    samples = [s("A", 0, True, True, 0.5, plus=True), s("A", 0, False, True, 1.0, plus=False),
               s("B", 0, True, False, None), s("C", 0, False, True, 0.2, excluded=True),
               s("C", 0, True, True, 0.25)]
    m, ratios = state_metrics(samples), sample_ratios(samples)[0]
    for name in ("pass@1", "constraint_following", "convergent", "divergent", "neogauge", "pass@1_plus"):
        assert ratios[name].value() == pytest.approx(m[name]), name


def test_paired_difference_of_a_run_with_itself_is_zero_and_shifts_are_found():
    from neocoder.metrics.bootstrap import paired_difference
    from neocoder.metrics.rates import sample_ratios
    a = [s(f"P{i}", 0, i % 2 == 0, True, 0.5) for i in range(100)]
    b = [s(f"P{i}", 0, i % 4 == 0, True, 0.5) for i in range(100)]  # right on half as many problems
    ra, rb = sample_ratios(a)[0]["pass@1"], sample_ratios(b)[0]["pass@1"]
    units = [f"P{i}" for i in range(100)]
    same = paired_difference([ra], [ra], units, 500, 0)
    assert same["diff"] == 0 and same["low"] == same["high"] == 0
    got = paired_difference([ra], [rb], units, 2000, 0)
    assert got["diff"] == pytest.approx(0.25) and got["low"] > 0.1 and got["units"] == 100


def multi(pid, outputs, correct, divergent, logprobs=None, techniques=None):
    """Samples of one problem at state 0, one per output hash (None: a TLE)."""
    got = []
    for i, out in enumerate(outputs):
        test = {"verdict": "TLE"} if out is None else {"verdict": "AC" if correct[i] else "WA", "stdout_sha256": out}
        got.append(Sample(problem_id=pid, state=0, sample=i, model="m", constraints=[], prompt_sha256="0" * 64,
                          examples=TierResult([test], correct[i]), follows=True, divergent=divergent[i],
                          techniques=list((techniques or {}).get(i, [])),
                          logprob=None if logprobs is None else logprobs[i]))
    return got


def test_multi_sample_metrics_hand_computed():
    import math

    from neocoder.metrics.rates import best_of_k, sample_ratios
    # A: 5 samples, 2 correct; behaviours x, x, y, y, TLE; products 0.5, 0, 0, 0, 0 (two correct: 0.5 and 0)
    a = multi("A", ["x", "x", "y", "y", None], [True, True, False, False, False], [0.5, 0.0, 1.0, 0.0, 0.0],
              logprobs=[-1.0, -1.0, -2.0, -2.0, -3.0], techniques={0: ["set"], 1: ["set"]})
    # B: 5 samples, all alike and wrong
    b = multi("B", ["z"] * 5, [False] * 5, [0.2] * 5, logprobs=[-1.0] * 5)
    # C: 5 samples, all different, all correct
    c = multi("C", ["p", "q", "r", "s", "t"], [True] * 5, [0.0, 0.25, 0.5, 0.75, 1.0], logprobs=[-1.0] * 5)
    m = state_metrics(a + b + c)
    assert m["pass@5"] == pytest.approx((1.0 + 0.0 + 1.0) / 3)  # n = k = 5: any correct sample passes
    se_a = -(0.4 * math.log(0.4) * 2 + 0.2 * math.log(0.2))
    assert m["semantic_entropy"] == pytest.approx((se_a + 0.0 + math.log(5)) / 3)
    # RB for A: class weights e^-1 * 2, e^-2 * 2, e^-3, normalised
    w = [2 * math.exp(-1), 2 * math.exp(-2), math.exp(-3)]
    p = [x / sum(w) for x in w]
    assert m["semantic_entropy_rb"] == pytest.approx((-sum(q * math.log(q) for q in p) + 0.0 + math.log(5)) / 3)
    # technique sets: A {set}, {set}, {}, {}, {} -> (2, 3); B and C all empty -> 0
    assert m["technique_entropy"] == pytest.approx(-(0.4 * math.log(0.4) + 0.6 * math.log(0.6)) / 3)
    # best-of-5 NeoGauge with n = 5 is the max product: A 0.5, B 0, C 1.0
    assert m["neogauge_best@5"] == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert best_of_k([0.5, 0, 0, 0, 0], 5) == 0.5
    # Pearson r between (se_a, 0, ln 5) and mean divergent (0.3, 0.2, 0.5)
    import numpy as np
    assert m["entropy_divergent_r"] == pytest.approx(np.corrcoef([se_a, 0.0, math.log(5)], [0.3, 0.2, 0.5])[0, 1])
    ratios = sample_ratios(a + b + c)[0]
    for name in ("pass@5", "neogauge_best@5", "semantic_entropy", "semantic_entropy_rb", "technique_entropy"):
        assert ratios[name].value() == pytest.approx(m[name]), name


def test_one_sample_per_problem_has_no_multi_sample_rates():
    m = state_metrics([s("A", 0, True, True, 0.5), s("B", 0, False, True, 0.0)])
    assert not {"pass@5", "neogauge_best@5", "semantic_entropy", "technique_entropy"} & set(m)


def test_a_compile_error_is_one_behaviour_over_all_tests():
    from neocoder.metrics.rates import behaviour
    a = multi("A", ["x", "y"], [True, False], [0.0, 0.0])
    broken = Sample(problem_id="A", state=0, sample=2, model="m", constraints=[], prompt_sha256="0" * 64,
                    compile_error="SyntaxError", examples=TierResult([{"verdict": "RE"}], False), follows=True,
                    divergent=0.0)
    assert behaviour(broken) == ("compile error",)
    m = state_metrics(a + [broken])
    assert m["semantic_entropy"] == pytest.approx(math.log(3))
