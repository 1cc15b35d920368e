"""The diversity measures' and their validation's edges, worked by hand (issue 50): the
errors they raise and what those say, the defaults a validity.json was made with, the
boundary of the lower-bound rule, and the learned classifier's file.  Each test was
written against a mutant that no earlier test failed (scripts/mutation.sh diversity)."""

from __future__ import annotations

import json
import random

import pytest
from checkout import CHECKOUT
from loopback import FlakyServer

from neocoder.config import ModelConfig
from neocoder.metrics.diversity import labelled, validity
from neocoder.metrics.diversity.agreement import PairCounts, classes_ratio, score
from neocoder.metrics.diversity.judge_measure import Judge
from neocoder.metrics.diversity.labelled import LabelledProblem, LabelledProgram
from neocoder.metrics.diversity.learned import FEATURES, Classifier, ClassifierError, load
from neocoder.metrics.diversity.measures import expected_distinct, utility_k
from neocoder.models import get_model

PAIRS = CHECKOUT / "data" / "codeforces" / "algorithm_pairs"
SORTS = "a = sorted(map(int, input().split()))\nprint(a[0])\n"
SCANS = ("best = None\nfor x in map(int, input().split()):\n    if best is None or x < best:\n        best = x\n"
         "print(best)\n")


def _problem(labels: str, pid: str = "1A", codes: list[str] | None = None) -> LabelledProblem:
    codes = codes or [""] * len(labels)
    return LabelledProblem(pid, labelled.TUNE, {c: "" for c in labels},
                           [LabelledProgram(pid, f"human:{i}", code, c, "")
                            for i, (c, code) in enumerate(zip(labels, codes))])


def _report(kappas: dict) -> dict:
    return {"measures": {m: {"held_out": {"kappa": {"value": v, "low": lo, "high": None}}}
                         for m, (v, lo) in kappas.items()}}


def test_the_errors_say_what_was_wrong():
    with pytest.raises(ValueError, match=r"^utility_k needs k >= 1 classes and as many qualities \(got 2 and 1\)$"):
        utility_k([0, 1], [1.0])
    with pytest.raises(ValueError, match="^no measure a run can lead with was scored$"):
        validity.choose_default(_report({"execution": (0.9, 0.8)}))
    with pytest.raises(ValueError, match="^the two readers labelled no problem in common$"):
        validity.inter_rater([_problem("AB")], [_problem("AB", "2B")])


def test_the_lower_bound_rule_at_its_edge_and_by_default():
    # a lower bound of exactly 0.4 passes (>=), and 0.4 is the default
    assert validity.choose_default(_report({"operations": (0.5, 0.4), "learned": (0.6, 0.39)})) == ("operations", True)
    assert validity.choose_default(_report({"operations": (0.5, 0.45)})) == ("operations", True)
    # a measure whose kappa is undefined (no pair it could class) never wins, and never breaks the choice
    assert validity.choose_default(_report({"technique": (None, None), "learned": (-0.5, -0.9)})) == ("learned", False)
    assert validity.choose_default(_report({"learned": (-0.5, -0.9), "technique": (None, None)})) == ("learned", False)


def test_the_technique_measure_classes_by_the_detected_technique_set():
    classify = validity.classer(validity.TECHNIQUE)
    assert classify(_problem("AB", codes=[SORTS, SCANS])) == [0, 1]  # sorting against a loop
    assert classify(_problem("AA", codes=[SCANS, SCANS.replace("best", "low")])) == [0, 0]


def test_inter_rater_skips_problems_one_reader_left_and_counts_every_program():
    first = [_problem("AABB", "1A"), _problem("ABC", "2B")]
    second = [_problem("XY", "9Z"), _problem("XXYY", "1A"), _problem("XYY", "2B")]  # 9Z only the second read
    got = validity.inter_rater(first, second, resamples=50)
    assert got["problems"] == 2 and got["programs"] == 7 and got["pairs"] == 6 + 3
    # the defaults are the ones validity.json was made with: 2000 replicates, seed 0
    default = validity.inter_rater(first, second)
    assert default == validity.inter_rater(first, second, resamples=2000, seed=0)
    assert default["kappa"]["low"] is not None  # replicates were drawn


