"""The framework's typed, versioned records (the run folder's ``records.jsonl`` lines):

- ``FrameworkStep``: one step of one solution: its candidates, their meaning classes,
  log-probabilities and STOP votes, the step's semantic entropy and the chosen candidate;
- ``FrameworkSolution``: one problem's finished solution: divergent creativity (mean,
  min, max of the step entropies), the verdicts per criterion of each judge with every
  call's tokens, and (code domain) the sandbox's verdict;
- ``JudgedPair``: one annotated solution judged by ``neocoder framework validate``.

They are defined in the shared ``neocoder/records.py`` beside every benchmark's records
(the bottom layer, which imports no benchmark) and listed in its ``RECORD_TYPES``, so any
run folder reads back with no other import; this module names them for the framework.
"""

from __future__ import annotations

from neocoder.records import FrameworkSolution, FrameworkStep, JudgedPair  # noqa: F401  (kept in the shared module)

FRAMEWORK_RECORDS = (FrameworkStep, FrameworkSolution, JudgedPair)
