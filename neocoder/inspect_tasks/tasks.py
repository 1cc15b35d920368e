"""The inspect_ai tasks: ``neocoder/neocoder`` (Denial Prompting), ``neocoder/aidanbench``, ``neocoder/ideas``.

``inspect eval neocoder/neocoder --model <any inspect model> -T limit=20 -T states=0-2``
solves NeoCoder's problem states with inspect's model (NeoCoder's chat solve prompt,
temperature 0, 1024 tokens, seed 0 + sample index: ``neocoder eval``'s defaults) and
scores every reply with NeoCoder's sandbox, detector and metrics (scoring.py).  The
options are ``EvalConfig``'s (config.py): ``states``, ``limit``, ``problems`` (``-T problems=1873C,1875A``),
``dataset``, ``samples``,
``cpu_scale``, ``judge_all_tests``, the sandbox's ``workers`` and kind; ``strategy`` maps
only where a strategy is one model call (``direct``): the others call the model several
times between sandbox runs inside NeoCoder's own loop (docs/inspect.md).
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, TaskState, solver

from ..config import dataset_arg
from ..errors import NeocoderError
from ..options import parse_states as _parse_states
from .samples import eval_config, eval_samples
from .scoring import neocoder_scorer

MAPPED_STRATEGIES = ("direct",)  # one model call per sample: inspect's generate() is the whole solver


@solver
def neocoder_solver(seed: int = 0):
    """NeoCoder's ``direct`` strategy: one generation from the solve prompt, with the sample's
    seed (``seed`` + its index, as ``neocoder eval`` draws its samples)."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.metadata["seed"] = seed + int(state.metadata["sample"])
        return await generate(state, seed=state.metadata["seed"])
    return solve


def _states(states) -> list[int]:
    if isinstance(states, (list, tuple)):
        return [int(t) for t in states]
    return _parse_states(str(states))


@task
def neocoder(states: str | list[int] = "0-5", limit: int | None = None, dataset: str | None = None,
             samples: int = 1, strategy: str = "direct", seed: int = 0, temperature: float = 0.0,
             max_tokens: int = 1024, cpu_scale: float = 1.0, judge_all_tests: bool = False, workers: int = 2,
             sandbox: str = "docker", problems: str | list[str] | None = None) -> Task:
    """NeoCoder (Denial Prompting; Lu et al., NAACL 2025) on inspect's model: one sample per
    (problem state, sample index), judged by NeoCoder (see the module).  Raises NeocoderError
    for a strategy that does not map or an option ``neocoder eval`` would refuse."""
    if strategy not in MAPPED_STRATEGIES:
        raise NeocoderError(f"-T strategy={strategy}: only {MAPPED_STRATEGIES} map onto inspect (one model call per "
                            "sample); run `neocoder eval --strategy " + strategy + "` (docs/inspect.md)")
    config = eval_config(states=_states(states), limit=None if limit is None else int(limit),
                         dataset=dataset_arg(dataset), samples=int(samples), strategy=strategy,
                         problems=[str(p) for p in problems] if isinstance(problems, (list, tuple)) else problems)
    return Task(
        dataset=MemoryDataset(eval_samples(config), name="neocoder"),
        solver=neocoder_solver(seed=int(seed)),
        scorer=neocoder_scorer(dataset=dataset, workers=int(workers), sandbox=sandbox, cpu_scale=float(cpu_scale),
                               judge_all_tests=bool(judge_all_tests) or int(samples) >= 2, strategy=strategy),
        config=GenerateConfig(temperature=float(temperature), max_tokens=int(max_tokens), seed=int(seed)),
        metadata={"neocoder": config.public()},
    )
