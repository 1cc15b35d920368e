"""``sample``: draw ``best_of`` programs and keep the one with the highest
convergent x divergent product (NeoCoder Sec. 5.3 "Sampling", after Chen et al. 2021's
repeated sampling; Eq. 2-4).

Candidates are judged on the example tests only (Eq. 2's correct(s) is every example
AC); ties go to the earlier candidate, and a candidate whose reply holds no program
(program.read_program: never judged, product 0) is chosen only when none holds one.
Candidate j of a sample uses the sample's seed plus ``SEED_STRIDE * j``, so the
candidates differ where the endpoint honours seeds.
"""

from __future__ import annotations

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution, reply_summary

SEED_STRIDE = 10_007


def pick(products: list[float]) -> int:
    """The index of the largest product; the first on ties."""
    return max(range(len(products)), key=lambda j: (products[j], -j))


def solve(ctx: Context) -> Solution:
    """``ctx.options.best_of`` calls; every candidate kept in ``attempts``."""
    candidates, attempts = [], ctx.attempts
    for j in range(ctx.options.best_of):
        seed = None if ctx.seed is None else ctx.seed + SEED_STRIDE * j
        prompt = ctx.solve_prompt(seed=seed, logprobs=ctx.logprobs)
        reply = ctx.call(prompt)
        trial = ctx.attempt(reply, prompt)  # a candidate with no program is not judged: its product is 0
        product = trial.convergent * (trial.divergent or 0.0)
        candidates.append((reply, product if trial.no_program is None else -1.0, prompt))  # -1: below any program
        attempts.append({"kind": "candidate", "index": j, "seed": seed, **reply_summary(reply), **trial.summary(),
                         "convergent": trial.convergent, "product": product})
    best = pick([p for _, p, _ in candidates])
    attempts[best]["chosen"] = True
    return Solution(candidates[best][0], attempts, candidates[best][2])
