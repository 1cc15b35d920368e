"""Archives of scored programs (neocoder/rewards/archive.py) and the reward formula
(formula.py): the distance and novelty on their own, the store in memory and on disk, and
the server's archives over HTTP (private per token, exported, reset) in the real sandbox."""

import json
import math

import pytest
import requests
from servers import OTHER, TOKEN, ServerProcess

from neocoder.dataset import shipped
from neocoder.rewards import ArchiveError, ArchiveStore, RewardWeights, reward
from neocoder.rewards.archive import distance, measure, tokens
from neocoder.rewards.formula import novelty_value

SUM = ("def solve():\n    n = int(input())\n    total = 0\n    for i in range(n):\n        total += i\n"
       "    print(total)\n")
RENAMED = ("# the same loop, other names\ndef solve():\n"
           "    k = int(input())\n    acc = 0\n    for j in range(k):\n        acc += j   # add\n    print(acc)\n")
FORMULA = "def solve():\n    n = int(input())\n    print(n * (n - 1) // 2)\n"


# -- distance and novelty --------------------------------------------------------------

def test_distance_ignores_names_layout_and_comments_but_not_structure():
    assert tokens("x = 1  # c\n") == ["ID", "=", "NUM"]
    assert distance(SUM, SUM) == 0.0
    assert distance(SUM, RENAMED) == 0.0
    apart = distance(SUM, FORMULA)
    assert 0.5 < apart <= 1.0
    assert distance(SUM, FORMULA) == distance(FORMULA, SUM)
    assert distance("", "") == 0.0 and distance("", SUM) == 1.0
    cpp = "#include <cstdio>\nint main(){int n; scanf(\"%d\", &n); printf(\"%d\", n); // c\n}\n"
    assert distance(cpp, cpp) == 0.0 and distance(cpp, SUM) > 0.9  # C++ does not tokenize: the fallback split


def test_measure_against_an_archive():
    first = measure(SUM, {"for loop"}, [])
    assert first == {"new_share": 1.0, "nearest_distance": 1.0, "archive_size": 0}
    again = measure(SUM, {"for loop"}, [(SUM, {"for loop"})])
    assert again == {"new_share": 0.0, "nearest_distance": 0.0, "archive_size": 1}
    other = measure(FORMULA, {"integer division", "for loop"}, [(SUM, {"for loop"}), (RENAMED, {"for loop"})])
    assert other["new_share"] == 0.5 and other["archive_size"] == 2 and other["nearest_distance"] > 0.5
    assert measure(SUM, set(), [])["new_share"] == 0.0  # Eq. 3's convention for an empty T(s)


# -- the formula -----------------------------------------------------------------------

def test_reward_weights_are_validated_and_bound_the_reward():
    for bad in ({"correct": -1}, {"novelty": math.inf}, {"follows": math.nan}, {"divergent": "1"}, {"speed": 1}):
        with pytest.raises(ValueError):
            RewardWeights.from_dict(bad)
    w = RewardWeights()
    assert w.total == 2.0
    best = {"correct": True, "correct_plus": True, "follows": True, "divergent": 1.0,
            "novelty": {"new_share": 1.0, "nearest_distance": 1.0, "archive_size": 0}}
    assert reward(best, w) == pytest.approx(w.total)
    assert reward(dict(best, correct_plus=False), w) == 0.0  # the extended tests decide where the state has them
    assert reward(dict(best, correct_plus=None), w) == pytest.approx(w.total)  # no extended tier: the examples
    assert reward(dict(best, infra=True), w) == 0.0
    assert reward(dict(best, follows=False, divergent=None, novelty=None), w) == 1.0
    half = {"new_share": 0.0, "nearest_distance": 0.5, "archive_size": 3}
    assert novelty_value(half) == 0.25 and novelty_value(None) == 0.0
    custom = RewardWeights(correct=0, follows=0, divergent=0, novelty=2)
    assert reward(dict(best, novelty=half), custom) == 0.5


# -- the store -------------------------------------------------------------------------

def test_store_adds_lists_exports_resets_and_keeps_owners_and_archives_apart(tmp_path):
    path = tmp_path / "archives.sqlite"
    store = ArchiveStore(path)
    assert store.add("", "a", "1901A", 0, SUM, ["for loop"])["archive_size"] == 0
    assert store.add("", "a", "1901A", 2, RENAMED, ["for loop"]) == {"new_share": 0.0, "nearest_distance": 0.0,
                                                                      "archive_size": 1}  # any state of 1901A
    assert store.add("", "a", "1899A", 0, SUM, ["for loop"])["archive_size"] == 0  # another problem
    assert store.add("", "b", "1901A", 0, SUM, ["for loop"])["archive_size"] == 0  # another archive
    assert store.add("u2", "a", "1901A", 0, SUM, ["for loop"])["archive_size"] == 0  # another owner
    store.close()
    store = ArchiveStore(path)  # persisted
    listed = {a["name"]: a for a in store.list("")}
    assert set(listed) == {"a", "b"} and listed["a"]["programs"] == 3 and listed["a"]["problems"] == 2
    assert [a["name"] for a in store.list("u2")] == ["a"] and store.list("nobody") == []
    rows = store.export("", "a")
    assert [(r["seq"], r["problem_id"], r["state"]) for r in rows] == [(0, "1901A", 0), (1, "1901A", 2),
                                                                       (2, "1899A", 0)]
    assert rows[1]["code"] == RENAMED and rows[1]["techniques"] == ["for loop"] and len(rows[0]["code_sha256"]) == 64
    assert store.reset("", "a") == 3 and store.export("", "a") == [] and store.reset("", "a") == 0
    assert store.add("", "a", "1901A", 0, SUM, ["for loop"])["archive_size"] == 0  # novel again after the reset
    assert len(store.export("u2", "a")) == 1
    with pytest.raises(ArchiveError):
        store.add("", "../x", "1901A", 0, SUM, [])
    store.close()
    memory = ArchiveStore(":memory:")
    assert memory.list("") == []
    memory.close()


