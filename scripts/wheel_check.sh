#!/usr/bin/env bash
# CI: prove that an installed wheel of neocoder works on its own, without a checkout.
#
# An editable install resolves files through the checkout, so it hides a missing
# package, a missing data file or a path computed from the checkout layout.  This
# script builds a plain wheel, installs it into a fresh virtualenv outside the
# checkout and, from a folder outside the checkout, checks that
#   - every file of neocoder/, prompts/, sandbox/, data/codeforces/ and data/macgyver/ is in the wheel (a
#     new subpackage must also be listed in pyproject.toml's `packages`),
#   - the prompts and the sandbox recipe are found through neocoder.resources,
#   - `neocoder sandbox build` works and reuses an up-to-date image (same recipe bytes,
#     same label, same image), and
#   - with no NeoCoder release anywhere it would look, `neocoder eval --model
#     replay/gpt-4-1106-preview` judges all 199 problems on the shipped dataset and prints
#     the headline, `neocoder eval --model human` works, and `neocoder serve` starts and
#     scores a program;
#   - the wheel alone (core dependencies, no extra) in a second virtualenv runs `report`,
#     `compare`, `leaderboard` and `export` on small runs of every benchmark it made itself
#     (eval on the recorded code; AidanBench, LiveIdeaBench and the framework against the
#     scripted endpoint of tests/support/scripted_models.py), each command working or refusing
#     by its own rule, never failing on a module an extra brings (the leaderboard builds on
#     core with JSON-lines downloads, and with Parquet ones once the leaderboard extra is added).
# The heavy extras (local, aidanbench) are not installed: the eval needs neither; serve's is.
#
# Usage: bash scripts/wheel_check.sh   (needs Docker with the sandbox base image, as
# left by scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
unset NEOCODER_RELEASE  # the wheel must work without a release
PYTHON="${PYTHON:-python3}"
image="${NEOCODER_SANDBOX_IMAGE:-neocoder-sandbox:latest}"
unset PYTHONPATH  # nothing may reach into the checkout

