"""Typed metrics computed once (neocoder/metric_types.py, metrics.score_samples/score_humans).

The golden folders in tests/metrics/data/metrics_golden/ hold records and the metrics.json the
code before this change wrote for them (the two-path computation: point estimates and
ratios apart): a subset of the README's GPT-4 replay run, a run with 5 samples per
problem (semantic entropies, pass@5, best-of-5, an all-excluded state), and the human
baselines of 20 release problems (`eval --model human --dataset release --limit 20`).
The new single path must give them byte for byte; the multi-sample one fails if the
point estimate sums per problem first.
"""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from neocoder.metrics.bootstrap import Ratio, bootstrap_info
from neocoder.metrics.rates import (
    MULTI_SAMPLE_RATES,
    all_states,
    sample_ratios,
    score_humans,
    score_samples,
    state_metrics,
)
from neocoder.metrics.types import StateMetrics, field_name, json_key
from neocoder.records import HumanBaseline, Sample, TierResult
from neocoder.store import RunFolder

GOLDEN = Path(__file__).parent / "data" / "metrics_golden"


def s(pid, state, correct, follows, divergent, excluded=False, plus=None, sample=0):
    verdict = "INFRA" if excluded else ("AC" if correct else "WA")
    return Sample(problem_id=pid, state=state, sample=sample, model="m", constraints=[], prompt_sha256="0" * 64,
                  examples=TierResult([{"verdict": verdict}], correct, infra=excluded), follows=follows,
                  divergent=divergent, tokens={"prompt": 10, "completion": 4},
                  plus=None if plus is None else TierResult([{"verdict": "AC" if plus else "WA"}], plus))


def _written(metrics: dict) -> str:
    return json.dumps(metrics, indent=2) + "\n"


@pytest.mark.parametrize("name", ["replay", "multi"])
def test_golden_runs_give_the_metrics_json_of_before_byte_for_byte(name):
    folder = GOLDEN / name
    expected = (folder / "metrics.json").read_text()
    boot = json.loads(expected)["bootstrap"]
    samples = RunFolder(folder, create=False).read(Sample)
    model = json.loads(expected)["model"]
    assert _written(score_samples(model, samples, boot["resamples"], boot["seed"]).to_dict()) == expected


def test_golden_human_baselines_byte_for_byte():
    folder = GOLDEN / "human"
    expected = (folder / "metrics.json").read_text()
    boot = json.loads(expected)["bootstrap"]
    rows = RunFolder(folder, create=False).read(HumanBaseline)
    assert _written(score_humans(rows, boot["resamples"], boot["seed"]).to_dict()) == expected


def test_the_golden_multi_sample_run_has_what_it_is_meant_to_cover():
    metrics = json.loads((GOLDEN / "multi" / "metrics.json").read_text())["states"]
    assert {"pass@5", "neogauge_best@5", "semantic_entropy", "semantic_entropy_rb", "technique_entropy",
            "entropy_divergent_r", "pass@1_plus"} <= set(metrics["0"])
    assert metrics["3"]["n"] == 0 and metrics["3"]["excluded"] == 2 and metrics["3"]["intervals"] == {}


def test_hand_computed_run_layout_values_and_intervals():
    # state 0: A correct+follows div 0.5 (extended tests passed); B correct, violates, div 1.0; C wrong, no human set
    samples = [s("A", 0, True, True, 0.5, plus=True), s("B", 0, True, False, 1.0), s("C", 0, False, True, None),
               s("C", 0, True, True, 0.0, excluded=True)]
    got = score_samples("m", samples, 200, 0, strategy="direct", calls={"hits": 0}, tests=["examples", "plus"],
                        dataset="d").to_dict()
    assert list(got) == ["model", "states", "bootstrap", "strategy", "calls", "tests", "dataset"]
    assert got["bootstrap"] == {"resamples": 200, "seed": 0, "unit": "problem", "level": 0.95, "method": "percentile"}
    m = got["states"]["0"]
    assert list(m) == ["n", "excluded", "pass@1", "n_extended", "pass@1_examples_tiered", "pass@1_plus",
                       "constraint_following", "convergent", "n_divergent", "divergent", "neogauge", "cost",
                       "cumulative_neogauge", "intervals"]
    assert (m["n"], m["excluded"], m["n_extended"], m["n_divergent"]) == (3, 1, 1, 2)
    assert m["pass@1"] == pytest.approx(2 / 3) and m["pass@1_examples_tiered"] == m["pass@1_plus"] == 1.0
    assert m["constraint_following"] == pytest.approx(2 / 3) and m["convergent"] == pytest.approx(1 / 3)
    assert m["divergent"] == 0.75 and m["neogauge"] == 0.25 == m["cumulative_neogauge"]  # (0.5 + 0) / 2
    assert m["cost"] == {"calls": 1.0, "prompt_tokens": 10.0, "completion_tokens": 4.0, "tokens": 14.0}
    # every rate but the examples-only tiered pass@1 has an interval, in the ratios' order
    assert list(m["intervals"]) == ["pass@1", "pass@1_plus", "constraint_following", "convergent", "divergent",
                                    "neogauge", "cumulative_neogauge"]
    assert all(ci["low"] <= m[rate] <= ci["high"] for rate, ci in m["intervals"].items())
    assert list(score_samples("m", samples).to_dict()) == ["model", "states", "bootstrap"]


