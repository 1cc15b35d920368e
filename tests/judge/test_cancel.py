"""A submission whose caller has gone is stopped: both sandbox backends, for real.

A sleeper (wall backstop 30 s) is judged on a thread; its ``Cancel`` is set once the worker
has it; the run raises Cancelled long before the backstop, the worker is gone, and the pool
judges the next submission on a new worker.  A ``Cancel`` never set changes nothing.
"""

import threading

import docker
import pytest
from waiting import wait_until

from neocoder.judge import Cancel, Cancelled, Limits, make_sandbox

pytestmark = pytest.mark.docker
BOTH_BACKENDS = pytest.mark.parametrize("kind", ["docker", "process"])

SLEEPER = "import time\ntime.sleep(60)\n"
SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
TEST = [{"input": "1 2\n", "output": "3\n"}]
LIMITS = Limits(cpu_seconds=1, wall_seconds=30, memory_mb=128)
BACKSTOP = 25  # seconds: well under the sleeper's 30 s wall, well over a stop


def judge_on_a_thread(box, source, cancel, started=None):
    """Run ``box.run`` on a thread; the list it returns gets the result or the exception."""
    out: list = []

    def work():
        try:
            out.append(box.run(source, TEST, LIMITS, cancel=cancel))
        except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
            out.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread, out


def busy_workers(box) -> set:
    """The workers judging now: live ones that are not idle."""
    with box._lock:
        return set(box._workers) - set(box._idle)


@BOTH_BACKENDS
def test_a_running_submission_is_stopped_when_its_caller_goes(kind):
    with make_sandbox(kind, concurrency=1) as box:
        cancel = Cancel()
        thread, out = judge_on_a_thread(box, SLEEPER, cancel)
        assert wait_until(lambda: busy_workers(box), BACKSTOP), "the sleeper never reached a worker"
        (worker,) = busy_workers(box)
        cancel.set()
        thread.join(BACKSTOP)
        assert not thread.is_alive(), "the sleeper was waited for, not stopped"
        assert isinstance(out[0], Cancelled), out
        assert worker not in box._workers and worker not in box._idle  # destroyed, never reused
        if kind == "docker":
            with pytest.raises(docker.errors.NotFound):
                box.client.containers.get(worker.container.id)
        else:
            assert worker.proc.poll() is not None
        again = box.run(SUM, TEST, LIMITS)  # the pool judges on
        assert again.verdicts == ["AC"] and again.worker != worker.name


@BOTH_BACKENDS
def test_a_cancel_never_set_changes_nothing(kind):
    with make_sandbox(kind, concurrency=1) as box:
        first = box.run(SUM, TEST, LIMITS, cancel=Cancel())
        second = box.run(SUM, TEST, LIMITS, cancel=Cancel())
        assert first.verdicts == second.verdicts == ["AC"]
        assert first.worker == second.worker  # the worker was kept and reused


def test_a_submission_waiting_for_a_slot_never_takes_one_once_cancelled():
    with make_sandbox("docker", concurrency=1) as box:
        holder = Cancel()
        hold, held = judge_on_a_thread(box, SLEEPER, holder)
        assert wait_until(lambda: busy_workers(box), BACKSTOP)
        waiting = Cancel()
        wait, waited = judge_on_a_thread(box, SUM, waiting)
        assert not wait_until(lambda: bool(waited), seconds=1)  # it waits behind the sleeper
        waiting.set()
        wait.join(BACKSTOP)
        assert isinstance(waited[0], Cancelled) and "before the submission was judged" in str(waited[0])
        assert len(busy_workers(box)) == 1  # the sleeper alone: the cancelled one never started
        holder.set()
        hold.join(BACKSTOP)
        assert isinstance(held[0], Cancelled)


def test_a_cancel_set_before_the_run_raises_at_once_and_starts_nothing():
    with make_sandbox("process", concurrency=1) as box:
        cancel = Cancel()
        cancel.set()
        with pytest.raises(Cancelled):
            box.run(SUM, TEST, LIMITS, cancel=cancel)
        assert not box._workers


def test_cancel_runs_each_callback_once_and_at_once_when_already_set():
    cancel, calls = Cancel(), []
    with cancel.watching(lambda: calls.append("a")):
        cancel.set()
        cancel.set()
    assert calls == ["a"] and cancel.is_set() and cancel.wait(0)
    with cancel.watching(lambda: calls.append("b")):
        pass
    assert calls == ["a", "b"]
    other = Cancel()
    with other.watching(lambda: calls.append("c")):
        pass
    other.set()  # the block has ended: its callback is not run
    assert calls == ["a", "b"]
