"""``--executor ray`` on a real Ray cluster on this machine, judged in real Docker.

The cluster is Ray's own test utility (``ray.cluster_utils.Cluster``): a head that only
coordinates (no Docker resource, as docs/scale-out.md suggests) and two judging nodes,
each a real raylet process declaring one CPU and the ``neocoder_sandbox`` resource, every
listener on 127.0.0.1, in a temp folder of their own.  The head is apart so that a judging
node the driver is not attached to can always be killed (which raylet a driver attaches
to on one machine differs between Ray versions).  The fixture stops exactly the processes
it started (and removes the folder) however the tests end.  Ray not installed fails here
(CI installs the ``ray`` extra); nothing is skipped.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

# before Ray is imported: it keeps 127.0.0.1 as the address of this machine's nodes (else it
# rewrites the cluster's loopback address to the outside one and cannot connect)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from neocoder.api import evaluate, open_sandbox  # noqa: E402
from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.config import ModelConfig, SandboxConfig  # noqa: E402
from neocoder.executors.ray import RESOURCE, RaySandbox  # noqa: E402
from neocoder.judge import Limits, default_image  # noqa: E402

pytestmark = pytest.mark.docker

LIMIT = 20  # problems of the replay eval
HEAD = dict(num_cpus=1, include_dashboard=False, node_ip_address="127.0.0.1", object_store_memory=100 << 20)
NODE = dict(HEAD, resources={RESOURCE: 1})
ADD = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"
BUSY = "def solve():\n    x = 0\n    for i in range(40_000_000):\n        x += i\n    print(1)\n"  # ~2-4 s of CPU


@pytest.fixture(scope="module")
def cluster():
    """``(cluster, [node, node])``: a head without Docker and two judging nodes."""
    folder = tempfile.mkdtemp(prefix="nc-ray-", dir="/tmp")  # short: Ray's unix sockets live in it
    env = {"RAY_TMPDIR": folder, "RAY_USAGE_STATS_ENABLED": "0"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    made = None
    try:
        made = Cluster(initialize_head=True, shutdown_at_exit=True,
                       head_node_args=dict(HEAD, _system_config={"enable_metrics_collection": False}))
        judges = [made.add_node(**NODE), made.add_node(**NODE)]
        made.wait_for_nodes()
        yield made, judges
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if made is not None:
            made.shutdown()
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        shutil.rmtree(folder, ignore_errors=True)
        from neocoder.judge import DockerSandbox
        DockerSandbox(concurrency=1).close()  # its start sweeps containers a killed actor left


def ray_config(cluster, workers: int = 4) -> SandboxConfig:
    return SandboxConfig(workers=workers, executor="ray", ray_address=cluster[0].address)


def eval_config(release_dir, out, sandbox: SandboxConfig) -> EvalConfig:
    return EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=out, release_dir=release_dir,
                      dataset="release", limit=LIMIT, sandbox=sandbox, progress=False)


@pytest.fixture(scope="module")
def local_run(release_dir, tmp_path_factory):
    """The replay eval on the first LIMIT problems with the local executor."""
    return evaluate(eval_config(release_dir, tmp_path_factory.mktemp("local") / "run", SandboxConfig(workers=2)))


def samples(run) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def verdicts(run) -> dict:
    """(problem, state, sample) -> the verdicts of both tiers."""
    return {(s["problem_id"], s["state"], s["sample"]): [t["verdict"] for t in s["examples"]["tests"]]
            for s in samples(run)}


def summary_of(caplog) -> dict:
    found = [r.ray_summary for r in caplog.records if hasattr(r, "ray_summary")]
    assert found, "RaySandbox.close logged no summary"
    return found[-1]


def test_replay_eval_on_two_nodes_matches_the_local_executor(cluster, release_dir, local_run, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="neocoder.executors.ray")
    result = evaluate(eval_config(release_dir, tmp_path / "ray", ray_config(cluster)))
    summary = summary_of(caplog)
    first, second = (node.node_id for node in cluster[1])
    assert set(summary["judged"]) == {first, second}, summary
    assert summary["judged"][first] > 0 and summary["judged"][second] > 0  # both nodes judged work
    rows = samples(result.run)
    assert len(rows) == len(samples(local_run.run)) >= 5 * LIMIT
    assert sum(summary["judged"].values()) >= len(rows)  # every sample's examples went through the cluster
    assert not any(s["examples"]["infra"] for s in rows)
    assert verdicts(result.run) == verdicts(local_run.run)
    assert result.metrics["states"] == local_run.metrics["states"]


def kill_actor(node: dict) -> None:
    os.kill(node["pid"], signal.SIGKILL)


@pytest.mark.parametrize("attempts, expected", [(1, "INFRA"), (3, "AC")], ids=["no-try-left", "retried"])
def test_a_killed_actors_job_is_retried_elsewhere_a_bounded_number_of_times(cluster, attempts, expected):
    tests = [{"input": "", "output": "1\n"}]
    with RaySandbox(ray_config(cluster), attempts=attempts) as box:
        assert box.unavailable is None and box.capacity == 2
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(box.run, BUSY, tests, Limits.for_cpu(20))
            deadline = time.monotonic() + 30
            while not [n for n in box.nodes() if n["inflight"]] and time.monotonic() < deadline:
                time.sleep(0.05)
            busy = [n for n in box.nodes() if n["inflight"]]
            assert len(busy) == 1, box.nodes()
            time.sleep(0.5)  # the job is on that node
            kill_actor(busy[0])
            result = pending.result(timeout=120)
        summary = box.summary()
    assert result.verdicts == [expected], result.tests
    assert summary["actors_lost"] == 1
    if expected == "INFRA":  # lost once, no try left: INFRA (not a verdict on the program), with why
        assert "not judged after 1 tries" in result.tests[0].detail and summary["infra"] == 1
    else:  # judged on the other node
        assert summary["retried"] == 1 and summary["infra"] == 0
        assert result.worker.split("/")[0] != busy[0]["node_id"][:12]


def test_a_job_every_nodes_sandbox_fails_is_tried_then_infra(cluster):
    """INFRA from a node's sandbox is not a verdict: the job goes to another node, and after
    ``attempts`` tries it is INFRA with the node's reason (here Docker itself refuses to
    start a container with a negative tmpfs size, on every node)."""
    with RaySandbox(ray_config(cluster), attempts=2) as box:
        result = box.run(ADD, [{"input": "1 2\n", "output": "3\n"}], Limits(tmpfs_mb=-1))
        summary = box.summary()
    assert result.verdicts == ["INFRA"]
    assert "not judged after 2 tries" in result.tests[0].detail and "could not start a worker" in result.tests[0].detail
    assert summary["retried"] == 1 and summary["infra"] == 1 and summary["actors_lost"] == 0


def test_a_batch_that_cannot_be_sent_is_infra_and_the_executor_goes_on(cluster):
    """A job whose payload cannot be pickled (here a checker holding a lock) fails its own
    batch with INFRA naming the reason; the dispatcher keeps running, so the next job on
    the same sandbox is judged (it used to stop the dispatcher and hang the caller)."""
    import threading
    with RaySandbox(ray_config(cluster)) as box:
        bad = box.run(ADD, [{"input": "1 2\n", "output": "3\n"}], Limits.for_cpu(2), checker=threading.Lock())
        good = box.run(ADD, [{"input": "1 2\n", "output": "3\n"}], Limits.for_cpu(2))
    assert bad.verdicts == ["INFRA"] and "could not be sent" in bad.tests[0].detail
    assert good.verdicts == ["AC"]


def test_oracle_jobs_keep_their_output_and_a_stop_skips_the_rest(cluster):
    with open_sandbox(ray_config(cluster)) as box:
        script = box.run("import sys\nfor line in sys.stdin:\n    print(int(line) * 2)\n",
                         [{"input": "21\n", "output": ""}], Limits.for_cpu(2), keep_output=True, entry="script")
        failing = box.run(ADD, [{"input": "1 2\n", "output": "4\n"}, {"input": "2 2\n", "output": "4\n"}],
                          Limits.for_cpu(2), stop_at_first_failure=True)
        huge = box.run("#" * (70 << 10), [{"input": "", "output": ""}], Limits())  # never sent to a node
    assert script.tests[0].stdout == "42\n"
    assert failing.verdicts == ["WA", "SKIPPED"] and not failing.accepted
    assert huge.verdicts == ["RE"] and "limit 64 KB" in huge.tests[0].detail


def test_many_callers_share_batches_and_each_gets_its_own_result(cluster):
    """24 callers at once on two nodes of 4 slots: jobs leave in batches of several, and
    each caller gets its own program's verdict (every
    other job expects a wrong sum, so a result handed to the wrong caller shows)."""
    def one(i):
        expected = 2 * i + (i % 2)
        return box.run(ADD, [{"input": f"{i} {i}\n", "output": f"{expected}\n"}], Limits.for_cpu(2))

    with RaySandbox(ray_config(cluster, workers=24), slots=4) as box:
        assert box.capacity == 8
        with ThreadPoolExecutor(24) as pool:
            results = list(pool.map(one, range(48)))
        summary = box.summary()
    assert [r.verdicts for r in results] == [["WA"] if i % 2 else ["AC"] for i in range(48)]
    # every job left once, plus once more per retry (a node's sandbox that gave INFRA under load: the
    # job is queued again and its caller still gets one result, the right one)
    assert summary["jobs_in_batches"] == 48 + summary["retried"] and summary["infra"] == 0, summary
    assert summary["batches"] < 48, summary  # some calls carried several jobs


def test_a_batch_replies_with_fast_results_before_a_slow_one_ends(cluster):
    """A large batch's reply leaves with the jobs done within HOLD of the first to end:
    three quick programs come back while a slow one of the same call still runs, and
    the slow one's result follows in the reply of the actor's ``rest`` call."""
    from neocoder.executors.ray_dispatch import HOLD
    from neocoder.executors.ray_jobs import Job, pack
    limits, tests = Limits.for_cpu(20), [{"input": "1 2\n", "output": "3\n"}]

    def job(source):
        return Job({"source": source, "tests": tests, "limits": limits, "checker": None, "keep_output": False,
                    "entry": "auto", "stop_at_first_failure": True, "language": "python"}, True)

    with RaySandbox(ray_config(cluster), slots=4) as box:
        actor = box.cluster.usable()[0]
        replies, token = [], None
        finished, token = pickle.loads(ray.get(actor.handle.judge.remote(pack([job(BUSY)] + [job(ADD)] * 3), HOLD)))
        replies.append(finished)
        while token is not None:  # the slow one is still running: ask for the rest
            finished, token = pickle.loads(ray.get(actor.handle.rest.remote(token, HOLD)))
            replies.append(finished)
    order = [i for reply in replies for i, _, _ in reply]
    assert sorted(order[:3]) == [1, 2, 3] and order[3:] == [0], order  # the quick ones did not wait for it
    assert [i for i, _, _ in replies[-1]] == [0] and len(replies) >= 2  # the slow one alone, last
    results = {i: (r.verdicts, e) for reply in replies for i, r, e in reply}
    assert results == {0: (["WA"], None), 1: (["AC"], None), 2: (["AC"], None), 3: (["AC"], None)}


def test_a_small_batch_replies_once_and_a_delivered_job_keeps_its_first_result(cluster):
    """A batch under SPLIT_FROM jobs is judged whole in one reply (the call judges its
    first job itself); a job's result is delivered once: a later INFRA for it is dropped."""
    from neocoder.executors.ray_dispatch import settle
    from neocoder.executors.ray_jobs import Job, infra, pack
    limits, tests = Limits.for_cpu(2), [{"input": "1 2\n", "output": "3\n"}]
    jobs = [Job({"source": ADD, "tests": tests, "limits": limits, "checker": None, "keep_output": False,
                 "entry": "auto", "stop_at_first_failure": True, "language": "python"}, True) for _ in range(2)]
    with RaySandbox(ray_config(cluster), slots=2) as box:
        actor = box.cluster.usable()[0]
        finished, token = pickle.loads(ray.get(actor.handle.judge.remote(pack(jobs), None)))
    assert token is None and sorted(i for i, _, _ in finished) == [0, 1]
    assert all(r.verdicts == ["AC"] and e is None for _, r, e in finished)
    assert jobs[0].deliver(finished[0][1]) and not jobs[0].deliver(infra(tests, "late"))
    settle(jobs[0], infra(tests, "later"))
    assert jobs[0].wait().verdicts == ["AC"]


