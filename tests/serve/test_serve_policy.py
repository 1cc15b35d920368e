"""A server safe to share: what a caller's job may reach and use, and the per-token quotas.

Driven as a caller of a shared server: the real app on uvicorn in this process (a thread)
on a loopback port, two tokens, the process sandbox.  Every connection a test lets happen
goes to loopback (a scripted OpenAI-style server, tests/support/loopback.py); the private, link-local
and public addresses below appear only in URLs and resolver answers that must be refused
before any connection is made.
"""

import socket

import openai
import pytest
from click.testing import CliRunner
from loopback import ScriptedServer
from servers import OTHER, TOKEN, Served, served_servers

from neocoder import netpolicy
from neocoder.cli import main
from neocoder.errors import NeocoderError
from neocoder.netpolicy import EndpointPolicy, EndpointRefused
from neocoder.serve.limits import Admission, Busy

REPLAY = {"spec": "replay/gpt-4-1106-preview"}
PROGRAM = "```python\ndef solve():\n    print(1)\n```"


@pytest.fixture
def serve(tmp_path, release_dir):
    """``serve(**ServeConfig options)``: a server started for this test, stopped after it (the last
    first: the endpoint policy is the process's, and the last server installed it)."""
    with served_servers(tmp_path, release_dir) as start:
        yield start
    assert netpolicy.current() is None, "a stopped server left its endpoint policy installed"


@pytest.fixture
def listener():
    """A loopback port that accepts nothing by itself: ``pending()`` says whether anyone
    connected to it (a refused endpoint must never be connected to)."""
    class Listener:
        def __init__(self):
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
            self.sock.listen(8)
            self.sock.setblocking(False)
            self.port = self.sock.getsockname()[1]

        def pending(self) -> bool:
            try:
                self.sock.accept()[0].close()
                return True
            except BlockingIOError:
                return False

    found = Listener()
    assert not found.pending()
    yield found
    found.sock.close()


def _fields(answer) -> set:
    assert answer.status_code == 422, answer.text
    return {d["field"] for d in answer.json()["detail"]}


LOOPBACK_FORMS = ["127.0.0.1", "127.0.0.2", "localhost", "LocalHost.", "api.localhost", "[::1]", "[::ffff:127.0.0.1]",
                  "[::ffff:7f00:1]", "0.0.0.0", "0", "[::]", "2130706433", "0x7f.1", "0x7f000001", "017700000001",
                  "0177.0.0.1", "127.1", "127.0.1", "127%2E0%2E0%2E1"]
OTHER_REFUSED = ["169.254.169.254", "[fe80::1]", "10.0.0.1", "172.16.0.1", "192.168.1.1", "[fc00::1]", "[fd12::1]",
                 "100.64.0.1", "224.0.0.1", "[ff02::1]", "240.0.0.1", "255.255.255.255", "[64:ff9b::7f00:1]",
                 "[2002:7f00:1::]"]


def test_every_loopback_and_internal_endpoint_is_a_422_naming_the_field(serve, listener):
    server = serve()
    for host in LOOPBACK_FORMS:
        url = f"http://{host}:{listener.port}/v1"
        answer = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": url}})
        assert _fields(answer) == {"body.model.base_url"}, (host, answer.text)
        assert "refused" in answer.text
    for host in OTHER_REFUSED:  # in URLs only: refused before any connection
        answer = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": f"http://{host}/v"}})
        assert _fields(answer) == {"body.model.base_url"}, (host, answer.text)
    for url in (f"http://user@127.0.0.1:{listener.port}/v1", f"http://8.8.8.8\\@127.0.0.1:{listener.port}/"):
        answer = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": url}})
        assert _fields(answer) == {"body.model.base_url"}, (url, answer.text)
    # every model of a task's config: an AidanBench judge, a LiveIdeaBench panel seat
    bad = {"spec": "openai/judge", "base_url": f"http://0x7f.1:{listener.port}/v1"}
    aidan = server.call("POST", "/v1/runs", json={"task": "aidanbench", "config": {"model": REPLAY, "judge": bad}})
    assert _fields(aidan) == {"body.config.judge.base_url"}, aidan.text
    ideas = server.call("POST", "/v1/runs", json={"task": "ideas", "config": {"model": REPLAY,
                                                                               "judges": [REPLAY, bad, bad]}})
    assert _fields(ideas) == {"body.config.judges.1.base_url", "body.config.judges.2.base_url"}, ideas.text
    assert server.call("GET", "/v1/evals").json()["jobs"] == [] and server.call("GET", "/v1/runs").json()["jobs"] == []
    assert not listener.pending(), "a refused endpoint was connected to"


