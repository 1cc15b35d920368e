"""NeoCoder's judging as an inspect_ai scorer, and its metrics as inspect metrics.

The scorer takes the reply inspect's model gave (``state.output.completion``) through
``pipeline.judge_reply``, the same code ``neocoder eval`` runs after the model: the
program, both test tiers in NeoCoder's sandbox, the technique detector, constraint
following and divergent (Eq. 3).  Its ``Score`` value is the sample's own scores
(``pass``, ``follows``, ``convergent`` (Eq. 2), ``divergent`` (Eq. 3), ``neogauge`` =
convergent x divergent, the term of Eq. 4), shown per sample in ``inspect view``; its
metadata holds the whole ``Sample`` record (records.py), which ``neocoder eval --model
inspect/<log>`` and ``neocoder export`` read back.

The metric ``neocoder_states`` rebuilds the ``Sample`` records from the scores and hands
them to ``metrics.sample_states``, the function behind ``neocoder eval``'s table, so the
inspect log's ``pass@1/t<t>``, ``convergent/t<t>``, ``divergent/t<t>``, ``neogauge/t<t>``
and ``cumulative_neogauge/t<t>`` are computed by the same code: no metric is implemented
twice.
"""

from __future__ import annotations

import atexit
import threading
from contextlib import ExitStack

from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState

from neocoder.config import PYTHON, SandboxConfig
from neocoder.inspect_tasks.samples import problem_state
from neocoder.models.base import Reply
from neocoder.records import Sample

RATES = ("pass_at_1", "constraint_following", "convergent", "divergent", "neogauge", "cumulative_neogauge")
NAMES = {"pass_at_1": "pass@1"}  # inspect metric names: the names neocoder's table prints

_BOXES: dict[tuple, object] = {}
_LOCK = threading.Lock()
_STACK = ExitStack()
atexit.register(_STACK.close)


def shared_sandbox(config: SandboxConfig):
    """One sandbox per sandbox config for this process (the warm pool is costly to start),
    closed at exit.  Raises NeocoderError when it cannot run here (no engine, no image)."""
    from neocoder.executors import open_sandbox
    key = tuple(sorted(config.public().items()))
    with _LOCK:
        if key not in _BOXES:
            _BOXES[key] = _STACK.enter_context(open_sandbox(config))
        return _BOXES[key]


def sample_scores(record: Sample) -> dict:
    """The per-sample scores shown in the log: ``pass`` (every example AC), ``follows``,
    ``convergent`` = correct x follow (Eq. 2), ``divergent`` (Eq. 3; None without H(p)) and
    ``neogauge`` = convergent x divergent (the term Eq. 4 averages); ``excluded`` when a
    model or sandbox failure leaves the sample out of every rate."""
    return {"pass": float(record.correct), "follows": float(record.follows), "convergent": float(record.convergent),
            "divergent": record.divergent, "neogauge": record.neogauge,
            "excluded": float(record.excluded)}


def record_of(score: Score) -> Sample:
    """The ``Sample`` record a NeoCoder score carries in its metadata.  Raises KeyError
    when the score is not a NeoCoder scorer's."""
    return Sample.from_dict(score.metadata["record"])


@metric
def neocoder_states():
    """NeoCoder's per-state rates over the scored samples, named ``<rate>/t<t>``
    (``metrics.sample_states``: pass@1, constraint following, convergent (Eq. 2),
    divergent (Eq. 3), NeoGauge@t (Eq. 4) and cumulative NeoGauge; rates in [0, 1])."""
    from neocoder.metrics.rates import sample_states

    def compute(scores: list[SampleScore]) -> dict:
        records = sorted((record_of(s.score) for s in scores), key=lambda r: r.key)
        out = {}
        for t, state in sample_states(records)[0].items():
            for rate in RATES:
                value = getattr(state, rate)
                if value is not None:
                    out[f"{NAMES.get(rate, rate)}/t{t}"] = float(value)
        return out
    return compute


@scorer(metrics=[neocoder_states()])
def neocoder_scorer(dataset: str | None, box: SandboxConfig, cpu_scale: float, judge_all_tests: bool,
                    strategy: str):
    """Judge the model's reply to a NeoCoder sample like ``neocoder eval`` (``pipeline.judge_reply``
    in the sandbox ``box``; the rest as EvalConfig gives them; see the module).  A reply
    inspect could not get (a model error) is recorded as the sample's ``error`` and excluded."""
    import anyio

    from neocoder.benchmarks.neocoder.pipeline import judge_reply
    box_config = box

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        problem = problem_state(dataset, meta["problem_id"], int(meta["state"]))
        human = None if meta.get("human_techniques") is None else set(meta["human_techniques"])
        record = Sample(problem_id=problem.problem_id, state=problem.state, sample=int(meta["sample"]),
                        model=str(state.model), constraints=list(problem.constraints),
                        prompt_sha256=meta["prompt_sha256"], strategy=strategy, seed=meta.get("seed"))
        output = state.output
        if output is None or output.error or not output.choices:
            record.error = (output.error if output is not None else None) or "the model gave no reply"
        else:
            usage = output.usage
            reply = Reply(text=output.completion, prompt_tokens=usage.input_tokens if usage else None,
                          completion_tokens=usage.output_tokens if usage else None)
            box = await anyio.to_thread.run_sync(shared_sandbox, box_config)
            language = meta.get("language") or PYTHON  # the sample's prompt asked for this language
            await anyio.to_thread.run_sync(lambda: judge_reply(record, problem, reply, box, human, cpu_scale,
                                                               judge_all_tests, language=language))
        values = sample_scores(record)
        return Score(value={k: v for k, v in values.items() if v is not None},
                     answer=record.code, explanation=_explain(record), metadata={"record": record.to_dict()})
    return score


def _explain(record: Sample) -> str:
    if record.error:
        return f"model error: {record.error}"
    verdicts = [t.get("verdict") for t in (record.examples.tests if record.examples else [])]
    listed = {"techniques": record.techniques, "violated": record.violated_constraints,
              "new": record.new_techniques or []}
    return "; ".join([f"examples {'/'.join(str(v) for v in verdicts) or '-'}"] +
                     [f"{name} {', '.join(values) or '-'}" for name, values in listed.items()])
