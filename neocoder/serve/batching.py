"""A batch of ``/v1/score`` as an NDJSON stream: each program judged on its own judge slot,
each result sent as soon as it is ready.

Admission: a batch runs in at most ``per_token`` lanes (and no more than the caller's share
of the workers, ``token_workers``), each holding one of the caller's
tickets (the per-token limit, shared with its other requests) across its programs and
taking the next item when one is done.  Another caller's request so waits behind at most
that many of the batch's programs in the judge queue (a batch of 256 cannot take the judge
from other tokens), and a request of the same token cannot slip in between two programs of a
lane.  A lane refused its ticket (the caller's other requests or the queue are full) waits
and tries again instead of failing; only the batch's first admission is a 429, before the
stream starts (``admit_batch``).

Archives: the programs of one problem are measured against the caller's archive and
added to it in item order (``rewards.batch.predecessors``; the archive step runs after
the judging, outside the judge slot, so waiting for an earlier item never holds a slot).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from neocoder.errors import NeocoderError
from neocoder.rewards.batch import ScoreResult, failed, predecessors, settle
from neocoder.serve.judging import TooLarge, Unavailable
from neocoder.serve.limits import Busy
from neocoder.serve.schemas import BatchItem, BatchScoreRequest
from neocoder.serve.services import Services

log = logging.getLogger("neocoder.serve")
NDJSON = "application/x-ndjson"


def admit_batch(s: Services, who: str, body: BatchScoreRequest) -> None:
    """Refuse a batch before its stream starts: TooLarge (413, field ``items``) past
    ``max_batch`` items, Unavailable (503) while draining or without a sandbox, Busy (429)
    when not even one of its programs would be admitted now, or when its programs would pass
    the caller's quota of programs a minute (the whole batch is counted against the quota
    here, once; its programs' judge calls then count nothing more)."""
    limit = min(s.config.max_batch, s.config.programs_per_minute)  # a bigger batch would never fit the quota
    if len(body.items) > limit:
        raise TooLarge("items", len(body.items), limit, unit="items")
    s.refuse_when_draining()
    if s.judge.box.unavailable:
        raise Unavailable(s.judge.box.unavailable)
    with s.admission.ticket(who, programs=len(body.items)):
        pass


def count_verdicts(s: Services, record) -> None:
    """Count a scored sample's verdicts of both tiers under the ``score`` endpoint."""
    for tier in (record.examples, record.plus):
        if tier is not None:
            s.telemetry.count_verdicts("score", tier.verdicts)


@asynccontextmanager
async def _lane_ticket(s: Services, who: str):
    """One ticket of ``who`` held for a lane's programs, waiting (up to a second between
    tries) while the caller's per-token limit or the judge queue is full.  Held across the
    lane's programs, so another request of the same token cannot slip in between two of them
    and the batch keeps at most the lanes it started with."""
    delay = 0.05
    while True:
        try:
            ticket = s.admission.ticket(who, programs=0)  # the programs were counted in admit_batch
            ticket.__enter__()
            break
        except Busy:
            await anyio.sleep(delay)
            delay = min(1.0, delay * 2)
    try:
        yield
    finally:
        ticket.__exit__(None, None, None)


async def _score_one(s: Services, who: str, body: BatchScoreRequest, i: int, before: int | None,
                     done: list[anyio.Event]) -> ScoreResult:
    item: BatchItem = body.items[i]
    try:
        while (wait := s.admission.time.wait(who)) > 0:  # the caller's judge seconds of the minute are used
            await anyio.sleep(min(wait, 1.0))
        record, scores = await s.judge_admitted(who, "score", lambda cancel: s.judge.score(
            item.problem_id, item.state, item.text, body.model, judge_all_tests=body.judge_all_tests,
            language=body.language, cancel=cancel))
        count_verdicts(s, record)
        if before is not None:
            await done[before].wait()
        return await anyio.to_thread.run_sync(lambda: settle(i, record, scores, body.reward_weights(),
                                                             s.store.archives, who, body.archive))
    except Exception as exc:  # noqa: BLE001 - one bad item must not lose the batch
        if not isinstance(exc, NeocoderError):
            log.warning("batch item %d failed: %s", i, exc)
        return failed(i, item.problem_id, item.state, exc)
    finally:
        done[i].set()


async def stream_batch(s: Services, who: str, body: BatchScoreRequest) -> AsyncIterator[bytes]:
    """The batch's results as NDJSON lines (one ScoreResult JSON each), in the order they
    are judged; at most the caller's share of the workers (``token_workers``, and at most
    ``per_token``) programs of the batch are in the judge at once.  A stream its client
    abandons is cancelled (Starlette): every item in flight is stopped (abandon.py) and
    none starts later."""
    n = len(body.items)
    order = predecessors([item.problem_id for item in body.items], body.archive)
    done = [anyio.Event() for _ in range(n)]
    send, receive = anyio.create_memory_object_stream(math.inf)
    indices = iter(range(n))  # shared by the workers: each takes the next item in index order

    async def worker():
        async with _lane_ticket(s, who):
            for i in indices:
                await send.send(await _score_one(s, who, body, i, order[i], done))

    async def run_all():
        async with send:
            async with anyio.create_task_group() as workers:
                for _ in range(min(n, s.config.per_token, s.config.token_workers)):
                    workers.start_soon(worker)

    async with anyio.create_task_group() as group:
        group.start_soon(run_all)
        async with receive:
            async for result in receive:
                yield (json.dumps(result.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