# -- the server's archives -------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory, release_dir):
    """A server on the shipped dataset (what the recorded GPT-4 programs answer)."""
    srv = ServerProcess(tmp_path_factory.mktemp("archives") / "data", release_dir, "--workers", "2").start()
    yield srv
    assert srv.stop(), srv.log.read_text()


@pytest.fixture(scope="module")
def recorded():
    """Recorded GPT-4 state-0 programs of problems where they pass every test."""
    codes = shipped.recorded_codes("gpt-4-1106-preview")
    states = {s.problem_id: s for s in shipped.load_states() if s.state == 0}
    return {pid: codes[pid][states[pid].source_index] for pid in ("1884A", "1878A", "1872A")}


def batch(server, items, archive, token=TOKEN) -> list[dict]:
    answer = server.call("POST", "/v1/score", token=token, json={"items": items, "archive": archive,
                                                                  "judge_all_tests": False})
    assert answer.status_code == 200, answer.text
    return sorted((json.loads(line) for line in answer.text.splitlines() if line), key=lambda r: r["index"])


@pytest.mark.docker
def test_server_archives_are_private_isolated_exported_and_reset(server, recorded):
    a, b = recorded["1884A"], recorded["1878A"]
    items = [{"problem_id": "1884A", "state": 0, "program": a}, {"problem_id": "1878A", "state": 0, "program": b}]
    first = batch(server, items, "shared")
    assert [r["scores"]["novelty"]["archive_size"] for r in first] == [0, 0]
    assert all(r["error"] is None and r["reward"] > 1.0 for r in first)  # correct, and novel
    second = batch(server, items[:1] + [{"problem_id": "1884A", "state": 1, "program": a}], "shared")
    assert [r["scores"]["novelty"] for r in second] == [
        {"new_share": 0.0, "nearest_distance": 0.0, "archive_size": 1},
        {"new_share": 0.0, "nearest_distance": 0.0, "archive_size": 2}]  # the same program again, at any state
    assert second[0]["reward"] == pytest.approx(1.0 + 0.5 * second[0]["scores"]["follows"]
                                                + 0.25 * second[0]["scores"]["divergent"])

    elsewhere = batch(server, items[:1], "other")  # another archive of the same caller
    assert elsewhere[0]["scores"]["novelty"]["archive_size"] == 0
    theirs = batch(server, items[:1], "shared", token=OTHER)  # another caller's archive of the same name
    assert theirs[0]["scores"]["novelty"] == {"new_share": 1.0 if theirs[0]["sample"]["techniques"] else 0.0,
                                              "nearest_distance": 1.0, "archive_size": 0}

    mine = server.call("GET", "/v1/archives").json()["archives"]
    assert {(x["name"], x["programs"], x["problems"]) for x in mine} == {("shared", 4, 2), ("other", 1, 1)}
    theirs_listed = server.call("GET", "/v1/archives", token=OTHER).json()["archives"]
    assert [(x["name"], x["programs"]) for x in theirs_listed] == [("shared", 1)]
    export = server.call("GET", "/v1/archives/shared")
    assert export.status_code == 200 and export.headers["content-type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in export.text.splitlines()]
    assert len(rows) == 4 and [r["seq"] for r in rows] == [0, 1, 2, 3]
    assert [(r["problem_id"], r["state"]) for r in rows if r["problem_id"] == "1884A"] == [("1884A", 0), ("1884A", 0),
                                                                                          ("1884A", 1)]
    assert {r["code"] for r in rows} == {a, b}

    reset = server.call("DELETE", "/v1/archives/shared")
    assert reset.status_code == 200 and reset.json() == {"name": "shared", "deleted": 4}
    assert server.call("GET", "/v1/archives/shared").status_code == 404
    assert server.call("DELETE", "/v1/archives/shared").json()["field"] == "name"
    assert len(server.call("GET", "/v1/archives/shared", token=OTHER).text.splitlines()) == 1  # theirs stays
    again = batch(server, items[:1], "shared")
    assert again[0]["scores"]["novelty"]["archive_size"] == 0  # novel again after the reset
    assert server.call("GET", "/v1/archives/..%2Fx").status_code in (404, 422)
    bad_name = server.call("POST", "/v1/score", json={"items": items[:1], "archive": "no/slash"})
    assert bad_name.status_code == 422 and bad_name.json()["field"] == "body.archive"
    assert requests.get(server.url + "/v1/archives", timeout=30).status_code == 401
