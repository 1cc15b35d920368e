"""Measure every number NeoCoder writes, so a refactor can be shown to change none (issue 22).

    python scripts/same_numbers.py measure --neocoder BIN --out DIR [--only NAME,...]
    python scripts/same_numbers.py compare A/numbers.json B/numbers.json
    python scripts/same_numbers.py records A B

``records`` compares two measurements' run folders record by record (every records.jsonl
under A and B at the same relative path), the volatile fields removed as above, and tells
apart the fields a newer record format *added empty* (absent in A, null or empty in B:
``compare``'s digests change for them) from real differences, which it names per record
and field; it exits 1 on a real difference.

``measure`` drives the ``neocoder`` CLI given by ``--neocoder`` (any checkout's
``.venv/bin/neocoder``) as subprocesses, one scenario at a time (the scenarios are in
``same_numbers_scenarios.py``), each into its own folder ``DIR/NAME``, which is emptied
first so that no run resumes an older one.  It writes ``DIR/numbers.json``: per scenario
its command lines, its seconds (reported, never compared) and, per run folder it made, the
run's ``metrics.json`` and a digest of its ``records.jsonl``, both with the volatile fields
removed.  ``--only`` measures some scenarios and keeps the others already in numbers.json.

The sandbox image is whatever the measured checkout uses (``$NEOCODER_SANDBOX_IMAGE``, else
``neocoder-sandbox:latest``); several checkouts on one machine should each set their own tag,
since a checkout refuses an image built from another runner.  numbers.json names it.

``compare`` prints one row per scenario and field: ``equal`` or the two differing values,
and exits 1 on any difference (a scenario measured on one side only is a difference).

What is volatile (removed before anything is compared), and why:

- anywhere in metrics and records, keys in ``VOLATILE_KEYS``: wall-clock and CPU times
  (``timings``, ``seconds``, ``model_s``, ``judge_s``, ``total_s``, ``cpu_seconds``,
  ``wall_seconds``, ``wall_s``, ``started``, ``finished_at``) and peak memory
  (``max_rss_kb``, ``peak_cgroup_kb``): they depend on the machine's load, not the code;
- every absolute path under ``DIR``, replaced by ``$OUT`` (a replayed run names its source
  folder, which is under a different DIR before and after);
- the call cache's counts (``calls.cache_hits``, ``calls.calls_made``, a record's
  ``cost.cached_calls``) are KEPT: each run starts from an empty folder, so they are fixed by
  the code; two identical measurements at the base gave equal counts (see the report).

Everything else is kept: verdicts, ``stdout_sha256``, code, techniques, scores, tokens,
seeds, intervals.  The records' digest is per record (keyed by its type and key fields), so
``compare`` names the records that changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from same_numbers_scenarios import SCENARIOS, Context

VOLATILE_KEYS = frozenset({
    "timings", "seconds", "model_s", "judge_s", "total_s", "cpu_seconds", "wall_seconds", "wall_s",
    "started", "finished_at", "max_rss_kb", "peak_cgroup_kb"})
KEY_FIELDS = ("model", "problem_id", "state", "sample", "question_index", "answer_num", "keyword_index",
              "idea_num", "judge")


def strip(value, out_dir: str):
    """``value`` (parsed JSON) without the keys in VOLATILE_KEYS at any depth, with
    ``out_dir`` replaced by ``$OUT`` in every string and every key (a replayed model is
    named by its path, and metrics are keyed by model)."""
    if isinstance(value, dict):
        return {k.replace(out_dir, "$OUT"): strip(v, out_dir) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip(v, out_dir) for v in value]
    if isinstance(value, str):
        return value.replace(out_dir, "$OUT")
    return value


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def record_key(record: dict) -> str:
    """The record's type and its key fields, e.g. ``sample|replay/x|1901A|0|0``."""
    return "|".join([str(record.get("type", "?"))] + [str(record[f]) for f in KEY_FIELDS if f in record])