def test_agreement_intervals_are_reproducible_from_their_seed():
    per = {"p1": PairCounts(5, 1, 1, 5), "p2": PairCounts(3, 3, 0, 6), "p3": PairCounts(6, 0, 2, 4)}
    assert score(per, resamples=200, seed=3) == score(per, resamples=200, seed=3)
    first = [_problem("AABB", "1A"), _problem("ABCA", "2B"), _problem("AAB", "3C")]
    second = [_problem("XXYZ", "1A"), _problem("XYZX", "2B"), _problem("XYY", "3C")]
    assert validity.inter_rater(first, second, resamples=300, seed=5) == \
        validity.inter_rater(first, second, resamples=300, seed=5)


def test_expected_distinct_draws_are_seeded_and_default_to_200():
    labels = [0, 0, 1, 1, 2, 3, 3, 3]
    assert expected_distinct(labels, 3) == expected_distinct(labels, 3, draws=200, seed=0)
    assert expected_distinct(labels, 3, seed=7) == expected_distinct(labels, 3, seed=7)


def test_the_classifier_file_is_read_whole_or_refused_naming_it(tmp_path):
    good = json.loads((PAIRS / "classifier.json").read_text())
    path = tmp_path / "c.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    got = load(path)
    assert got.features == FEATURES and got.threshold == good["threshold"]
    assert got.weights.tolist() == good["weights"] and got.mean.dtype.kind == "f"

    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ClassifierError, match=rf"^{broken}: cannot read the classifier \("):
        load(broken)
    with pytest.raises(ClassifierError, match=rf"^{tmp_path / 'missing.json'}: cannot read the classifier"):
        load(tmp_path / "missing.json")
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({k: v for k, v in good.items() if k != "threshold"}))
    with pytest.raises(ClassifierError, match=rf"^{cut}: field 'threshold' is missing$"):
        load(cut)
    # weights that are not numbers are refused when the file is read, not at the first pair
    for field in ("mean", "scale", "weights"):
        with pytest.raises(ClassifierError, match=r"^classifier: not a classifier \("):
            Classifier.from_dict({**good, field: ["heavy"] * len(FEATURES)})


def test_classes_per_problem_compare_the_problems_both_have():
    got = classes_ratio({"a": 2, "b": 4, "c": 1}, {"a": 1, "b": 2, "d": 5})  # c and d: one side only
    assert got == {"measured": 3.0, "labelled": 1.5, "ratio": 2.0, "problems": 2}
    assert classes_ratio({"a": 2}, {"b": 1}) == {"measured": None, "labelled": None, "ratio": None, "problems": 0}
    assert classes_ratio({"a": 2}, {"a": 0})["ratio"] is None


