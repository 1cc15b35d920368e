"""Lay out the programs a labeller reads for the algorithm-pairs set (docs/algorithm-pairs.md).

Prints, for each chosen problem, its statement (state 0) and the programs to label:
a seeded sample of the release's accepted Python solutions (by index in
``human_solutions.json``) and GPT-4's recorded programs of rounds 0..5 (the shipped
replies).  It prints no measure's output: the labeller reads the code blind.

    python scripts/algorithm_pairs_layout.py --release /work/shared/neocoder --problems 12 --seed 39
    python scripts/algorithm_pairs_layout.py --release /work/shared/neocoder --only 1788A 1878B 1740B --rounds 2
    python scripts/algorithm_pairs_layout.py --release /work/shared/neocoder \
        --deliberate data/codeforces/algorithm_pairs/partitions.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "codeforces"


def sha(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of ``text`` (a program's identity check)."""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]


def is_python(src: str) -> bool:
    """True for a Python solution (the release mixes Python and C/C++)."""
    return "#include" not in src and "int main" not in src and "using namespace" not in src


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--release", type=Path, required=True)
    ap.add_argument("--problems", type=int, default=12)
    ap.add_argument("--humans", type=int, default=8)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--rounds", type=int, default=6, help="GPT-4 rounds to print (0..5 first)")
    ap.add_argument("--verdicts", type=Path, help="a replay eval's records.jsonl: print only correct GPT-4 programs")
    ap.add_argument("--exclude", type=Path, help="a partitions.jsonl whose problems are not drawn again")
    ap.add_argument("--deliberate", type=Path, help="a partitions.jsonl: print candidates for deliberate pairs")
    ap.add_argument("--extra", type=int, default=0,
                    help="also print N deliberate candidates per drawn problem (see deliberate())")
    ap.add_argument("--out", type=Path, help="write one layout file per problem into this folder instead of stdout")
    args = ap.parse_args()
    if args.deliberate:
        return deliberate(args.release, args.deliberate)
    humans = json.loads((args.release / "human_solutions.json").read_text())
    states = {}
    for line in gzip.open(DATA / "problem_states.jsonl.gz", "rt"):
        row = json.loads(line)
        if row["state"] == 0:
            states[row["problem_id"]] = row["statement"]
    replies = [json.loads(line) for line in gzip.open(DATA / "replies-gpt-4-1106-preview.jsonl.gz", "rt")]
    gpt4 = {row["problem_id"]: row["codes"] for row in replies}
    done = {json.loads(line)["problem"] for line in args.exclude.read_text().splitlines()} if args.exclude else set()
    pool = sorted(p for p in humans if p in states and p in gpt4 and sum(map(is_python, humans[p])) >= args.humans
                  and p not in done)
    correct = None
    if args.verdicts:
        from neocoder.records import from_line
        rows = [from_line(json.loads(line), args.verdicts, n) for n, line in enumerate(args.verdicts.open(), 1)]
        correct = {(r.problem_id, r.code_sha256[:12]) for r in rows if getattr(r, "correct", False)}
    chosen = args.only or random.Random(args.seed).sample(pool, args.problems)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for pid in chosen:
        lines = ["=" * 100, f"PROBLEM {pid}", states[pid][:1200]]
        py = [i for i, s in enumerate(humans[pid]) if is_python(s)]
        sampled = sorted(random.Random(f"{args.seed}-{pid}").sample(py, min(args.humans, len(py))))
        for i in sampled:
            src = humans[pid][i].replace("\r", "")
            lines.append(f"--- {pid} human:{i} sha:{sha(humans[pid][i])}\n{src}")
        for r, code in enumerate(gpt4[pid][:args.rounds]):
            if correct is not None and (pid, sha(code)) not in correct:
                continue
            lines.append(f"--- {pid} gpt4:{r} sha:{sha(code)}\n{code.split('# Test')[0].split('import io')[0].strip()}")
        for i in farthest(humans[pid], sampled, args.extra):
            src = humans[pid][i].replace("\r", "")
            lines.append(f"--- {pid} human:{i} sha:{sha(humans[pid][i])} deliberate\n{src}")
        text = "\n".join(lines) + "\n"
        if args.out:
            (args.out / f"{pid}.txt").write_text(text)
        else:
            print(text, end="")


def farthest(solutions: list[str], taken: list[int], n: int) -> list[int]:
    """The ``n`` Python solutions outside ``taken`` whose detector technique sets are
    farthest (Jaccard distance) from the most common set among ``taken`` (sorted indices).
    The technique sets choose whom to read, never a label."""
    if n <= 0:
        return []
    from collections import Counter

    from neocoder.techniques.detector import detect
    sets = {i: frozenset(detect(s, "python")) for i, s in enumerate(solutions) if is_python(s)}
    common = Counter(sets[i] for i in taken if i in sets).most_common(1)[0][0]
    rest = [i for i in sets if i not in taken]
    return sorted(sorted(rest, key=lambda i: -len(sets[i] ^ common) / max(1, len(sets[i] | common)))[:n])


def deliberate(release: Path, partitions: Path, per_problem: int = 2) -> None:
    """Print, per labelled problem, the ``per_problem`` accepted Python solutions outside
    the sample whose detector technique sets are farthest (Jaccard) from the sample's
    most common set: candidates for deliberately sampled "different" pairs, to be read
    and labelled like the others (the technique sets choose whom to read, never the label)."""
    from collections import Counter

    from neocoder.techniques.detector import detect
    humans = json.loads((release / "human_solutions.json").read_text())
    for line in partitions.read_text().splitlines():
        row = json.loads(line)
        pid = row["problem"]
        taken = {p["index"] for p in row["programs"] if p["source"] == "human"}
        sets = {i: frozenset(detect(s, "python")) for i, s in enumerate(humans[pid]) if is_python(s)}
        common = Counter(sets[i] for i in taken if i in sets).most_common(1)[0][0]
        far = sorted((i for i in sets if i not in taken),
                     key=lambda i: -len(sets[i] ^ common) / max(1, len(sets[i] | common)))[:per_problem]
        print("=" * 100, "\nPROBLEM", pid)
        for i in sorted(far):
            print(f"--- {pid} human:{i} sha:{sha(humans[pid][i])}\n{humans[pid][i].replace(chr(13), '')}")


if __name__ == "__main__":
    main()
