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

from neocoder.config import Config, SandboxConfig
from neocoder.errors import NeocoderError
from neocoder.netpolicy import EndpointPolicy
from neocoder.options import Option, check, option

TOKENS_ENV = "NEOCODER_SERVE_TOKENS"  # tokens separated by whitespace or commas
DEFAULT_TASKS = ("eval", "suite", "aidanbench", "ideas", "framework")  # not dataset: the 9-minute rebuild


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


def _providers(text: str) -> tuple:
    """'openai,replay' -> ('openai', 'replay')."""
    return tuple(p.strip() for p in str(text).split(",") if p.strip())


@dataclass
class ServeConfig(Config):
    """``neocoder serve``: where to listen, what to judge with, who may call, and the limits;
    each option declared once (``Option``), from which ``neocoder serve``'s options are built.

    ``sandbox.workers`` programs are judged at once (the server's sandbox, and each eval
    job's); ``jobs`` eval jobs run at once.  ``data_dir`` holds the job store (unless
    ``database_url`` names another database: SQLAlchemy URLs, ``sqlite:///...`` or
    ``postgresql+psycopg://...``), the jobs' run folders and their reports.  ``dataset``
    is what /v1/score and /v1/problems judge on and the jobs' default: None for the
    validated dataset shipped with neocoder (no release needed), "release" for the
    release's statement examples (at ``release_dir``), or a problem-states file or folder.
    ``sandbox`` is where every program of the server and its jobs runs, and who judges:
    with executor "ray", sandbox-pool actors on the Ray cluster at ``sandbox.ray_address``
    (docs/scale-out.md).

    What callers may make the server do (docs/serve.md, "Sharing a server safely"): their
    jobs' model endpoints reach public addresses and the hosts, addresses and CIDR networks
    of ``allow_endpoint`` only (neocoder/netpolicy.py); their models' providers are those of
    ``allow_provider``; one token judges at most ``programs_per_minute`` programs a minute
    (/v1/run, /v1/score), holds judge workers at most ``judge_seconds_per_minute`` seconds a
    minute and at most ``per_token_workers`` at once (its share of the workers), and has at
    most ``jobs_per_token`` jobs queued or running; callers may start the tasks of
    ``allow_task`` only.
    """

    release_dir: Path
    host: str = option("127.0.0.1", "Address to listen on.")
    port: int = option(8000, "Port to listen on.", ge=0, le=65535)
    jobs: int = option(1, "Eval and task jobs run at once.", ge=1)
    data_dir: Path = option(Path("serve-data"), "The job store, the jobs' run folders and their reports.")
    database_url: str | None = option(None, "Job store as a SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
                                      "(default: SQLite in --data-dir).", envvar="NEOCODER_DATABASE_URL",
                                      secret="url")
    dataset: str | None = option(None, "What /v1/score judges on and the jobs' default: 'release', a problem-states "
                                 "file or folder (default: the validated dataset).")
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    tokens_file: Path | None = option(None, "Bearer tokens, one per line (also $NEOCODER_SERVE_TOKENS).", file=True)
    no_auth: bool = option(False, "No tokens: only on a loopback --host.")
    max_body_bytes: int = option(2 << 20, "A request body past this many bytes is 413.", ge=1)
    max_program_bytes: int = option(64 << 10, "A program (or the program in a reply) past this many bytes is 413.",
                                    ge=1)
    max_tests: int = option(256, "Tests per /v1/run.", ge=1)
    per_token: int = option(16, "Judge requests of one token in flight (judging or queued) before 429.", ge=1,
                            flag="--per-token-concurrency")
    queue: int = option(64, "Judge requests waiting for a slot, all tokens together, before 429.", ge=0)
    max_jobs: int = option(32, "Eval jobs queued or running before POST /v1/evals answers 429.", ge=1)
    jobs_per_token: int = option(8, "Eval and task jobs of one token queued or running before 429.", ge=1)
    programs_per_minute: int = option(600, "Programs one token may judge a minute (/v1/run, /v1/score) before 429.",
                                      ge=1)
    per_token_workers: int | None = option(None, "Judge workers one token may hold at once; its other requests wait "
                                           "(default: half of --workers, at least 1).", ge=1)
    judge_seconds_per_minute: float | None = option(None, "Seconds one token's programs may hold judge workers a "
                                                    "minute (/v1/run, /v1/score) before 429 (default: no quota).",
                                                    gt=0)
    max_output_bytes: int = option(16 << 20, "The stdout of a /v1/run answer's tests, in all, past which it is cut "
                                   "(and the answer says output_cut).", ge=0)
    allow_task: tuple = option(DEFAULT_TASKS, "Tasks callers may start as jobs, comma-separated (POST /v1/runs, "
                               "/v1/evals; e.g. add dataset for the 9-minute rebuild).", parse=_providers,
                               text=",".join(DEFAULT_TASKS))
    allow_endpoint: list = Option(help="A host name, IP address or CIDR network the jobs' model endpoints may reach "
                                  "besides public addresses (repeatable; loopback, private and link-local addresses "
                                  "are refused otherwise).", factory=list, multiple=True,
                                  metavar="HOST_OR_CIDR").field()
    allow_provider: tuple = option(("openai", "replay"), "Model providers callers may use, comma-separated (local "
                                   "starts a model server on this machine).", parse=_providers,
                                   text="openai,replay")
    shutdown_timeout: float = option(60.0, "Seconds SIGTERM waits for requests and jobs in flight.", ge=0)
    log_level: str = option("info", "Server log level.", choices=("debug", "info", "warning", "error"))
    max_batch: int = option(256, "Items in one /v1/score batch (docs/rewards.md); past it 413 naming the field "
                            "items.", ge=1)
    public_runs: list = Option(help="A run folder, or a folder of them, shown on the leaderboard at / to everyone "
                               "(repeatable).", factory=list, multiple=True, metavar="RUN_OR_DIR",
                               flag="--public-run").field()
    session_minutes: int = option(60, "How long a browser session lasts after sign-in (serve/web/sessions.py).", ge=1)
    signin_attempts: int = option(5, "Wrong tokens in a row from one address (sign-in or a /v1 bearer token) "
                                  "before the address is refused (429).",
                                  ge=1)
    signin_lockout: float = option(30.0, "Seconds an address is refused after --signin-attempts wrong tokens, "
                                   "doubled at each further lockout.", gt=0)
    signin_form_seconds: float = option(600.0, "Seconds a sign-in form's CSRF value stays valid.", gt=0)
    trusted_proxy: list = Option(help="The address of a reverse proxy whose X-Forwarded-Proto and X-Forwarded-For "
                                 "are believed (repeatable), so that behind an HTTPS proxy the session cookie is "
                                 "Secure and the client's address is the real one.", factory=list, multiple=True,
                                 metavar="ADDRESS").field()
    allowed_host: list = Option(help="A host name the server answers to (repeatable); a request with another Host "
                                "header is refused (400). Default: any.", factory=list, multiple=True,
                                metavar="HOST").field()
    tokens: list = field(default_factory=list, repr=False)  # filled by check(); never logged

    @property
    def workers(self) -> int:
        """Programs judged at once (``sandbox.workers``)."""
        return self.sandbox.workers

    @property
    def token_workers(self) -> int:
        """Judge workers one token may hold at once: ``per_token_workers``, by default half
        of the workers (at least one), so another token always finds one free."""
        return self.per_token_workers or max(1, self.workers // 2)

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
        no token without ``no_auth``, ``no_auth`` on a non-loopback host, a value outside
        its declaration (limits below 1, ...), an allow-list entry or a provider that does
        not exist.  Returns this config."""
        self.tokens = read_tokens(self.tokens_file)
        if self.no_auth:
            if self.tokens:
                raise NeocoderError("--no-auth with tokens given: choose one")
            if not is_loopback(self.host):
                raise NeocoderError(f"--no-auth is only allowed on a loopback address, not {self.host!r}")
        elif not self.tokens:
            raise NeocoderError(f"no tokens: give --tokens-file FILE or ${TOKENS_ENV}, or bind to 127.0.0.1 "
                                "with an explicit --no-auth")
        check(self)  # each option within its declaration: ServeConfig.jobs: 0 is below 1, ...
        self.endpoint_policy()
        from neocoder.models import PROVIDERS
        unknown = sorted(set(self.allow_provider) - set(PROVIDERS))
        if unknown:
            raise NeocoderError(f"--allow-provider {','.join(unknown)}: no such provider "
                                f"(known: {', '.join(PROVIDERS)})")
        from neocoder.benchmarks import task_names
        unknown = sorted(set(self.allow_task) - set(task_names()))
        if unknown:
            raise NeocoderError(f"--allow-task {','.join(unknown)}: no such task (known: {', '.join(task_names())})")
        return self