def test_no_node_with_the_resource_is_a_clear_error(cluster):
    box = RaySandbox(ray_config(cluster), resource="neocoder_sandbox_nowhere")
    try:
        assert "'neocoder_sandbox_nowhere'" in box.unavailable and "ray start" in box.unavailable
        assert "--resources" in box.unavailable
        assert box.run(ADD, [{"input": "1 2\n", "output": "3\n"}]).verdicts == ["INFRA"]
    finally:
        box.close()


def test_without_ray_or_a_cluster_the_message_says_what_to_do(tmp_path, release_dir):
    """Run as a user would, in a fresh process: Ray hidden from the import system, and an
    address nothing listens on."""
    script = ("import sys\n"
              "if sys.argv[1] == 'hide': sys.modules['ray'] = None  # `import ray` raises ImportError\n"
              "from neocoder.cli import main\n"
              "main(sys.argv[2:])\n")
    common = ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "1", "--dataset", "release",
              "--release", str(release_dir), "--executor", "ray", "--quiet"]
    hidden = subprocess.run([sys.executable, "-c", script, "hide", *common, "--out", str(tmp_path / "a")],
                            capture_output=True, text=True, timeout=120)
    assert hidden.returncode != 0 and "pip install 'neocoder[ray]'" in hidden.stderr + hidden.stdout
    nowhere = subprocess.run([sys.executable, "-c", script, "keep", *common, "--ray-address", "127.0.0.1:9",
                              "--out", str(tmp_path / "b")], capture_output=True, text=True, timeout=120)
    out = nowhere.stderr + nowhere.stdout
    assert nowhere.returncode != 0 and "cannot reach the Ray cluster at 127.0.0.1:9" in out and "ray start" in out


