"""Algorithm classes of programs, by three measures (docs/metrics.md, "Diversity").

- ``technique``: two programs are one class when the detector found the same technique
  set in both (exact).  Tells apart programs that use different techniques (a sort
  against a hash map); cannot tell apart two algorithms made of the same techniques (two
  greedy rules over one loop), and any detector miss moves a program between classes.
- ``structure``: one class when the pq-gram distance of their syntax trees is at most
  ``structure.THRESHOLD`` (structure.py says what it can and cannot tell apart).
- ``execution``: one class when their execution fingerprints agree: the complexity class
  fitted to their operation counts on inputs of growing size, and their memory class
  (execution.py).  Tells apart an O(n) and an O(n^2) solution whatever they look like;
  cannot tell apart two algorithms of one complexity (two linear scans), and a program
  that does not run on the grown inputs has no fingerprint (left out of this measure).

- ``operations``: one class when their operation sets (operations.py: the built-ins
  and methods that work on the data, membership tests, running totals, the loop depth,
  after normalise.py removed the style) are at most ``OPERATIONS_THRESHOLD`` apart
  (Jaccard).
- ``learned``: one class when the shipped classifier (learned.py) puts the probability
  that a reader calls them one algorithm at or above its threshold; it combines the
  other static measures' distances with a reader's traits (features.py).  Python only.

``DEFAULT`` is the measure a run leads with: the one of highest kappa on the held-out
half of the hand-labelled algorithm pairs (docs/algorithm-pairs.md) among those whose
interval's lower bound is at least ``VALID_LOW`` (validity.choose_default, issue 48).
When none reaches it, DEFAULT is the measure of highest held-out kappa and
``validated()`` is False: the report then marks its figures as unvalidated.  A test keeps
DEFAULT equal to the shipped ``validity.json``'s choice.

Every measure partitions with NoveltyBench's greedy rule (measures.partition).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from neocoder.metrics.diversity import structure
from neocoder.metrics.diversity.features import Traits, traits
from neocoder.metrics.diversity.measures import partition, partition_by_key
from neocoder.metrics.diversity.operations import Operations, operations

TECHNIQUE, STRUCTURE, EXECUTION, OPERATIONS, LEARNED = "technique", "structure", "execution", "operations", "learned"
MEASURES = (TECHNIQUE, STRUCTURE, EXECUTION, OPERATIONS, LEARNED)
DEFAULT = LEARNED  # the shipped validity.json's choice (validity.choose_default; module docstring)
VALID_LOW = 0.4  # a default's held-out kappa interval must start at least here (issue 48)
OPERATIONS_THRESHOLD = 0.7  # chosen on the labelled pairs' tuning half (neocoder diversity validate)


@dataclass
class Program:
    """One program as the measures see it.

    ``source`` and ``language`` ("python" or "cpp"), ``techniques`` (the detector's set),
    ``execution`` (the fingerprint's class key, execution.Fingerprint.key(); None when
    it has none or was not measured), ``correct`` and ``quality`` (u_i of utility_k)."""

    source: str
    language: str = "python"
    techniques: frozenset = frozenset()
    execution: tuple | None = None
    correct: bool = True
    quality: float = 1.0
    _shape: structure.Shape | None = field(default=None, repr=False, compare=False)
    _ops: Operations | None = field(default=None, repr=False, compare=False)
    _traits: Traits | None = field(default=None, repr=False, compare=False)

    @property
    def shape(self) -> structure.Shape:
        """The program's pq-gram profile (structure.shape), computed once."""
        if self._shape is None:
            self._shape = structure.shape(self.source, self.language)
        return self._shape

    @property
    def ops(self) -> Operations:
        """The program's operation set (operations.operations), computed once."""
        if self._ops is None:
            self._ops = operations(self.source)
        return self._ops

    @property
    def traits(self) -> Traits:
        """What the learned measure sees of the program (features.traits), computed once."""
        if self._traits is None:
            self._traits = traits(self.source, self.techniques)
        return self._traits


def validated(summary: dict | None = None) -> bool:
    """Whether DEFAULT passed its check on the held-out labelled pairs (the shipped
    ``validity.json``'s ``"validated"``; ``summary`` stands in for it in tests)."""
    from neocoder.metrics.diversity.labelled import shipped_summary
    got = shipped_summary() if summary is None else summary
    return bool(got.get("validated")) and got.get("default") == DEFAULT


def available(programs: list[Program], measure: str) -> list[int]:
    """Indexes of ``programs`` the measure can class: every one for technique, the
    Python ones with code for structure (the model's language: across grammars the
    distance is always 1, so C/C++ humans would only add classes of their own), those
    with a fingerprint for execution; operations, like structure, reads Python only."""
    if measure == EXECUTION:
        return [i for i, p in enumerate(programs) if p.execution is not None]
    if measure in (STRUCTURE, OPERATIONS, LEARNED):  # Python only: a Python and a C++ tree never share a pq-gram
        return [i for i, p in enumerate(programs) if p.source and p.language == "python"]
    return list(range(len(programs)))


def classes(programs: list[Program], measure: str, threshold: float = structure.THRESHOLD) -> list[int]:
    """Class labels (measures.partition) of ``programs`` by ``measure`` (one of MEASURES),
    in order.  For execution every program must have a fingerprint (use ``available``).
    Raises ValueError for an unknown measure or a program without a fingerprint."""
    if measure == TECHNIQUE:
        return partition_by_key([frozenset(p.techniques) for p in programs])
    if measure == STRUCTURE:
        return partition([p.shape for p in programs], lambda a, b: a.distance(b) <= threshold)
    if measure == OPERATIONS:
        return partition([p.ops for p in programs], lambda a, b: a.distance(b) <= OPERATIONS_THRESHOLD)
    if measure == LEARNED:
        from neocoder.metrics.diversity.learned import shipped
        return shipped().classes([p.traits for p in programs])
    if measure == EXECUTION:
        if any(p.execution is None for p in programs):
            raise ValueError("execution classes need a fingerprint for every program")
        return partition_by_key([p.execution for p in programs])
    raise ValueError(f"unknown diversity measure {measure!r} (one of {', '.join(MEASURES)})")


def joint_classes(first: list[Program], second: list[Program], measure: str) -> tuple[list[int], list[int]]:
    """``classes`` of ``first`` followed by ``second`` in one partition, split back:
    the labels of each, comparable with each other (for measures.overlap).  For
    execution and structure, programs the measure cannot class are left out of both
    lists (``available``)."""
    first = [first[i] for i in available(first, measure)]
    second = [second[i] for i in available(second, measure)]
    labels = classes(first + second, measure)
    return labels[:len(first)], labels[len(first):]
