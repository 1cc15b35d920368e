"""The HTTP API's request and response models: what ``/openapi.json`` shows, and what every
request is validated against before anything runs.

Requests refuse unknown fields (a misspelt option is a 422 naming it, never silently
ignored).  Records travel as the dicts docs/records.md documents (``Sample``,
``ProblemState``), so a client reads what a run folder holds.  What the server will not
do for a caller is refused here too: a model spec that would read a file on the server
(``replay/<path>``), a dataset given as a path, an ``openai/`` model without its own
endpoint (the server's environment never lends its key or endpoint to a job).  A job's
request is derived from its task's config and ModelConfig (derive.py): every option they
declare, with the declared default, bounds and help; a benchmark's own routes (its
descriptor's ``routes``, such as NeoCoder's ``/v1/evals``) may register a request model
of their own for its config (``register_request``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    create_model,
    field_validator,
    model_validator,
)

from neocoder.config import LANGUAGES, PYTHON, ModelConfig, ProgramLimits
from neocoder.records import HUMAN
from neocoder.rewards.archive import ARCHIVE_NAME
from neocoder.rewards.formula import RewardWeights
from neocoder.serve.derive import request_model

PROBLEM_ID = r"^[0-9]{1,6}[A-Z][0-9]?$"  # a Codeforces problem id, e.g. 1901A
JOB_ID = r"^[0-9a-f]{32}$"  # made by the server (jobs.new_job_id)
REPLAYABLE = ("replay/gpt-4-1106-preview",)  # replay sources a caller may name (no server paths)


class Strict(BaseModel):
    """Base of the request models: unknown fields are a 422."""

    model_config = ConfigDict(extra="forbid")


class TestCase(Strict):
    """One test for /v1/run."""

    input: str = Field(description="The program's stdin.")
    output: str | None = Field(None, description="Expected stdout, compared as whitespace-separated tokens; "
                                                 "leave out to only run the program and get its stdout.")


class ProgramRequest(Strict):
    """The program and tests of a /v1/run request."""

    program: str = Field(min_length=1, description="Python source: a zero-argument solve() is called once per "
                                                   "test, else the program runs as a script; or C++ source with "
                                                   "language cpp.")
    language: Literal[LANGUAGES] = Field(PYTHON, description="The program's language: python, or cpp (compiled "
                                                             "once with g++ -O2 -std=c++17; CE on a compile failure).")
    tests: list[TestCase] = Field(default_factory=list, description="No tests: the program runs once on "
                                                                    "empty input.")


# POST /v1/run: the program, its tests and ProgramLimits' declared limits (config.py), as `neocoder sandbox run`
RunRequest = request_model(ProgramLimits, "RunRequest", ProgramRequest,
                           "POST /v1/run: judge a program on tests, as `neocoder sandbox run` does.")


class Verdict(BaseModel):
    """The judge's finding on one test (judge/verdicts.py TestVerdict)."""

    verdict: str = Field(description="AC, WA, TLE, MLE, RE, OLE, INFRA; OK for a test without expected output "
                                     "that ran to its end.")
    cpu_seconds: float | None = None
    wall_seconds: float | None = None
    max_rss_kb: int | None = None
    peak_cgroup_kb: int | None = None
    detail: str | None = Field(None, description="The exception, signal or sandbox failure.")
    stdout_head: str = Field("", description="The first 200 characters of stdout.")
    stdout: str | None = Field(None, description="The stdout, for tests without expected output (cut past the "
                                                 "server's --max-output-bytes in all, or the sandbox's cap per test).")
    output_cut: bool = Field(False, description="This test's stdout was cut (by the sandbox's cap or the answer's).")


class RunResponse(BaseModel):
    """The verdicts of a /v1/run program."""

    accepted: bool | None = Field(description="Every test AC (None when some test had no expected output).")
    entry: str | None = Field(description="solve (called once per test), script, or None on a compile error.")
    compile_error: str | None
    seconds: float = Field(description="Wall time of the judging.")
    output_cut: bool = Field(False, description="Some test's stdout was cut: the answer holds at most the server's "
                                                "--max-output-bytes of stdout in all.")
    tests: list[Verdict]


class BatchItem(Strict):
    """One program of a batch: a reply or a program for one problem state."""

    problem_id: str = Field(pattern=PROBLEM_ID, description="Codeforces problem id, e.g. 1901A.")
    state: int = Field(ge=0, le=20, description="The state t of the problem's constraint chain.")
    reply: str | None = Field(None, min_length=1, description="A model's raw reply: its fenced code block "
                                                              "(or the whole reply) is the program.")
    program: str | None = Field(None, min_length=1, description="A program, taken whole (unless it holds a "
                                                                "``` fence).")

    @model_validator(mode="after")
    def _one_source(self):
        if (self.reply is None) == (self.program is None):
            raise ValueError("give exactly one of reply and program")
        return self

    @property
    def text(self) -> str:
        """The reply or the program."""
        return self.reply if self.reply is not None else self.program


