"""The token ratio of the retrieval judge to ChatEval from two `neocoder framework validate`
run folders judged apart (one with --judges retrieval, one with --judges chateval, on the same
--pairs and --sample-seed, e.g. in two processes against two endpoints), on the pairs both have
finished, and each judge's accuracy there.  A run still going (or killed) counts with the pairs
it has finished.

    python scripts/framework_token_ratio.py RETRIEVAL_RUN CHATEVAL_RUN
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from neocoder.benchmarks.framework.records import JudgedPair
from neocoder.benchmarks.framework.scores import token_ratio
from neocoder.benchmarks.framework.validate import judge_accuracy
from neocoder.store import RunFolder


def finished(path: Path) -> dict[str, JudgedPair]:
    return {r.pair_id: r for r in RunFolder(path, create=False).read(JudgedPair) if r.finished}


def main(retrieval: Path, chateval: Path) -> dict:
    a, b = finished(retrieval), finished(chateval)
    common = sorted(set(a) & set(b))
    merged = {}
    for pid in common:
        r = a[pid]
        merged[pid] = JudgedPair(r.against, r.pair_id, r.problem, r.solution, r.truth, r.label,
                                 verdicts={**a[pid].verdicts, **b[pid].verdicts},
                                 judge_cost={**a[pid].judge_cost, **b[pid].judge_cost})
    return {"pairs": common, "token_ratio": token_ratio(list(merged.values())),
            "accuracy": {j: judge_accuracy(merged, j, 2000, 0) for j in ("retrieval", "chateval")} if common else {}}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2])), indent=1))
