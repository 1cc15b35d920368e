"""Model calls in flight apart from sandbox workers (--max-connections), and the run-wide
slowdown a rate-limited endpoint gets (neocoder/models/limiter.py).

The limiter's rules are checked alone, with no endpoint; the eval tests run `neocoder
eval`'s task against a real paced HTTP endpoint on loopback (loopback.PacedServer) and
judge in the real Docker sandbox.  The one timed assertion is the issue's bound, with a
wide margin on both sides: 40 states at 1 s per call take at least 20 s with the old
runner (2 samples in flight, one per sandbox worker) and about 5 s with 32 connections;
the bound is 12 s.  Speed ratios are perf/max_connections.py's.
"""

import threading

import pytest
from loopback import PacedServer
from paced_eval import ContainerWatch, eval_config, reply, timed_eval, write_states

from neocoder.models.limiter import ConnectionLimiter, retry_after
from neocoder.records import Sample
from neocoder.store import RunFolder


def test_refusals_halve_the_limit_and_answers_raise_it_back_to_the_maximum():
    limiter = ConnectionLimiter(8)
    for _ in range(2):
        with limiter.slot() as slot:
            slot.overloaded()
    assert limiter.limit == 2 and limiter.refusals == 2
    for _ in range(5):
        with limiter.slot() as slot:
            slot.overloaded()
    assert limiter.limit == 1  # never below one call
    for _ in range(200):
        with limiter.slot():
            pass
    assert limiter.limit == 8  # never above --max-connections
    with pytest.raises(RuntimeError), limiter.slot():
        raise RuntimeError("a bad request: neither refused nor answered")
    assert limiter.limit == 8 and limiter.in_flight == 0


def test_no_call_starts_beyond_the_limit():
    limiter = ConnectionLimiter(3)
    inside, most, lock = [0], [0], threading.Lock()
    release = threading.Event()

    def call():
        with limiter.slot():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            release.wait()
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=call) for _ in range(10)]
    for t in threads:
        t.start()
    while limiter.in_flight < 3:
        release.wait(0.01)
    assert limiter.in_flight == 3  # the other seven wait for a connection
    release.set()
    for t in threads:
        t.join()
    assert most[0] == 3 and limiter.in_flight == 0


def test_retry_after_is_read_in_seconds_milliseconds_or_as_a_date():
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # long past: now
    assert retry_after({"retry-after": "3600"}) is None  # over a minute: back off as usual instead
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None


@pytest.fixture(scope="module")
def states(tmp_path_factory, release_dir):
    return write_states(release_dir, tmp_path_factory.mktemp("states") / "states.jsonl", 40)


def judged(out) -> list[tuple]:
    """What each sample of the run folder ``out`` says, in key order (no timings)."""
    return [(s.key, s.seed, s.prompt_sha256, s.code, [t["verdict"] for t in s.examples.tests], s.techniques,
             s.follows, s.divergent) for s in sorted(RunFolder(out).read(Sample), key=lambda s: s.key)]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory, states, release_dir):
    """The metrics and samples of one call at a time (--max-connections 1) on an endpoint
    with no latency: the replies depend on the prompt only, so any N must give these."""
    server = PacedServer(reply, delay=0.0)
    out = tmp_path_factory.mktemp("n1") / "run"
    try:
        metrics, _ = timed_eval(eval_config(server.url, states, out, release_dir, 1))
    finally:
        server.close()
    assert server.most_active == 1
    return metrics, judged(out)


@pytest.mark.docker
def test_32_connections_finish_40_slow_calls_fast_with_2_containers_and_the_same_metrics(
        tmp_path, states, release_dir, baseline):
    server = PacedServer(reply, delay=1.0)
    try:
        with ContainerWatch() as containers:
            metrics, seconds = timed_eval(eval_config(server.url, states, tmp_path / "run", release_dir, 32))
    finally:
        server.close()
    assert seconds <= 12, f"40 calls of 1 s with 32 connections took {seconds:.1f} s"
    assert server.most_active > 2  # calls in flight beyond the 2 sandbox workers
    assert 1 <= containers.most <= 2, f"{containers.most} sandbox containers at once with --workers 2"
    assert (metrics, judged(tmp_path / "run")) == baseline


@pytest.mark.docker
def test_an_endpoint_refusing_more_than_4_calls_loses_no_sample(tmp_path, states, release_dir, baseline):
    server = PacedServer(reply, delay=0.5, capacity=4, retry_after=1)
    try:
        metrics, _ = timed_eval(eval_config(server.url, states, tmp_path / "run", release_dir, 32))
    finally:
        server.close()
    samples = RunFolder(tmp_path / "run").read(Sample)
    assert len(samples) == 40 and not [s.error for s in samples if s.error]
    assert server.refused > 0 and server.most_active == 4  # it did refuse: the limiter had something to do
    twice = server.retried_more_than_once()
    assert twice < 0.1 * len(server.attempts), f"{twice} of {len(server.attempts)} calls retried more than once"
    assert (metrics, judged(tmp_path / "run")) == baseline
