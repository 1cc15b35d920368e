"""A real ``neocoder serve`` in the test's process (uvicorn on a free loopback port), for the
tests that drive the HTTP API: one helper, used by every such test file."""

import socket
import threading
import time

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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.call("GET", f"/v1/runs/{job_id}").json()
            if job["status"] in ("succeeded", "failed", "cancelled", "paused"):
                return job
            time.sleep(0.5)
        raise AssertionError(f"job {job_id} did not end: {job}")

    def run_dir(self, job_id):
        """The job's run folder on the server."""
        return self.config.data_dir / "runs" / job_id

    def stop(self):
        self.server.should_exit = True
        self.thread.join(60)
