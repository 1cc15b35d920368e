"""How the Ray executor packs a batch: each test list, limit and checker once per call.

Pure driver-side code (``neocoder.executors.ray_jobs.pack``), no cluster: the batches on
a real cluster are tested in tests/executors/test_ray.py."""

from __future__ import annotations

import pickle
import threading

from neocoder.executors.ray_jobs import Job, pack
from neocoder.judge import Limits


def job(source: str, tests: list[dict], limits: Limits, checker=None, stop: bool = True) -> Job:
    payload = {"source": source, "tests": tests, "limits": limits, "checker": checker, "keep_output": False,
               "entry": "auto", "stop_at_first_failure": stop, "language": "python"}
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
        source, tests, lim, check, keep, entry, stop, language = row
        p = j.payload
        assert (source, shared[tests], shared[lim], shared[check], keep, entry, stop, language) == (
            p["source"], p["tests"], p["limits"], p["checker"], p["keep_output"], p["entry"],
            p["stop_at_first_failure"], p["language"])


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


# -- the dispatcher's steps, on a stand-in cluster (no Ray): what wakes it, what it sends --

class _Ref:
    def __init__(self):
        from concurrent.futures import Future
        self.fut = Future()

    def future(self):
        return self.fut


class _Method:
    def __init__(self):
        self.calls = []

    def remote(self, *args):
        self.calls.append((args, _Ref()))
        return self.calls[-1][1]


class _Handle:
    def __init__(self):
        self.judge, self.rest, self.forget = _Method(), _Method(), _Method()


class _Cluster:
    def __init__(self, *actors):
        self.actors = {a.key: a for a in actors}

    def usable(self):
        return [a for a in self.actors.values() if a.state == "up"]

    def probes(self, now):
        return {}

    def discover(self):
        pass

    def describe(self):
        return ""

    def lost(self, actor, exc):
        actor.state, actor.inflight = "down", 0
        return True


class _RayError(Exception):
    pass


class _RayActorError(_RayError):
    pass


def _dispatcher(*actors):
    from types import SimpleNamespace

    from neocoder.executors.ray_dispatch import Dispatcher
    ray = SimpleNamespace(exceptions=SimpleNamespace(RayError=_RayError, RayActorError=_RayActorError))
    return Dispatcher(ray, _Cluster(*actors), threading.Lock(), attempts=3)


def _actor(key, slots=2, inflight=0):
    from neocoder.executors.ray_jobs import Actor
    return Actor(key, key * 6, _Handle(), slots, state="up", inflight=inflight)


def test_a_job_waiting_for_another_actor_does_not_spin_the_dispatcher():
    """A retried job that lost actor A waits for B, whose window is full: the dispatcher
    sleeps until a reply or a new job (it used to loop with no wait), and a new job,
    which A can take, wakes it and leaves at once."""
    import time

    from neocoder.executors.ray_dispatch import HOUSEKEEPING
    a, b = _actor("a"), _actor("b", inflight=4)
    d = _dispatcher(a, b)
    waiting = job("print(1)", [], Limits.for_cpu(1))
    waiting.avoid.add("a")
    d.submit(waiting)
    waiting.queued = time.monotonic() - 1  # its LINGER is long past
    assert [d._step() for _ in range(3)] == [HOUSEKEEPING] * 3 and list(d.queue) == [waiting]
    assert not a.handle.judge.calls
    d.wake.clear()
    fresh = job("print(2)", [], Limits.for_cpu(1))
    d.submit(fresh)
    assert d.wake.is_set()  # an actor can take it: the sleeping dispatcher wakes
    d._step()
    d._step()  # its LINGER (1 ms) may not be over at the first step
    time.sleep(0.002)
    d._step()
    assert len(a.handle.judge.calls) == 1 and list(d.queue) == [waiting]


def test_a_reply_wakes_the_dispatcher_and_a_failed_call_keeps_its_actor():
    """A reply completes the call's future: the dispatcher is woken and delivers the
    result.  A call that fails while its actor lives (not an actor error) sends its jobs
    elsewhere (here, with no other actor, on the same one again) and keeps the actor up."""
    from neocoder.judge.verdicts import SubmissionResult, TestVerdict
    a = _actor("a")
    d = _dispatcher(a)
    first, second = job("print(1)", [], Limits.for_cpu(1)), job("print(2)", [], Limits.for_cpu(1))
    d.submit(first)
    first.queued -= 1  # past its LINGER: it leaves at the next step
    d._step()
    (_, ref), = a.handle.judge.calls
    d.wake.clear()
    ref.fut.set_result(pickle.dumps(([(0, SubmissionResult(tests=[TestVerdict("AC")]), None)], None)))
    assert d.wake.is_set()
    d._step()
    assert first.wait().verdicts == ["AC"] and a.inflight == 0
    d.submit(second)
    second.queued -= 1
    d._step()
    (_, ref) = a.handle.judge.calls[-1]
    ref.fut.set_exception(_RayError("the call failed"))
    d._step()
    assert a.state == "up" and second.attempts == 1 and second.avoid == {"a"} and d.stats["actors_lost"] == 0
    assert len(a.handle.judge.calls) == 3 and a.inflight == 1  # tried again on the only actor there is


def test_a_reply_to_a_batch_given_up_has_the_actor_forget_what_it_kept():
    """A batch dropped with its actor (here: its actor unreachable for a while) whose
    reply still arrives with jobs left running: the driver tells the actor to forget
    them, so the actor's table of running batches does not grow."""
    a = _actor("a")
    d = _dispatcher(a)
    first, second = job("print(1)", [], Limits.for_cpu(1)), job("print(2)", [], Limits.for_cpu(1))
    d.submit(first)
    d.submit(second)
    first.queued -= 1
    d._step()
    (_, lost_ref), = a.handle.judge.calls
    third = job("print(3)", [], Limits.for_cpu(1))
    d.submit(third)
    third.queued -= 1
    d._step()
    _, other_ref = a.handle.judge.calls[-1]
    other_ref.fut.set_exception(_RayActorError("unreachable"))  # drops every batch of the actor
    d._step()
    lost_ref.fut.set_result(pickle.dumps(([], 7)))  # the dropped batch's reply: token 7 still running
    d._step()
    assert [args for args, _ in a.handle.forget.calls] == [(7,)]
