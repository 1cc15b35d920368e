"""What /v1/run, /v1/score and /v1/problems judge with: the server's sandbox, its problem
states and the humans' technique sets, each loaded once and kept.

``/v1/score`` is the per-sample reward: a reply (or a program) for one problem state goes
through ``pipeline.judge_reply``, the same stages ``neocoder eval`` runs after the model
(program extraction, both test tiers, techniques, constraints, divergent), and comes
back as the full ``Sample`` record with its scores: ``neocoder.rewards.scoring``'s
``score_state``, which the in-process ``Scorer`` calls too.  A batch (batching.py) runs
each of its programs through ``JudgeService.score``.  ``/v1/run`` is ``neocoder sandbox
run``: a program on the given tests.

Problem states come from the dataset the server was started with, read at start: the
validated dataset shipped with neocoder (default; neocoder/dataset/shipped.py), the
release's statement examples (``release``) or a problem-states file.  H(p), the humans'
techniques, comes from the shipped technique sets, read per problem on first use.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.benchmarks.neocoder.program import program_from_reply
from neocoder.config import DOCKER, PYTHON, RAY, SandboxConfig
from neocoder.dataset import build_from_release, load_states, shipped
from neocoder.errors import NeocoderError
from neocoder.judge import Cancel, Limits, Sandbox, SubmissionResult
from neocoder.models import Reply
from neocoder.records import ProblemState, Sample
from neocoder.rewards.scoring import NotFound, ProblemBank, score_state  # noqa: F401 - NotFound: app.py, deps.py map it to 404

RAN = "OK"  # the verdict of a /v1/run test without an expected output that ran to its end


def json_size(text: str) -> int:
    """Bytes ``text`` takes inside a JSON answer: UTF-8, escapes included, quotes not."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def cut_to(text: str, room: int) -> str:
    """The longest prefix of ``text`` that takes at most ``room`` bytes in JSON (``json_size``)."""
    if json_size(text) <= room:
        return text
    low, high = 0, min(len(text), room)  # a character takes at least one byte
    while low < high:
        middle = (low + high + 1) // 2
        if json_size(text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def cap_output(result: SubmissionResult, limit: int) -> bool:
    """Cut the tests' stdout so that, in JSON (``json_size``), they take at most ``limit`` bytes in
    all (the first tests keep theirs whole; the one that crosses the limit is cut, later
    ones are empty).  A test whose stdout was cut, here or by the sandbox (the submission's
    own output cap), says ``output_cut``; the result's ``output_cut`` is then True.  Returns it."""
    left = limit
    for verdict in result.tests:
        if verdict.stdout is not None:
            kept = cut_to(verdict.stdout, left)
            verdict.output_cut = verdict.output_cut or len(kept) < len(verdict.stdout)
            verdict.stdout = kept
            left = max(0, left - json_size(kept))
    return result.output_cut


class TooLarge(NeocoderError):
    """Something over one of the server's limits (HTTP 413): a program past its size in
    bytes, a request with too many tests or items; ``field`` names the request field."""

    def __init__(self, field_name: str, size: int, limit: int, unit: str = "bytes"):
        self.field = field_name
        what = "the program is" if unit == "bytes" else "the request has"
        super().__init__(f"{field_name}: {what} {size} {unit}, over the limit of {limit} {unit}")


class Unavailable(NeocoderError):
    """The sandbox cannot run here (no engine, a missing or stale image): HTTP 503."""


class JudgeService:
    """The server's sandbox (``workers`` programs at once) and its problem states.

    ``dataset`` is None (the shipped validated dataset), "release" (the release at
    ``release_dir``), or a problem-states file or run folder.
    ``sandbox`` is where programs run (its executor "ray" judges on sandbox-pool actors of
    the Ray cluster at its ``ray_address``, neocoder/executors/ray.py, instead of this
    machine's pool).  ``close()`` removes the
    sandbox's containers.
    """

    def __init__(self, release_dir: Path | None, dataset: str | None, sandbox: SandboxConfig,
                 max_program_bytes: int = 64 << 10):
        self.release_dir, self.dataset, self.workers = release_dir, dataset, sandbox.workers
        self.max_program_bytes = max_program_bytes
        if dataset is None:
            fixed = shipped.load_states()
        elif dataset == "release":
            fixed = [ProblemState.from_dict(r) for r in build_from_release(Path(release_dir))[0]]
        else:
            fixed = load_states(Path(dataset))
        self.bank = ProblemBank(fixed, self.dataset_name)
        from neocoder.executors import EXECUTORS
        self.box: Sandbox = EXECUTORS[sandbox.executor](sandbox, sandbox.workers)

    @property
    def dataset_name(self) -> str:
        """The dataset's name as /v1/problems shows it."""
        return {None: f"validated (shipped {shipped.version()})", "release": "release"}.get(
            self.dataset, str(self.dataset))

    def close(self) -> None:
        """Remove the sandbox's containers."""
        self.box.close()

    def health(self) -> dict:
        """``{"ok", "sandbox", "image", "detail"}``: can programs be judged now?  For Docker,
        the engine is pinged and the image checked against this neocoder's runner; for
        the ray executor, some node's actor must be up."""
        out = {"sandbox": self.box.name, "image": self.box.image, "ok": not self.box.unavailable,
               "detail": self.box.unavailable}
        if out["ok"] and self.box.name == DOCKER:
            from neocoder.judge import check_image
            try:
                self.box.client.ping()
                check_image(self.box.client, self.box.image)
            except Exception as exc:  # noqa: BLE001 - any failure here means "not healthy", with its reason
                out.update(ok=False, detail=str(exc))
        elif out["ok"] and self.box.name == RAY and not self.box.capacity:
            out.update(ok=False, detail="ray executor: no sandbox node is up now: " + "; ".join(
                f"{n['node_id'][:12]} {n['state']} ({n['reason']})" for n in self.box.nodes()))
        return out

    # -- problems --------------------------------------------------------------------

    def problems(self) -> list[dict]:
        """Every problem of the dataset: id, state numbers t, time and memory limits."""
        return self.bank.problems()

    def state(self, problem_id: str, t: int) -> ProblemState:
        """The problem state.  Raises NotFound naming the states the problem has."""
        return self.bank.state(problem_id, t)

    def human(self, problem_id: str) -> set | None:
        """H(p): the union of the technique sets of the problem's accepted human solutions."""
        return self.bank.human(problem_id)

    # -- judging ---------------------------------------------------------------------

    def _check_sandbox(self) -> None:
        if self.box.unavailable:
            raise Unavailable(self.box.unavailable)

    def run(self, program: str, tests: list[dict], cpu_seconds: float, memory_mb: int,
            language: str = PYTHON, cancel: Cancel | None = None,
            max_output: int | None = None) -> SubmissionResult:
        """Judge ``program`` on ``tests`` (``{"input", "output"}``; a test without ``output``
        is only run, and gets ``OK`` when it ran to its end, with its stdout); no tests: run
        it once on empty input.  ``language``: "python" or "cpp" (compiled first; CE on
        every test when it does not compile).  The tests' stdout is at most ``max_output``
        bytes in all (``cap_output``).  ``cancel`` set: the judging stops (Cancelled).
        Raises TooLarge, Unavailable, Cancelled."""
        self._check_size("program", program)
        self._check_sandbox()
        cases = [dict(t) for t in tests] or [{"input": ""}]
        unchecked = {i for i, t in enumerate(cases) if t.get("output") is None}
        for i in unchecked:
            cases[i]["output"] = ""
        result = self.box.run(program, cases, Limits.for_cpu(cpu_seconds, memory_mb), keep_output=bool(unchecked),
                              language=language, cancel=cancel)
        for i, verdict in enumerate(result.tests):
            if i in unchecked and verdict.verdict in ("AC", "WA"):
                verdict.verdict = RAN
            elif i not in unchecked:
                verdict.stdout = None  # compared, not returned whole
        if max_output is not None:
            cap_output(result, max_output)
        return result

    def score(self, problem_id: str, t: int, text: str, model: str = "api", cpu_scale: float = 1.0,
              judge_all_tests: bool = True, language: str = PYTHON,
              cancel: Cancel | None = None) -> tuple[Sample, dict]:
        """The sample record of reply (or program) ``text`` for problem state (problem_id, t),
        and its scores (neocoder.rewards.scoring.score_state, shared with the in-process
        Scorer): ``{"correct", "correct_plus", "follows", "convergent",
        "divergent", "neogauge", "excluded"}`` as the run metrics define them (metrics.py
        on this one sample).  ``cancel`` set: the judging stops.  Raises NotFound, TooLarge,
        Unavailable, Cancelled."""
        state = self.state(problem_id, t)
        self._check_size("reply", program_from_reply(Reply(text=text), language))
        self._check_sandbox()
        return score_state(state, text, self.box, self.human(problem_id), model, cpu_scale, judge_all_tests,
                           language, cancel=cancel)

    def _check_size(self, field_name: str, program: str) -> None:
        size = len(program.encode("utf-8", "replace"))
        if size > self.max_program_bytes:
            raise TooLarge(field_name, size, self.max_program_bytes)

