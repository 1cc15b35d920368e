"""Classes by execution (issue 25): growth inputs, the operation counter, the complexity fit,
fingerprints in the real Docker sandbox, and the fit against hand labels of human solutions.

HAND_LABELS were chosen and labelled by reading the code *before* any of them was fitted
(issue 25, "Done when"); every one is reported, the ones the fit gets wrong included.
``n`` is the size parameter of neocoder/diversity/growth.py: the array, string or row count
of the problem's grown test case, or the grown value where a problem has no size.  The
labels are the algorithm's complexity in n (input reading included: reading n tokens is
O(n)); sorting is O(n log n).  Inputs here are the unvalidated growth inputs (validating
them runs every problem's humans, minutes of sandbox time: scripts/human_fingerprints.py
does that); the fit is the one the fingerprints use.
"""

from __future__ import annotations

import math

import pytest

from neocoder.dataset.shipped import load_states
from neocoder.metrics.diversity import execution as ex
from neocoder.metrics.diversity.complexity import COMPLEXITY_CLASSES, FitError, fit_complexity
from neocoder.metrics.diversity.counter import MARKER, instrument, split_output
from neocoder.metrics.diversity.growth import DEFAULT_SIZES, growth_inputs, split_cases
from neocoder.records import ProblemState

# (problem id, index into the release's Python 3 solutions of the problem, label, why)
HAND_LABELS = [
    ("1789A", 0, "O(n^2)", "all pairs i < j of the array, a gcd each"),
    ("1788A", 14, "O(n^2)", "for each i recounts the 2s of a[:i]; stops near the middle on random rows, or never"),
    ("1733A", 7, "O(n)", "k (fixed, 3) strided slices cover the array once"),
    ("1760C", 19, "O(n log n)", "sorted(b), then one pass"),
    ("1899A", 0, "O(1)", "n % 3 on the grown value n"),
    ("1899A", 1, "O(1)", "n % 3 on the grown value n"),
    ("1891A", 0, "O(n)", "differences, one pass"),
    ("1891A", 1, "O(n)", "reads n tokens; the scan stops early on random rows, reading dominates"),
    ("1873D", 0, "O(n)", "greedy scan of the string, jumping k after a B"),
    ("1878A", 0, "O(n)", "reads the array, k in list"),
    ("1877A", 0, "O(n)", "reads the array, sum"),
    ("1867A", 0, "O(n log n)", "sorts (value, index) pairs, one pass"),
    ("1867A", 1, "O(n log n)", "list.sort of (value, index) pairs, one pass"),
    ("1882A", 0, "O(n)", "one pass"),
    ("1890A", 0, "O(n log n)", "sorted, set, two counts"),
    ("1890A", 1, "O(n)", "set and two counts"),
    ("1879A", 0, "O(n)", "one pass over n rows"),
    ("1901A", 1, "O(n)", "gaps, one pass"),
    ("1901A", 2, "O(n)", "max over a zip of the gaps"),
    ("1881A", 0, "O(n)", "substring search of s (length n) in x, doubled a fixed number of times"),
    ("1780A", 0, "O(n)", "one pass"),
    ("1778A", 8, "O(n)", "one pass, a sum"),
    ("1846A", 6, "O(n)", "one pass over n rows"),
    ("1829C", 2, "O(n)", "one pass over n rows"),
    ("1878B", 0, "O(n)", "builds n numbers in a loop"),
    ("1878B", 1, "O(n)", "builds n numbers in a while loop"),
    ("1886A", 0, "O(1)", "arithmetic on the grown value n"),
    ("1886A", 1, "O(1)", "arithmetic on the grown value n"),
]
MIN_AGREEMENT = 20
TEST_SIZES = tuple(2 ** k for k in range(3, 13))  # 8 .. 4096: the fingerprints' shape at a tenth of the time

