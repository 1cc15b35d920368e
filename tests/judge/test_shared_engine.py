"""Many neocoder processes on one Docker engine: none breaks another's start, work or
clean-up, and a crashed process's containers are swept by the next start.

Real CLI processes and the real engine throughout.  Other test sessions may share the
engine, so every check counts only containers labelled by the processes it started.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import docker
import pytest

from neocoder.judge import DockerSandbox, default_image, engine
from neocoder.judge.engine import LABEL, LABEL_BOOT, LABEL_PID, LABEL_RUN, LABEL_STARTED

pytestmark = pytest.mark.docker
REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "neocoder.cli"]
SLEEPER = "import time\ntime.sleep(60)\n"


def labelled(client, pid: int) -> list[dict]:
    return client.api.containers(all=True, filters={"label": f"{LABEL_PID}={pid}"})


def test_a_round_of_eight_processes_at_once_all_exit_0_with_the_right_verdicts():
    """perf/shared_engine.py's round, small: 6 `sandbox run` and 2 `eval --limit 2` at once.
    (With the old inspecting list, 1 round in 3 of eight processes crashed one with NotFound;
    the sweep tests below catch that every time.)"""
    done = subprocess.run([sys.executable, str(REPO / "perf" / "shared_engine.py"), "--processes", "8",
                           "--rounds", "1", "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (round_,) = json.loads(done.stdout)
    assert round_["processes"] == 8 and round_["evals"] == 2
    assert round_["failures"] == round_["wrong_verdicts"] == 0 and round_["containers_left"] == []


def test_a_process_killed_mid_run_leaves_containers_that_the_next_start_sweeps(tmp_path):
    client = docker.from_env()
    (tmp_path / "sleep.py").write_text(SLEEPER)
    (tmp_path / "sum.py").write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    (tmp_path / "t.jsonl").write_text(json.dumps({"input": "1 2\n", "output": "3\n"}) + "\n")
    victim = subprocess.Popen([*CLI, "sandbox", "run", str(tmp_path / "sleep.py"), "--tests", str(tmp_path / "t.jsonl"),
                               "--cpu-seconds", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not labelled(client, victim.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = labelled(client, victim.pid)
    assert left, "the run never started a container"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    # at once: any neocoder start on this machine (another test session's too) may sweep it from now on
    assert labelled(client, victim.pid), "kill -9 runs no clean-up: its container must still be there"
    after = subprocess.run([*CLI, "sandbox", "run", str(tmp_path / "sum.py"), "--tests", str(tmp_path / "t.jsonl")],
                           capture_output=True, text=True, timeout=300)
    assert after.returncode == 0 and "AC" in after.stdout, after.stderr
    assert labelled(client, victim.pid) == []


@pytest.fixture
def owner():
    """A live process (not neocoder) to name as a container's owner; killed afterwards."""
    proc = subprocess.Popen(["sleep", "300"])
    yield proc
    proc.kill()
    proc.wait()


def _container(client, labels: dict, start: bool = True) -> str:
    c = client.api.create_container(default_image(), ["sleep", "300"], labels=labels,
                                    host_config=client.api.create_host_config(network_mode="none"))
    if start:
        client.api.start(c["Id"])
    return c["Id"]


def _exists(client, cid: str) -> bool:
    try:
        client.api.inspect_container(cid)
        return True
    except docker.errors.NotFound:
        return False


def test_the_sweep_keeps_live_owners_and_removes_dead_reused_and_rebooted_ones(owner):
    """Both directions: a live owner's containers (this machine's, or running ones of
    another machine) stay; a dead pid's, a reused pid's and a stopped one of an earlier
    boot go."""
    client = docker.from_env()
    boot, started = engine.boot_id(), engine.process_start(owner.pid)
    dead = subprocess.Popen(["true"])
    dead.wait()
    base = {LABEL: "1", LABEL_RUN: "test-sweep"}
    keep = {"live owner": _container(client, {**base, LABEL_PID: str(owner.pid), LABEL_STARTED: started,
                                              LABEL_BOOT: boot}),
            "another machine, running": _container(client, {**base, LABEL_PID: "1", LABEL_BOOT: "other-machine"})}
    drop = {"dead pid": _container(client, {**base, LABEL_PID: str(dead.pid), LABEL_BOOT: boot}),
            "pid reused": _container(client, {**base, LABEL_PID: str(owner.pid), LABEL_STARTED: str(int(started) - 7),
                                              LABEL_BOOT: boot}),
            "earlier boot, stopped": _container(client, {**base, LABEL_PID: str(owner.pid), LABEL_BOOT: "old-boot"},
                                                start=False)}
    try:
        DockerSandbox(concurrency=1).close()  # its start sweeps
        assert {name: _exists(client, cid) for name, cid in {**keep, **drop}.items()} == {
            **{name: True for name in keep}, **{name: False for name in drop}}
    finally:
        for cid in [*keep.values(), *drop.values()]:
            engine.remove(client.api, cid)


