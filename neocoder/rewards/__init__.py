"""Rewards for RL training: NeoCoder's scores of a program as one number, for batches.

- ``reward`` / ``RewardWeights`` (formula.py): correctness, constraint following,
  divergent against the humans (Eq. 3) and novelty against an archive, weighted;
- ``ScoreItem`` / ``ScoreResult`` / ``Scorer`` / ``score_batch`` (batch.py): a batch of
  replies or programs judged concurrently in process, or on a ``neocoder serve``;
- archives (archive.py): every program scored into a named archive, and how novel a new
  one is against them;
- ``score_state`` (scoring.py): the one function that scores a reply for a problem state,
  behind the server's ``/v1/score`` and the Scorer alike.

docs/rewards.md describes them.
"""

from neocoder.rewards.archive import ArchiveError, ArchiveStore
from neocoder.rewards.batch import ScoreItem, Scorer, ScoreResult, score_batch
from neocoder.rewards.formula import RewardWeights, reward

__all__ = ["ArchiveError", "ArchiveStore", "RewardWeights", "ScoreItem", "ScoreResult", "Scorer", "reward",
           "score_batch"]