def test_the_execution_measure_classes_fingerprinted_programs_and_sets_the_others_aside():
    """Six programs per problem: humans A, A, E, a deliberate human pick B, a GPT-4 program
    C, and a human D without a fingerprint.  D is left out of the pairs and of
    ``programs_classed``; classes by fingerprint are the labels exactly (kappa 1); the
    humans' classes per problem are counted over the fingerprinted random-sample humans
    only (A, A, E: 2 classes; not B, C or D)."""
    def problem(pid: str, half: str) -> LabelledProblem:
        rows = [("human:0", "A", False), ("human:1", "A", False), ("human:2", "E", False),
                ("human:3", "B", True), ("gpt4:0", "C", False), ("human:4", "D", False)]
        progs = [LabelledProgram(pid, ident, "", c, "", deliberate=d) for ident, c, d in rows]
        return LabelledProblem(pid, half, {c: "" for _, c, _ in rows}, progs)
    problems = [problem("1A", labelled.TUNE), problem("2B", labelled.HELD_OUT), problem("3C", labelled.HELD_OUT)]
    fingerprints = {(p.problem, x.ident): f"out-{x.label}" for p in problems for x in p.programs[:5]}
    classify = validity.classer(validity.EXECUTION, execution=fingerprints)
    assert classify(problems[0]) == [0, 0, 1, 2, 3, None]
    got = validity.validate(problems, measures=(validity.EXECUTION,), execution=fingerprints, resamples=50)
    held = got["measures"][validity.EXECUTION]["held_out"]
    assert held["programs_classed"] == 10 and held["pairs"] == 20  # 5 classed programs, 10 pairs, per problem
    assert held["kappa"]["value"] == pytest.approx(1.0)
    assert held["human_classes"] == {"measured": 2.0, "labelled": 2.0, "ratio": 1.0, "problems": 2}
    assert got["pairs"][labelled.HELD_OUT] == {"pairs": 30, "different": 28, "problems": 2, "programs": 12}


def test_a_measure_missing_what_it_needs_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"^the execution measure needs the programs' fingerprints \(--execution\)$"):
        validity.classer(validity.EXECUTION)
    with pytest.raises(ValueError, match=r"^the judge measure needs a model \(--model\)$"):
        validity.classer(validity.JUDGE)
    with pytest.raises(ValueError, match=r"^measure normalised needs a threshold \(tune_threshold\)$"):
        validity.classer(validity.NORMALISED)
    with pytest.raises(ValueError, match=r"^unknown measure 'size' \(one of technique, structure, .*, judge\)$"):
        validity.classer("size")
    with pytest.raises(ValueError, match="^no threshold to choose from$"):
        validity.tune_threshold([_problem("AB", codes=[SORTS, SCANS])], validity.STRUCTURE_TUNED, grid=())


def test_the_judge_measure_classes_the_first_limit_programs_of_a_problem_only(tmp_path):
    """A judge with ``limit`` 2 (a real Judge over a scripted loopback endpoint) is asked
    about the first two programs of the problem (its statement found by its id), once; the third is
    not classed (None), so it is left out of the pairs."""
    server = FlakyServer(fail_first=0)
    server.next_reply = lambda: "They differ. [[DIFFERENT]]"
    try:
        model = get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k", max_tokens=48))
        judge = Judge(model, {"1A": "Print the smallest number."}, cache=tmp_path / "calls.jsonl")
        judge.limit = 2
        got = validity.classer(validity.JUDGE, judge=judge)(_problem("ABA", codes=[SORTS, SCANS, SORTS]))
    finally:
        server.close()
    assert got == [0, 1, None]
    assert judge.calls == server.requests == 1


def test_the_threshold_tuned_is_the_smallest_of_equal_kappas_and_the_first_when_none_is_defined():
    copy = SORTS.replace("a =", "b =").replace("a[0]", "b[0]")  # the same program, renamed
    three = _problem("AAB", codes=[SORTS, copy, SCANS])
    gap = validity.profiles(three, validity.STRUCTURE_TUNED)
    assert gap[0].distance(gap[1]) == 0.0 and gap[0].distance(gap[2]) > 0.1
    # 0.02 and 0.05 both class the copies together and the scan apart: kappa 1, the smaller wins
    assert validity.tune_threshold([three], validity.STRUCTURE_TUNED, grid=(0.02, 0.05)) == (0.02, 1.0)
    # a threshold of 0 still joins programs at distance 0 (at most the threshold apart)
    assert validity.distance_partition(gap, 0.0) == [0, 0, 1]
    # one class by the labels and by every threshold: kappa is undefined, the grid's first is kept
    same = _problem("AA", codes=[SORTS, copy])
    assert validity.tune_threshold([same], validity.STRUCTURE_TUNED, grid=(0.3, 0.5)) == (0.3, None)


