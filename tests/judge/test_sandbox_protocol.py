"""The ``Sandbox`` protocol and ``open_sandbox`` (issue 22, item 4): every executor gives
an object with the members callers use, chosen from the EXECUTORS registry.

Real components: the process backend judges a program; the Ray executor tries a real
(closed) loopback port, so it is unavailable within seconds without a cluster.
"""

from __future__ import annotations

import socket

import pytest

from neocoder.config import SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.executors import EXECUTORS, LOCAL, RAY, open_sandbox
from neocoder.judge import AC, DOCKER, INFRA, PROCESS, DockerSandbox, Limits, Sandbox, make_sandbox
from neocoder.judge.image import IMAGE_ENV, default_image

TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]
FAST = Limits(cpu_seconds=1, wall_seconds=15, memory_mb=128)
CORRECT = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_registry_is_keyed_by_the_constants():
    assert set(EXECUTORS) == {LOCAL, RAY} == {"local", "ray"}
    assert (DOCKER, PROCESS) == ("docker", "process")


def test_the_local_executor_is_a_sandbox_that_judges_and_closes_on_exit():
    with open_sandbox(SandboxConfig(kind=PROCESS, workers=1)) as box:
        assert isinstance(box, Sandbox) and box.name == PROCESS and box.capacity == 1
        assert box.run(CORRECT, TESTS, FAST).verdicts == [AC, AC]
        assert box._workers  # a warm worker, kept between submissions
    assert not box._workers  # closed on exit


@pytest.mark.docker
def test_the_docker_backend_is_a_sandbox_even_when_it_cannot_run(monkeypatch):
    monkeypatch.setenv(IMAGE_ENV, "neocoder-sandbox-no-such-image:never")
    box = make_sandbox(DOCKER, concurrency=2)
    try:
        assert isinstance(box, Sandbox) and isinstance(box, DockerSandbox)
        assert box.image == "neocoder-sandbox-no-such-image:never" and box.capacity == 2
        assert box.unavailable and "not found" in box.unavailable
        assert box.run(CORRECT, TESTS, FAST).verdicts == [INFRA, INFRA]
    finally:
        box.close()


def test_the_image_name_is_read_when_needed_not_at_import(monkeypatch):
    monkeypatch.setenv(IMAGE_ENV, "first:tag")
    assert default_image() == "first:tag"
    monkeypatch.setenv(IMAGE_ENV, "second:tag")
    assert default_image() == "second:tag"
    monkeypatch.delenv(IMAGE_ENV)
    assert default_image() == "neocoder-sandbox:latest"


def test_the_ray_executor_is_a_sandbox_and_open_sandbox_refuses_it_when_unreachable():
    pytest.importorskip("ray")
    from neocoder.executors.ray import RaySandbox
    config = SandboxConfig(kind=PROCESS, workers=1, executor=RAY, ray_address=f"127.0.0.1:{closed_port()}")
    box = RaySandbox(config)
    try:
        assert isinstance(box, Sandbox) and box.name == RAY and box.capacity == 0 and box.nodes() == []
        assert "cannot reach the Ray cluster" in box.unavailable
        result = box.run(CORRECT, TESTS, FAST)
        assert result.verdicts == [INFRA, INFRA] and "cannot reach" in result.tests[0].detail
    finally:
        box.close()
    with pytest.raises(NeocoderError, match="cannot reach the Ray cluster"):
        with open_sandbox(config):
            pass