def test_a_state_with_every_sample_excluded_keeps_its_short_layout():
    got = score_samples("m", [s("A", 0, True, True, 0.5), s("A", 1, True, True, 0.5, excluded=True)], 100, 0)
    m = got.to_dict()["states"]["1"]
    assert m == {"n": 0, "excluded": 1, "pass@1": None, "constraint_following": None, "convergent": None,
                 "divergent": None, "neogauge": None, "n_divergent": 0, "cumulative_neogauge": 0.5, "intervals": {}}
    assert list(m) == ["n", "excluded", "pass@1", "constraint_following", "convergent", "divergent", "neogauge",
                       "n_divergent", "cumulative_neogauge", "intervals"]


def test_human_baselines_hand_computed_layout():
    rows = [HumanBaseline("A", 0, 3, 1.0, 2 / 3, 2 / 3), HumanBaseline("B", 0, 2, 0.5, 0.0, 0.0),
            HumanBaseline("A", 1, 3, 1 / 3, 2 / 3, 1 / 3)]
    got = score_humans(rows, 100, 0).to_dict()
    assert list(got) == ["model", "states", "bootstrap"] and got["model"] == "human"
    m0, m1 = got["states"]["0"], got["states"]["1"]
    assert list(m0) == ["n", "excluded", "pass@1", "constraint_following", "convergent", "divergent", "neogauge",
                        "n_divergent", "cumulative_neogauge", "intervals"]
    assert (m0["n"], m0["excluded"], m0["pass@1"], m0["n_divergent"]) == (5, 0, None, 5)
    assert m0["constraint_following"] == m0["convergent"] == 0.75  # Eq. 5, mean over problems
    assert m0["divergent"] == pytest.approx(1 / 3) and m0["neogauge"] == pytest.approx(1 / 3)
    assert m1["cumulative_neogauge"] == pytest.approx(2 / 3)
    assert m0["intervals"]["constraint_following"] == m0["intervals"]["convergent"]  # one ratio, two names
    one = m1["intervals"]["divergent"]  # one problem at state 1: no spread
    assert one["low"] == one["high"] == pytest.approx(2 / 3) and one["se"] == pytest.approx(0.0, abs=1e-12)


def test_a_ratio_of_terms_is_the_plain_mean_over_samples_to_the_last_bit():
    """Summing per problem first changes the last bit; the point estimate must not."""
    a, b = [0.2, 2 / 3, 0.1], [0.1, 0.1, 0.1]
    ratio = Ratio.from_terms([("A", v, 1) for v in a] + [("B", v, 1) for v in b])
    assert ratio.num == {"A": sum(a), "B": sum(b)} and ratio.den == {"A": 3.0, "B": 3.0}
    assert ratio.value() == float(np.mean(a + b)) == 0.21111111111111114
    assert ratio.value(["A", "B"]) == 0.2111111111111111  # the per-problem sums, as the bootstrap sees them
    samples = [s("A", 0, True, True, v, sample=i) for i, v in enumerate(a)] + \
        [s("B", 0, True, True, v, sample=i) for i, v in enumerate(b)]
    assert state_metrics(samples)["divergent"] == 0.21111111111111114


def test_every_rate_is_one_ratio_value():
    samples = [s("A", 0, True, True, 0.5, plus=True), s("A", 0, False, True, 1.0, plus=False),
               s("B", 0, True, False, None), s("C", 0, True, True, 0.25)]
    m, ratios = all_states(samples)["0"], sample_ratios(samples)[0]
    for name, ratio in ratios.items():
        assert m[name] == ratio.value(), name


def test_multi_sample_rates_have_a_typed_field_each():
    names = {f.name for f in dataclasses.fields(StateMetrics)}
    assert {json_key(n) for n in names} >= set(MULTI_SAMPLE_RATES)
    assert all(field_name(rate) in names for rate in MULTI_SAMPLE_RATES)


def test_bootstrap_info_is_the_block_of_metrics_json():
    assert bootstrap_info(50, 3, "question") == {"resamples": 50, "seed": 3, "unit": "question", "level": 0.95,
                                                 "method": "percentile"}
