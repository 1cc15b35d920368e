"""Semantic entropy (issue 17): the formulas on hand-checked cases, the three ways of
making classes, and the embedding variant on the real local embedder."""

import math

import numpy as np
import pytest

from neocoder.metrics.entropy import (
    GreedyClasses,
    bidirectional,
    class_probabilities,
    classes_by_behaviour,
    classes_by_equivalence,
    classes_by_similarity,
    discrete_entropy,
    length_normalised_logprob,
    rao_blackwell_entropy,
)


def test_discrete_entropy_all_alike_is_zero_and_n_distinct_is_log_n():
    assert discrete_entropy([7, 7, 7, 7, 7]) == 0.0
    assert not math.copysign(1, discrete_entropy(["a"])) < 0  # 0.0, not -0.0
    for n in (2, 3, 5, 10):
        assert discrete_entropy(range(n)) == pytest.approx(math.log(n))
    # two classes of 2 and 1 of 1 out of 5: counts (2, 2, 1)
    p = [0.4, 0.4, 0.2]
    assert discrete_entropy(["x", "x", "y", "y", "z"]) == pytest.approx(-sum(q * math.log(q) for q in p))
    assert discrete_entropy(["x", "x", "y", "y", "z"]) == pytest.approx(1.0549201679861442)


def test_discrete_entropy_refuses_what_has_no_entropy():
    with pytest.raises(ValueError, match="no outputs"):
        discrete_entropy([])
    with pytest.raises(ValueError, match=r"class_ids\[1\] is None"):
        discrete_entropy([0, None])
    with pytest.raises(TypeError, match=r"class_ids\[0\]"):
        discrete_entropy([[1, 2]])


def test_rao_blackwell_entropy_on_a_hand_checked_case():
    # classes (a, a, b) with sequence probabilities (0.5, 0.3, 0.2): p(a) = 0.8, p(b) = 0.2
    lps = [math.log(0.5), math.log(0.3), math.log(0.2)]
    probs = class_probabilities(["a", "a", "b"], lps)
    assert probs == pytest.approx({"a": 0.8, "b": 0.2})
    expected = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2))
    assert expected == pytest.approx(0.500402, abs=1e-6)  # by hand: 0.8 * 0.22314 + 0.2 * 1.60944
    assert rao_blackwell_entropy(["a", "a", "b"], lps) == pytest.approx(expected)
    # normalised over the sampled classes: probabilities that do not sum to 1 give the same
    # classes' shares (0.25, 0.15 | 0.1 -> 0.8 | 0.2), and so does any constant shift
    assert rao_blackwell_entropy(["a", "a", "b"], [math.log(0.25), math.log(0.15), math.log(0.1)]) == \
        pytest.approx(expected)
    assert rao_blackwell_entropy(["a", "a", "b"], [v - 1000 for v in lps]) == pytest.approx(expected)  # no underflow


def test_rao_blackwell_entropy_limits():
    assert rao_blackwell_entropy([0, 0, 0], [-0.1, -3.0, -9.0]) == 0.0  # one class
    assert rao_blackwell_entropy([0, 1, 2], [-1.2, -1.2, -1.2]) == pytest.approx(math.log(3))  # equal: discrete
    assert rao_blackwell_entropy([0, 1, 1, 2], [-2.0] * 4) == pytest.approx(discrete_entropy([0, 1, 1, 2]))
    # one likely output and two unlikely ones: far below log 3
    assert rao_blackwell_entropy([0, 1, 2], [-0.01, -8.0, -8.0]) < 0.01
    with pytest.raises(ValueError, match="2 values for 3 class ids"):
        rao_blackwell_entropy([0, 1, 2], [-1.0, -1.0])
    with pytest.raises(ValueError, match=r"logprobs\[1\]"):
        rao_blackwell_entropy([0, 1], [-1.0, float("nan")])


