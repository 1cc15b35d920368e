#!/usr/bin/env bash
# Install everything NeoCoder needs on a Debian machine, idempotently:
#   Debian's docker.io, debootstrap and chromium, a running dockerd, a virtualenv in .venv
#   with neocoder and its extras, and the offline-built sandbox image.
# Run as root (or with sudo available). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null || ! command -v chromium >/dev/null; then
    echo "== installing docker.io, debootstrap and chromium (the report test's browser) from Debian"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq docker.io debootstrap chromium >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
    echo "== starting dockerd"
    $SUDO sh -c 'nohup dockerd > /var/log/neocoder-dockerd.log 2>&1 &'
    for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/neocoder-dockerd.log" >&2; exit 1; }
fi

if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    python3 -m venv .venv
    .venv/bin/pip install -q -U pip
fi

# llama.cpp is compiled here (about 6 minutes on 2 cores the first time; pip caches
# the wheel). A portable AVX2 build: the native build enables the AMX kernels,
# which crash on CPUs that report AMX without granting it to the process.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF}"
echo "== installing neocoder into .venv"
.venv/bin/pip install -q -e '.[local,test,aidanbench,serve,ray,rl]'
# verl's reward managers, for tests/test_rewards_verl.py (neocoder/rewards/verl.py follows verl 0.9.1):
# without its dependencies, whose pins (transformers < 5.11, vllm, ...) clash with trl's; these
# modules import only tensordict (with its cloudpickle and pyvers) and omegaconf beyond what the
# extras bring (ray, torch); checked in a fresh virtualenv.
.venv/bin/pip install -q --no-deps 'verl==0.9.1' 'tensordict==0.10.0' 'pyvers==0.1.0' 'omegaconf==2.4.0' \
    'cloudpickle>=3'

echo "== building the sandbox image (offline)"
.venv/bin/neocoder sandbox build
