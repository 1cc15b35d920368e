"""The sandbox regression corpus, against the real Docker engine (CI runs it here)."""

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
    assert len(outcomes) == len(CASES) >= 34


def test_process_backend_passes_the_corpus_and_says_what_it_skips(monkeypatch):
    from neocoder.judge import ProcessSandbox
    monkeypatch.setenv("NEOCODER_SELFTEST_SECRET", "must-not-leak")
    with ProcessSandbox(concurrency=1) as box:
        assert box.unavailable is None, box.unavailable
        outcomes = run_selftest(box)
    assert all(o.passed for o in outcomes), format_outcomes(outcomes)
    skipped = [o for o in outcomes if o.skipped]
    assert skipped and all("process backend does not enforce" in o.skipped for o in skipped)
    assert len(skipped) < len(outcomes) // 4


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


def _stray_host_processes(uids):
    """Host processes under any of ``uids`` (every sandbox uid is this process's alone)."""
    out = subprocess.run(["ps", "-eo", "uid=,args="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if int(line.split(None, 1)[0]) in uids]


def test_200_adversarial_submissions_in_parallel_leave_nothing_behind():
    from concurrent.futures import ThreadPoolExecutor
    attacks = [c for c in CASES if c.kind == "attack"]
    jobs = [attacks[i % len(attacks)] for i in range(200)]
    box = DockerSandbox(concurrency=2)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda c: box.run(c.source, [{"input": c.input, "output": c.output}], c.limits), jobs))
    box.close()
    got = [r.verdicts[0] for r in results]
    assert "INFRA" not in got, [r.tests[0].detail for r in results if r.verdicts[0] == "INFRA"]
    assert all(v in c.expect for v, c in zip(got, jobs)), [(c.name, v, r.tests[0].detail, r.tests[0].cpu_seconds)
                                                            for v, c, r in zip(got, jobs, results) if v not in c.expect]
    client = docker.from_env()
    assert client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={box.run_id}"}) == []
    assert box.uids and _stray_host_processes(box.uids) == []


def test_two_processes_never_share_a_uid_block(tmp_path):
    """The uid blocks are held with lock files: another process gets another block, and a
    block is free again once its holder has exited."""
    import sys

    from neocoder.judge.docker_sandbox import UID_BLOCK, UidBlock
    script = ("import sys, time\nfrom neocoder.judge.docker_sandbox import UidBlock\n"
              f"b = UidBlock({str(tmp_path)!r})\nprint(b.base, flush=True)\ntime.sleep(float(sys.argv[1]))\n")
    mine = UidBlock(str(tmp_path))
    other = subprocess.Popen([sys.executable, "-c", script, "30"], stdout=subprocess.PIPE, text=True)
    try:
        theirs = int(other.stdout.readline())
        assert theirs != mine.base and abs(theirs - mine.base) >= UID_BLOCK
        third = subprocess.run([sys.executable, "-c", script, "0"], capture_output=True, text=True, check=True)
        assert int(third.stdout) not in (mine.base, theirs)
    finally:
        other.kill()
        other.wait()
    again = subprocess.run([sys.executable, "-c", script, "0"], capture_output=True, text=True, check=True)
    assert int(again.stdout) == theirs  # released when its holder died
    taken = mine.take(2)
    assert len(set(taken)) == 2 and all(mine.base <= u < mine.base + UID_BLOCK for u in taken)
    mine.give_back(taken)


def test_verdicts_do_not_change_under_six_busy_processes(release_dir):
    """TLE-prone and accepted recorded solutions, judged idle and then under load."""
    import multiprocessing
    import time

    from neocoder.benchmarks.neocoder.program import program_from_reply
    from neocoder.benchmarks.neocoder.solve import solve_prompt
    from neocoder.dataset import build_from_release
    from neocoder.models import ReplayKey, get_model
    states, _ = build_from_release(release_dir)
    model = get_model("replay/gpt-4-1106-preview", release_dir=release_dir)
    wanted = {"1856A", "1786A2", "1717A", "1901A", "1899A", "1873A", "1862A", "1850A", "1846A", "1829A"}
    subs = [(s, program_from_reply(model.generate(
                solve_prompt(s["statement"], ReplayKey(s["problem_id"], 0, 0, s["source_index"])))))
            for s in states if s["state"] == 0 and s["problem_id"] in wanted]

    def judge(box):
        return [box.run(code, s["tests"], Limits.for_cpu(s["time_limit_s"], s["memory_limit_mb"])).verdicts
                for s, code in subs]

    with DockerSandbox(concurrency=2) as box:
        idle = judge(box)
        stop_at = time.time() + 600
        hogs = [multiprocessing.Process(target=_spin, args=(stop_at,), daemon=True) for _ in range(6)]
        for h in hogs:
            h.start()
        try:
            loaded = judge(box)
        finally:
            for h in hogs:
                h.terminate()
                h.join()
    assert loaded == idle
    assert ["TLE"] in idle  # the slice really has programs that run out of CPU time


def _spin(stop_at):
    import time
    while time.time() < stop_at:
        pass
