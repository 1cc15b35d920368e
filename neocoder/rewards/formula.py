"""The reward of one scored program: correctness, constraint following, divergence from the
humans and novelty against an archive, weighted (``RewardWeights``) into one number.

    reward = w_correct * C + C * (w_follows * F + w_divergent * D + w_novelty * N)

- ``C`` correctness, 0 or 1: every test AC.  The extended tests count when the state has
  them (``correct_plus``), else the examples (``correct``): a program that prints the
  examples' answers passes the examples and fails the extended tier, so training on the
  stricter tier does not pay for memorised outputs.
- ``F`` constraint following, 0 or 1: no technique the state denies was detected (the
  Denial Prompting constraints; NeoCoder Eq. 2 is C x F, "convergent").
- ``D`` divergent, in [0, 1]: NeoCoder Eq. 3, |T(s) \\ H(p)| / |T(s)|, the share of the
  program's techniques no accepted human solution of the problem used (0 when the
  problem has no human technique set).
- ``N`` novelty against the archive, in [0, 1]: the mean of ``new_share`` (Eq. 3 with the
  archive's techniques in place of H(p)) and ``nearest_distance`` (the token n-gram
  distance to the nearest archived program; archive.py); 0 when no archive is named.

Why this shape: creativity is paid only to correct programs (the C factor), because an
incorrect program is trivially "novel" and a policy would learn to be wrong in new ways;
correctness alone can earn the largest single share, and following the constraints,
which is what a Denial Prompting state asks, is worth as much as the two creativity terms
together by default.  Every term is in [0, 1] and the weights are non-negative, so the
reward lies in [0, w_correct + w_follows + w_divergent + w_novelty] (2.0 by default).
A sample the sandbox failed on (``infra``/``excluded``) says nothing about the program:
its reward is 0 and its scores say ``infra`` so a trainer can drop it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields


def _weight(default: float, help_text: str) -> float:
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class RewardWeights:
    """The weights of the reward's four terms (module docstring).  Each is a finite number
    >= 0; ValueError otherwise.  ``total`` is the largest reward they allow."""

    correct: float = _weight(1.0, "Weight of correctness C (the extended tests where the state has them).")
    follows: float = _weight(0.5, "Weight of constraint following F, paid only when C = 1.")
    divergent: float = _weight(0.25, "Weight of divergent D (NeoCoder Eq. 3 against the humans), paid only "
                                     "when C = 1.")
    novelty: float = _weight(0.25, "Weight of novelty N against the archive, paid only when C = 1 (0 without "
                                   "an archive).")

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0:
                raise ValueError(f"RewardWeights.{f.name}: a finite number >= 0, not {value!r}")

    @property
    def total(self) -> float:
        """The largest reward these weights allow: the sum of the weights."""
        return sum(getattr(self, f.name) for f in fields(self))

    @classmethod
    def from_dict(cls, data: dict | None) -> "RewardWeights":
        """Weights from ``{"correct", "follows", "divergent", "novelty"}`` (missing keys keep
        their defaults); ValueError for an unknown key or a bad value."""
        data = dict(data or {})
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"RewardWeights: unknown weight(s) {sorted(unknown)}")
        return cls(**data)


def novelty_value(novelty: dict | None) -> float:
    """N: the mean of ``new_share`` and ``nearest_distance`` of a novelty record
    (archive.py), each in [0, 1]; 0.0 for None (no archive)."""
    if not novelty:
        return 0.0
    return 0.5 * (float(novelty["new_share"]) + float(novelty["nearest_distance"]))


def correctness(scores: dict) -> float:
    """C: 1.0 when every test of the strictest tier the state has is AC (``correct_plus``
    where it is not None, else ``correct``), else 0.0."""
    plus = scores.get("correct_plus")
    return float(bool(plus if plus is not None else scores.get("correct")))


def reward(scores: dict, weights: RewardWeights = RewardWeights()) -> float:
    """The reward of one scored program (module docstring's formula), in
    [0, weights.total].  ``scores`` is a score record: ``correct``, ``correct_plus``,
    ``follows``, ``divergent`` (None without H(p): counted 0), ``excluded``/``infra``
    (reward 0) and, with an archive, ``novelty``."""
    if scores.get("excluded") or scores.get("infra"):
        return 0.0
    c = correctness(scores)
    creative = (weights.follows * float(bool(scores.get("follows")))
                + weights.divergent * float(scores.get("divergent") or 0.0)
                + weights.novelty * novelty_value(scores.get("novelty")))
    return weights.correct * c + c * creative
