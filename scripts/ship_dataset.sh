#!/usr/bin/env bash
# Rebuild the dataset neocoder ships (data/codeforces/) from the NeoCoder release.
#
# Runs the validated build (`neocoder build-dataset`, default settings, all problems) into a
# run folder and copies its package/ files (problem_states.jsonl.gz, human_techniques.json.gz,
# replies-gpt-4-1106-preview.jsonl.gz, manifest.json, NOTICE) into data/codeforces/.  A
# build from nothing takes about ten minutes on 2 cores; the run folder runs/ship-dataset/
# keeps the human solutions' runs (oracle-cache.jsonl), so a rebuild after a change only
# re-checks (seconds).  After a rebuild, `git diff --stat data/codeforces`
# says whether any data file changed: if one did, bump VERSION in neocoder/dataset/shipped.py
# and run this again (the manifest carries the version).
#
# Usage: bash scripts/ship_dataset.sh [RELEASE_DIR]   (default: $NEOCODER_RELEASE, else ../shared/neocoder)
set -euo pipefail
cd "$(dirname "$0")/.."
release="${1:-${NEOCODER_RELEASE:-$(cd .. && pwd)/shared/neocoder}}"
neocoder="${NEOCODER:-.venv/bin/neocoder}"
out="runs/ship-dataset"
mkdir -p "$out"
"$neocoder" build-dataset --from-release "$release" --out "$out"
for name in problem_states.jsonl.gz human_techniques.json.gz replies-gpt-4-1106-preview.jsonl.gz manifest.json NOTICE; do
    cp "$out/package/$name" "data/codeforces/$name"
done
sha256sum data/codeforces/*.gz
git diff --stat -- data/codeforces || true
