"""Novelty scoring cost: embedding calls and time for n answers, ours against the
original's way, in one run.

- ours: each answer is embedded once (n texts) and its novelty is one matrix-vector
  product against the stored embeddings of the earlier answers;
- baseline (the original AidanBench): at step i, every earlier answer is embedded again
  with the new one (1 + 2 + ... + n = n(n+1)/2 texts).

Both use the real local embedder (all-MiniLM-L6-v2 on the CPU) on synthetic answers.
The baseline is run up to --baseline-max answers (default 100: at 1000 it would embed
500500 texts, about an hour here); above that its text count is exact and its time is
extrapolated from its measured rate, and marked so.

    .venv/bin/python perf/aidanbench_novelty.py [--sizes 10,100,1000] [--baseline-max 100] [--smoke]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from neocoder.benchmarks.aidanbench.scoring import novelty  # noqa: E402
from neocoder.models.embedders import get_embedder  # noqa: E402

WORDS = ("cities could plant trees paint roofs open cooling centres share water shade markets "
         "schools buses night shifts parks fountains sensors alerts volunteers neighbours clinics").split()


def answers(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(14)) + f" (idea {i})" for i in range(n)]


def ours(embedder, texts: list[str]) -> tuple[int, float, list[float]]:
    before, start = embedder.texts_embedded, time.perf_counter()
    matrix = np.zeros((0, 0))
    scores = []
    for text in texts:
        v = embedder.embed([text])[0]
        scores.append(novelty(v, matrix if len(matrix) else None))
        matrix = v[None, :] if not len(matrix) else np.vstack([matrix, v])
    return embedder.texts_embedded - before, time.perf_counter() - start, scores


def baseline(embedder, texts: list[str]) -> tuple[int, float, list[float]]:
    before, start = embedder.texts_embedded, time.perf_counter()
    scores = []
    for i, text in enumerate(texts):
        vectors = embedder.embed(texts[:i] + [text])  # every earlier answer again
        scores.append(novelty(vectors[-1], vectors[:-1] if i else None))
    return embedder.texts_embedded - before, time.perf_counter() - start, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--baseline-max", type=int, default=100)
    parser.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = parser.parse_args()
    if args.smoke:  # n = 5 measured both ways, 20 extrapolated
        parser.set_defaults(sizes="5,20", baseline_max=5)
        args = parser.parse_args()
    embedder = get_embedder("local/all-MiniLM-L6-v2")
    embedder.embed(["warm up"])
    print(f"{'n':>6} {'ours: texts':>12} {'ours: s':>9} {'baseline: texts':>16} {'baseline: s':>13} "
          f"{'texts ratio':>12} {'time ratio':>11}")
    rate = None
    for n in (int(x) for x in args.sizes.split(",")):
        texts = answers(n)
        o_texts, o_time, o_scores = ours(embedder, texts)
        if n <= args.baseline_max:
            b_texts, b_time, b_scores = baseline(embedder, texts)
            assert np.allclose(o_scores, b_scores, atol=1e-4), "the two ways disagree on novelty"
            rate = b_time / b_texts
            b_time_s = f"{b_time:.2f}"
        else:
            b_texts = n * (n + 1) // 2
            b_time = b_texts * rate
            b_time_s = f"~{b_time:.0f} (est.)"
        print(f"{n:>6} {o_texts:>12} {o_time:>9.2f} {b_texts:>16} {b_time_s:>13} "
              f"{b_texts / o_texts:>12.1f} {b_time / o_time:>11.1f}")


if __name__ == "__main__":
    main()
