"""The suite's own record: ``SuiteStep``, one per benchmark a suite run finished (or left
out), in the suite folder's ``records.jsonl``.  Kept apart from the task so that readers
of a suite folder (the leaderboard) need not load the runner."""

from __future__ import annotations

from dataclasses import dataclass

from neocoder.records import Record, register_record


@dataclass
class SuiteStep(Record):
    """One benchmark of a suite run finished: its sub-folder and the model that answered
    (``stand_in`` when the suite's model has no recordings for it), or why it was left out."""

    TYPE = "suite_step"
    benchmark: str
    folder: str  # relative to the suite's run folder
    model: str
    stand_in: bool = False
    skipped: str | None = None  # why the benchmark was left out (no judges, no stand-in)
    lost: str | None = None  # the one line its run failed with (runner.LostItems): items in error, or none judged

    @property
    def finished(self) -> bool:
        """A benchmark whose run lost items is run again (resumed) when the suite resumes."""
        return self.lost is None

    @property
    def key(self) -> tuple:
        """The record's identity within a run (its resume key): benchmark."""
        return (self.benchmark,)


register_record(SuiteStep)  # the suite's own record type, known wherever a suite folder is read