class JudgeOptions(Strict):
    """How a /v1/score request's programs are recorded and judged."""

    model: str = Field("api", min_length=1, max_length=200, pattern=r"^[\x20-\x7e]+$",
                       description="The name recorded as the sample's model.")
    language: Literal[LANGUAGES] = Field(PYTHON, description="The programs' language: python, or cpp (the C++ "
                                                             "prompt's contract; compiled; CE on a compile failure).")
    judge_all_tests: bool = Field(True, description="False: each tier stops at its first failing test and the "
                                                    "extended tests run only after every example passed "
                                                    "(faster; the same scores).")


class ScoreRequest(JudgeOptions, BatchItem):
    """POST /v1/score: a reply or a program for one problem state."""


RewardWeightsSpec = create_model(
    "RewardWeights", __base__=Strict, __doc__="The reward's weights (neocoder/rewards/formula.py), each >= 0.",
    **{f.name: (float, Field(f.default, ge=0, allow_inf_nan=False, description=f.metadata["help"]))
       for f in dataclass_fields(RewardWeights)})


class BatchScoreRequest(JudgeOptions):
    """POST /v1/score with ``items``: a batch, answered as an NDJSON stream of ScoreResult
    lines, one per item as it is judged (docs/rewards.md)."""

    items: list[BatchItem] = Field(min_length=1, description="The programs, at most the server's max_batch "
                                                             "(413 naming `items` past it).")
    archive: str | None = Field(None, pattern=ARCHIVE_NAME, description="An archive of the caller's: novelty "
                                "is measured against it and every program joins it, in item order per problem.")
    weights: RewardWeightsSpec = Field(default_factory=RewardWeightsSpec, description="The reward's weights.")

    def reward_weights(self) -> RewardWeights:
        """The weights as the library's RewardWeights."""
        return RewardWeights(**self.weights.model_dump())


def _score_kind(body: Any) -> str:
    return "batch" if isinstance(body, dict) and "items" in body else "single"


# the body of POST /v1/score: a batch when it has ``items``, else the single request
ScoreBody = Annotated[Union[Annotated[ScoreRequest, Tag("single")], Annotated[BatchScoreRequest, Tag("batch")]],
                      Discriminator(_score_kind)]
SCORE_TAGS = ("single", "batch")  # what a validation error's location carries after "body"


class Scores(BaseModel):
    """The sample's scores, as the run metrics define them for one sample (metrics.py)."""

    correct: bool = Field(description="Every example test AC.")
    correct_plus: bool | None = Field(description="Examples and extended tests AC; None without extended tests.")
    follows: bool = Field(description="No constraint technique detected.")
    convergent: float | None = Field(description="Eq. 2: correct x follows (None when excluded).")
    divergent: float | None = Field(description="Eq. 3: share of techniques no human used (None without H(p)).")
    neogauge: float | None = Field(description="Eq. 4 for this sample: convergent x divergent.")
    excluded: bool = Field(description="Left out of every rate (an INFRA verdict).")
    infra: bool = Field(description="The sandbox failed on some test: the sample says nothing about the program.")


class ScoreResponse(BaseModel):
    """The full sample record (docs/records.md, ``sample``) and its scores."""

    sample: dict[str, Any]
    scores: Scores


class ArchiveSummary(BaseModel):
    """One of the caller's archives."""

    name: str
    programs: int = Field(description="Programs scored into it.")
    problems: int = Field(description="Distinct problems among them.")
    first_added: float = Field(description="When its first program joined, seconds since the epoch (UTC).")
    last_added: float = Field(description="When its last program joined.")


class ArchiveList(BaseModel):
    """GET /v1/archives: the caller's archives by name."""

    archives: list[ArchiveSummary]


class ArchiveReset(BaseModel):
    """DELETE /v1/archives/{name}: the archive is empty now."""

    name: str
    deleted: int = Field(description="Programs it held.")


class ModelChecks(Strict):
    """What a server refuses in a model (ModelSpec's fields are derived from ModelConfig)."""

    @field_validator("spec", check_fields=False)
    @classmethod
    def _allowed(cls, spec: str) -> str:
        provider, _, name = spec.partition("/")
        if spec == HUMAN or spec in REPLAYABLE:
            return spec
        if provider == "replay":
            raise ValueError(f"a server replays only {', '.join(REPLAYABLE)} (replaying a file means reading "
                             "the server's disk)")
        if provider in ("openai", "local") and re.fullmatch(r"[A-Za-z0-9._:@/+-]+", name or ""):
            return spec
        raise ValueError("PROVIDER/NAME with provider openai, local or replay (or human)")

    @field_validator("base_url", check_fields=False)
    @classmethod
    def _url(cls, url: str | None) -> str | None:
        if url is not None and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s]*)?", url):
            raise ValueError("an http:// or https:// URL")
        return url

    @model_validator(mode="after")
    def _endpoint(self):
        if self.spec.startswith("openai/") and not self.base_url:
            raise ValueError("base_url: an openai/ model needs its endpoint (the server never lends its own)")
        return self


