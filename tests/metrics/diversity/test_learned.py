"""The learned diversity measure (issue 48): the traits a reader looks at, the pair
features, the classifier's arithmetic and checks, its training (byte for byte), the
default rule on held-out pairs, and the second reader's agreement."""

import json
import math

import numpy as np
import pytest
from checkout import CHECKOUT

from neocoder.dataset.shipped import recorded_codes
from neocoder.metrics.diversity import labelled, validity
from neocoder.metrics.diversity.classes import DEFAULT, LEARNED, Program, classes, validated
from neocoder.metrics.diversity.features import FEATURES, FLAGS, pair_features, traits
from neocoder.metrics.diversity.labelled import LabelledProblem, LabelledProgram
from neocoder.metrics.diversity.learned import Classifier, ClassifierError, shipped
from neocoder.metrics.diversity.train import file_sha256, train

PAIRS = CHECKOUT / "data" / "codeforces" / "algorithm_pairs"

SORT = "n = int(input())\na = list(map(int, input().split()))\na.sort()\nprint(a[-1])\n"
SCAN = "n = int(input())\na = list(map(int, input().split()))\nbest = a[0]\nfor x in a:\n    if x > best:\n" \
       "        best = x\nprint(best)\n"
SCAN_AGAIN = "input()\nxs = list(map(int, input().split()))\nm = -1\nfor v in xs:\n" \
             "    m = v if v > m else m\nprint(m)\n"
RECURSIVE = "def f(n):\n    return 1 if n < 2 else n * f(n - 1)\nprint(f(int(input())))\n"
BISECT = "import bisect\na = sorted(map(int, input().split()))\nprint(bisect.bisect_left(a, 5))\n"
HALVING = "n = int(input())\nlo, hi = 0, n\nwhile lo < hi:\n    mid = (lo + hi) // 2\n    if mid * mid < n:\n" \
          "        lo = mid + 1\n    else:\n        hi = mid\nprint(lo)\n"
FORMULA = "n = int(input())\nprint(n * (n + 1) // 2)\n"
SIMULATE = "n = int(input())\ns = 0\nfor i in range(1, n + 1):\n    s += i\nprint(s)\n"


def test_traits_see_what_a_reader_looks_at():
    assert "sorts" in traits(SORT).flags and "sorts" not in traits(SCAN).flags
    assert "recursion" in traits(RECURSIVE).flags and "recursion" not in traits(SCAN).flags
    assert "binary_search" in traits(BISECT).flags and "binary_search" in traits(HALVING).flags
    assert "binary_search" not in traits(SIMULATE).flags
    assert "closed_form" in traits(FORMULA).flags and "closed_form" not in traits(SIMULATE).flags
    assert traits(SIMULATE).depth == 1 and traits(FORMULA).depth == 0
    assert "counts" in traits(SIMULATE).flags


def test_pair_features_are_symmetric_and_zero_for_one_program():
    a, b = traits(SORT), traits(SCAN)
    assert pair_features(a, b).shape == (len(FEATURES),)
    assert np.array_equal(pair_features(a, b), pair_features(b, a))
    assert not pair_features(a, a).any()
    row = dict(zip(FEATURES, pair_features(traits(FORMULA), traits(SIMULATE))))
    assert row["differ:closed_form"] == 1.0 and row["differ:sorts"] == 0.0 and row["depth"] == 1.0
    assert row["loops"] == pytest.approx(math.log1p(1) - math.log1p(0))


def _hand_model(weights: dict, intercept: float = 0.0, threshold: float = 0.5) -> Classifier:
    w = [weights.get(f, 0.0) for f in FEATURES]
    return Classifier.from_dict({"features": list(FEATURES), "mean": [0.0] * len(FEATURES),
                                 "scale": [1.0] * len(FEATURES), "weights": w, "intercept": intercept,
                                 "threshold": threshold})


def test_probability_is_the_logistic_of_the_weighted_features():
    model = _hand_model({"differ:closed_form": -3.0, "depth": -1.0}, intercept=2.0)
    x = pair_features(traits(FORMULA), traits(SIMULATE))  # closed_form differs, depth differs by 1
    assert model.probability(x) == pytest.approx(1 / (1 + math.exp(-(2.0 - 3.0 - 1.0))))
    assert model.probability(pair_features(traits(SCAN), traits(SCAN_AGAIN))) == pytest.approx(
        1 / (1 + math.exp(-2.0)))
    # the formula is apart (p = sigmoid(-2)); every loop of depth 1 joins the first scan (p = sigmoid(2))
    assert not model.same(traits(FORMULA), traits(SIMULATE))
    assert model.classes([traits(SCAN), traits(FORMULA), traits(SCAN_AGAIN), traits(SIMULATE)]) == [0, 1, 0, 0]
    # at a threshold above sigmoid(2) nothing is the same: four classes
    strict = _hand_model({"differ:closed_form": -3.0, "depth": -1.0}, intercept=2.0, threshold=0.9)
    assert strict.classes([traits(SCAN), traits(FORMULA), traits(SCAN_AGAIN), traits(SIMULATE)]) == [0, 1, 2, 3]


def test_a_classifier_that_does_not_fit_is_refused_naming_why():
    good = json.loads((PAIRS / "classifier.json").read_text())
    with pytest.raises(ClassifierError, match="field 'weights' is missing"):
        Classifier.from_dict({k: v for k, v in good.items() if k != "weights"}, "c.json")
    with pytest.raises(ClassifierError, match="fitted on features .*retrain"):
        Classifier.from_dict({**good, "features": good["features"][:-1]}, "c.json")
    with pytest.raises(ClassifierError, match="one value per feature"):
        Classifier.from_dict({**good, "mean": good["mean"][:-1]}, "c.json")


