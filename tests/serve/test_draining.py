"""A server shutting down refuses new work with 503, on every path that starts some: a
single judging, a batch, a job.  The same requests are taken once it is not draining.

The real app on loopback (servers.Served, the process sandbox); the flag is the one
``close_services`` sets when uvicorn begins its shutdown.
"""

import pytest
from servers import Served

PRINT = "print(1)\n"
EVAL = {"task": "eval", "config": {"model": {"spec": "replay/gpt-4-1106-preview"}, "limit": 1, "states": [0],
                                   "dataset": "release"}}


@pytest.fixture
def served(tmp_path, release_dir):
    server = Served(tmp_path, release_dir)
    yield server
    server.stop()


def requests_that_start_work(server: Served) -> dict[str, int]:
    """Status code of a /v1/run, a one-item /v1/score batch and a /v1/runs job."""
    problem = "1899A"
    return {
        "run": server.call("POST", "/v1/run", json={"program": PRINT}).status_code,
        "batch": server.call("POST", "/v1/score", json={"items": [{"problem_id": problem, "state": 0,
                                                                   "program": PRINT}]}).status_code,
        "job": server.call("POST", "/v1/runs", json=EVAL).status_code,
    }


def test_a_draining_server_refuses_new_work_with_503_and_takes_it_otherwise(served):
    services = served.server.config.app.state.services
    services.draining = True
    try:
        refused = requests_that_start_work(served)
        answer = served.call("POST", "/v1/run", json={"program": PRINT})
        assert "shutting down" in answer.text
    finally:
        services.draining = False
    assert refused == {"run": 503, "batch": 503, "job": 503}, refused
    taken = requests_that_start_work(served)
    assert taken == {"run": 200, "batch": 200, "job": 202}, taken