MODEL_OVERRIDES = {  # what a server's request says of a model beyond ModelConfig's declarations
    "spec": (str, Field(min_length=1, max_length=200, description="openai/<model> (with base_url), local/<name>, "
                                                                   "replay/gpt-4-1106-preview, or human.")),
    "base_url": (str | None, Field(None, max_length=2000, description="The OpenAI-compatible endpoint.")),
    "api_key": (SecretStr | None, Field(None, description="Held in memory for the job only: never stored, logged "
                                                          "or written to the run folder.")),
}
ModelSpec = request_model(ModelConfig, "ModelSpec", ModelChecks, "The model a job calls, as ModelConfig declares it.",
                          overrides=MODEL_OVERRIDES)


class TaskRunRequest(Strict):
    """POST /v1/runs: a job of any registered task (``neocoder run TASK``)."""

    task: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$", description="A registered task's name "
                      "(neocoder.benchmarks.task_names()).")
    config: dict[str, Any] = Field(default_factory=dict, description="The task's config, as its config type "
                                   "declares it (the run folder and the sandbox are the server's).")


@dataclass(frozen=True)
class OwnRequest:
    """A benchmark's own request model for its config (``register_request``): ``model``
    validates a stored request, ``server_fields(serve config, request) -> dict`` adds the
    config fields the server decides (e.g. its dataset when the request names none), and
    ``alias``, where given, is the route the task's jobs show themselves under
    (``/v1/evals``), with the request as its config and a report link."""

    model: type[BaseModel]
    server_fields: Callable[[Any, BaseModel], dict] | None = None
    alias: str | None = None


OWN_REQUESTS: dict[type, OwnRequest] = {}  # config type -> the request its benchmark's routes registered
ALIASES: dict[str, str] = {}  # task name -> the alias route its jobs show under


def register_request(config_type: type, task: str, own: OwnRequest) -> None:
    """Use ``own`` for jobs of ``config_type`` (task ``task``); a benchmark's routes module
    calls it on import (app.py imports every registered benchmark's routes)."""
    OWN_REQUESTS[config_type] = own
    if own.alias:
        ALIASES[task] = own.alias


def load_routes() -> list:
    """Every registered benchmark's extra routers (``Benchmark.routes``), imported now, so
    their ``register_request`` calls have run."""
    from neocoder.benchmarks import benchmarks
    from neocoder.benchmarks.descriptor import resolve
    return [resolve(ref) for b in benchmarks() for ref in b.routes]


def config_request(config_type) -> type[BaseModel]:
    """The request model of a task's config: the one its benchmark's routes registered, else
    every option ``config_type`` declares that a caller may send (derive.py), its models as
    ModelSpec."""
    load_routes()
    if config_type in OWN_REQUESTS:
        return OWN_REQUESTS[config_type].model
    return _derived_request(config_type)


@functools.cache
def _derived_request(config_type) -> type[BaseModel]:
    return request_model(config_type, f"{config_type.__name__}Request", Strict,
                         f"The config of a {config_type.__name__} job.", model_schema=ModelSpec)


class ResumeRequest(Strict):
    """POST /v1/evals/{id}/resume."""

    api_key: SecretStr | None = Field(None, description="The job's API key again, when it had one.")


class Progress(BaseModel):
    """How far a job is."""

    done: int = Field(description="Samples judged (finished records in the run folder).")
    total: int | None = Field(description="Samples the job will judge (None until its states are selected).")


class EvalJob(BaseModel):
    """An eval job: its request (without the key), status, progress and, once it has
    succeeded, the run's metrics (metrics.json, with 95% intervals)."""

    id: str
    status: Literal["queued", "running", "succeeded", "failed", "cancelled", "paused"]
    created: str
    started: str | None
    finished: str | None
    attempts: int
    request: dict[str, Any]
    progress: Progress
    error: str | None
    metrics: dict[str, Any] | None = None
    links: dict[str, str]


class EvalList(BaseModel):
    """GET /v1/evals: the caller's jobs, newest first (without metrics)."""

    jobs: list[EvalJob]


class ProblemSummary(BaseModel):
    """One problem of the server's dataset: its states t and limits."""

    problem_id: str
    states: list[int]
    time_limit_s: float
    memory_limit_mb: int


class ProblemList(BaseModel):
    """GET /v1/problems."""

    dataset: str = Field(description="validated, release, or the server's problem-states file.")
    problems: list[ProblemSummary]


class Health(BaseModel):
    """GET /healthz: 200 when programs can be judged, else 503."""

    status: Literal["ok", "unavailable", "draining"]
    sandbox: dict[str, Any] = Field(description="Backend, image, and why it cannot run (detail).")
    jobs: dict[str, int] | None = None


class Problem(BaseModel):
    """An error answer: ``detail`` says what is wrong, ``field`` names the request field."""

    detail: Any
    field: str | None = None