def test_the_normalised_measure_compares_normal_forms_and_structure_the_raw_programs():
    """Two programs that differ only in their input harness (a test-case loop against a
    ``solve`` function called once): one normal form, so the normalised profiles are at
    distance 0, while the raw programs' profiles are not; a sort and a scan differ by both."""
    loop = ("t=int(input())\nfor _ in range(t):\n    n=int(input())\n    a=list(map(int,input().split()))\n"
            "    print(max(a))\n")
    wrapped = ("def solve():\n    for _ in range(int(input())):\n        input()\n        a = [int(x) for x in input()"
               ".split()]\n        print(max(a))\n\nif __name__ == '__main__':\n    solve()\n")
    harness = _problem("AA", codes=[loop, wrapped])
    normal = validity.profiles(harness, validity.NORMALISED)
    raw = validity.profiles(harness, validity.STRUCTURE)
    assert normal[0].distance(normal[1]) == 0.0 < raw[0].distance(raw[1])
    different = validity.profiles(_problem("AB", codes=[SORTS, SCANS]), validity.STRUCTURE)
    assert different[0].distance(different[1]) > 0.0


def test_validate_reports_each_measure_at_the_setting_it_was_run_with(tmp_path):
    """Each measure's block says what it ran at: the fixed structure threshold, the shipped
    classifier's threshold for learned, the tuned threshold and its kappa for a tuned
    measure, nothing for an exact key; the judge (a real Judge over a scripted endpoint
    that calls everything different) is scored on the held-out half only.  The defaults are
    2000 replicates with seed 0, and the same call gives the same intervals."""
    from neocoder.metrics.diversity import structure
    from neocoder.metrics.diversity.learned import shipped
    copy = SORTS.replace("a =", "b =").replace("a[0]", "b[0]")
    # 3C is labelled against what the measures see (a scan with a sort): the held-out tables differ
    problems = [LabelledProblem(pid, half, {"A": "", "B": ""},
                                [LabelledProgram(pid, f"human:{i}", code, c, "")
                                 for i, (c, code) in enumerate(zip("AAB", codes))])
                for pid, half, codes in (("1A", labelled.TUNE, [SORTS, copy, SCANS]),
                                         ("2B", labelled.HELD_OUT, [SORTS, copy, SCANS]),
                                         ("3C", labelled.HELD_OUT, [SORTS, SCANS, copy]))]
    server = FlakyServer(fail_first=0)
    server.next_reply = lambda: "[[DIFFERENT]]"
    try:
        model = get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k", max_tokens=48))
        judge = Judge(model, {"2B": "Print the smallest.", "3C": "Print the least."}, cache=tmp_path / "c.jsonl")
        measures = (validity.TECHNIQUE, validity.STRUCTURE, validity.STRUCTURE_TUNED, validity.LEARNED,
                    validity.JUDGE)
        got = validity.validate(problems, measures=measures, judge=judge, resamples=200, seed=4)
    finally:
        server.close()
    block = got["measures"]
    assert block[validity.TECHNIQUE]["threshold"] is None and block[validity.TECHNIQUE]["tune_kappa"] is None
    assert block[validity.STRUCTURE]["threshold"] == structure.THRESHOLD
    assert block[validity.LEARNED]["threshold"] == shipped().threshold
    tuned = block[validity.STRUCTURE_TUNED]
    assert tuned["threshold"] == validity.THRESHOLDS[0] and tuned["tune_kappa"] == pytest.approx(1.0)
    assert tuned["tune"]["kappa"]["value"] == pytest.approx(1.0) and tuned["tune"]["problems"] == 1
    assert block[validity.JUDGE]["tune"] is None and server.requests == 2 * 3  # 3 pairs on each held-out problem
    assert block[validity.JUDGE]["held_out"]["kappa"]["value"] == pytest.approx(0.0)  # all different: chance
    assert got["pairs"][labelled.TUNE] == {"pairs": 3, "different": 2, "problems": 1, "programs": 3}
    again = validity.validate(problems, measures=(validity.STRUCTURE,), resamples=200, seed=4)
    assert again["measures"][validity.STRUCTURE] == block[validity.STRUCTURE]
    # the held-out statistics are agreement.score of the tables counted here, at the replicates and seed asked
    tables = {"2B": PairCounts(tp=1, fp=0, fn=0, tn=2), "3C": PairCounts(tp=0, fp=1, fn=1, tn=1)}
    held = block[validity.STRUCTURE]["held_out"]
    assert {k: held[k] for k in ("kappa", "agreement", "pairs", "same")} == \
        {k: score(tables, 200, 4)[k] for k in ("kappa", "agreement", "pairs", "same")}
    assert held["kappa"]["low"] < held["kappa"]["high"]
    default = validity.validate(problems, measures=(validity.STRUCTURE,))
    assert default == validity.validate(problems, measures=(validity.STRUCTURE,), resamples=2000, seed=0)
    with pytest.raises(ValueError, match="^the labelled set has no problem in its held-out half$"):
        validity.validate(problems[:1], measures=(validity.STRUCTURE,))


