"""Technique detection speed on every human solution of the NeoCoder release.

Baseline in the same run: only parsing the same solutions with tree-sitter (no
queries, no call graph), so the ratio shows what detection adds to parsing.

    .venv/bin/python perf/detect_speed.py [--limit N] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neocoder.dataset import default_release_dir  # noqa: E402
from neocoder.techniques import detect, guess_language  # noqa: E402
from neocoder.techniques.detector import _language  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="the first N solutions (default: all)")
    ap.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = ap.parse_args()
    if args.smoke:
        ap.set_defaults(limit=200)
        args = ap.parse_args()
    solutions = json.loads((default_release_dir() / "human_solutions.json").read_text())
    items = [(src, guess_language(src)) for sols in solutions.values() for src in sols][: args.limit]
    supported = [(src, lang) for src, lang in items if lang in ("python", "cpp")]

    t0 = time.perf_counter()
    for src, lang in supported:
        _language(lang)[1].parse(src.encode("utf-8", "replace"))
    parse_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    for src, lang in supported:
        detect(src, lang)
    detect_s = time.perf_counter() - t0

    by_lang = {}
    for _, lang in items:
        by_lang[lang] = by_lang.get(lang, 0) + 1
    print(f"{len(items)} human solutions ({', '.join(f'{k}: {v}' for k, v in sorted(by_lang.items()))}); "
          f"{len(supported)} in a supported language")
    print(f"{'way':26} {'seconds':>8} {'solutions/s':>12}")
    print(f"{'tree-sitter parse only':26} {parse_s:8.2f} {len(supported) / parse_s:12.0f}")
    print(f"{'detect (neocoder)':26} {detect_s:8.2f} {len(supported) / detect_s:12.0f}")
    print(f"ratio detect / parse: {detect_s / parse_s:.2f}")


if __name__ == "__main__":
    main()
