"""The verdict a report shows for a sample and for a tier of tests, and their counts.

Why: the drill-down page, the verdict table and the figure all need the same decision;
it is a pure function of the records, kept apart from rendering so it can be tested with
no sandbox and no page.  The rule (docs/report.md): a sample's verdict is that of its
first example test that is not AC (Codeforces' convention), AC when all are; ``INFRA``
when the sandbox failed; ``no reply`` on a model error; ``no program`` for a reply that
held none (``Sample.no_program``: nothing was judged); a tier none of whose tests ran
(the extended tests skipped after a failed example) is ``skipped``, never AC.

``SHOWN`` is every verdict a page can show: each verdict the judge gives
(``neocoder.judge.verdicts.VERDICTS``, CE included), then the report's own three.  The
figure's colours (``VERDICT_COLORS``), the verdict table's columns, the drill-down filter's
choices and the style sheet's ``.v-<verdict>`` badges all cover that one list, so a verdict
the judge gains is never drawn white on white or left out of a filter.
"""

from __future__ import annotations

from collections import Counter

from neocoder.judge.verdicts import INFRA, VERDICTS
from neocoder.records import Sample, TierResult

SKIPPED = "skipped"  # the verdict of a tier none of whose tests ran
NO_REPLY, NO_PROGRAM = "no reply", "no program"
SHOWN = (*VERDICTS, NO_REPLY, NO_PROGRAM, SKIPPED)

# A colour per shown verdict (the verdict figure's bars, stacked in this order; the badges'
# colours are report.css's).  AC..OLE, INFRA and the report's own keep the colours they had
# before CE was drawn, so a Python run's figure is the same.
VERDICT_COLORS = {"AC": "#4c9a2a", "WA": "#d1495b", "TLE": "#edae49", "MLE": "#8e6c8a", "RE": "#00798c",
                  "OLE": "#b5651d", "CE": "#5d4ea8", "INFRA": "#9e9e9e", "SKIPPED": "#d9d9d9",
                  NO_REPLY: "#444444", NO_PROGRAM: "#c7b8a1", SKIPPED: "#f2f2f2"}


def badge_class(verdict: str) -> str:
    """The CSS class of a verdict's badge (``v-`` and the verdict, spaces as hyphens:
    ``no reply`` -> ``v-no-reply``), as ``templates/macros.html`` ``verdict_badge`` writes it."""
    return "v-" + verdict.replace(" ", "-")


def sample_verdict(sample: Sample) -> str:
    """The verdict of a sample: "no reply" on a model error, "no program" when its reply
    held none (its reason is ``sample.no_program``), "INFRA" when the sandbox failed, else
    the first non-AC verdict of its example tests, "AC" when all are AC."""
    if sample.error or sample.examples is None:
        return NO_REPLY
    if sample.no_program:
        return NO_PROGRAM
    return tier_verdict(sample.examples)


def tier_verdict(tier: TierResult) -> str:
    """A test tier's verdict: "INFRA" when the sandbox failed on it, "skipped" when none of
    its tests ran (the extended tests after a failed example, ``pipeline.judge_sample``'s
    fail-fast rule), else its first non-AC test's verdict, "AC" when all are AC."""
    if tier.infra:
        return INFRA
    if not tier.tests and tier.skipped:
        return SKIPPED
    return next((v for v in tier.verdicts if v != "AC"), "AC")


def verdict_counts(samples: list[Sample]) -> dict[int, dict[str, int]]:
    """{state t: {verdict: number of samples}} with ``sample_verdict``."""
    counts: dict[int, Counter] = {}
    for s in samples:
        counts.setdefault(int(s.state), Counter())[sample_verdict(s)] += 1
    return {t: dict(c) for t, c in sorted(counts.items())}
