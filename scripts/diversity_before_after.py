"""The human reference and a run's chain diversity by every measure, before (technique,
structure) and after (operations, the default) issue 39, as docs/metrics.md quotes them.

    python scripts/diversity_before_after.py --release /work/shared/neocoder --run runs/gpt4

``--run`` is an eval run folder of ``replay/gpt-4-1106-preview`` (``neocoder eval --model
replay/gpt-4-1106-preview --out runs/gpt4``); its records are re-classed, not re-judged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from neocoder.dataset.shipped import load_states
from neocoder.metrics.diversity.humans import human_programs
from neocoder.metrics.diversity.run import human_diversity, run_diversity
from neocoder.records import Sample, from_line


def _cell(got: dict | None) -> str:
    if not got or got.get("value") is None:
        return "-"
    return f"{got['value']:.2f} [{got['low']:.2f}, {got['high']:.2f}]" if "low" in got else f"{got['value']:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", type=Path, required=True)
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--bootstrap", type=int, default=2000)
    args = ap.parse_args()
    pids = sorted({s.problem_id for s in load_states()})
    humans = human_programs(pids, args.release)
    block = human_diversity(humans, resamples=args.bootstrap)
    print("humans: measure | solutions | classes per problem | among 6 | among 10")
    for m, g in block["humans"].items():
        print(f"  {m} | {_cell(g.get('solutions'))} | {_cell(g.get('classes'))} | {_cell(g.get('classes@6'))} | "
              f"{_cell(g.get('classes@10'))}")
    records = args.run / "records.jsonl"
    samples = [r for r in (from_line(json.loads(line), records, n) for n, line in enumerate(records.open(), 1))
               if isinstance(r, Sample)]
    chain = run_diversity(samples, humans, resamples=args.bootstrap)["chain"]
    print(f"{args.run} chain: measure | classes | correct | as many humans | share also human | problems")
    for m, g in chain.items():
        print(f"  {m} | {_cell(g.get('classes'))} | {_cell(g.get('correct'))} | {_cell(g.get('human_classes'))} | "
              f"{_cell(g.get('overlap_humans'))} | {g['classes']['problems']}")


if __name__ == "__main__":
    main()
