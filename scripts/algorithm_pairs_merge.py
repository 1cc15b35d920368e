"""Append per-problem label files to a labelled-pairs file (docs/algorithm-pairs.md, "Adding problems").

Each ``FOLDER/<problem>.json`` holds one reader's partition of one problem, as laid out
by scripts/algorithm_pairs_layout.py --out (``problem``, ``classes``, ``programs``,
``left_out``).  The half of each problem comes from ``--halves`` (problem -> "tune" or
"held-out", fixed before any measure was run on the problems); problems already in
``--into`` are skipped.  Every program of the problem's layout must be either labelled
or left out with a reason, and every class named by a program must be described.

    python scripts/algorithm_pairs_merge.py --labels /work/label/first --layouts /work/label/layouts \
        --halves /work/label/plan.json --into data/codeforces/algorithm_pairs/partitions.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HEADER = re.compile(r"^--- (\S+) (human|gpt4):(\d+) sha:([0-9a-f]{12})", re.M)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", type=Path, required=True)
    ap.add_argument("--layouts", type=Path, required=True)
    ap.add_argument("--halves", type=Path, required=True, help="a JSON file with {'halves': {problem: half}}")
    ap.add_argument("--into", type=Path, required=True)
    ap.add_argument("--only", nargs="*", help="only these problems")
    args = ap.parse_args()
    halves = json.loads(args.halves.read_text())["halves"]
    done = set()
    if args.into.exists():
        done = {json.loads(line)["problem"] for line in args.into.read_text().splitlines() if line.strip()}
    lines, problems = [], 0
    for path in sorted(args.labels.glob("*.json")):
        row = json.loads(path.read_text())
        pid = row["problem"]
        if pid in done or (args.only and pid not in args.only):
            continue
        layout = (args.layouts / f"{pid}.txt").read_text()
        wanted = {f"{kind}:{n}": sha for _, kind, n, sha in HEADER.findall(layout)}
        got = {}
        for p in row["programs"]:
            ident = f"human:{p['index']}" if p["source"] == "human" else f"gpt4:{p['round']}"
            if p.get("sha") != wanted.get(ident):
                sys.exit(f"{path}: program {ident}: sha {p.get('sha')} is not the layout's {wanted.get(ident)}")
            if p["class"] not in row["classes"]:
                sys.exit(f"{path}: program {ident}: class {p['class']!r} is not described in 'classes'")
            if p["source"] != "human":
                p["correct"] = True  # the layout shows only GPT-4 programs a replay eval judged correct
            got[ident] = p
        left = {x["ident"] for x in row.get("left_out", [])}
        missing = set(wanted) - set(got) - left
        if missing:
            sys.exit(f"{path}: programs neither labelled nor left out: {sorted(missing)}")
        out = {"problem": pid, "half": halves[pid], "classes": row["classes"], "programs": row["programs"]}
        if row.get("left_out"):
            out["left_out"] = row["left_out"]
        lines.append(json.dumps(out, ensure_ascii=False))
        problems += 1
    with args.into.open("a", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
    print(f"appended {problems} problems to {args.into}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
