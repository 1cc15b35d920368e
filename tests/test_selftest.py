"""The sandbox regression corpus, against the real Docker engine (CI runs it here)."""

import os
import subprocess

import docker
import pytest

from neocoder.judge import DockerSandbox, Limits
from neocoder.judge.docker_sandbox import LABEL, LABEL_PID, LABEL_RUN
from neocoder.judge.selftest import CASES, format_outcomes, run_selftest

pytestmark = pytest.mark.docker


def test_every_attack_is_contained_and_every_good_program_passes(monkeypatch):
    monkeypatch.setenv("NEOCODER_SELFTEST_SECRET", "must-not-leak")
    with DockerSandbox(concurrency=1) as box:
        assert box.unavailable is None, box.unavailable
        outcomes = run_selftest(box)
    table = format_outcomes(outcomes)
    assert all(o.passed for o in outcomes), table
    assert len(outcomes) == len(CASES) >= 30


def test_containers_are_removed_at_close_and_swept_at_start():
    client = docker.from_env()
    box = DockerSandbox(concurrency=2)
    box.run("print(1)\n", [{"input": "", "output": "1\n"}], Limits(cpu_seconds=1, wall_seconds=5))
    mine = client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={box.run_id}"})
    assert len(mine) == 1
    box.close()
    assert client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={box.run_id}"}) == []
    # a container left by a run whose process is gone is swept by the next start
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead_pid = gone.pid
    left = client.containers.run(box.image, ["sleep", "60"], detach=True, network_mode="none",
                                 labels={LABEL: "1", LABEL_RUN: "crashed", LABEL_PID: str(dead_pid)})
    try:
        DockerSandbox(concurrency=1).close()
        with pytest.raises(docker.errors.NotFound):
            left.reload()
    finally:
        try:
            left.remove(force=True)
        except docker.errors.NotFound:
            pass


def test_missing_image_gives_infra_and_says_what_to_do():
    with DockerSandbox(image="neocoder-sandbox:does-not-exist") as box:
        assert "neocoder sandbox build" in box.unavailable
        result = box.run("print(1)\n", [{"input": "", "output": "1\n"}])
    assert result.verdicts == ["INFRA"] and "neocoder sandbox build" in result.tests[0].detail


def test_unreachable_daemon_gives_infra_not_wa(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    box = DockerSandbox()
    assert "dockerd" in box.unavailable
    assert box.run("print(1)\n", [{"input": "", "output": "1\n"}]).verdicts == ["INFRA"]
