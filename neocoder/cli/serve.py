"""``neocoder serve``."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..config import DOCKER, LOCAL, PROCESS, RAY
from ..serve.config import ServeConfig
from . import main
from .options import release_option


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Programs judged at once (the server's sandbox, and each eval job's).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Eval jobs run at once.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("serve-data"),
              show_default=True, help="The job store, the jobs' run folders and their reports.")
@click.option("--database-url", envvar="NEOCODER_DATABASE_URL", default=None,
              help="Job store as a SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in "
                   "--data-dir).")
@click.option("--dataset", default=None, help="What /v1/score judges on and the jobs' default: 'release', a "
              "problem-states file or folder (default: the validated dataset, built per problem on first use).")
@release_option()
@click.option("--sandbox", "sandbox_kind", type=click.Choice([DOCKER, PROCESS]), default=DOCKER,
              show_default=True)
@click.option("--executor", type=click.Choice([LOCAL, RAY]), default=LOCAL, show_default=True,
              help="Who judges: this machine's warm pool, or sandbox-pool actors on a Ray cluster "
                   "(docs/scale-out.md); for /v1/run, /v1/score and the eval jobs alike.")
@click.option("--ray-address", default=None, help="The Ray cluster for --executor ray (e.g. auto or HOST:6379; "
              "default: $RAY_ADDRESS, else a local Ray).")
@click.option("--tokens-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Bearer tokens, one per line (also $NEOCODER_SERVE_TOKENS).")
@click.option("--no-auth", is_flag=True, help="No tokens: only on a loopback --host.")
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=2 << 20, show_default=True)
@click.option("--max-program-bytes", type=click.IntRange(min=1), default=64 << 10, show_default=True)
@click.option("--max-tests", type=click.IntRange(min=1), default=256, show_default=True, help="Tests per /v1/run.")
@click.option("--per-token-concurrency", "per_token", type=click.IntRange(min=1), default=16, show_default=True,
              help="Judge requests of one token in flight (judging or queued) before 429.")
@click.option("--queue", type=click.IntRange(min=0), default=64, show_default=True,
              help="Judge requests waiting for a slot, all tokens together, before 429.")
@click.option("--max-jobs", type=click.IntRange(min=1), default=32, show_default=True,
              help="Eval jobs queued or running before POST /v1/evals answers 429.")
@click.option("--jobs-per-token", type=click.IntRange(min=1), default=ServeConfig.jobs_per_token, show_default=True,
              help="Eval and task jobs of one token queued or running before 429.")
@click.option("--programs-per-minute", type=click.IntRange(min=1), default=ServeConfig.programs_per_minute,
              show_default=True, help="Programs one token may judge a minute (/v1/run, /v1/score) before 429.")
@click.option("--max-batch", type=click.IntRange(min=1), default=ServeConfig.max_batch, show_default=True,
              help="Items in one /v1/score batch (docs/rewards.md); past it 413 naming the field items.")
@click.option("--allow-endpoint", multiple=True, metavar="HOST_OR_CIDR",
              help="A host name, IP address or CIDR network the jobs' model endpoints may reach besides public "
                   "addresses (repeatable; loopback, private and link-local addresses are refused otherwise).")
@click.option("--allow-provider", "allow_provider", default=",".join(ServeConfig.allow_provider),
              show_default=True, callback=lambda _ctx, _param, text: tuple(p for p in text.split(",") if p),
              help="Model providers callers may use, comma-separated (local starts a model server on this machine).")
@click.option("--shutdown-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              help="Seconds SIGTERM waits for requests and jobs in flight.")
@click.option("--public-run", "public_runs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A run folder, or a folder of them, shown on the leaderboard at / to everyone (repeatable).")
@click.option("--session-minutes", type=click.IntRange(min=1), default=ServeConfig.session_minutes, show_default=True,
              help="How long a browser session lasts after sign-in.")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
              show_default=True)
def serve_command(host, port, workers, jobs, data_dir, database_url, dataset, release, sandbox_kind, executor,
                  ray_address, tokens_file, no_auth, max_body_bytes, max_program_bytes, max_tests, per_token, queue,
                  max_jobs, jobs_per_token, programs_per_minute, max_batch, allow_endpoint, allow_provider, shutdown_timeout,
                  public_runs, session_minutes, log_level):
    """Serve NeoCoder over HTTP: judge programs, score replies, run evals as jobs (docs/serve.md)."""
    from ..serve import serve
    serve(ServeConfig(release, host, port, workers, jobs, data_dir, database_url, dataset, sandbox_kind, tokens_file,
                      no_auth, max_body_bytes, max_program_bytes, max_tests, per_token, queue, max_jobs,
                      jobs_per_token, shutdown_timeout=shutdown_timeout, log_level=log_level, executor=executor,
                      ray_address=ray_address, programs_per_minute=programs_per_minute, max_batch=max_batch,
                      allow_endpoint=list(allow_endpoint), allow_provider=allow_provider,
                      public_runs=list(public_runs), session_minutes=session_minutes))
