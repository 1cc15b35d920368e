"""What GET /metrics shows, in the Prometheus text format (prometheus_client).

Each app has its own registry (two servers in one process never share counters):
requests by method, route template and status; requests refused by reason; the judge's
queue depth and requests being judged; verdicts given per test; the judging time of
/v1/run and /v1/score as a histogram; eval jobs per status; submissions stopped because
their caller left (an HTTP client gone, a batch stream abandoned) and the seconds from its
leaving to the submission stopped.  ``RequestCounter`` is the
ASGI middleware that counts every answered request under its route's template (never the
raw path: job ids would make a series each).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
JUDGE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
STOP_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30)


class Telemetry:
    """The server's metrics.  ``render(jobs)`` gives the exposition text with the job
    counts (store.JobStore.counts) set at scrape time."""

    def __init__(self):
        disable_created_metrics()  # no *_created series beside each counter (process-wide; the server owns it)
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("neocoder_http_requests", "HTTP requests answered",
                                ["method", "route", "status"], registry=r)
        self.rejected = Counter("neocoder_rejected_requests", "Requests refused before any work",
                                ["reason"], registry=r)
        self.queue_depth = Gauge("neocoder_judge_queue_depth", "Requests admitted and waiting for a judge slot",
                                 registry=r)
        self.judging = Gauge("neocoder_judge_in_flight", "Requests being judged", registry=r)
        self.verdicts = Counter("neocoder_verdicts", "Test verdicts given by /v1/run and /v1/score",
                                ["endpoint", "verdict"], registry=r)
        self.judge_seconds = Histogram("neocoder_judge_seconds", "Judging time of a /v1/run or /v1/score request",
                                       ["endpoint"], buckets=JUDGE_BUCKETS, registry=r)
        self.jobs = Gauge("neocoder_eval_jobs", "Eval jobs by status", ["status"], registry=r)
        self.abandoned = Counter("neocoder_abandoned_submissions", "Submissions stopped because their caller left "
                                 "(HTTP client disconnected, batch stream abandoned)", ["endpoint"], registry=r)
        self.stop_seconds = Histogram("neocoder_abandoned_stop_seconds", "Seconds from a caller leaving to its "
                                      "submission stopped", ["endpoint"], buckets=STOP_BUCKETS, registry=r)

    def stopped(self, endpoint: str, seconds: float) -> None:
        """Count a submission of ``endpoint`` stopped ``seconds`` after its caller left."""
        self.abandoned.labels(endpoint).inc()
        self.stop_seconds.labels(endpoint).observe(max(0.0, seconds))

    def count_verdicts(self, endpoint: str, verdicts) -> None:
        """Count each test verdict of one answer of ``endpoint`` ("run" or "score")."""
        for verdict in verdicts:
            self.verdicts.labels(endpoint, verdict).inc()

    def render(self, jobs: dict[str, int], queue_depth: int, judging: int) -> bytes:
        """The exposition text, with gauges set to the values now."""
        for status, count in jobs.items():
            self.jobs.labels(status).set(count)
        self.queue_depth.set(queue_depth)
        self.judging.set(judging)
        return generate_latest(self.registry)


class RequestCounter:
    """ASGI middleware counting answered requests by method, route template and status."""

    def __init__(self, app, telemetry: Telemetry):
        self.app, self.telemetry = app, telemetry

    async def __call__(self, scope, receive, send):
        """Hand the request to the app, counting its answer's status by method and route template
        (500 when the app fails before answering), and a 401, 413 or 429 among the rejected
        requests by its reason."""
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        status = {"code": 500}

        async def watch(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.telemetry.requests.labels(scope.get("method", "?"), route, str(status["code"])).inc()
            if status["code"] in (401, 413, 429):
                self.telemetry.rejected.labels({401: "auth", 413: "too large", 429: "busy"}[status["code"]]).inc()
