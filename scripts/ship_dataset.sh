#!/usr/bin/env bash
# Rebuild the dataset neocoder ships (data/codeforces/) from the NeoCoder release.
#
# Runs the validated build (`neocoder build-dataset`, default settings, all problems) into a
# run folder and copies its package/ files (problem_states.jsonl.gz, human_techniques.json.gz,
# replies-gpt-4-1106-preview.jsonl.gz, manifest.json, NOTICE) into data/codeforces/.  The
# human solutions' runs are reused from an earlier build when one is cached (the
# oracle-cache.jsonl of $NEOCODER_CACHE, default ~/.cache/neocoder); a build from nothing
# takes about ten minutes on 2 cores.  After a rebuild, `git diff --stat data/codeforces`
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
cache="${NEOCODER_CACHE:-$HOME/.cache/neocoder}"
if [ ! -s "$out/oracle-cache.jsonl" ]; then
    for earlier in "$cache"/release-*/oracle-cache.jsonl; do
        [ -s "$earlier" ] && cp "$earlier" "$out/oracle-cache.jsonl" && echo "reusing the human runs in $earlier"
        break
    done
fi
"$neocoder" build-dataset --from-release "$release" --out "$out"
for name in problem_states.jsonl.gz human_techniques.json.gz replies-gpt-4-1106-preview.jsonl.gz manifest.json NOTICE; do
    cp "$out/package/$name" "data/codeforces/$name"
done
sha256sum data/codeforces/*.gz
git diff --stat -- data/codeforces || true