def test_an_allowed_loopback_endpoint_runs_a_job_end_to_end(serve):
    model = ScriptedServer([PROGRAM] * 4)
    try:
        server = serve(allow_endpoint=["127.0.0.1"])
        job = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": model.url},
                                                     "limit": 1, "states": [0], "dataset": "release"})
        assert job.status_code == 202, job.text
        ended = server.wait(job.json()["id"])
        assert ended["status"] == "succeeded" and ended["progress"]["done"] == 1, ended
        assert model.requests >= 1
        # the list allows 127.0.0.1, not the rest of loopback
        other = server.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": "http://[::1]:1/"}})
        assert _fields(other) == {"body.model.base_url"}
        assert _fields(server.call("POST", "/v1/evals", json={"model": {
            "spec": "openai/x", "base_url": "http://127.0.0.2:1/"}})) == {"body.model.base_url"}
    finally:
        model.close()


def _ask(url: str):
    client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=10,
                           http_client=netpolicy.http_client(10))
    try:
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    finally:
        client.close()


def _resolver(answers: dict, calls: list):
    """getaddrinfo answering the names of ``answers`` (each a list, one entry per lookup;
    the last repeats) and nothing else: no lookup leaves this process."""
    def resolve(host, port, *args, **kwargs):
        calls.append(host)
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "unknown name")
        seq = answers[host]
        address = seq.pop(0) if len(seq) > 1 else seq[0]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]
    return resolve


def test_the_connection_is_checked_again_on_the_resolved_address(listener):
    model = ScriptedServer(["hello"] * 4)
    port = model.url.split(":")[2].split("/")[0]
    previous = netpolicy.install(None)
    try:
        # a listed name passes the URL check, but it resolves to loopback, which is not listed
        calls = []
        netpolicy.install(EndpointPolicy(frozenset({"model.test"}), (), _resolver({"model.test": ["127.0.0.1"]},
                                                                                   calls)))
        netpolicy.check_url(f"http://model.test:{listener.port}/v1")
        assert calls == [], "a listed name is not resolved by the URL check"
        with pytest.raises(openai.APIConnectionError) as refused:
            _ask(f"http://model.test:{listener.port}/v1")
        assert "127.0.0.1" in str(refused.value.__cause__) and calls == ["model.test"]
        assert not listener.pending()

        # DNS rebinding: public when the job is submitted, loopback when it connects
        calls = []
        netpolicy.install(EndpointPolicy(resolve=_resolver({"rebind.test": ["93.184.216.34", "127.0.0.1"]}, calls)))
        netpolicy.check_url(f"http://rebind.test:{listener.port}/v1")  # no connection: only an answer checked
        with pytest.raises(openai.APIConnectionError):
            _ask(f"http://rebind.test:{listener.port}/v1")
        assert calls == ["rebind.test", "rebind.test"] and not listener.pending()

        # `localhost` named on the list, its address not: the URL passes, the connection does not
        netpolicy.install(EndpointPolicy.from_entries(["localhost"]))
        netpolicy.check_url(f"http://localhost:{listener.port}/v1")
        with pytest.raises(openai.APIConnectionError):
            _ask(f"http://localhost:{listener.port}/v1")
        assert not listener.pending()
        with pytest.raises(EndpointRefused):
            netpolicy.check_url(f"http://127.0.0.1:{listener.port}/v1")

        # the same client reaches a listed address, connecting to the address it checked
        # (the name is known to the test resolver only: the system's would not find it)
        calls = []
        allowed = EndpointPolicy.from_entries(["127.0.0.1"])
        netpolicy.install(EndpointPolicy(allowed.names, allowed.networks,
                                         _resolver({"model.test": ["127.0.0.1"]}, calls)))
        assert _ask(f"http://model.test:{port}/v1").choices[0].message.content == "hello"
        assert _ask(model.url).choices[0].message.content == "hello"
        assert model.requests == 2 and calls == ["model.test"]
    finally:
        netpolicy.install(previous)
        model.close()


