"""Batched scoring (neocoder/rewards/batch.py): the in-process Scorer and score_batch, and
/v1/score's batch body streamed as NDJSON by the real server, on recorded GPT-4 state-0
programs judged in the real Docker sandbox."""

import json
import time

import pytest
from servers import OTHER, TOKEN, ServerProcess

from neocoder.config import SandboxConfig
from neocoder.dataset import shipped
from neocoder.rewards import RewardWeights, ScoreItem, Scorer, ScoreResult, reward, score_batch

SLOW = "import time\ntime.sleep(3)\nprint(0)\n"  # no CPU, so no TLE: about 3 s of wall time, then WA
PROBLEMS = ("1884A", "1878A", "1872A", "1850B", "1901A", "1899A")  # GPT-4 passes the first four


@pytest.fixture(scope="module")
def recorded() -> dict[str, str]:
    """The recorded GPT-4 program of each problem's state 0 (index = the state's source_index)."""
    codes = shipped.recorded_codes("gpt-4-1106-preview")
    states = {s.problem_id: s for s in shipped.load_states() if s.state == 0}
    return {pid: codes[pid][states[pid].source_index] for pid in PROBLEMS}


@pytest.fixture(scope="module")
def scorer():
    with Scorer(SandboxConfig(workers=2), judge_all_tests=False) as opened:
        yield opened


@pytest.fixture(scope="module")
def server(tmp_path_factory, release_dir):
    # a token may use both workers here (the default share is one): the stream's order is what is tested
    srv = ServerProcess(tmp_path_factory.mktemp("batch") / "data", release_dir, "--workers", "2",
                        "--per-token-workers", "2").start()
    yield srv
    assert srv.stop(), srv.log.read_text()


def stable(sample: dict) -> dict:
    """A sample record without what differs from one judging to the next (times, memory)."""
    out = {k: v for k, v in sample.items() if k != "timings"}
    for tier in ("examples", "plus"):
        if out.get(tier):
            out[tier] = dict(out[tier], tests=[{k: t.get(k) for k in ("verdict", "stdout_head", "detail")}
                                               for t in out[tier]["tests"]])
    return out


def test_score_item_needs_exactly_one_source():
    with pytest.raises(ValueError):
        ScoreItem("1901A", 0)
    with pytest.raises(ValueError):
        ScoreItem("1901A", 0, reply="a", program="b")
    assert ScoreItem.of({"problem_id": "1901A", "state": 0, "reply": "x"}).text == "x"
    result = ScoreResult(3, "1901A", 0, 1.5, {"correct": True}, {"type": "sample"})
    assert ScoreResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


@pytest.mark.docker
def test_scorer_batch_in_index_order_with_bad_items(scorer, recorded):
    items = [ScoreItem(pid, 0, program=code) for pid, code in recorded.items()]
    items += [ScoreItem("9999Z", 0, program="print(1)"), ScoreItem("1884A", 19, program="print(1)"),
              {"problem_id": "1884A", "state": 0, "reply": "x", "program": "y"}]
    results = score_batch(items, scorer=scorer)
    assert [r.index for r in results] == list(range(len(items)))
    good, bad = results[:len(recorded)], results[len(recorded):]
    assert [r.error for r in good] == [None] * len(good)
    assert [r.scores["correct_plus"] for r in good[:4]] == [True] * 4
    for r in good:
        assert r.reward == reward(r.scores) and 0.0 <= r.reward <= RewardWeights().total
        assert r.sample["problem_id"] == r.problem_id and r.sample["code"].strip() == recorded[r.problem_id].strip()
        assert "novelty" not in r.scores  # no archive named
    assert all(r.reward >= 1.0 for r in good[:4]) and all(r.reward == 0.0 for r in good[4:])
    assert bad[0].error.startswith("problem_id:") and bad[1].error.startswith("state:")
    assert "exactly one" in bad[2].error
    assert all(r.reward == 0.0 and r.sample == {} for r in bad)


@pytest.mark.docker
def test_scorer_yields_as_judged_and_archives_in_index_order(scorer, recorded):
    fast = recorded["1884A"]
    items = [ScoreItem("1884A", 0, program=SLOW), ScoreItem("1884A", 0, program=fast),
             ScoreItem("1878A", 0, program=recorded["1878A"])]
    seen = [r.index for r in scorer.score(items)]
    assert seen[-1] == 0 and sorted(seen) == [0, 1, 2]  # completion order: the slow program last
    for archive in ("order", "again"):
        arrived = list(scorer.score(items + [ScoreItem("1884A", 0, program=fast)], archive=archive))
        assert [r.index for r in arrived].index(2) < [r.index for r in arrived].index(0)  # 1878A did not wait
        results = sorted(arrived, key=lambda r: r.index)
        sizes = [r.scores["novelty"]["archive_size"] for r in results]
        assert sizes == [0, 1, 0, 2]  # by index: item 1, judged 3 s before item 0, waited for it
    assert results[3].scores["novelty"] == {"new_share": 0.0, "nearest_distance": 0.0, "archive_size": 2}
    assert results[1].scores["novelty"]["nearest_distance"] > 0.5  # unlike the slow program before it
    assert results[1].reward > results[3].reward  # the second copy earns no novelty
    assert {a["name"]: a["programs"] for a in scorer.archives.list("")} == {"order": 4, "again": 4}


