"""Judge stage: run programs in a sandbox and turn outcomes into verdicts."""

from .docker_sandbox import DockerSandbox
from .image import DEFAULT_IMAGE, ImageError, build_image, check_image
from .pool import PooledSandbox
from .process_sandbox import ProcessSandbox
from .protocol import Limits
from .verdicts import (AC, ENTRY_RULES, INFRA, MLE, OLE, RE, SKIPPED, TLE, VERDICTS, WA, SubmissionResult,
                       TestVerdict, tokens_equal)

BACKENDS = {"docker": DockerSandbox, "process": ProcessSandbox}


def make_sandbox(kind: str = "docker", **kwargs) -> PooledSandbox:
    """A sandbox backend by name: "docker" (default, strong) or "process" (weaker, no Docker).

    Keyword arguments go to the backend (DockerSandbox: image, concurrency, fresh,
    runtime, spawn); the process backend takes only concurrency and fresh (it always
    starts a new interpreter per test).
    """
    if kind not in BACKENDS:
        raise ValueError(f"unknown sandbox {kind!r}; choose from {', '.join(BACKENDS)}")
    if kind == "process":
        kwargs = {k: v for k, v in kwargs.items() if k in ("concurrency", "fresh")}
    return BACKENDS[kind](**kwargs)


__all__ = ["AC", "BACKENDS", "DEFAULT_IMAGE", "DockerSandbox", "ENTRY_RULES", "INFRA", "ImageError", "Limits",
           "MLE", "OLE", "PooledSandbox", "ProcessSandbox", "RE", "SKIPPED", "SubmissionResult", "TLE",
           "TestVerdict", "VERDICTS", "WA", "build_image", "check_image", "make_sandbox", "tokens_equal"]
