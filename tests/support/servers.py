"""The real ``neocoder serve`` for the tests that drive the HTTP API, on a free loopback port:
``Served`` runs the app in the test's own process (uvicorn in a thread); ``ServerProcess``
runs ``python -m neocoder.cli serve`` in a subprocess, for what needs a process of its own
(a graceful SIGTERM, ``kill -9``, the containers it labels with its pid).  Both take the
tokens TOKEN and OTHER."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import docker
import requests

from neocoder.config import SandboxConfig

TOKEN, OTHER = "policy-token-0123456789abcdef", "other-policy-token-0123456789"


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """The real app in this process with the tokens TOKEN and OTHER; ``call`` sends a
    request with a token, ``wait`` polls a job until it ends.  ``options`` are
    ServeConfig's (default: the release's examples, the process sandbox, one worker)."""

    def __init__(self, tmp_path, release_dir, **options):
        import uvicorn

        from neocoder.serve import ServeConfig
        from neocoder.serve.app import create_app

        (tmp_path / "tokens.txt").write_text(f"{TOKEN}\n{OTHER}\n")
        options = {"dataset": "release", "sandbox": SandboxConfig("process", workers=1), **options}
        self.config = ServeConfig(release_dir, port=free_port(), data_dir=tmp_path / "data",
                                  tokens_file=tmp_path / "tokens.txt", **options).check()
        self.url = f"http://127.0.0.1:{self.config.port}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(self.config), host="127.0.0.1",
                                                    port=self.config.port, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the server did not start"
            time.sleep(0.05)

    def call(self, method, path, token=TOKEN, **kwargs):
        return requests.request(method, self.url + path, headers={"Authorization": f"Bearer {token}"}, timeout=120,
                                **kwargs)

    def wait(self, job_id, timeout=600) -> dict:
        """The job once it has ended (succeeded, failed, cancelled or paused)."""
        return wait_job(self, job_id, timeout, route="/v1/runs")

    def run_dir(self, job_id):
        """The job's run folder on the server."""
        return self.config.data_dir / "runs" / job_id

    def stop(self):
        self.server.should_exit = True
        self.thread.join(60)


@contextmanager
def served_servers(tmp_path, release_dir):
    """For a fixture: yields ``start(**ServeConfig options)``, which starts a ``Served`` in a
    folder of its own under ``tmp_path``; every one started is stopped at the end, the last first."""
    started: list[Served] = []

    def start(**options) -> Served:
        folder = tmp_path / f"s{len(started)}"
        folder.mkdir()
        started.append(Served(folder, release_dir, **options))
        return started[-1]

    try:
        yield start
    finally:
        for server in reversed(started):
            server.stop()


class ServerProcess:
    """``python -m neocoder.cli serve`` in a subprocess on a free loopback port; its log in
    ``data_dir/../server-N.log``."""

    starts = 0

    def __init__(self, data_dir: Path, release_dir: Path, *args: str, tokens=(TOKEN, OTHER)):
        self.data_dir, self.release_dir, self.args, self.tokens = Path(data_dir), release_dir, args, tokens
        self.proc = None

    def start(self, wait: bool = True) -> "ServerProcess":
        ServerProcess.starts += 1
        tokens_file = self.data_dir.parent / "tokens.txt"
        tokens_file.write_text("# test tokens\n" + "\n".join(self.tokens) + "\n")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = self.data_dir.parent / f"server-{ServerProcess.starts}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "neocoder.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(self.data_dir), "--tokens-file", str(tokens_file), "--release", str(self.release_dir),
             *self.args], stdout=self.log.open("w"), stderr=subprocess.STDOUT, env=dict(os.environ))
        if wait:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                assert self.proc.poll() is None, f"server exited:\n{self.log.read_text()}"
                try:
                    if requests.get(self.url + "/healthz", timeout=5).status_code == 200:
                        return self
                except requests.ConnectionError:
                    pass
                time.sleep(0.3)
            raise AssertionError(f"server not healthy in time:\n{self.log.read_text()}")
        return self

    def call(self, method: str, path: str, token: str | None = TOKEN, **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return requests.request(method, self.url + path, headers=headers, timeout=300, **kwargs)

    def stop(self) -> bool:
        """SIGTERM; True when the server stopped gracefully by itself: uvicorn ends with the
        signal it handled (-15) after the app's shutdown, which logs the containers removed."""
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=180)
        log = self.log.read_text()
        return status in (0, -signal.SIGTERM) and "sandbox containers removed" in log \
            and "Application shutdown complete" in log

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: nothing graceful
        self.proc.wait(timeout=60)

    def containers(self) -> list:
        client = docker.from_env()
        return client.containers.list(all=True, filters={"label": f"neocoder.pid={self.proc.pid}"})


def wait_job(server, job_id: str, timeout: float = 600, route: str = "/v1/evals") -> dict:
    """The job ``job_id`` of ``server`` (either kind) once it has ended (succeeded, failed,
    cancelled or paused), polled at ``route``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = server.call("GET", f"{route}/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled", "paused"):
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not end: {job}")
