"""A NeoCoder eval against a paced loopback endpoint (loopback.PacedServer), judged in the
real Docker sandbox: what tests/models/test_connections.py asserts and perf/max_connections.py
measures, written once for both."""

import hashlib
import json
import os
import threading
import time
from pathlib import Path

from neocoder.api import run
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.config import ModelConfig, SandboxConfig
from neocoder.dataset import build_from_release
from neocoder.records import ProblemState

# three programs, chosen by the prompt: a for loop, a while loop, recursion (so the
# techniques and the constraints followed differ between states)
PROGRAMS = [
    "def solve():\n    t = int(input())\n    for _ in range(t):\n        print(input().split()[0])\n",
    "def solve():\n    t = int(input())\n    while t > 0:\n        t -= 1\n        print(len(input()))\n",
    "def solve():\n    def go(k):\n        if k:\n            print(0)\n            go(k - 1)\n    go(int(input()))\n",
]


def reply(body: dict) -> str:
    """The scripted reply to a chat request: a fenced program that depends only on the
    messages (never on arrival order), so every run gets the same replies."""
    digest = hashlib.sha256(json.dumps(body.get("messages")).encode()).digest()
    return "```python\n" + PROGRAMS[digest[0] % len(PROGRAMS)] + "```"


def write_states(release_dir: Path, path: Path, count: int) -> Path:
    """The release's first ``count`` problem states (problem by problem, states 0-5) of
    problems with a 256 MB limit, as a JSONL file at ``path``.  One memory limit gives the
    sandbox workers one key, so the pool never keeps an idle container per limit."""
    records, _ = build_from_release(release_dir)
    chosen = [ProblemState.from_dict(r) for r in records if r["memory_limit_mb"] == 256][:count]
    assert len(chosen) == count, f"the release has {len(chosen)} such states, not {count}"
    path.write_text("".join(json.dumps(s.to_dict()) + "\n" for s in chosen))
    return path


def eval_config(url: str, states: Path, out: Path, release_dir: Path, max_connections: int,
                workers: int = 2) -> EvalConfig:
    """``neocoder eval --model openai/paced --base-url URL --dataset STATES --states 0-5
    --max-connections N --workers W --quiet``."""
    model = ModelConfig("openai/paced", base_url=url, api_key="k", max_connections=max_connections)
    return EvalConfig(model=model, out=out, release_dir=release_dir, dataset=states, states=list(range(6)),
                      sandbox=SandboxConfig(workers=workers), bootstrap=200, progress=False)


class ContainerWatch:
    """Counts this process's sandbox containers started while it watches (polled every
    0.1 s): ``most`` at once and ``seen`` in all.  Use as a context manager."""

    def __init__(self):
        import docker

        from neocoder.judge.docker_sandbox import LABEL_PID
        self.client = docker.from_env()
        self.filters = {"label": f"{LABEL_PID}={os.getpid()}"}
        self.before = self.ids()
        self.most, self.seen = 0, set()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.poll, daemon=True)

    def ids(self) -> set:
        return {c.id for c in self.client.containers.list(all=True, filters=self.filters)}

    def poll(self) -> None:
        while not self.done.wait(0.1):
            now = self.ids() - self.before
            self.seen |= now
            self.most = max(self.most, len(now))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()


def timed_eval(config: EvalConfig) -> tuple[dict, float]:
    """Run the eval; return its metrics and its wall seconds."""
    start = time.monotonic()
    result = run("eval", config)
    return result.metrics, time.monotonic() - start
