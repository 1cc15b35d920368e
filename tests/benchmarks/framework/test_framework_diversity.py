"""The framework's diversity baselines (neocoder/benchmarks/framework/diversity.py) on values
worked by hand: BLEU with its +1 smoothing and brevity penalty, self-BLEU of two texts of
different lengths, distinct-n, average cosine, Spearman's rho from ranks, and
``entropy_vs_diversity`` (``neocoder framework diversity RUN``) on a run folder written here,
through the Python call and through the command with a loopback embeddings endpoint."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from loopback import Loopback, Quiet, send

from neocoder.benchmarks.framework.diversity import (
    average_cosine,
    bleu,
    distinct_n,
    entropy_vs_diversity,
    self_bleu,
    spearman_interval,
)
from neocoder.benchmarks.framework.records import FrameworkStep
from neocoder.cli import main
from neocoder.models.embedders import Embedder
from neocoder.store import RunFolder

VOCAB = ("rope", "fire", "water", "ladder")


def bag(text: str) -> list[float]:
    return [float(w in text.lower().split()) for w in VOCAB]


class BagEmbedder(Embedder):
    name = "bag"

    def _embed(self, texts):
        return [bag(t) for t in texts]


def test_self_bleu_of_a_short_and_a_long_text_by_hand():
    # "the cat sat" against "the cat sat on the mat": precisions 3/3, (2+1)/(2+1), (1+1)/(1+1),
    # (0+1)/(0+1+1); brevity penalty exp(1 - 6/3).  The long one against the short: 3/6, (2+1)/(5+1),
    # (1+1)/(4+1), (0+1)/(3+1); no penalty (6 > 3).
    short = math.exp(1 - 6 / 3) * (1 * 1 * 1 * 0.5) ** 0.25
    long = (0.5 * 0.5 * 0.4 * 0.25) ** 0.25
    assert bleu("the cat sat".split(), ["the cat sat on the mat".split()]) == pytest.approx(short)
    assert bleu("the cat sat on the mat".split(), ["the cat sat".split()]) == pytest.approx(long)
    assert self_bleu(["the cat sat", "the cat sat on the mat"]) == pytest.approx((short + long) / 2)
    assert self_bleu(["The Cat sat", "the cat SAT on the mat"]) == pytest.approx(0.3535, abs=1e-4)  # lower-cased


def test_bleu_edges_and_the_closest_reference_length():
    assert bleu([], [["a"]]) == 0.0 and bleu(["a"], []) == 0.0
    assert bleu(["a", "b"], [["c", "d"]]) == 0.0  # no unigram in common
    # two references: the closest length (2, not 5) sets the penalty: none for a candidate of 2
    two = (1 * 1 * 0.5 * 0.5) ** 0.25  # bigrams (1+1)/(1+1); no 3- or 4-gram: (0+1)/(1+1) each
    assert bleu(["a", "b"], [["a", "b"], ["a", "b", "c", "d", "e"]]) == pytest.approx(two)
    # a reference at the same distance on both sides: the shorter one is taken (min of (distance, length))
    # (the longer one would give a penalty exp(1 - 4/3)); precisions 3/3, 3/3, 2/2, 1/2
    assert bleu(["a", "b", "c"], [["a", "b"], ["a", "b", "c", "d"]]) == pytest.approx(0.5 ** 0.25)
    assert bleu(["a", "b"], [["a", "b", "c", "d"]], max_n=2) == pytest.approx(math.exp(1 - 4 / 2))
    assert self_bleu(["only one"]) is None


def test_distinct_n_and_average_cosine_by_hand():
    assert distinct_n(["a b a", "a c"], 1) == pytest.approx(3 / 5)
    assert distinct_n(["A b", "a B"], 2) == pytest.approx(1 / 2)  # "a b" twice, lower-cased
    assert distinct_n(["a", "b"], 2) is None  # no bigram at all
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    assert average_cosine(v) == pytest.approx(2 / 6)
    assert average_cosine(np.array([[1.0, 0.0]])) is None


def test_spearman_from_ranks_with_its_interval():
    # ranks of y: 2 1 4 3 5, d = -1 1 -1 1 0: rho = 1 - 6 * 4 / (5 * 24) = 0.8
    out = spearman_interval([1, 2, 3, 4, 5], [20, 10, 40, 30, 50], 300, 0)
    assert out["rho"] == pytest.approx(0.8) and out["n"] == 5
    assert -1.0 <= out["low"] < 0.8 < out["high"] <= 1.0
    exact = spearman_interval([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], 300, 0)
    assert exact["rho"] == pytest.approx(-1.0) and exact["low"] == pytest.approx(-1.0)
    assert exact["high"] == pytest.approx(-1.0)
    assert spearman_interval([1, 2, None, 4], [1, 2, 3, None], 100, 0) == {"rho": None, "n": 2}
    flat = spearman_interval([1, 1, 1, 1], [1, 2, 3, 4], 100, 0)
    assert flat["rho"] is None and "constant" in flat["note"]


def step(pid, n, candidates, entropy, stops=None, unreadable=None):
    return FrameworkStep(domain="hypogen", problem_id=pid, step=n, candidates=candidates,
                         stops=stops or [False] * len(candidates), logprobs=[-1.0] * len(candidates),
                         classes=list(range(len(candidates))), entropy=entropy, estimator="discrete", chosen=0,
                         stopped=False, entailment="test", unreadable=unreadable or [])


@pytest.fixture
def run(tmp_path):
    folder = RunFolder(tmp_path / "run")
    for record in [
        step("p1", 1, ["rope", "rope"], 0.1),                         # cos 1, distinct-1 1/2
        step("p2", 1, ["rope fire", "rope"], 0.5),                    # cos 1/sqrt 2, distinct-1 2/3
        step("p3", 1, ["rope", "fire", "water"], 0.9),                # cos 0, distinct-1 1
        # STOP and an unreadable candidate are left out: "rope water fire" and "rope" remain
        step("p3", 2, ["rope water fire", "STOP", "garbage", "rope"], 0.7, stops=[False, True, False, False],
             unreadable=[None, None, "empty", None]),                 # cos 1/sqrt 3, distinct-1 3/4
        step("p4", 1, ["rope", "fire"], None),                        # no entropy: left out
        step("p4", 2, ["rope", "STOP"], 0.3, stops=[False, True]),    # one live candidate: left out
    ]:
        folder.append(record)
    return tmp_path / "run"


def check(out):
    per_step, per_problem = out["per_step"], out["per_problem"]
    assert per_step["n"] == 4 and per_problem["n"] == 3
    means = per_step["means"]
    assert means["entropy"] == pytest.approx((0.1 + 0.5 + 0.9 + 0.7) / 4)
    assert means["average_cosine"] == pytest.approx((1 + 2 ** -0.5 + 0 + 3 ** -0.5) / 4, abs=1e-6)
    assert means["distinct_1"] == pytest.approx((1 / 2 + 2 / 3 + 1 + 3 / 4) / 4)
    assert means["distinct_2"] == pytest.approx(1.0)  # only the two steps with a bigram
    # entropy ranks 1 2 4 3; cosine ranks 4 3 1 2; distinct-1 ranks 1 2 4 3
    assert per_step["spearman"]["average_cosine"]["rho"] == pytest.approx(-1.0)
    assert per_step["spearman"]["distinct_1"]["rho"] == pytest.approx(1.0)
    assert per_step["spearman"]["distinct_1"]["low"] == pytest.approx(1.0)
    assert per_step["spearman"]["distinct_2"] == {"rho": None, "n": 2}
    # per problem: p3's two steps averaged (entropy 0.8, cosine (0 + 1/sqrt 3) / 2)
    assert per_problem["means"]["entropy"] == pytest.approx((0.1 + 0.5 + 0.8) / 3)
    assert per_problem["means"]["average_cosine"] == pytest.approx((1 + 2 ** -0.5 + 3 ** -0.5 / 2) / 3, abs=1e-6)
    assert per_problem["spearman"]["average_cosine"]["rho"] == pytest.approx(-1.0)
    assert per_problem["spearman"]["self_bleu"]["n"] == 3


def test_entropy_vs_diversity_on_a_run_folder(run):
    check(entropy_vs_diversity(run, BagEmbedder(), resamples=200, seed=0))


class BagEndpoint(Loopback):
    """An OpenAI-style embeddings endpoint on loopback answering ``bag`` vectors."""

    def __init__(self):
        self.texts = []
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                outer.texts.extend(texts)
                send(self, 200, json.dumps({"object": "list", "model": body.get("model"), "data": [
                    {"object": "embedding", "index": i, "embedding": bag(t)} for i, t in enumerate(texts)],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode())

        self.serve(Handler)


def test_the_diversity_command_prints_the_same_numbers(run):
    server = BagEndpoint()
    try:
        done = CliRunner().invoke(main, ["framework", "diversity", str(run), "--embedder", "openai/bag"],
                                  env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k"})
    finally:
        server.close()
    assert done.exit_code == 0, done.output
    check(json.loads(done.output))
    assert "garbage" not in server.texts and "STOP" not in server.texts  # left out before embedding
