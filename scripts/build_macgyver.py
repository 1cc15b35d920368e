"""Build the shipped MacGyver files (data/macgyver/) from the MacGyver repository's files.

Reads ``problem_solution_pair.xlsx`` (ID, Problem, Solvable?, Unconventional?, Solution,
Label) and ``benchmark_results.json`` (problem ID -> annotated solutions) from SOURCE
(default ../shared/macgyver), keeps the solvable problems with their reference solution
and its human label, and the annotated solutions of those problems with their human
annotation, and writes

    data/macgyver/problems.jsonl.gz      one solvable problem per line
    data/macgyver/annotations.jsonl.gz   one annotated solution per line
    data/macgyver/manifest.json          version, counts, SHA-256 of each file, source SHA-256s
    data/macgyver/LICENSE, NOTICE        the repository's Apache-2.0 license and the attribution

gzip with mtime 0 and sorted keys: the same sources give byte-identical files.  Needs
openpyxl (pip install 'neocoder[build]'); neocoder itself reads only the gzip files.

    python scripts/build_macgyver.py [SOURCE]
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

VERSION = "1"
OUT = Path(__file__).resolve().parent.parent / "data" / "macgyver"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gz_lines(rows: list[dict]) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as f:
        f.write("".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows).encode("utf-8"))
    return buf.getvalue()


def read_problems(path: Path) -> list[dict]:
    import openpyxl
    sheet = openpyxl.load_workbook(path, read_only=True).worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    head = [str(h).strip() for h in next(rows)]
    want = ["ID", "Problem", "Solvable?", "Unconventional?", "Solution", "Label"]
    if head[:6] != want:
        raise SystemExit(f"{path}: columns {head}, expected {want}")
    out = []
    for row in rows:
        rec = dict(zip(head, row))
        if str(rec["Solvable?"]).strip().lower() != "yes":
            continue
        out.append({"id": str(rec["ID"]).strip(), "problem": str(rec["Problem"]).strip(),
                    "unconventional": str(rec["Unconventional?"] or "").strip().lower() == "unconventional",
                    "solution": str(rec["Solution"] or "").strip(), "label": str(rec["Label"] or "").strip() or None})
    return out


def main(source: Path) -> None:
    problems = read_problems(source / "problem_solution_pair.xlsx")
    solvable = {p["id"] for p in problems}
    results = json.loads((source / "benchmark_results.json").read_text(encoding="utf-8"))
    annotations = []
    for pid in sorted(results, key=lambda k: (len(k), k)):
        if pid not in solvable:
            continue
        for i, item in enumerate(results[pid]):
            if "annotation" not in item:  # one unannotated solution in the source: nothing to validate against
                continue
            annotations.append({"problem_id": pid, "index": i, "model": item["model"],
                                "annotation": item["annotation"], "solution": item["solution"]})
    OUT.mkdir(parents=True, exist_ok=True)
    files = {"problems.jsonl.gz": gz_lines(problems), "annotations.jsonl.gz": gz_lines(annotations)}
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    shutil.copyfile(source / "LICENSE", OUT / "LICENSE")
    counts: dict[str, int] = {}
    for a in annotations:
        counts[a["annotation"]] = counts.get(a["annotation"], 0) + 1
    manifest = {"version": VERSION, "problems": len(problems), "annotations": len(annotations),
                "annotation_counts": dict(sorted(counts.items())),
                "sha256": {name: sha256(data) for name, data in sorted(files.items())},
                "sources": {name: sha256((source / name).read_bytes())
                            for name in ("problem_solution_pair.xlsx", "benchmark_results.json")},
                "source": "allenai/MacGyver (data/MacGyver, data/Benchmark_results), Apache-2.0"}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent.parent / "shared" /
         "macgyver")
