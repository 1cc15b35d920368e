"""NeoCoder problem states as inspect_ai samples, and the key that names a sample.

One inspect ``Sample`` per (problem state, sample i), exactly the items ``neocoder eval``
solves (``benchmarks/neocoder/evaluation.py`` ``select_states``): its input is NeoCoder's chat solve
prompt (``solve.solve_prompt``: the system and user messages), its id
``<problem>/t<state>/s<i>``, and its metadata what scoring needs without the run folder:
the problem, state, sample index, the recorded code's ``source_index`` (the replay
model's key), the state's constraints and the problem's human technique set H(p)
(Eq. 3).  The problem state itself is looked up again at scoring time by its key.
"""

from __future__ import annotations

from functools import lru_cache

from neocoder.benchmarks.neocoder.config import EvalConfig
from neocoder.benchmarks.neocoder.evaluation import own_release, select_states
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.errors import NeocoderError
from neocoder.models.base import ReplayKey
from neocoder.records import ProblemState


def sample_id(problem_id: str, state: int, sample: int) -> str:
    """The inspect sample id of sample ``sample`` of state ``state`` of ``problem_id``."""
    return f"{problem_id}/t{state}/s{sample}"


def replay_key(metadata: dict) -> ReplayKey:
    """The ``ReplayKey`` (problem, state, sample, source_index) a sample's ``metadata`` names.
    Raises NeocoderError naming the missing field when the metadata is not a NeoCoder sample's."""
    for name in ("problem_id", "state", "sample"):
        if name not in (metadata or {}):
            raise NeocoderError(f"inspect sample metadata has no {name!r}: not a sample of the neocoder task")
    return ReplayKey(metadata["problem_id"], int(metadata["state"]), int(metadata["sample"]),
                     metadata.get("source_index"))


def eval_samples(config: EvalConfig) -> list:
    """The inspect ``Sample`` list of ``config`` (its dataset, states, limit and samples per
    state), in the order ``neocoder eval`` takes its items.  Raises NeocoderError when no
    state is selected."""
    from inspect_ai.dataset import Sample as InspectSample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    from neocoder.techniques.human import human_technique_sets
    states = select_states(config)
    human = human_technique_sets({s.problem_id for s in states}, own_release(config))
    _remember(config, states)
    out = []
    for state in states:
        sets = (human.get(state.problem_id) or {}).get("techniques")
        for i in range(config.samples):
            key = ReplayKey(state.problem_id, state.state, i, state.source_index)
            prompt = solve_prompt(state.statement, key, config.language)
            system, user = prompt.messages
            out.append(InspectSample(
                id=sample_id(state.problem_id, state.state, i),
                input=[ChatMessageSystem(content=system["content"]), ChatMessageUser(content=user["content"])],
                metadata=dict(problem_id=state.problem_id, state=state.state, sample=i,
                              source_index=state.source_index, constraints=list(state.constraints),
                              human_techniques=None if sets is None else sorted(sets),
                              prompt_sha256=prompt.sha256(), language=config.language)))
    return out


def eval_config(model: str = "inspect/task", temperature: float | None = None, max_tokens: int | None = None,
                seed: int | None = None, workers: int | None = None, sandbox: str | None = None,
                **options) -> EvalConfig:
    """The ``EvalConfig`` an inspect task stands for, with EvalConfig's own defaults
    filled in (``resolved``) wherever a value is None: ``options`` are its fields (states,
    limit, dataset, samples, strategy, ...), ``temperature``/``max_tokens``/``seed`` the
    model's, ``workers``/``sandbox`` the sandbox's; no run folder (inspect writes its own
    log); the release where ``$NEOCODER_RELEASE`` points.  Raises NeocoderError for a bad
    value, as ``neocoder eval`` would."""
    from pathlib import Path

    from neocoder.config import ModelConfig, SandboxConfig
    from neocoder.dataset import default_release_dir
    given = lambda **kw: {k: v for k, v in kw.items() if v is not None}  # noqa: E731  (None: the declared default)
    config = EvalConfig(model=ModelConfig(model, **given(temperature=temperature, max_tokens=max_tokens, seed=seed)),
                        out=Path("inspect-log"), release_dir=default_release_dir(),
                        sandbox=SandboxConfig(**given(kind=sandbox, workers=workers)), **given(**options))
    config.check()
    return config.resolved()


_STATES: dict[tuple, ProblemState] = {}


def _remember(config: EvalConfig, states: list[ProblemState]) -> None:
    for state in states:
        _STATES[(str(config.dataset), state.problem_id, state.state)] = state


def problem_state(dataset: str | None, problem_id: str, state: int) -> ProblemState:
    """The problem state ``(problem_id, state)`` of ``dataset`` (None: the shipped one), as
    ``eval_samples`` selected it (read again when the process did not build the samples).
    Raises NeocoderError when the dataset has no such state."""
    got = _STATES.get((str(dataset), problem_id, state))
    if got is None:
        got = _all_states(dataset).get((problem_id, state))
    if got is None:
        raise NeocoderError(f"dataset {dataset or 'shipped'} has no problem state {problem_id} t={state}")
    return got


@lru_cache(maxsize=4)
def _all_states(dataset: str | None) -> dict[tuple, ProblemState]:
    from neocoder.benchmarks.neocoder.config import dataset_arg
    config = eval_config(dataset=dataset_arg(dataset), states=list(range(21)))
    return {(s.problem_id, s.state): s for s in select_states(config)}