def test_length_normalised_logprob_is_the_mean_per_token():
    assert length_normalised_logprob([-1.0, -2.0, -3.0]) == pytest.approx(-2.0)
    # a long and a short answer with the same per-token probability score alike
    assert length_normalised_logprob([math.log(0.5)] * 40) == pytest.approx(length_normalised_logprob([math.log(0.5)]))
    with pytest.raises(ValueError, match="no tokens"):
        length_normalised_logprob([])
    with pytest.raises(ValueError, match=r"token_logprobs\[0\]"):
        length_normalised_logprob([0.5])


def test_classes_by_behaviour_groups_identical_outputs_and_verdicts():
    behaviours = [("3", "7", "AC"), ("3", "7", "AC"), ("3", "TLE", "AC"), ["3", "7", "AC"], ("RE", "RE", "RE")]
    assert classes_by_behaviour(behaviours) == [0, 0, 1, 0, 2]  # a list and a tuple of the same outputs are alike
    assert discrete_entropy(classes_by_behaviour(behaviours)) == pytest.approx(
        -(0.6 * math.log(0.6) + 2 * 0.2 * math.log(0.2)))
    assert classes_by_behaviour([("1",)] * 4) == [0, 0, 0, 0]
    with pytest.raises(ValueError, match=r"behaviours\[1\] has 1 tests, behaviours\[0\] has 2"):
        classes_by_behaviour([("1", "2"), ("1",)])
    with pytest.raises(ValueError, match="no programs"):
        classes_by_behaviour([])


def test_greedy_equivalence_compares_with_the_first_member_of_each_class():
    # "entails": a entails b when a's word set contains b's (so equality of sets is equivalence)
    asked = []

    def entails(a, b):
        asked.append((a, b))
        return set(b.split()) <= set(a.split())

    items = ["red car", "car red", "red", "blue car", "red car"]
    assert classes_by_equivalence(items, bidirectional(entails)) == [0, 0, 1, 2, 0]
    # "red" vs "red car": red car -> red holds, red -> red car does not: one direction is not enough
    assert ("red car", "red") in asked and ("red", "red car") in asked
    # the second direction is asked only when the first holds
    assert ("blue car", "red") not in asked
    assert classes_by_equivalence([], bidirectional(entails)) == []


def test_greedy_classes_resume_without_asking_again():
    classes = GreedyClasses(lambda a, b: a[0] == b[0])
    classes.restore("apple", 0)
    classes.restore("avocado", 0)
    classes.restore("banana", 1)
    assert classes.add("blueberry") == 1 and classes.add("cherry") == 2
    with pytest.raises(ValueError, match="class id 5"):
        classes.restore("x", 5)


def test_classes_by_similarity_on_hand_made_vectors():
    v = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 2.0], [0.6, 0.8], [-1.0, 0.0]])
    # cos with the first member [1, 0]: 0.96, 0, 0.6, -1; [0.6, 0.8] with [0, 1]: 0.8
    assert classes_by_similarity(v, 0.95) == [0, 0, 1, 2, 3]
    assert classes_by_similarity(v, 0.5) == [0, 0, 1, 0, 2]  # 0.6 >= 0.5 with the first class's member
    assert classes_by_similarity(v, -1.0) == [0, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="between -1 and 1"):
        classes_by_similarity(v, 1.5)
    with pytest.raises(ValueError, match="zero embedding"):
        classes_by_similarity(np.array([[1.0, 0.0], [0.0, 0.0]]), 0.9)
    with pytest.raises(ValueError, match=r"expected \(n, d\)"):
        classes_by_similarity(np.array([1.0, 0.0]), 0.9)


def test_classes_by_similarity_on_real_embeddings():
    from neocoder.models.embedders import get_embedder
    texts = ["Plant trees along streets to shade the pavement.",
             "Plant street trees so that the pavement is in shade.",
             "Open air-conditioned cooling centres in public libraries.",
             "Paint roofs white so they reflect sunlight."]
    vectors = get_embedder("local/all-MiniLM-L6-v2").embed(texts)
    classes = classes_by_similarity(vectors, 0.8)
    assert classes == [0, 0, 1, 2]  # the paraphrase joins the first class; the other ideas do not
    assert discrete_entropy(classes) == pytest.approx(-(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)))
    assert classes_by_similarity(vectors, 0.999) == [0, 1, 2, 3]
