"""The records of an ideas run (``neocoder ideas``): ``Idea``, ``IdeaJudgement`` and
``FluencyGrade``, under the names the ideas modules use.

They are defined in ``neocoder/records.py`` beside every other record type, so that
``neocoder.records.RECORD_TYPES`` lists them without this package being imported and an
ideas run folder reads back in a process that never imported ``neocoder.ideas``.
"""

from __future__ import annotations

from ..records import IDEA_STATUSES, FluencyGrade, Idea, IdeaJudgement

__all__ = ["IDEA_STATUSES", "FluencyGrade", "Idea", "IdeaJudgement"]
