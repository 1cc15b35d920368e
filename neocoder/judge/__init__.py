"""Judge stage: run programs in a sandbox and turn outcomes into verdicts."""

from neocoder.judge.cancel import Cancel, Cancelled
from neocoder.judge.docker_sandbox import DockerSandbox
from neocoder.judge.image import ImageError, build_image, check_image, default_image
from neocoder.judge.pool import PooledSandbox
from neocoder.judge.process_sandbox import ProcessSandbox
from neocoder.judge.protocol import Limits
from neocoder.judge.sandbox import DOCKER, PROCESS, Sandbox
from neocoder.judge.verdicts import (
    AC,
    ENTRY_RULES,
    INFRA,
    MLE,
    OLE,
    RE,
    SKIPPED,
    TLE,
    VERDICTS,
    WA,
    SubmissionResult,
    TestVerdict,
    tokens_equal,
)

BACKENDS = {DOCKER: DockerSandbox, PROCESS: ProcessSandbox}


def make_sandbox(kind: str = DOCKER, **kwargs) -> PooledSandbox:
    """A sandbox backend by name: "docker" (default, strong) or "process" (weaker, no Docker).

    Keyword arguments go to the backend (DockerSandbox: image, concurrency, fresh,
    runtime, spawn); the process backend takes only concurrency and fresh (it always
    starts a new interpreter per test).
    """
    if kind not in BACKENDS:
        raise ValueError(f"unknown sandbox {kind!r}; choose from {', '.join(BACKENDS)}")
    if kind == PROCESS:
        kwargs = {k: v for k, v in kwargs.items() if k in ("concurrency", "fresh")}
    return BACKENDS[kind](**kwargs)


__all__ = ["AC", "BACKENDS", "Cancel", "Cancelled", "DOCKER", "DockerSandbox", "ENTRY_RULES", "INFRA",
           "ImageError", "Limits", "MLE", "OLE", "PROCESS", "PooledSandbox", "ProcessSandbox", "RE", "SKIPPED",
           "Sandbox", "SubmissionResult", "TLE", "TestVerdict", "VERDICTS", "WA", "build_image", "check_image",
           "default_image", "make_sandbox", "tokens_equal"]