def test_the_shipped_classifier_was_fitted_on_the_shipped_labels():
    got = json.loads((PAIRS / "classifier.json").read_text())
    assert got["fitted_on"]["labelled_set_sha256"] == file_sha256(PAIRS / "partitions.jsonl")
    assert got["fitted_on"]["half"] == labelled.TUNE
    assert shipped().features == FEATURES and 0 < shipped().threshold < 1


def test_training_reproduces_the_shipped_classifier_byte_for_byte(release_dir, tmp_path):
    pytest.importorskip("sklearn")
    from click.testing import CliRunner

    from neocoder.cli import main
    out = tmp_path / "classifier.json"
    result = CliRunner().invoke(main, ["diversity", "train", "--release", str(release_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (PAIRS / "classifier.json").read_bytes()


def test_training_never_reads_the_held_out_half(release_dir):
    pytest.importorskip("sklearn")
    problems = labelled.load(labelled.release_humans(release_dir), recorded_codes(labelled.GPT4))
    tune = [p for p in problems if p.half == labelled.TUNE]
    # relabel every held-out program into classes of its own: the fit must not move
    scrambled = [p if p.half == labelled.TUNE else LabelledProblem(
        p.problem, p.half, {str(i): "" for i in range(len(p.programs))},
        [LabelledProgram(x.problem, x.ident, x.code, str(i), x.reason) for i, x in enumerate(p.programs)])
        for p in problems]
    assert train(scrambled, "x")["weights"] == train(tune, "x")["weights"]


def test_runs_class_programs_by_the_learned_measure():
    programs = [Program(source=SCAN), Program(source=SCAN_AGAIN), Program(source=SCAN)]
    labels = classes(programs, LEARNED)
    assert labels[0] == labels[2]  # one program twice is one class
    assert len(labels) == 3


def _report(kappas: dict) -> dict:
    return {"measures": {m: {"held_out": {"kappa": {"value": v, "low": lo, "high": None}}}
                         for m, (v, lo) in kappas.items()}}


def test_the_default_is_decided_on_held_out_pairs_with_a_lower_bound():
    # the highest kappa whose interval starts at 0.4 or above wins, even over a higher one that does not
    got = validity.choose_default(_report({"operations": (0.7, 0.3), "learned": (0.62, 0.45),
                                           "technique": (0.5, 0.41), "execution": (0.9, 0.8)}), 0.4)
    assert got == ("learned", True)
    # none qualifies: the highest held-out kappa, marked unvalidated; execution needs the sandbox, never a default
    assert validity.choose_default(_report({"operations": (0.31, -0.06), "learned": (0.22, -0.02),
                                            "execution": (0.64, 0.5)}), 0.4) == ("operations", False)


def test_validated_follows_the_shipped_summary():
    assert validated({"default": DEFAULT, "validated": True})
    assert not validated({"default": DEFAULT, "validated": False})
    assert not validated({"default": "something-else", "validated": True})
    shipped_summary = json.loads((PAIRS / "validity.json").read_text())
    assert shipped_summary["default"] == DEFAULT
    assert validated() is bool(shipped_summary["validated"])


def _problem(labels: list[str], pid="1A") -> LabelledProblem:
    return LabelledProblem(pid, labelled.TUNE, {c: "" for c in labels},
                           [LabelledProgram(pid, f"human:{i}", "", c, "") for i, c in enumerate(labels)])


def test_inter_rater_kappa_is_worked_by_hand():
    # 4 programs, 6 pairs. Reader 1: AABB -> same pairs (0,1), (2,3). Reader 2: AAAB -> same (0,1), (0,2), (1,2).
    # Both same: (0,1); reader 1 only: (2,3); reader 2 only: (0,2), (1,2); both different: (0,3), (1,3).
    # p_o = 3/6; q1 = 2/6, q2 = 3/6; p_e = 2/6*3/6 + 4/6*3/6 = 1/2; kappa = 0 (Cohen 1960, Eq. 1)
    got = validity.inter_rater([_problem(list("AABB"))], [_problem(list("XXXY"))], resamples=10)
    assert got["agreement"]["value"] == pytest.approx(0.5)
    assert got["kappa"]["value"] == pytest.approx(0.0)
    assert got["pairs"] == 6 and got["programs"] == 4 and got["problems"] == 1
    # the same partition under other names is perfect agreement
    assert validity.inter_rater([_problem(list("AABB"))], [_problem(list("QQRR"))],
                                resamples=10)["kappa"]["value"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no problem in common"):
        validity.inter_rater([_problem(list("AB"))], [_problem(list("AB"), "2B")])


def test_the_second_reader_labelled_the_same_programs(release_dir):
    humans, gpt4 = labelled.release_humans(release_dir), recorded_codes(labelled.GPT4)
    first = {p.problem: p for p in labelled.load(humans, gpt4)}
    second = labelled.load(humans, gpt4, path=PAIRS / "second_reader.jsonl")
    assert len(second) >= 20
    for p in second:
        assert p.half == first[p.problem].half
        shared = {x.ident for x in p.programs} & {x.ident for x in first[p.problem].programs}
        assert len(shared) >= 0.8 * len(p.programs)  # both read the same layout; each may leave a few out
    assert validity.inter_rater(list(first.values()), second, resamples=200)["problems"] == len(second)


def test_flags_are_named_once():
    assert len(set(FLAGS)) == len(FLAGS) and all(f"differ:{f}" in FEATURES for f in FLAGS)
