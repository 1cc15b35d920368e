"""The job store: every eval job and its state, in a database that outlives the server.

The table ``jobs``, and beside it the callers' archives of scored programs
(``archive_programs``, neocoder/rewards/archive.py, as ``JobStore.archives``).  A row of
``jobs`` holds what a job was asked (the request without its API key: keys live only in
the server's memory), who asked (the token's id, never the
token), its status and times, and the error that ended it.  The samples themselves are
in the job's run folder (``store.RunFolder``), which ``api.evaluate`` resumes; the
database only says which run folders exist and which are unfinished, so a restarted
server lists every job and picks up the unfinished ones.

SQLAlchemy Core keeps one code path for SQLite (the embedded default, a file in the data
directory, in WAL mode with full fsync, so a ``kill -9`` loses no committed row) and
PostgreSQL (``--database-url postgresql+psycopg://...``, with psycopg installed).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from neocoder.errors import NeocoderError
from neocoder.rewards.archive import ArchiveError, ArchiveStore

QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, PAUSED = "queued", "running", "succeeded", "failed", "cancelled", \
    "paused"
STATUSES = (QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, PAUSED)
UNFINISHED = (QUEUED, RUNNING)  # resumed when the server starts
RESUMABLE = (FAILED, CANCELLED, PAUSED)  # POST /v1/evals/{id}/resume queues them again

metadata = MetaData()
jobs_table = Table(
    "jobs", metadata,
    Column("id", String(32), primary_key=True),  # uuid4 hex, made by the server
    Column("owner", String(64), nullable=False, index=True),  # the token's id (auth.token_id)
    Column("status", String(16), nullable=False, index=True),
    Column("request", Text, nullable=False),  # the request as JSON, without the API key
    Column("has_key", Boolean, nullable=False, default=False),  # an API key came with it (kept in memory only)
    Column("created", Float, nullable=False),  # seconds since the epoch, UTC
    Column("started", Float),
    Column("finished", Float),
    Column("attempts", Integer, nullable=False, default=0),  # times a job thread started it
    Column("error", Text),
)


@dataclass
class Job:
    """One row of the job store."""

    id: str
    owner: str
    status: str
    request: dict
    has_key: bool = False
    created: float = 0.0
    started: float | None = None
    finished: float | None = None
    attempts: int = 0
    error: str | None = None

    @classmethod
    def from_row(cls, row) -> "Job":
        """The job of a ``jobs`` row."""
        data = dict(row._mapping)
        data["request"] = json.loads(data["request"])
        return cls(**data)


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


class JobStore:
    """The ``jobs`` table behind a few methods; thread-safe (one lock around writes).
    ``archives`` is the ArchiveStore of the same database (archives are owned by the
    caller's id, as jobs are).

    Raises NeocoderError when the database cannot be opened (a bad URL, a missing driver).
    """

    def __init__(self, url: str):
        try:
            sqlite = url.startswith("sqlite")
            self.engine = create_engine(url, connect_args={"check_same_thread": False} if sqlite else {},
                                        pool_pre_ping=not sqlite)
            if sqlite:
                event.listen(self.engine, "connect", _sqlite_pragmas)
            metadata.create_all(self.engine)
            self.archives = ArchiveStore(self.engine)  # every caller's archives, in the same database
        except (SQLAlchemyError, ImportError, ArchiveError) as exc:
            raise NeocoderError(f"cannot open the job store {self.safe_url(url)}: {exc}") from exc
        self.lock = threading.Lock()

    @staticmethod
    def safe_url(url: str) -> str:
        """The URL without its password, for messages and logs."""
        from sqlalchemy.engine import make_url
        try:
            return make_url(url).render_as_string(hide_password=True)
        except Exception:  # noqa: BLE001 - an unparseable URL is shown as a placeholder
            return "<database url>"

    def create(self, job_id: str, owner: str, request: dict, has_key: bool) -> Job:
        """Insert a queued job and return it."""
        job = Job(job_id, owner, QUEUED, request, has_key, time.time())
        with self.lock, self.engine.begin() as conn:
            conn.execute(insert(jobs_table).values(id=job.id, owner=owner, status=QUEUED,
                                                   request=json.dumps(request), has_key=has_key,
                                                   created=job.created, attempts=0))
        return job

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id``, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(jobs_table).where(jobs_table.c.id == job_id)).first()
        return Job.from_row(row) if row is not None else None

    def list(self, owner: str | None = None, statuses: tuple = ()) -> list[Job]:
        """Jobs (of ``owner``, in ``statuses`` when given), oldest first."""
        query = select(jobs_table).order_by(jobs_table.c.created, jobs_table.c.id)
        if owner is not None:
            query = query.where(jobs_table.c.owner == owner)
        if statuses:
            query = query.where(jobs_table.c.status.in_(statuses))
        with self.engine.connect() as conn:
            return [Job.from_row(row) for row in conn.execute(query)]

    def update(self, job_id: str, only_if: tuple = (), count_attempt: bool = False, **values) -> bool:
        """Set ``values`` on a job (when its status is in ``only_if``, if given; adding one to
        ``attempts`` with ``count_attempt``); True if a row changed."""
        if count_attempt:
            values["attempts"] = jobs_table.c.attempts + 1
        query = update(jobs_table).where(jobs_table.c.id == job_id).values(**values)
        if only_if:
            query = query.where(jobs_table.c.status.in_(only_if))
        with self.lock, self.engine.begin() as conn:
            return conn.execute(query).rowcount > 0

    def counts(self, owner: str | None = None) -> dict[str, int]:
        """Jobs per status (every status present, 0 where none)."""
        query = select(jobs_table.c.status, func.count()).group_by(jobs_table.c.status)
        if owner is not None:
            query = query.where(jobs_table.c.owner == owner)
        with self.engine.connect() as conn:
            found = dict(conn.execute(query).all())
        return {status: int(found.get(status, 0)) for status in STATUSES}

    def close(self) -> None:
        """Close the database connections."""
        self.engine.dispose()