@pytest.mark.docker
def test_server_batch_equals_single_scores_and_streams_line_by_line(server, recorded):
    items = [{"problem_id": pid, "state": 0, "program": code} for pid, code in recorded.items()]
    results = score_batch(items, server=server.url, token=TOKEN, judge_all_tests=False)
    assert [r.index for r in results] == list(range(len(items)))
    for item, got in zip(items, results):
        single = server.call("POST", "/v1/score", json=dict(item, judge_all_tests=False))
        assert single.status_code == 200
        single = single.json()
        assert got.error is None and got.scores == single["scores"], item["problem_id"]
        assert stable(got.sample) == stable(single["sample"])
        assert got.reward == reward(single["scores"])

    slow_first = [{"problem_id": "1884A", "state": 0, "program": SLOW}] + items[:3]
    started = time.monotonic()
    answer = server.call("POST", "/v1/score", json={"items": slow_first, "judge_all_tests": False}, stream=True)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
    arrivals = [(json.loads(line)["index"], time.monotonic() - started) for line in answer.iter_lines() if line]
    assert sorted(i for i, _ in arrivals) == [0, 1, 2, 3]
    assert arrivals[-1][0] == 0  # the slow program's line comes last ...
    assert arrivals[0][1] < arrivals[-1][1] - 1.5  # ... and the first line came well before it


@pytest.mark.docker
def test_server_batch_limits_and_validation(server, recorded):
    item = {"problem_id": "1884A", "state": 0, "program": "print(1)"}
    over = server.call("POST", "/v1/score", json={"items": [item] * 257})
    assert over.status_code == 413 and over.json()["field"] == "items"
    assert "257 items" in over.json()["detail"] and "256" in over.json()["detail"]
    empty = server.call("POST", "/v1/score", json={"items": []})
    assert empty.status_code == 422 and empty.json()["field"] == "body.items"
    bad = server.call("POST", "/v1/score", json={"items": [dict(item, state=-1)], "weights": {"novelty": -1}})
    assert bad.status_code == 422
    assert {d["field"] for d in bad.json()["detail"]} == {"body.items.0.state", "body.weights.novelty"}
    unknown = server.call("POST", "/v1/score", json={"items": [item], "archve": "x"})
    assert unknown.status_code == 422 and unknown.json()["field"] == "body.archve"
    mixed = server.call("POST", "/v1/score", json={"items": [item, {"problem_id": "9999Z", "state": 0, "program": "x"},
                                                             dict(item, program="y = 2\n" * 20000)]})
    lines = sorted((json.loads(line) for line in mixed.text.splitlines()), key=lambda r: r["index"])
    assert lines[0]["error"] is None and lines[0]["scores"]["correct"] is False
    assert lines[1]["error"].startswith("problem_id:") and lines[2]["error"].startswith("reply:")
    weighted = server.call("POST", "/v1/score", json={"items": [dict(item, program=recorded["1884A"])],
                                                      "weights": {"correct": 0, "follows": 0, "divergent": 0,
                                                                  "novelty": 3}, "archive": "w"})
    line = json.loads(weighted.text)
    assert line["reward"] == pytest.approx(3 * 0.5 * (line["scores"]["novelty"]["new_share"] + 1.0))
    schema = server.call("GET", "/openapi.json").json()
    assert {"ScoreRequest", "BatchScoreRequest", "RewardWeights", "ArchiveList"} <= set(schema["components"]["schemas"])
    assert {"/v1/archives", "/v1/archives/{name}"} <= set(schema["paths"])


@pytest.mark.docker
def test_a_batch_takes_a_judge_ticket_per_program_and_leaves_room_for_other_tokens(tmp_path, release_dir):
    import threading

    srv = ServerProcess(tmp_path / "data", release_dir, "--workers", "2", "--per-token-concurrency", "2",
                        "--per-token-workers", "2").start()  # the whole judge: the lanes are what is tested
    try:
        item = {"problem_id": "1884A", "state": 0, "program": SLOW}
        events: list = []  # what the test saw, in the order it saw it: no clock is read

        def other():
            answer = srv.call("POST", "/v1/score", token=OTHER, json=dict(item, judge_all_tests=False))
            events.append(("other", answer.status_code))

        answer = srv.call("POST", "/v1/score", json={"items": [item] * 6, "judge_all_tests": False}, stream=True)
        lines = answer.iter_lines(chunk_size=None)  # each line as it arrives (512-byte reads could hold it back)
        first = json.loads(next(line for line in lines if line))  # two programs judged: four to go, two rounds
        streaming = threading.Event()
        mine: list[int] = []

        def same_token():  # asks again and again while items wait: never let in between a lane's programs
            while not streaming.is_set():
                mine.append(srv.call("POST", "/v1/score", json=dict(item, judge_all_tests=False)).status_code)

        threads = [threading.Thread(target=other), threading.Thread(target=same_token)]
        for thread in threads:
            thread.start()
        rest = []
        for line in lines:
            if line:
                rest.append(json.loads(line))
                events.append(("batch", len(rest)))
                if len(rest) == 3:  # four results in: the last two items are taken, each lane's last program
                    streaming.set()  # (a lane that has ended gives its ticket back: a request may come in)
        streaming.set()
        for thread in threads:
            thread.join(60)
        assert mine and set(mine) == {429}, mine  # the batch holds this token's two tickets throughout
        assert sorted(r["index"] for r in [first, *rest]) == list(range(6))
        assert ("other", 200) in events
        # the other token was judged before the batch's last program: it waited behind at most this
        # token's two programs in flight, never behind the whole batch
        assert events.index(("other", 200)) < events.index(("batch", len(rest)))
    finally:
        assert srv.stop(), srv.log.read_text()