def test_serve_judges_through_the_ray_executor(cluster, release_dir):
    from neocoder.serve.judging import JudgeService
    judge = JudgeService(release_dir, "release", SandboxConfig("docker", workers=2, executor="ray",
                                                             ray_address=cluster[0].address))
    try:
        assert judge.health() == {"sandbox": "ray", "image": default_image(), "ok": True, "detail": None}
        result = judge.run(ADD, [{"input": "1 2\n", "output": "3\n"}, {"input": "5 5\n"}], 2.0, 256)
        assert result.verdicts == ["AC", "OK"] and result.tests[1].stdout == "10\n"
        record, scores = judge.score("1901A", 0, "```python\n" + ADD + "```")
        assert record.examples is not None and not scores["infra"]
    finally:
        judge.close()


def test_a_node_killed_mid_run_loses_no_sample(cluster, release_dir, local_run, tmp_path, caplog):
    """Runs last: it kills a judging node's raylet (and with it the node's actor)."""
    caplog.set_level(logging.INFO, logger="neocoder.executors.ray")
    made, judges = cluster
    out = tmp_path / "ray"
    outcome: dict = {}
    run = threading.Thread(target=lambda: outcome.update(
        result=evaluate(eval_config(release_dir, out, ray_config(cluster)))))
    run.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
                (out / "records.jsonl").is_file() and len((out / "records.jsonl").read_text().splitlines()) >= 10):
            time.sleep(0.05)
        driver = ray.get_runtime_context().get_node_id()
        victim = next(node for node in judges if node.node_id != driver)  # killing the driver's would end it
        made.remove_node(victim, allow_graceful=False)  # the raylet and every process of the node: SIGKILL
    finally:
        run.join(timeout=300)
    assert "result" in outcome, "the eval did not finish"
    rows = samples(out)
    keys = [(s["problem_id"], s["state"], s["sample"]) for s in rows]
    assert len(keys) == len(set(keys)) == len(samples(local_run.run))  # every sample judged once
    assert not any(s["examples"]["infra"] or (s["plus"] or {}).get("infra") for s in rows)
    assert verdicts(out) == verdicts(local_run.run)
    assert outcome["result"].metrics["states"] == local_run.metrics["states"]
    summary = summary_of(caplog)
    assert summary["actors_lost"] >= 1 and summary["retried"] >= 1 and summary["infra"] == 0, summary
