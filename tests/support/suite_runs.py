"""Suite runs for the leaderboard and web tests: GPT-4's recorded NeoCoder answers with a
scripted stand-in for AidanBench and LiveIdeaBench, and a second, scripted model on the
two benchmarks it can answer (tests/support/suite_model.py serves both)."""

from __future__ import annotations

import os
from pathlib import Path

from checkout import SHARED
from suite_model import SuiteModel

from neocoder.config import ModelConfig, SandboxConfig
from neocoder.runner import run
from neocoder.suite.config import SuiteConfig
from neocoder.suite.task import SuiteTask


def liveideabench_dir() -> str:
    """The LiveIdeaBench files (keywords, the December 2024 leaderboard) in shared/."""
    path = SHARED / "liveideabench"
    assert path.is_dir(), f"{path} not found: put shared/ beside the checkout"
    return str(path)


def make_runs(folder: Path, release_dir: Path) -> tuple[Path, Path]:
    """Two suite runs in ``folder``: ``gpt4`` (replay/gpt-4-1106-preview on NeoCoder, the
    stand-in elsewhere) and ``other`` (openai/other on AidanBench and LiveIdeaBench)."""
    os.environ.setdefault("LIVEIDEABENCH_DIR", liveideabench_dir())
    server = SuiteModel()
    try:
        def config(model: str, out: str, **more) -> SuiteConfig:
            base = ModelConfig("openai/stand-in", base_url=server.url, api_key="k")
            return SuiteConfig(model=base.with_(spec=model), out=folder / out, release_dir=release_dir,
                               judges=[base.with_(spec=f"openai/{j}", temperature=0.0, max_tokens=64)
                                       for j in ("j1", "j22", "j333")],
                               embedder="openai/embed", bootstrap=300, sandbox=SandboxConfig(workers=2),
                               progress=False, **more)
        run(SuiteTask(config("replay/gpt-4-1106-preview", "gpt4", benchmarks=["eval", "aidanbench", "ideas"],
                             stand_in=ModelConfig(
            "openai/stand-in", base_url=server.url, api_key="k"))))
        run(SuiteTask(config("openai/other", "other", benchmarks=["aidanbench", "ideas"])))
    finally:
        server.close()
    return folder / "gpt4", folder / "other"
