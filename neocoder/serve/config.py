"""What ``neocoder serve`` is asked to do: one config, checked before anything starts.

The CLI builds a ``ServeConfig`` from its options (``neocoder serve --help``) and hands it
to ``neocoder.serve.serve``; a test or another harness builds it directly.  ``check()``
refuses what must never run: a server without tokens unless it is bound to a loopback
address with ``no_auth`` set explicitly, an allow-list entry that is neither a host, an
address nor a network, a provider neocoder does not have.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path

from ..config import DOCKER, LOCAL, PROCESS, RAY
from ..errors import NeocoderError
from ..netpolicy import EndpointPolicy

TOKENS_ENV = "NEOCODER_SERVE_TOKENS"  # tokens separated by whitespace or commas


def is_loopback(host: str) -> bool:
    """True when ``host`` (an address or a name) resolves only to loopback addresses."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def read_tokens(tokens_file: Path | None, environ=os.environ) -> list[str]:
    """The bearer tokens the server accepts: one per line of ``tokens_file`` (blank lines
    and ``#`` comments skipped) and those in ``$NEOCODER_SERVE_TOKENS``.  Raises
    NeocoderError for a missing file or a token with spaces or control characters."""
    tokens: list[str] = []
    if tokens_file is not None:
        path = Path(tokens_file)
        if not path.is_file():
            raise NeocoderError(f"{path}: tokens file not found")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                if not re.fullmatch(r"[\x21-\x7e]+", line):
                    raise NeocoderError(f"{path}: line {number}: a token is printable ASCII without spaces")
                tokens.append(line)
    tokens += [t for t in re.split(r"[\s,]+", environ.get(TOKENS_ENV, "")) if t]
    for token in tokens:
        if len(token) < 16:
            raise NeocoderError("a token must be at least 16 characters long (e.g. `openssl rand -hex 32`)")
    return list(dict.fromkeys(tokens))


@dataclass
class ServeConfig:
    """``neocoder serve``: where to listen, what to judge with, who may call, and the limits.

    ``workers`` programs are judged at once (the server's sandbox, and each eval job's);
    ``jobs`` eval jobs run at once.  ``data_dir`` holds the job store (unless
    ``database_url`` names another database: SQLAlchemy URLs, ``sqlite:///...`` or
    ``postgresql+psycopg://...``), the jobs' run folders and their reports.  ``dataset``
    is what /v1/score and /v1/problems judge on and the jobs' default: None for the
    validated dataset shipped with neocoder (no release needed), "release" for the
    release's statement examples (at ``release_dir``), or a problem-states file or folder.  ``executor`` "ray"
    sends every judge job (of /v1/run, /v1/score and the eval jobs) to sandbox-pool actors
    on the Ray cluster at ``ray_address`` (docs/scale-out.md).

    What callers may make the server do (docs/serve.md, "Sharing a server safely"): their
    jobs' model endpoints reach public addresses and the hosts, addresses and CIDR networks
    of ``allow_endpoint`` only (neocoder/netpolicy.py); their models' providers are those of
    ``allow_provider``; one token judges at most ``programs_per_minute`` programs a minute
    (/v1/run, /v1/score) and has at most ``jobs_per_token`` jobs queued or running.
    """

    release_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    jobs: int = 1
    data_dir: Path = Path("serve-data")
    database_url: str | None = None
    dataset: str | None = None
    sandbox: str = DOCKER  # DOCKER or PROCESS (docs/sandbox.md)
    tokens_file: Path | None = None
    no_auth: bool = False
    max_body_bytes: int = 2 << 20  # a request body past this is 413
    max_program_bytes: int = 64 << 10  # a program (or the program in a reply) past this is 413
    max_tests: int = 256  # tests in one /v1/run request
    per_token: int = 16  # requests of one token admitted at once (judging or queued)
    queue: int = 64  # requests waiting for a judge slot, all tokens together
    max_jobs: int = 32  # eval jobs queued or running before POST /v1/evals answers 429
    jobs_per_token: int = 8  # of them, one token's
    programs_per_minute: int = 600  # programs one token may judge a minute (/v1/run, /v1/score) before 429
    allow_endpoint: list = field(default_factory=list)  # hosts, IPs, CIDR networks endpoints may reach besides public
    allow_provider: tuple = ("openai", "replay")  # model providers callers may use (local starts a process here)
    shutdown_timeout: float = 60.0  # seconds SIGTERM waits for requests and jobs in flight
    log_level: str = "info"
    executor: str = LOCAL  # LOCAL or RAY: sandbox-pool actors on a Ray cluster (docs/scale-out.md)
    ray_address: str | None = None  # the cluster for executor "ray" (None: $RAY_ADDRESS, else a local Ray)
    max_batch: int = 256  # items in one /v1/score batch (docs/rewards.md); past it 413 naming "items"
    public_runs: list = field(default_factory=list)  # run folders (or folders of them) the leaderboard at / shows
    session_minutes: int = 60  # a browser session's life (serve/web/sessions.py)
    tokens: list = field(default_factory=list, repr=False)  # filled by check(); never logged

    @property
    def db_url(self) -> str:
        """The job store's SQLAlchemy URL (default: SQLite in ``data_dir``)."""
        return self.database_url or f"sqlite:///{Path(self.data_dir).resolve() / 'jobs.sqlite'}"

    def endpoint_policy(self) -> EndpointPolicy:
        """The policy of the jobs' model endpoints (``allow_endpoint``); NeocoderError for
        an entry that is not a host name, an IP address or a CIDR network."""
        return EndpointPolicy.from_entries(self.allow_endpoint)

    def check(self) -> "ServeConfig":
        """Read the tokens and refuse an unsafe or impossible setting (NeocoderError):
        no token without ``no_auth``, ``no_auth`` on a non-loopback host, limits below 1,
        an allow-list entry or a provider that does not exist."""
        self.tokens = read_tokens(self.tokens_file)
        if self.no_auth:
            if self.tokens:
                raise NeocoderError("--no-auth with tokens given: choose one")
            if not is_loopback(self.host):
                raise NeocoderError(f"--no-auth is only allowed on a loopback address, not {self.host!r}")
        elif not self.tokens:
            raise NeocoderError(f"no tokens: give --tokens-file FILE or ${TOKENS_ENV}, or bind to 127.0.0.1 "
                                "with an explicit --no-auth")
        for name in ("session_minutes", "workers", "jobs", "max_body_bytes", "max_program_bytes", "max_tests", "max_batch", "per_token",
                     "max_jobs", "jobs_per_token", "programs_per_minute"):
            if int(getattr(self, name)) < 1:
                raise NeocoderError(f"{name} must be at least 1")
        if self.queue < 0:
            raise NeocoderError("queue must be 0 or more")
        if self.sandbox not in (DOCKER, PROCESS):
            raise NeocoderError(f"sandbox must be docker or process, not {self.sandbox!r}")
        if self.executor not in (LOCAL, RAY):
            raise NeocoderError(f"executor must be local or ray, not {self.executor!r}")
        self.endpoint_policy()
        from ..models import PROVIDERS
        unknown = sorted(set(self.allow_provider) - set(PROVIDERS))
        if unknown:
            raise NeocoderError(f"--allow-provider {','.join(unknown)}: no such provider "
                                f"(known: {', '.join(PROVIDERS)})")
        return self