def digest_records(path: Path, out_dir: str) -> dict:
    """``{"count": {type: n}, "digest": sha256, "items": {key: sha256[:16]}}`` of a
    records.jsonl, volatile fields removed; the whole digest is over the sorted items, so
    the order records were appended in (threads) does not count.  A key seen twice (a
    retried record) gets ``#2``, ``#3``... in line order."""
    items: dict[str, str] = {}
    count: dict[str, int] = {}
    lines = path.read_text().splitlines() if path.is_file() else []
    for line in lines:
        if not line.strip():
            continue
        record = strip(json.loads(line), out_dir)
        key = record_key(record)
        n = 2
        while key in items:
            key = f"{record_key(record)}#{n}"
            n += 1
        items[key] = hashlib.sha256(canonical(record).encode()).hexdigest()[:16]
        count[record.get("type", "?")] = count.get(record.get("type", "?"), 0) + 1
    whole = hashlib.sha256(canonical(sorted(items.items())).encode()).hexdigest()
    return {"count": count, "digest": whole, "items": dict(sorted(items.items()))}


def folder_numbers(folder: Path, out_dir: str, metrics: dict | None = None) -> dict:
    """The numbers of one run folder: its metrics (``metrics`` if given, e.g. fetched from a
    server, else ``metrics.json``) and its records' digest."""
    if metrics is None:
        path = folder / "metrics.json"
        metrics = json.loads(path.read_text()) if path.is_file() else {"missing": str(path)}
    return {"metrics": strip(metrics, out_dir), "records": digest_records(folder / "records.jsonl", out_dir)}


def measure(args: argparse.Namespace) -> int:
    """Run the chosen scenarios one at a time and (re)write OUT/numbers.json after each."""
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = list(SCENARIOS) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    numbers_path = out / "numbers.json"
    numbers = json.loads(numbers_path.read_text()) if numbers_path.is_file() else {}
    numbers.setdefault("scenarios", {})
    numbers.update(neocoder=str(Path(args.neocoder).resolve()), release=os.environ.get("NEOCODER_RELEASE"),
                   sandbox_image=os.environ.get("NEOCODER_SANDBOX_IMAGE", "neocoder-sandbox:latest (default)"),
                   volatile=sorted(VOLATILE_KEYS))
    failed = []
    for name in names:
        where = out / name
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        ctx = Context(neocoder=str(Path(args.neocoder).resolve()), where=where)
        print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
        start = time.monotonic()
        try:
            folders = SCENARIOS[name](ctx)
            entry = {"folders": {label: folder_numbers(folder, str(out), metrics)
                                 for label, (folder, metrics) in folders.items()}}
        except Exception as exc:  # a failed scenario is recorded, and the others still run
            entry = {"error": f"{type(exc).__name__}: {exc}".replace(str(out), "$OUT")}
            failed.append(name)
        seconds = round(time.monotonic() - start, 1)
        entry.update(commands=[[a.replace(str(out), "$OUT") for a in c] for c in ctx.commands], seconds=seconds)
        numbers["scenarios"][name] = entry
        numbers_path.write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n")
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {seconds}s" + (f"  FAILED {entry['error']}" if "error" in entry
                                                                       else ""), flush=True)
    print(f"wrote {numbers_path}")
    return 1 if failed else 0