def test_with_no_policy_installed_the_guarded_client_keeps_the_default(listener):
    previous = netpolicy.install(None)
    try:
        with pytest.raises(openai.APIConnectionError):
            _ask(f"http://127.0.0.1:{listener.port}/v1")
        assert not listener.pending()
        with pytest.raises(EndpointRefused) as refused:
            netpolicy.check_url(f"http://0x7f.1:{listener.port}/", "model.base_url")
        assert refused.value.field == "model.base_url" and "127.0.0.1" in str(refused.value)
    finally:
        netpolicy.install(previous)


def test_local_provider_is_the_operators_choice_and_unknown_local_models_are_422(serve):
    server = serve()
    refused = server.call("POST", "/v1/evals", json={"model": {"spec": "local/gemma-3-270m"}})
    assert _fields(refused) == {"body.model.spec"} and "allow-provider" in refused.text
    judge = server.call("POST", "/v1/runs", json={"task": "aidanbench", "config": {
        "model": REPLAY, "judge": {"spec": "local/gemma-3-270m"}}})
    assert _fields(judge) == {"body.config.judge.spec"}
    server.stop()

    local = serve(allow_provider=("openai", "replay", "local"))
    unknown = local.call("POST", "/v1/evals", json={"model": {"spec": "local/anything"}})
    assert _fields(unknown) == {"body.model.spec"} and "unknown local model" in unknown.text
    panel = local.call("POST", "/v1/runs", json={"task": "ideas", "config": {
        "model": REPLAY, "judges": [REPLAY, {"spec": "local/no-such-model"}]}})
    assert _fields(panel) == {"body.config.judges.1.spec"}
    assert local.call("GET", "/v1/evals").json()["jobs"] == [] and local.call("GET", "/v1/runs").json()["jobs"] == []
    local.stop()

    no_openai = serve(allow_provider=("replay",))
    answer = no_openai.call("POST", "/v1/evals", json={"model": {"spec": "openai/x", "base_url": "http://8.8.8.8/"}})
    assert _fields(answer) == {"body.model.spec"}


def test_quotas_answer_429_naming_the_quota(serve):
    server = serve(programs_per_minute=2, jobs_per_token=1)
    program = {"program": "print(1)", "tests": [{"input": "", "output": "1"}]}
    for _ in range(2):
        assert server.call("POST", "/v1/run", json=program).status_code == 200
    hit = server.call("POST", "/v1/run", json=program)
    assert hit.status_code == 429 and "--programs-per-minute" in hit.json()["detail"], hit.text
    assert hit.headers["X-NeoCoder-Quota"] == "programs-per-minute" and 1 <= int(hit.headers["Retry-After"]) <= 60
    score = server.call("POST", "/v1/score", json={"problem_id": "1901A", "state": 0, "program": "print(1)"})
    assert score.status_code == 429 and score.headers["X-NeoCoder-Quota"] == "programs-per-minute"
    assert server.call("POST", "/v1/run", json=program, token=OTHER).status_code == 200  # a quota is a token's
    # a batch counts every program it holds: 2 do not fit in OTHER's minute (1 spent), 3 never fit (413)
    item = {"problem_id": "1901A", "state": 0, "program": "print(1)"}
    too_many = server.call("POST", "/v1/score", json={"items": [item] * 2}, token=OTHER)
    assert too_many.status_code == 429 and too_many.headers["X-NeoCoder-Quota"] == "programs-per-minute"
    never = server.call("POST", "/v1/score", json={"items": [item] * 3}, token=OTHER)
    assert never.status_code == 413 and never.json()["field"] == "items", never.text

    long_job = {"model": REPLAY, "limit": 50, "dataset": "release"}
    first = server.call("POST", "/v1/evals", json=long_job)
    assert first.status_code == 202, first.text
    second = server.call("POST", "/v1/evals", json=long_job)
    assert second.status_code == 429 and second.headers["X-NeoCoder-Quota"] == "jobs-per-token"
    assert "--jobs-per-token" in second.json()["detail"] and int(second.headers["Retry-After"]) >= 1
    theirs = server.call("POST", "/v1/evals", json=long_job, token=OTHER)
    assert theirs.status_code == 202
    for job, token in ((first, TOKEN), (theirs, OTHER)):
        assert server.call("DELETE", f"/v1/evals/{job.json()['id']}", token=token).status_code in (202, 409)