def test_kappa_and_its_rates_at_their_edges():
    assert PairCounts().stats() == {"agreement": None, "precision_same": None, "recall_same": None, "kappa": None}
    one = PairCounts(tp=1).stats()  # a single pair, both same: defined agreement, undefined kappa (p_e = 1)
    assert one["agreement"] == 1.0 and one["kappa"] is None
    got = PairCounts(tp=1, fp=1, fn=1, tn=1).stats()
    assert got["precision_same"] == 0.5 and got["recall_same"] == 0.5 and got["kappa"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="^3 labels against 2 predicted classes$"):
        from neocoder.metrics.diversity.agreement import counts
        counts(["A", "A", "B"], [0, 0])


def test_the_bootstrap_draws_every_problem_and_leaves_undefined_intervals_empty():
    """Two problems of kappa 1 and -0.2: a replicate may hold either twice, so the
    interval spans from one to the other's pooled value; with one problem there is no
    interval (None, not an empty string).  The defaults are 2000 replicates, seed 0."""
    per = {"a": PairCounts(5, 0, 0, 5), "b": PairCounts(2, 3, 3, 2)}
    got = score(per, resamples=400, seed=2)
    assert got["kappa"]["low"] == pytest.approx(PairCounts(2, 3, 3, 2).stats()["kappa"])
    assert got["kappa"]["high"] == pytest.approx(1.0)
    assert got["same"] == 5 + 0 + 2 + 3 and got["pairs"] == 20
    alone = score({"a": PairCounts(5, 0, 0, 5)}, resamples=50)
    assert alone["kappa"]["low"] is None and alone["kappa"]["high"] is None
    # forty problems of varied tables: replicates spread enough that 2001 draws, or another seed, move a bound
    many = {f"p{i}": PairCounts(1 + i % 5, i % 3, (i * 7) % 4, 2 + (i * 5) % 6) for i in range(40)}
    assert score(many) == score(many, resamples=2000, seed=0)
    assert score(many) != score(many, resamples=2001, seed=0)
    assert score(many) != score(many, resamples=2000, seed=1)
    draw = random.Random(7)  # forty problems of two readers who often disagree, drawn once
    first = [_problem("".join(draw.choice("ABC") for _ in range(8)), f"p{i}") for i in range(40)]
    second = [_problem("".join(draw.choice("XYZ") for _ in range(8)), f"p{i}") for i in range(40)]
    default = validity.inter_rater(first, second)
    assert default == validity.inter_rater(first, second, resamples=2000, seed=0)
    assert default != validity.inter_rater(first, second, resamples=2001, seed=0)
    assert default != validity.inter_rater(first, second, resamples=2000, seed=1)