def flatten(value, prefix: str = "") -> dict[str, object]:
    """``{"a.b.0": leaf}`` for every leaf of nested dicts and lists."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    flat: dict[str, object] = {}
    for key, sub in items:
        flat.update(flatten(sub, f"{prefix}.{key}" if prefix else str(key)))
    if not flat:
        flat[prefix] = value  # an empty dict or list is a leaf
    return flat


def scenario_fields(entry: dict) -> dict[str, object]:
    """A scenario's compared fields: metrics leaves and one field per record (its hash),
    the seconds and commands left out (they are reported, not compared)."""
    if "error" in entry:
        return {"error": entry["error"]}
    fields: dict[str, object] = {}
    for label, folder in entry["folders"].items():
        for key, value in flatten(folder["metrics"]).items():
            fields[f"{label}:metrics.{key}"] = value
        for key, value in folder["records"]["count"].items():
            fields[f"{label}:records.count.{key}"] = value
        for key, value in folder["records"]["items"].items():
            fields[f"{label}:record[{key}]"] = value
    return fields


def compare(args: argparse.Namespace) -> int:
    """Print the scenario x field table of two numbers.json; 1 on any difference."""
    a = json.loads(Path(args.a).read_text())["scenarios"]
    b = json.loads(Path(args.b).read_text())["scenarios"]
    differences = 0
    width = max(len(n) for n in sorted(set(a) | set(b)))
    print(f"{'scenario':<{width}}  field / result  (A = {args.a}, B = {args.b})")
    for name in sorted(set(a) | set(b), key=lambda n: (list(SCENARIOS).index(n) if n in SCENARIOS else 99, n)):
        if (name in a) != (name in b):
            print(f"{name:<{width}}  measured in {'A' if name in a else 'B'} only")
            differences += 1
            continue
        fa, fb = scenario_fields(a[name]), scenario_fields(b[name])
        keys = sorted(set(fa) | set(fb))
        diff = [k for k in keys if canonical(fa.get(k, "<absent>")) != canonical(fb.get(k, "<absent>"))]
        seconds = f"({a[name].get('seconds')}s vs {b[name].get('seconds')}s)"
        if not diff:
            print(f"{name:<{width}}  equal: all {len(keys)} fields {seconds}")
        for k in diff[:args.max_rows]:
            print(f"{name:<{width}}  {k}: A={canonical(fa.get(k, '<absent>'))[:120]}  "
                  f"B={canonical(fb.get(k, '<absent>'))[:120]}")
        if len(diff) > args.max_rows:
            print(f"{name:<{width}}  ... and {len(diff) - args.max_rows} more differing fields")
        differences += len(diff)
    print(f"{differences} difference(s)")
    return 1 if differences else 0


EMPTY = (None, "", [], {}, 0, False)


def read_records(path: Path, out_dir: str) -> dict[str, dict]:
    """The records of ``path`` keyed as ``digest_records`` keys them, volatile fields removed."""
    got: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = strip(json.loads(line), out_dir)
            key, n = record_key(record), 2
            while key in got:
                key, n = f"{record_key(record)}#{n}", n + 1
            got[key] = record
    return got


def compare_records(args: argparse.Namespace) -> int:
    """Per records.jsonl under both roots: records equal, fields added empty, real differences."""
    a_root, b_root = Path(args.a).resolve(), Path(args.b).resolve()
    real = 0
    for path in sorted(a_root.rglob("records.jsonl")):
        rel = path.relative_to(a_root)
        other = b_root / rel
        if not other.is_file():
            print(f"{rel}: in A only")
            real += 1
            continue
        a, b = read_records(path, str(a_root)), read_records(other, str(b_root))
        added: dict[str, int] = {}
        diffs = []
        for key in sorted(set(a) | set(b)):
            ra, rb = a.get(key), b.get(key)
            if ra is None or rb is None:
                diffs.append(f"{key}: in {'A' if rb is None else 'B'} only")
                continue
            for field in sorted(set(ra) | set(rb)):
                if field not in ra and rb[field] in EMPTY:
                    added[field] = added.get(field, 0) + 1
                elif canonical(ra.get(field, "<absent>")) != canonical(rb.get(field, "<absent>")):
                    diffs.append(f"{key}: {field}: A={canonical(ra.get(field, '<absent>'))[:100]}  "
                                 f"B={canonical(rb.get(field, '<absent>'))[:100]}")
        new = ", ".join(f"{f} ({n})" for f, n in sorted(added.items())) or "none"
        print(f"{rel}: {len(a)} records in A, {len(b)} in B; fields added empty: {new}; "
              f"{len(diffs)} real difference(s)")
        for line in diffs[:args.max_rows]:
            print(f"    {line}")
        real += len(diffs)
    print(f"{real} real difference(s)")
    return 1 if real else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="run the scenarios into DIR and write DIR/numbers.json")
    m.add_argument("--neocoder", required=True, help="the neocoder CLI of the checkout to measure")
    m.add_argument("--out", required=True, help="DIR: run folders under DIR/NAME, and DIR/numbers.json")
    m.add_argument("--only", help=f"comma-separated scenarios (default: all): {', '.join(SCENARIOS)}")
    c = sub.add_parser("compare", help="compare two numbers.json; exit 1 on any difference")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--max-rows", type=int, default=30, help="differing fields shown per scenario")
    r = sub.add_parser("records", help="compare two measurements' records; added empty fields apart")
    r.add_argument("a", help="a measurement's DIR (as given to measure --out)")
    r.add_argument("b")
    r.add_argument("--max-rows", type=int, default=30, help="differences shown per records file")
    args = parser.parse_args(argv)
    os.environ.setdefault("NEOCODER_RELEASE", "/work/shared/neocoder")
    return {"measure": measure, "compare": compare, "records": compare_records}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
