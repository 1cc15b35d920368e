"""Judge stage: run programs in the Docker sandbox and turn outcomes into verdicts."""

from .docker_sandbox import DockerSandbox, Limits, SandboxUnavailable
from .image import DEFAULT_IMAGE, ImageError, build_image, check_image
from .verdicts import (AC, INFRA, MLE, OLE, RE, TLE, VERDICTS, WA, SubmissionResult,
                       TestVerdict, tokens_equal)

__all__ = ["AC", "DEFAULT_IMAGE", "DockerSandbox", "INFRA", "ImageError", "Limits", "MLE", "OLE",
           "RE", "SandboxUnavailable", "SubmissionResult", "TLE", "TestVerdict", "VERDICTS", "WA", "build_image",
           "check_image", "tokens_equal"]