work=$(mktemp -d "${TMPDIR:-/tmp}/neocoder-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS
step() { echo "== wheel check [$((SECONDS - start)) s]: $*"; }

# Build from a copy of the files git knows (tracked, or new and not ignored): the wheel
# then holds exactly the working tree, and no stale build/ folder of the checkout can
# slip old modules into it.
step "copying the checkout's files to $work/src"
git ls-files -z --cached --others --exclude-standard | "$PYTHON" -c '
import os, shutil, sys
dest = sys.argv[1]
for name in sys.stdin.read().split("\0"):
    if name and os.path.isfile(name):  # a file deleted but not yet committed is skipped
        os.makedirs(os.path.join(dest, os.path.dirname(name)), exist_ok=True)
        shutil.copy2(name, os.path.join(dest, name))
' "$work/src"

step "creating a fresh virtualenv in $work/venv"
"$PYTHON" -m venv "$work/venv"
pip=("$work/venv/bin/pip" --disable-pip-version-check -q)

step "building the wheel"
"${pip[@]}" wheel --no-deps -w "$work/dist" "$work/src"
wheel=$(ls "$work"/dist/neocoder-*.whl)
echo "$(basename "$wheel")"

step "checking the wheel holds every file of neocoder/, prompts/, sandbox/ and data/codeforces/"
"$PYTHON" - "$work/src" "$wheel" <<'EOF'
import pathlib, sys, zipfile

src, wheel = pathlib.Path(sys.argv[1]), sys.argv[2]
# Where pyproject.toml's package-dir puts each checkout folder inside the wheel.
layout = {"neocoder": "neocoder", "prompts": "neocoder/prompts", "sandbox": "neocoder/sandbox_recipe",
          "data/codeforces": "neocoder/codeforces", "data/macgyver": "neocoder/macgyver"}
shipped = set(zipfile.ZipFile(wheel).namelist())
missing = [f"{folder}/{path.relative_to(src / folder).as_posix()}"
           for folder, inside in layout.items()
           for path in sorted((src / folder).rglob("*"))
           if path.is_file() and f"{inside}/{path.relative_to(src / folder).as_posix()}" not in shipped]
if missing:
    sys.exit("the wheel lacks: " + ", ".join(missing)
             + "\n(add the subpackage to `packages`, or the data file to `package-data`, in pyproject.toml)")
print(f"{len(shipped)} files, none missing")
EOF

step "installing the wheel with the serve extra (without the local and aidanbench extras)"
"${pip[@]}" install "$wheel[serve]"
neocoder="$work/venv/bin/neocoder"

# Everything below runs from a folder that is neither the checkout nor inside it.
mkdir "$work/elsewhere"
cd "$work/elsewhere"

step "finding the prompts and the sandbox recipe in the installed package"
"$work/venv/bin/python" - "$checkout" <<'EOF'
import pathlib, sys

import neocoder
from neocoder.resources import prompt_names, prompt_text, sandbox_dir

checkout = pathlib.Path(sys.argv[1]).resolve()
package = pathlib.Path(neocoder.__file__).resolve().parent
if checkout in package.parents:
    sys.exit(f"neocoder was imported from the checkout ({package}), not from the wheel")
want = sorted(p.name for p in (checkout / "prompts").iterdir() if p.suffix == ".txt")
got = prompt_names()
if got != want:
    sys.exit(f"prompts in the wheel {got} != prompts in the checkout {want}")
for name in got:
    if prompt_text(name) != (checkout / "prompts" / name).read_text(encoding="utf-8"):
        sys.exit(f"prompt {name} differs from the checkout's")
from neocoder.judge.image import recipe_files
recipe = sandbox_dir()
names = recipe_files(recipe)
if names != recipe_files(checkout / "sandbox"):
    sys.exit(f"the wheel's sandbox recipe {names} != the checkout's {recipe_files(checkout / 'sandbox')}")
for name in names:
    if (recipe / name).read_bytes() != (checkout / "sandbox" / name).read_bytes():
        sys.exit(f"{recipe / name} differs from the checkout's sandbox/{name}")
print(f"package {package}: {len(got)} prompts, sandbox recipe in {recipe}")
EOF

# The image is labelled with the SHA-256 of the recipe (the Dockerfile and every file of
# the runner package, neocoder/judge/image.py runner_sha256), computed here from the
# checkout's folder; the wheel carries the same bytes, so an image that is already up to
# date must come out of the build unchanged.
label() { docker image inspect -f '{{ index .Config.Labels "neocoder.runner_sha256" }}' "$image" 2>/dev/null || true; }
image_id() { docker image inspect -f '{{ .Id }}' "$image" 2>/dev/null || true; }
expected=$("$work/venv/bin/python" -c 'import pathlib, sys
from neocoder.judge.image import runner_sha256
print(runner_sha256(pathlib.Path(sys.argv[1]) / "sandbox"))' "$checkout")
label_before=$(label)
id_before=$(image_id)

step "neocoder sandbox build (from the wheel)"
"$neocoder" sandbox build
label_after=$(label)
id_after=$(image_id)
if [ "$label_after" != "$expected" ]; then
    echo "wheel check: $image is labelled ${label_after:-<none>}, the checkout's recipe is $expected" >&2
    exit 1
fi
if [ "$label_before" = "$expected" ]; then
    if [ "$id_after" != "$id_before" ]; then
        echo "wheel check: the wheel rebuilt an up-to-date $image ($id_before -> $id_after)" >&2
        exit 1
    fi
    echo "image reused: $id_after"
elif [ -n "$label_before" ]; then
    echo "image rebuilt (it was stale): $id_after"
else
    echo "image built (there was none): $id_after"
fi

# No release beside this folder, none in $NEOCODER_RELEASE: only the shipped dataset.
if [ -e ../shared/neocoder ]; then
    echo "wheel check: a release is reachable from $PWD" >&2
    exit 1
fi

step "neocoder eval --model replay/gpt-4-1106-preview (from the wheel, no release: all 199 problems)"
"$neocoder" eval --model replay/gpt-4-1106-preview --out "$work/run" --quiet | tee "$work/eval.txt"
grep -q "^headline: cumulative NeoGauge@5 = 10.7% ±5.0 " "$work/eval.txt" || {
    echo "wheel check: the headline is not the shipped dataset's 10.7% ±5.0" >&2
    exit 1
}
[ "$(wc -l < "$work/run/records.jsonl")" = 1063 ] || {
    echo "wheel check: the eval did not judge the 1063 problem states" >&2
    exit 1
}

step "neocoder eval --model human (from the wheel, no release)"
"$neocoder" eval --model human --out "$work/human" --quiet | tail -3

step "neocoder serve (from the wheel, no release): start, then score a program"
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$neocoder" serve --no-auth --port "$port" --workers 1 --data-dir "$work/serve" > "$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
"$PYTHON" - "$port" <<'EOF' || { echo "wheel check: serve failed:" >&2; cat "$work/serve.log" >&2; exit 1; }
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
for _ in range(120):  # the server starts its sandbox pool first
    try:
        urllib.request.urlopen(base + "/healthz", timeout=5)
        break
    except OSError:
        time.sleep(1)
body = {"problem_id": "1901A", "state": 0, "program": "def solve():\n    print(1)\n"}
request = urllib.request.Request(base + "/v1/score", json.dumps(body).encode(), {"content-type": "application/json"})
answer = json.load(urllib.request.urlopen(request, timeout=120))
assert answer["sample"]["problem_id"] == "1901A" and answer["scores"]["correct"] is False, answer
print("scored:", answer["scores"])
EOF
kill $server
wait $server || true

# A core install (the wheel alone, no extra) must run the commands that read runs on a run of
# every benchmark: report, compare, leaderboard and export.  The runs are small real ones made
# by the core install itself: NeoCoder on GPT-4's recorded code (Docker sandbox), AidanBench,
# LiveIdeaBench and the creativity framework against tests/support/scripted_models.py, a
# scripted OpenAI-style endpoint on loopback (standard library and numpy only).
step "installing the wheel alone (core dependencies, no extra) in $work/core"
"$PYTHON" -m venv "$work/core"
"$work/core/bin/pip" --disable-pip-version-check -q install "$wheel"
core="$work/core/bin/neocoder"
"$work/core/bin/python" - <<'EOF2'
import importlib.util, sys
extras = [m for m in ("fastapi", "sentence_transformers", "torch", "pyarrow", "llama_cpp", "inspect_ai", "ray")
          if importlib.util.find_spec(m) is not None]
if extras:
    sys.exit(f"the core install holds packages of extras: {extras}")
print("core install: no extra's package importable")
EOF2

"$work/core/bin/python" "$work/src/tests/support/scripted_models.py" "$work/models.url" > "$work/models.log" 2>&1 &
models=$!
trap 'kill $models 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/models.url" ] && break; sleep 0.2; done
url=$(cat "$work/models.url")
runs="$work/runs"
mkdir -p "$runs"
printf '%s\n' '{"bit": "Bit 0 holds.", "flip": "Flip 0 holds."}' '{"bit": "Bit 1 holds.", "flip": "Flip 1 holds."}' \
    > "$work/hypogen.jsonl"
printf 'keyword,category\nsoil,Biology\nearthquakes,Earth science\n' > "$work/keywords.csv"
model=(--base-url "$url" --api-key k)

step "core install: small runs of every benchmark"
"$core" eval --model replay/gpt-4-1106-preview --limit 2 --states 0-1 --bootstrap 100 --out "$runs/eval" --quiet \
    | tail -1
"$core" aidanbench --model openai/answerer --judge openai/judge --embedder openai/embed "${model[@]}" --limit 2 \
    --max-answers 3 --bootstrap 100 --out "$runs/aidanbench" --quiet | tail -1
"$core" ideas --model openai/writer --judges openai/j1,openai/j22,openai/j333 "${model[@]}" \
    --keywords "$work/keywords.csv" --ideas-per-keyword 2 --bootstrap 100 --out "$runs/ideas" --quiet | tail -1
"$core" framework --domain hypogen --data "$work/hypogen.jsonl" --model openai/gen "${model[@]}" --api completion \
    --judges chateval --entailment llm --candidates 2 --max-steps 3 --bootstrap 100 --out "$runs/framework" --quiet \
    | tail -1
kill $models
wait $models 2>/dev/null || true

# A command either does its job or refuses by its own rule (compare takes NeoCoder runs; export
# writes tables for NeoCoder and framework runs): never a traceback, never a missing module.
refuses() {  # refuses "what it says" command...
    local says=$1; shift
    local out
    if out=$("$@" 2>&1); then
        echo "wheel check: '$*' should have refused ($says) but exited 0" >&2; exit 1
    fi
    if ! grep -q "$says" <<< "$out" || grep -qE "Traceback|ImportError|ModuleNotFoundError" <<< "$out"; then
        echo "wheel check: '$*' failed otherwise than by refusing ($says):" >&2; echo "$out" >&2; exit 1
    fi
    echo "refused as it should: $(tail -1 <<< "$out" | cut -c1-110)"
}
for bench in eval aidanbench ideas framework; do
    step "core install: report, compare and export on the $bench run"
    "$core" report "$runs/$bench" --out "$work/reports/$bench" | tail -1
    [ -s "$work/reports/$bench/index.html" ] || { echo "wheel check: no report of the $bench run" >&2; exit 1; }
    case $bench in
        eval) "$core" compare "$runs/eval" "$work/run" --format markdown | tail -3 ;;
        *) refuses "compare takes NeoCoder runs" "$core" compare "$runs/$bench" "$runs/$bench" ;;
    esac
    case $bench in
        eval|framework) "$core" export "$runs/$bench" --format jsonl --out "$work/export/$bench"
            ls "$work/export/$bench" ;;
        *) refuses "neocoder export writes tables for the runs of" "$core" export "$runs/$bench" --format jsonl ;;
    esac
done
# The leaderboard builds on the core install too: its downloads are JSON lines there, Parquet
# once the leaderboard extra (pyarrow) is added.
step "core install: leaderboard of the four runs (JSON-lines downloads; Parquet with the leaderboard extra)"
"$core" leaderboard "$runs" --out "$work/board" | tail -1
[ -s "$work/board/index.html" ] || { echo "wheel check: no leaderboard" >&2; exit 1; }
for bench in eval aidanbench ideas framework; do
    grep -q "$bench" "$work/board/index.html" || { echo "wheel check: the leaderboard lacks $bench" >&2; exit 1; }
done
ls "$work/board/data/"*.jsonl >/dev/null || { echo "wheel check: no JSON-lines download on core" >&2; exit 1; }
"$work/core/bin/pip" --disable-pip-version-check -q install "$wheel[leaderboard]"
"$core" leaderboard "$runs" --out "$work/board-parquet" | tail -1
ls "$work/board-parquet/data/"*.parquet >/dev/null || { echo "wheel check: no Parquet download" >&2; exit 1; }
echo "leaderboard: $(ls "$work/board/data" | tr '\n' ' ')"

step "passed"
