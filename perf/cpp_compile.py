"""What the precompiled <bits/stdc++.h> saves: human C++ programs compiled with and without it.

Takes ``--n`` accepted human C++ solutions of the NeoCoder release (a seeded sample) and
compiles each, in one container of the sandbox image (``--network none``, read-only
root, tmpfs ``/tmp``), with the runner's own argv (sandbox/runner/native.py
``compile_argv``) twice: with the precompiled header's folder on the include path and
without.  Each compile's CPU time is the compiler process tree's (``RUSAGE_CHILDREN``
deltas inside the container, so load from other work shows in wall time only).  Prints
the mean and the median per program for each way, apart for programs that include
<bits/stdc++.h> and those that do not, and the share that compiled in both ways alike.

    NEOCODER_RELEASE=/work/shared/neocoder .venv/bin/python perf/cpp_compile.py [--n 100] [--seed 0] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys

from neocoder.dataset.release import default_release_dir
from neocoder.judge import default_image
from neocoder.sandbox_recipe.runner import native
from neocoder.techniques.human import solutions_by_language

# Runs inside the container: reads [[source, argv_with_pch, argv_without]] as JSON on stdin,
# prints [[cpu_with, ok_with, cpu_without, ok_without], ...] (CPU seconds of the compiler tree).
INSIDE = r'''
import json, resource, subprocess, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
out = []
for source, *argvs in json.load(sys.stdin):
    row = []
    for argv in argvs:
        before = cpu()
        ok = subprocess.run(argv, input=source.encode(), capture_output=True).returncode == 0
        row += [round(cpu() - before, 4), ok]
    out.append(row)
print(json.dumps(out))
'''


def sample(n: int, seed: int) -> list[str]:
    """``n`` accepted human C++ solutions of the release, drawn with ``seed``."""
    everything = [src for sols in solutions_by_language(default_release_dir()).values()
                  for lang, src in sols if lang == "cpp"]
    return random.Random(seed).sample(everything, min(n, len(everything)))


def measure(sources: list[str]) -> list[list]:
    """[cpu with PCH, compiled, cpu without, compiled] per source, from one container."""
    job = [[src, native.compile_argv(include_pch=True), native.compile_argv(include_pch=False)] for src in sources]
    proc = subprocess.run(["docker", "run", "--rm", "-i", "--network", "none", "--read-only",
                           "--tmpfs", "/tmp:size=256m", "-u", "65534:65534", default_image(), "python3", "-c", INSIDE],
                          input=json.dumps(job), capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def describe(rows: list[list]) -> dict:
    """Mean and median CPU seconds per program with and without the PCH."""
    if not rows:
        return {"programs": 0}
    with_pch, without = [r[0] for r in rows], [r[2] for r in rows]
    return {"programs": len(rows), "with_pch_mean_s": round(statistics.mean(with_pch), 3),
            "with_pch_median_s": round(statistics.median(with_pch), 3),
            "without_mean_s": round(statistics.mean(without), 3),
            "without_median_s": round(statistics.median(without), 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a small run (tests/perf/)")
    args = parser.parse_args(argv)
    if args.smoke:
        parser.set_defaults(n=3)
        args = parser.parse_args(argv)
    sources = sample(args.n, args.seed)
    rows = measure(sources)
    bits = [r for r, s in zip(rows, sources) if "bits/stdc++.h" in s]
    other = [r for r, s in zip(rows, sources) if "bits/stdc++.h" not in s]
    print(json.dumps({"all": describe(rows), "include_bits_stdcpp": describe(bits), "other": describe(other),
                      "compiled_alike": sum(r[1] == r[3] for r in rows) / len(rows)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