def test_a_pair_exactly_at_the_threshold_is_the_same_algorithm():
    zero = Classifier.from_dict({"features": list(FEATURES), "mean": [0.0] * len(FEATURES),
                                 "scale": [1.0] * len(FEATURES), "weights": [0.0] * len(FEATURES),
                                 "intercept": 0.0, "threshold": 0.5})
    from neocoder.metrics.diversity.features import traits
    assert zero.probability(zero.mean) == 0.5 and zero.same(traits(SORTS), traits(SCANS))  # p(same) >= threshold


def test_validate_scores_each_half_at_the_replicates_and_seed_asked_and_by_default_2000_and_0():
    """Forty problems a half, labelled at random, and fingerprints that agree with the labels
    most of the time: the tables vary from problem to problem, so every bootstrap bound
    depends on the replicates and the seed.  Each half's statistics are agreement.score of
    the tables counted here from the labels and fingerprints."""
    from neocoder.metrics.diversity.agreement import counts
    draw = random.Random(11)
    problems, fingerprints = [], {}
    for i in range(80):
        labels = "".join(draw.choice("AB") for _ in range(5))
        half = labelled.TUNE if i % 2 else labelled.HELD_OUT
        problem = LabelledProblem(f"p{i}", half, {c: "" for c in labels},
                                  [LabelledProgram(f"p{i}", f"human:{j}", "", c, "") for j, c in enumerate(labels)])
        problems.append(problem)
        for x in problem.programs:
            fingerprints[(problem.problem, x.ident)] = x.label if draw.random() < 0.7 else draw.choice("XY")

    def tables(half):
        # a pair is "same" by the measure when the two fingerprints are equal
        return {p.problem: counts([x.label for x in p.programs],
                                  [fingerprints[(p.problem, x.ident)] for x in p.programs])
                for p in problems if p.half == half}
    got = validity.validate(problems, measures=(validity.EXECUTION,), execution=fingerprints, resamples=300, seed=4)
    block = got["measures"][validity.EXECUTION]
    for half, name in ((labelled.TUNE, "tune"), (labelled.HELD_OUT, "held_out")):
        expected = score(tables(half), 300, 4)
        assert {k: block[name][k] for k in expected} == expected
    default = validity.validate(problems, measures=(validity.EXECUTION,), execution=fingerprints)
    assert default == validity.validate(problems, measures=(validity.EXECUTION,), execution=fingerprints,
                                        resamples=2000, seed=0)
    assert default["measures"][validity.EXECUTION]["held_out"] == {
        **score(tables(labelled.HELD_OUT), 2000, 0), **{k: default["measures"][validity.EXECUTION]["held_out"][k]
                                                        for k in ("human_classes", "programs_classed")}}


def test_an_interval_needs_its_statistic_defined_in_more_than_half_the_replicates():
    """One problem whose pairs both call same and one whose pairs both call different:
    kappa is defined only in a replicate that drew each once (p_e = 1 otherwise), about
    half of them; with seed 4, exactly 50 of 100 replicates (worked out once by drawing
    numpy's generator the way score does).  Not more than half: no interval.  At level 0
    the interval is the median, a point."""
    per = {"a": PairCounts(tp=1), "b": PairCounts(tn=1)}
    got = score(per, resamples=100, seed=4)
    assert got["kappa"]["value"] == pytest.approx(1.0)
    assert got["kappa"]["low"] is None and got["kappa"]["high"] is None
    assert got["agreement"]["low"] == got["agreement"]["high"] == 1.0  # defined in every replicate
    many = {f"p{i}": PairCounts(1 + i % 5, i % 3, (i * 7) % 4, 2 + (i * 5) % 6) for i in range(40)}
    point = score(many, resamples=300, seed=1, level=0.0)["kappa"]
    assert point["low"] == point["high"]
