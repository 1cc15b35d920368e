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
.venv/bin/pip install -q -e '.[local,test,aidanbench,serve,ray,rl,leaderboard,train]'
# verl's reward managers, for tests/rewards/test_rewards_verl.py (neocoder/rewards/verl.py follows verl 0.9.1):
# without its dependencies, whose pins (transformers < 5.11, vllm, ...) clash with trl's; these
# modules import only tensordict (with its cloudpickle and pyvers) and omegaconf beyond what the
# extras bring (ray, torch); checked in a fresh virtualenv.
.venv/bin/pip install -q --no-deps 'verl==0.9.1' 'tensordict==0.10.0' 'pyvers==0.1.0' 'omegaconf==2.4.0' \
    'cloudpickle>=3'

# inspect_ai (the [inspect] extra; docs/inspect.md): its own pins (fsspec<=2026.6 through s3fs, python-dateutil<3
# through botocore) would downgrade what datasets brings, so inspect_ai, s3fs, aiobotocore and botocore go in
# without their dependencies, and the rest of inspect_ai's dependencies with theirs (none of them changes an
# installed version; checked with pip --dry-run).  Only s3:// log dirs would need what is left out.
.venv/bin/pip install -q 'agent-client-protocol>=0.12.0' beautifulsoup4 debugpy 'docstring-parser>=0.16' \
    'fastapi>=0.119.0' httpx 'ijson>=3.2.0' jsonpatch 'jsonpath-ng>=1.8.0' 'jsonref>=1.1.0' mmh3 \
    'nest_asyncio2>=1.7.4' platformdirs python-dotenv 'semver>=3.0.0' shortuuid sniffio tenacity 'textual>=6.2.0' \
    'tiktoken>=0.12.0' 'universal-pathlib>=0.2.6' uvicorn 'zipfile-zstd>=0.0.4' 'zipp>=3.19.1' 'zstandard>=0.20.0' \
    markdown-it-py aiohttp aioitertools wrapt jmespath
.venv/bin/pip install -q --no-deps 'inspect_ai==0.3.285' 's3fs==2026.9.0' 'aiobotocore==3.10.0' 'botocore==1.43.117'
.venv/bin/pip install -q --no-deps -e .  # the inspect_ai entry point (neocoder.inspect_tasks)
# Anthropic's client, for inspect-api/anthropic/<model> (the [anthropic] extra; docs/models.md) and its tests
.venv/bin/pip install -q 'anthropic>=2.0'

echo "== building the sandbox image (offline)"
.venv/bin/neocoder sandbox build
