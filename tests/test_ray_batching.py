"""How the Ray executor packs a batch: each test list, limit and checker once per call.

Pure driver-side code (``neocoder.executors.ray_jobs.pack``), no cluster: the batches on
a real cluster are tested in tests/test_ray.py."""

from __future__ import annotations

import pickle
import threading

from neocoder.executors.ray_jobs import Job, pack
from neocoder.judge import Limits


def job(source: str, tests: list[dict], limits: Limits, checker=None, stop: bool = True) -> Job:
    payload = {"source": source, "tests": tests, "limits": limits, "checker": checker, "keep_output": False,
               "entry": "auto", "stop_at_first_failure": stop}
    return Job(payload, stop)


def test_a_batch_carries_each_shared_test_list_once():
    big = [{"input": "x" * 50_000, "output": "y\n"}]  # one problem's tests, shared by its samples
    other = [{"input": "1 2\n", "output": "3\n"}]
    limits = Limits.for_cpu(2)
    checker = {"kind": "tokens", "ignore_case": True, "tolerance": None}
    jobs = [job(f"print({i})", big, limits) for i in range(20)] + [job("print(3)", other, limits, checker, False)]
    blob = pack(jobs)
    assert len(blob) < 2 * 50_000  # 21 jobs, the 50 KB test input shipped once
    rows, shared = pickle.loads(blob)
    assert len(rows) == 21 and len(shared) == 5  # big, limits, None (no checker), other, checker
    for row, j in zip(rows, jobs):
        source, tests, lim, check, keep, entry, stop = row
        p = j.payload
        assert (source, shared[tests], shared[lim], shared[check], keep, entry, stop) == (
            p["source"], p["tests"], p["limits"], p["checker"], p["keep_output"], p["entry"],
            p["stop_at_first_failure"])


def test_a_job_is_delivered_once_whichever_thread_delivers_first():
    """Eight threads deliver eight different results to one job at once: exactly one
    delivery is taken, and the caller blocked in ``wait`` gets that one."""
    from neocoder.judge.verdicts import SubmissionResult
    j = job("print(1)", [], Limits.for_cpu(1))
    results = [SubmissionResult(tests=[], worker=str(i)) for i in range(8)]
    taken, got = [], []
    waiter = threading.Thread(target=lambda: got.append(j.wait()))
    waiter.start()
    start = threading.Barrier(8)

    def deliver(r):
        start.wait()
        if j.deliver(r):
            taken.append(r)

    threads = [threading.Thread(target=deliver, args=(r,)) for r in results]
    for t in threads:
        t.start()
    for t in threads + [waiter]:
        t.join(timeout=10)
    assert len(taken) == 1 and got == taken and j.wait() is taken[0]
