"""The inspect_ai tasks: ``neocoder/neocoder`` (Denial Prompting), ``neocoder/aidanbench``, ``neocoder/ideas``.

``inspect eval neocoder/neocoder --model <any inspect model> -T limit=20 -T states=0-2``
solves NeoCoder's problem states with inspect's model (NeoCoder's chat solve prompt, with
EvalConfig's model defaults and seed + sample index, as ``neocoder eval`` sends them) and
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
from inspect_ai.solver import Generate, TaskState, solver

from neocoder.benchmarks.neocoder.config import dataset_arg
from neocoder.errors import NeocoderError
from neocoder.inspect_tasks.bridge import generate_config
from neocoder.inspect_tasks.samples import eval_config, eval_samples
from neocoder.inspect_tasks.scoring import neocoder_scorer
from neocoder.options import parse_states as _parse_states

MAPPED_STRATEGIES = ("direct",)  # one model call per sample: inspect's generate() is the whole solver


@solver
def neocoder_solver(seed: int | None):
    """NeoCoder's ``direct`` strategy: one generation from the solve prompt, with the sample's
    seed (``seed`` + its index, as ``neocoder eval`` draws its samples)."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.metadata["seed"] = None if seed is None else seed + int(state.metadata["sample"])
        return await generate(state, seed=state.metadata["seed"])
    return solve


def _states(states) -> list[int]:
    if isinstance(states, (list, tuple)):
        return [int(t) for t in states]
    return _parse_states(str(states))


@task
def neocoder(states: str | list[int] | None = None, limit: int | None = None, dataset: str | None = None,
             samples: int | None = None, strategy: str = "direct", seed: int | None = None,
             temperature: float | None = None, max_tokens: int | None = None, cpu_scale: float | None = None,
             judge_all_tests: bool | None = None, workers: int | None = None, sandbox: str | None = None,
             problems: str | list[str] | None = None, language: str | None = None) -> Task:
    """NeoCoder (Denial Prompting; Lu et al., NAACL 2025) on inspect's model: one sample per
    (problem state, sample index), judged by NeoCoder (see the module).  Every option left
    None takes EvalConfig's declared default (the same as ``neocoder eval``'s).  Raises
    NeocoderError for a strategy that does not map or an option ``neocoder eval`` would refuse.
    ``language`` "cpp" (issue 49) asks for C++ programs and judges them as C++."""
    if strategy not in MAPPED_STRATEGIES:
        raise NeocoderError(f"-T strategy={strategy}: only {MAPPED_STRATEGIES} map onto inspect (one model call per "
                            "sample); run `neocoder eval --strategy " + strategy + "` (docs/inspect.md)")
    config = eval_config(states=None if states is None else _states(states),
                         limit=None if limit is None else int(limit),
                         dataset=dataset_arg(dataset), samples=samples, strategy=strategy, seed=seed,
                         temperature=temperature, max_tokens=max_tokens, cpu_scale=cpu_scale,
                         judge_all_tests=judge_all_tests, workers=workers, sandbox=sandbox,
                         problems=[str(p) for p in problems] if isinstance(problems, (list, tuple)) else problems,
                         language=language)
    return Task(
        dataset=MemoryDataset(eval_samples(config), name="neocoder"),
        solver=neocoder_solver(seed=config.model.seed),
        scorer=neocoder_scorer(dataset=dataset, box=config.sandbox, cpu_scale=config.cpu_scale,
                               judge_all_tests=config.all_tests(), strategy=config.strategy),
        config=generate_config(config.model),
        metadata={"neocoder": config.public()},
    )