def test_sweeps_while_other_processes_remove_their_containers_never_raise(owner):
    """Thirty containers of a live run are removed one by one (as their run closes) while
    four sweeps run over and over, and race each other to remove twelve of a dead run:
    every sweep lists containers that vanish before it looks at them (404) or that another
    sweep is removing (409 in progress).  None raises; the dead run's containers go and
    the live run's are left to it."""
    client = docker.from_env()
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = {LABEL: "1", LABEL_RUN: "test-closing", LABEL_PID: str(owner.pid),
            LABEL_STARTED: engine.process_start(owner.pid), LABEL_BOOT: engine.boot_id()}
    closing = [_container(client, live, start=False) for _ in range(30)]
    crashed = [_container(client, {LABEL: "1", LABEL_RUN: "test-race", LABEL_PID: str(dead.pid)}, start=False)
               for _ in range(12)]
    kept = _container(client, live, start=False)
    errors, go = [], threading.Barrier(5)

    def close_run():
        go.wait()
        for cid in closing:
            engine.remove(client.api, cid)

    def sweep_again_and_again():
        go.wait()
        try:
            for _ in range(8):
                engine.sweep(client.api, "another-run")
        except Exception as exc:  # noqa: BLE001 - the test collects what was raised
            errors.append(exc)

    threads = [threading.Thread(target=close_run)] + [threading.Thread(target=sweep_again_and_again) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert errors == []
        assert [cid for cid in crashed + closing if _exists(client, cid)] == [] and _exists(client, kept)
        box = DockerSandbox(concurrency=1)  # and a start among them sweeps without trouble
        assert box.unavailable is None
        box.close()
    finally:
        for cid in [*closing, *crashed, kept]:
            engine.remove(client.api, cid)


def test_removing_a_container_that_is_gone_or_being_removed_is_gone():
    client = docker.from_env()
    cid = _container(client, {LABEL: "1", LABEL_RUN: "test-remove", LABEL_PID: "1"})
    results = []
    threads = [threading.Thread(target=lambda: results.append(engine.remove(client.api, cid))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [True, True, True] and not _exists(client, cid)
    assert engine.remove(client.api, cid) is True  # long gone


def test_a_machine_lock_makes_a_second_process_wait(tmp_path):
    """Two image builds take turns: the lock's second holder waits until the first lets go."""
    script = ("import sys, time\nfrom neocoder.judge.engine import machine_lock\n"
              f"with machine_lock('build.lock', {str(tmp_path)!r}):\n"
              "    print(time.time(), flush=True)\n    time.sleep(float(sys.argv[1]))\n")
    first = subprocess.Popen([sys.executable, "-c", script, "3"], stdout=subprocess.PIPE, text=True)
    got_first = float(first.stdout.readline())
    second = subprocess.run([sys.executable, "-c", script, "0"], capture_output=True, text=True, timeout=60)
    first.wait()
    assert float(second.stdout) - got_first >= 2.5


@pytest.fixture
def copies_parent():
    """A folder for runner copies outside /tmp (which the process backend's runner hides)."""
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="nc-copies-", dir="/var/tmp")
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def test_a_killed_process_backends_runner_copy_is_swept_and_a_live_ones_kept(copies_parent):
    """The process backend's runner copy (one folder per process) of a process killed with
    SIGKILL goes at the next copy; a live process's stays."""
    script = ("import time\nfrom neocoder.judge.process_sandbox import runner_copy\n"
              "print(runner_copy(), flush=True)\ntime.sleep(300)\n")
    env = {**os.environ, "NEOCODER_RUNNER_DIR": str(copies_parent)}
    live, victim = (subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
                    for _ in range(2))
    try:
        live_copy, victim_copy = Path(live.stdout.readline().strip()), Path(victim.stdout.readline().strip())
        assert live_copy.is_dir() and victim_copy.is_dir() and live_copy != victim_copy
        victim.kill()
        victim.wait()
        assert victim_copy.is_dir(), "SIGKILL runs no clean-up"
        after = subprocess.run([sys.executable, "-c", script.replace("time.sleep(300)", "")], env=env,
                               capture_output=True, text=True, timeout=120)
        assert after.returncode == 0, after.stderr
        assert not victim_copy.exists() and live_copy.is_dir()
        assert not Path(after.stdout.strip()).exists()  # a process that ends normally removes its own
    finally:
        live.kill()
        live.wait()