SUM_LINEAR = """
t = int(input())
for _ in range(t):
    n = int(input())
    a = input().split()
    total = 0
    for x in a:
        total += int(x)
    print(-total)
"""
SUM_QUADRATIC = """
t = int(input())
for _ in range(t):
    n = int(input())
    a = input().split()
    total = 0
    for i in range(len(a)):
        part = 0
        for j in range(i + 1):
            part = int(a[j])
        total += part
    print(-total)
"""
RENAMED_LINEAR = """
cases = int(input())
for _ in range(cases):
    size = int(input())
    values = input().split()
    acc = 0
    for v in values:
        acc += int(v)
    print(-acc)
"""
SORTED_COPY = """
def solve():
    n = int(input())
    a = list(map(int, input().split()))
    b = sorted(a)
    print(b[0] + b[-1])
for _ in range(int(input())):
    solve()
"""
SORT_IN_PLACE = """
for _ in range(int(input())):
    input()
    values = [int(x) for x in input().split()]
    values.sort()
    print(values[0] + values[-1])
"""


@pytest.fixture(scope="module")
def states():
    return {s.problem_id: s for s in load_states() if s.state == 0}


@pytest.fixture(scope="module")
def humans(release_dir):
    return ex.human_python(release_dir, sorted({pid for pid, *_ in HAND_LABELS}))


def test_fit_recovers_synthetic_classes_and_prefers_the_simpler_on_ties():
    ns = list(DEFAULT_SIZES)
    curves = {"O(1)": lambda n: 40.0, "O(log n)": lambda n: 30 + 5 * math.log2(n), "O(n)": lambda n: 90 + 3 * n,
              "O(n log n)": lambda n: 90 + 2 * n * math.log2(n), "O(n^2)": lambda n: 50 + n * n,
              "O(n^3)": lambda n: 10 + n ** 3}
    for label, f in curves.items():
        assert fit_complexity(ns, [f(n) for n in ns]).label == label
    assert fit_complexity([8, 16, 32, 64], [2 ** n for n in (8, 16, 32, 64)]).label == "O(2^n)"
    # a constant curve with a tiny wobble is O(1) (flat), not O(log n)
    assert fit_complexity(ns, [100 + (n % 3) for n in ns]).label == "O(1)"
    assert set(fit_complexity(ns, [n for n in ns]).residuals) <= set(COMPLEXITY_CLASSES)
    with pytest.raises(FitError):
        fit_complexity([8, 16], [1, 2])
    with pytest.raises(FitError):
        fit_complexity([8, 16, 32], [1, 0, 2])


def test_growth_grows_sizes_and_values(states):
    array = growth_inputs(states["1891A"])  # t cases of "n" then n integers
    assert [g.n for g in array] == list(DEFAULT_SIZES)
    rows = array[3].input.split("\n")
    assert rows[0] == "1" and rows[1] == str(array[3].n) and len(rows[2].split()) == array[3].n
    value = growth_inputs(states["1899A"])  # the only size is the value n
    assert value[2].input == f"1\n{value[2].n}\n"
    grid = growth_inputs(states["1890B"])  # n m, then two strings of lengths n and m
    assert all(len(g.input) <= 1 << 20 for g in grid) and grid[-1].n < DEFAULT_SIZES[-1]
    has_t, cases = split_cases([["2"], ["2"], ["15", "1", "10", "5"], ["3"], ["10", "30", "20", "20", "30", "10"]])
    assert has_t and [len(c) for c in cases] == [2, 2]
    flat = ProblemState("X", 0, [], "", [{"input": "abc\n", "output": "x"}])
    words = growth_inputs(flat)  # no size and no integer: the string grows, from its own letters
    assert all(len(g.input) == g.n + 1 and set(g.input.strip()) <= set("abc") for g in words)
    assert growth_inputs(ProblemState("Y", 0, [], "", [{"input": "\n", "output": ""}])) == []


def test_split_output_takes_the_count_off():
    assert split_output(f"5\n\n{MARKER} 123\n") == ("5\n", 123, False)
    assert split_output(f"\n{MARKER} 999 capped\n") == ("", 999, True)
    assert split_output("no marker") == ("no marker", None, False)
    assert instrument("print(1)").endswith("\nprint(1)")


