"""The ablation from the paper mode to the default, one change at a time (docs/paper.md).

Runs ``neocoder eval`` once per step of ``neocoder.benchmarks.neocoder.paper.ABLATION`` (the recorded GPT-4
programs by default), each in its own run folder under ``--out``, then prints the
ablation table (pass@1, follow, convergent, divergent, NeoGauge per state, each with half
its 95% bootstrap interval, in points) beside the paper's Table 4, as markdown, and the
``neocoder compare`` command that shows the steps side by side with paired differences.

    .venv/bin/python scripts/paper_ablation.py --out runs/paper-ablation
    .venv/bin/neocoder compare runs/paper-ablation/* --allow-dataset-mismatch

A full run is six evals of about 30 s each on 2 cores; a folder already complete is
resumed (nothing judged again).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from neocoder.api import evaluate  # noqa: E402
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.paper import ABLATION  # noqa: E402
from neocoder.config import ModelConfig, SandboxConfig  # noqa: E402
from neocoder.dataset.release import default_release_dir  # noqa: E402

METRICS = (("pass@1", "pass@1"), ("constraint_following", "follow"), ("convergent", "conv."),
           ("divergent", "div."), ("neogauge", "NeoGauge"))
PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "codeforces" / "published" / "neocoder_table4_gpt4.json"


def cell(state: dict, metric: str) -> str:
    """``12.3 ±4.5``: the rate and half its 95% interval, in points ('-' when absent)."""
    value = state.get(metric)
    if value is None:
        return "-"
    iv = (state.get("intervals") or {}).get(metric)
    half = f" ±{(iv['high'] - iv['low']) * 50:.1f}" if iv else ""
    return f"{value * 100:.1f}{half}"


def table(results: list[tuple], published: dict) -> str:
    """The markdown ablation table: per state, the paper's row then one row per step."""
    head = "| t | step | " + " | ".join(label for _, label in METRICS) + " |"
    lines = [head, "|" + " --- |" * (len(METRICS) + 2)]
    states = sorted({t for _, metrics in results for t in metrics["states"]}, key=int)
    for t in states:
        paper = published["states"].get(t, {})
        lines.append(f"| {t} | Table 4 (paper) | " + " | ".join(
            f"{paper[m] * 100:.1f}" if m in paper else "-" for m, _ in METRICS) + " |")
        for step, metrics in results:
            row = metrics["states"].get(t, {})
            lines.append(f"| {t} | {step.name} | " + " | ".join(cell(row, m) for m, _ in METRICS) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="Folder for one run folder per step.")
    parser.add_argument("--model", default="replay/gpt-4-1106-preview")
    parser.add_argument("--release", type=Path, default=None, help="The release (default: $NEOCODER_RELEASE).")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N problems.")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    release = args.release or default_release_dir()
    results = []
    for step in ABLATION:
        config = EvalConfig(model=ModelConfig(args.model), out=args.out / step.name, release_dir=release,
                            dataset=step.dataset, paper=list(step.paper), limit=args.limit, progress=False,
                            sandbox=SandboxConfig(workers=args.workers))
        result = evaluate(config)
        print(f"{step.name}: neocoder eval --model {args.model} {step.flags()}  ({result.seconds:.0f} s)",
              file=sys.stderr)
        results.append((step, result.metrics))
    print(table(results, json.loads(PUBLISHED.read_text(encoding="utf-8"))))
    print(f"\nside by side: neocoder compare {' '.join(str(args.out / s.name) for s in ABLATION)} "
          "--allow-dataset-mismatch")


if __name__ == "__main__":
    main()