def test_programs_a_minute_slide_with_the_window():
    now = [1000.0]
    admission = Admission(slots=1, queue=4, per_token=4, per_minute=3, clock=lambda: now[0])
    for t in (0, 10, 20):
        now[0] = 1000.0 + t
        with admission.ticket("a"):
            pass
    with pytest.raises(Busy) as hit:
        admission.ticket("a").__enter__()
    assert hit.value.reason == "programs-per-minute" and hit.value.retry_after == 40  # the first leaves at 1060
    with admission.ticket("b"):
        pass
    with pytest.raises(Busy) as batch:
        admission.ticket("b", programs=3).__enter__()
    assert batch.value.retry_after == 60
    now[0] = 1060.0
    with admission.ticket("a"):
        pass
    assert admission.admitted == 0 and admission.by_caller == {}


def test_allow_list_and_providers_are_checked_at_start(tmp_path, release_dir):
    from neocoder.serve import ServeConfig
    base = {"release_dir": release_dir, "no_auth": True}
    for entry in ("http://10.0.0.1/", "10.0.0.1/8", "host:8000", "bad name", ""):
        with pytest.raises(NeocoderError, match="allow-endpoint"):
            ServeConfig(**base, allow_endpoint=[entry]).check()
    with pytest.raises(NeocoderError, match="allow-provider"):
        ServeConfig(**base, allow_provider=("openai", "nope")).check()
    policy = ServeConfig(**base, allow_endpoint=["10.0.0.0/8", "Model.Internal.", "::1", "127.0.0.1"]).check()
    assert policy.endpoint_policy().names == {"model.internal"}
    assert len(policy.endpoint_policy().networks) == 3
    cli = CliRunner().invoke(main, ["serve", "--no-auth", "--data-dir", str(tmp_path), "--release", str(release_dir),
                                    "--allow-endpoint", "ftp://x/"])
    assert cli.exit_code != 0 and "--allow-endpoint" in cli.output


def test_numeric_hosts_read_as_resolvers_read_them():
    read = netpolicy.literal_address
    for host in ("2130706433", "0x7f.1", "0x7F000001", "017700000001", "0177.0.0.1", "127.1", "127.0.1", "127.0.0.1."):
        assert str(read(host)) == "127.0.0.1", host
    assert str(read("[::ffff:127.0.0.1]")) == "::ffff:7f00:1" and str(read("0")) == "0.0.0.0"
    for name in ("example.com", "1.2.3.4.nip.io", "0x7g.1", "1..2", "+1", "１２７.0.0.1"):
        assert read(name) is None, name
    with pytest.raises(EndpointRefused):
        read("256.0.0.1")
    assert netpolicy.refusal(read("8.8.8.8")) is None and netpolicy.refusal(read("[2606:4700::1111]")) is None


def test_callers_start_only_the_tasks_the_operator_allows(serve):
    default = serve()
    refused = default.call("POST", "/v1/runs", json={"task": "dataset", "config": {"no_such_option": 1}})
    assert refused.status_code == 403 and refused.json()["field"] == "body.task", refused.text
    assert "--allow-task" in refused.json()["detail"]
    assert default.call("POST", "/v1/runs", json={"task": "eval", "config": {"no_such_option": 1}}).status_code == 422
    opened = serve(allow_task=("eval", "dataset"))  # let through: the config is checked next (422, nothing runs)
    passed = opened.call("POST", "/v1/runs", json={"task": "dataset", "config": {"no_such_option": 1}})
    assert passed.status_code == 422 and passed.json()["field"] == "body.config.no_such_option", passed.text
    narrow = serve(allow_task=("suite",))
    evals = narrow.call("POST", "/v1/evals", json={"model": REPLAY, "limit": 1})
    assert evals.status_code == 403 and evals.json()["field"] == "body.task", evals.text
    with pytest.raises(NeocoderError, match="--allow-task nosuchtask"):
        serve(allow_task=("eval", "nosuchtask"))


def test_a_failed_job_names_no_server_path(tmp_path):
    """A job whose error holds the server's folders (here its release) shows stand-ins."""
    empty = tmp_path / "release-folder-of-the-server"
    empty.mkdir()
    (tmp_path / "s").mkdir()
    server = Served(tmp_path / "s", empty, dataset=None)
    try:
        job = server.call("POST", "/v1/evals", json={"model": REPLAY, "limit": 1, "dataset": "release"}).json()
        ended = server.wait(job["id"], 300)
        assert ended["status"] == "failed" and "<release>" in ended["error"], ended
        for path in (str(empty), str(tmp_path), "release-folder-of-the-server"):
            assert path not in ended["error"], ended["error"]
    finally:
        server.stop()