@pytest.fixture(scope="module")
def sums(sandbox, states):
    state = states["1877A"]
    inputs = growth_inputs(state, TEST_SIZES)
    limits = ex.limits_for(state)
    return {name: ex.measure(sandbox, src, inputs, limits, "auto", state.checker)
            for name, src in (("linear", SUM_LINEAR), ("quadratic", SUM_QUADRATIC), ("renamed", RENAMED_LINEAR))}


def test_linear_and_quadratic_solutions_fall_in_different_classes(sums):
    linear, quadratic = ex.from_runs(sums["linear"]), ex.from_runs(sums["quadratic"])
    assert linear.complexity == "O(n)" and linear.capped_at is None
    assert quadratic.complexity == "O(n^2)" and quadratic.capped_at is not None
    assert linear.key() != quadratic.key()
    # the quadratic one stopped at the cap: its larger sizes were never run
    assert any(r["status"] == "skipped" for r in sums["quadratic"])
    # both answer the same where both finished
    both = {r["n"]: r["out_sha"] for r in sums["quadratic"] if r["status"] == "ok"}
    assert all(r["out_sha"] == both[r["n"]] for r in sums["linear"] if r["n"] in both)


def test_a_renamed_copy_is_the_same_class_with_the_same_counts(sums):
    linear, renamed = ex.from_runs(sums["linear"]), ex.from_runs(sums["renamed"])
    assert renamed.key() == linear.key()
    assert [p[1] for p in renamed.points] == [p[1] for p in linear.points]  # deterministic operation counts


def test_two_sorts_are_one_execution_class(sandbox, states):
    state = states["1877A"]
    got = [ex.from_runs(ex.measure(sandbox, src, growth_inputs(state, TEST_SIZES), ex.limits_for(state), "auto",
                                   state.checker))
           for src in (SORTED_COPY, SORT_IN_PLACE)]
    assert got[0].key() == got[1].key()
    assert got[0].complexity == "O(n log n)"


def test_kept_sizes_drop_disagreeing_and_crashing_sizes():
    ok = {"status": "ok", "out_sha": "a"}
    runs = [[dict(ok, n=8), dict(ok, n=16), dict(ok, n=32), {"n": 64, "status": "capped"}],
            [dict(ok, n=8), dict(ok, n=16, out_sha="b"), {"n": 32, "status": "RE"}, dict(ok, n=64)],
            [dict(ok, n=8), dict(ok, n=16), {"n": 32, "status": "RE"}, dict(ok, n=64)]]
    kept, dropped = ex.kept_sizes("tokens", runs)
    assert kept == {8, 64}
    assert dropped[16] == "human outputs disagree" and dropped[32] == "1 clean human runs"


def test_fit_agrees_with_hand_labels(sandbox, states, humans):
    results = []
    for pid, index, label, why in HAND_LABELS:
        state = states[pid]
        runs = ex.measure(sandbox, humans[pid][index], growth_inputs(state, TEST_SIZES), ex.limits_for(state), "script",
                          state.checker)
        fp = ex.from_runs(runs)
        results.append((pid, index, label, fp.complexity if fp else None, why))
    agree = [r for r in results if r[2] == r[3]]
    report = "\n".join(f"{pid}[{i}] hand {lab} fit {got}: {why}" for pid, i, lab, got, why in results if lab != got)
    print(f"hand labels: {len(agree)} of {len(results)} agree\n{report}")
    assert len(agree) >= MIN_AGREEMENT, report


def test_a_special_checker_is_given_up_on_grown_inputs_it_cannot_judge_in_time(states):
    checker = states["1774A"].checker  # the reachable-sums check: quadratic in n
    assert ex.special_ok(checker, "+-", "1\n3\n011\n") is True
    assert ex.special_ok(checker, "++", "1\n3\n011\n") is False
    n = 30001
    assert ex.special_ok(checker, "+-" * (n // 2), f"1\n{n}\n" + "1" * n + "\n") is None
