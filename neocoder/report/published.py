"""The NeoCoder paper's published figures, shipped with the package, and which run each belongs beside.

Why: a measured run means more next to what the paper reported for the same setting.  The
figures of Lu et al., "Benchmarking Language Model Creativity: A Case Study on Code
Generation" (NAACL 2025) ship as package data (``data/codeforces/published/``, installed as
``neocoder.codeforces``; read through ``importlib.resources`` so a wheel without a checkout
finds them):

- Table 4, GPT-4 (``gpt-4-1106-preview``) per state t: pass@1, constraint following,
  convergent, divergent and NeoGauge@t, as fractions;
- Table 5, GPT-4 with each reasoning strategy (MCTS, Self-Correction, Planning, Sampling)
  per state t: convergent, divergent and NeoGauge as ``{"delta", "old", "new"}`` fractions,
  ``old`` being GPT-4 without the strategy on the paper's subset.

Which run a figure belongs beside (``for_run``): Table 4 beside a GPT-4 run without a
strategy (``is_gpt4``: the model's name, after its provider prefix, is ``gpt-4`` or starts
with ``gpt-4-``, e.g. ``replay/gpt-4-1106-preview``, ``openai/gpt-4-turbo``; not
``gpt-4o`` or ``gpt-4.1``, which are other models); Table 5's row of the same strategy
beside a run of strategy ``mcts``, ``self-correct``, ``self-plan`` or ``sample``
(``PAPER_STRATEGIES``).  The figures are always shown as *published*, never re-measured;
the paper's harness differs from this one (data/codeforces/published/README.md).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from neocoder.errors import NeocoderError
from neocoder.report.compare import RunScores

PACKAGE = "neocoder.codeforces"
TABLE4_FILE = "neocoder_table4_gpt4.json"
TABLE5_FILE = "neocoder_table5_strategies.json"
TABLE5_RATES = ("convergent", "divergent", "neogauge")
# the problems per state t that Table 4 is over: the paper's Table 1 (199, 199, 198, 194, 176, 97;
# the release's states, docs/paper.md), shown beside a run of fewer (labels.small_run_lines)
TABLE4_PROBLEMS = {"0": 199, "1": 199, "2": 198, "3": 194, "4": 176, "5": 97}
# our strategy names (neocoder/strategies/options.py NAMES) -> the paper's Table 5 rows
PAPER_STRATEGIES = {"mcts": "MCTS", "self-correct": "Self-Correction", "self-plan": "Planning",
                    "sample": "Sampling"}


@lru_cache(maxsize=None)
def _read(name: str) -> dict:
    """The shipped JSON file ``published/<name>``.  Raises NeocoderError when the
    installation lacks it or it is not JSON (a broken install)."""
    try:
        text = resources.files(PACKAGE).joinpath("published", name).read_text(encoding="utf-8")
        return json.loads(text)
    except (OSError, ValueError, ModuleNotFoundError) as exc:
        raise NeocoderError(f"the paper's published figures {PACKAGE}/published/{name} are unreadable "
                            f"({exc}); reinstall neocoder") from exc


def source_path(name: str) -> str:
    """Where a shipped figure file lives, as shown beside its rows (``neocoder.codeforces/published/NAME``)."""
    return f"{PACKAGE}/published/{name}"


def table4() -> RunScores:
    """Table 4 (GPT-4 per state t, rates as fractions) as a published ``RunScores``:
    ``metrics["states"][t]`` holds pass@1, constraint_following, convergent, divergent
    and neogauge; ``published`` is the source (the paper's table); ``problems`` the
    problems per state it is over (``TABLE4_PROBLEMS``).  No intervals, no per-problem
    ratios: published rows are never re-measured or paired."""
    data = _read(TABLE4_FILE)
    return RunScores(label=data["label"], path=source_path(TABLE4_FILE), metrics={"states": data["states"]},
                     published=data["source"], model=data.get("model", "gpt-4-1106-preview"),
                     problems=dict(TABLE4_PROBLEMS))


def small_run_note(problems: dict[str, int]) -> str | None:
    """What the report says beside Table 4 when the run scored fewer problems than the
    paper at some state (``problems``: "t" -> problems the run scored): "over 199, 199
    problems at t=0, 1 (the paper's Table 1); this run scored 3, 3: ..."; None when the run
    has as many at every state Table 4 has (or none of them)."""
    states = sorted((t for t in problems if t in TABLE4_PROBLEMS), key=int)
    if not any(problems[t] < TABLE4_PROBLEMS[t] for t in states):
        return None
    return (f"Table 4 is over {', '.join(str(TABLE4_PROBLEMS[t]) for t in states)} problems at t={', '.join(states)} "
            f"(the paper's Table 1); this run scored {', '.join(str(problems[t]) for t in states)}: at that size "
            "its rates can differ from the published ones by chance alone (see its intervals)")


def table4_states() -> dict[str, dict[str, float]]:
    """Table 4's rates per state, ``{"t": {rate: fraction}}`` (the ``metrics.json``
    ``states`` shape, without intervals)."""
    return _read(TABLE4_FILE)["states"]


def table4_source() -> str:
    """Table 4's citation, as the pages and tables name it."""
    return _read(TABLE4_FILE)["source"]


def paper_strategy(strategy: str | None) -> str | None:
    """The paper's Table 5 name for one of our strategies (``self-correct`` ->
    ``Self-Correction``); None for ``direct``, None or a strategy the paper did not run."""
    return PAPER_STRATEGIES.get(strategy or "direct")


def table5_for(strategy: str | None) -> dict | None:
    """Table 5's row for our ``strategy``: ``{"strategy": paper name, "source": citation,
    "file": where it ships, "states": {"t": {rate: {"delta", "old", "new"}}}}`` with rates
    convergent, divergent, neogauge as fractions (delta = new - old, GPT-4 with the
    strategy against GPT-4 without it, on the paper's subset).  None when the paper has
    no such strategy."""
    name = paper_strategy(strategy)
    if name is None:
        return None
    data = _read(TABLE5_FILE)
    if name not in data["strategies"]:
        raise NeocoderError(f"{source_path(TABLE5_FILE)} has no row for {name!r}; reinstall neocoder")
    return {"strategy": name, "source": data["source"], "file": source_path(TABLE5_FILE),
            "states": data["strategies"][name]}


def table5_states(strategy: str | None) -> dict[str, dict[str, float]] | None:
    """Table 5's ``new`` values (GPT-4 with the strategy) per state in the ``metrics.json``
    ``states`` shape, ``{"t": {rate: fraction}}``, for drawing beside a measured run; None
    when the paper has no such strategy."""
    row = table5_for(strategy)
    if row is None:
        return None
    return {t: {rate: cell["new"] for rate, cell in rates.items()} for t, rates in row["states"].items()}


def is_gpt4(model: str | None) -> bool:
    """Whether ``model`` (a model spec or metrics.json ``model``) is the paper's GPT-4: its
    name (after the provider prefix and, for replayed files, after ``#``) is ``gpt-4`` or
    starts with ``gpt-4-`` (``gpt-4-1106-preview``, ``gpt-4-turbo``, ``gpt-4-0613``), or it
    names ``gpt-4-1106-preview`` anywhere.  ``gpt-4o``/``gpt-4.1`` are other models: False."""
    if not model:
        return False
    lowered = model.lower()
    if "gpt-4-1106-preview" in lowered:
        return True
    name = lowered.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return name == "gpt-4" or name.startswith("gpt-4-")


def for_run(model: str | None, strategy: str | None, language: str | None = "python") -> dict:
    """The published figures that belong beside one run: ``{"table4": bool, "table5":
    table5_for(strategy) or None}``; Table 4 only for a GPT-4 run without a strategy
    (the paper measured Table 4 without one); neither beside a run whose programs are not
    Python (``language``; None counts as Python, as runs from before C++ are): the paper's
    figures are of Python programs."""
    if (language or "python") != "python":
        return {"table4": False, "table5": None}
    direct = (strategy or "direct") == "direct"
    return {"table4": direct and is_gpt4(model), "table5": table5_for(strategy)}


def beside(runs: list[RunScores]) -> list[RunScores]:
    """The published rows ``neocoder compare`` adds to measured ``runs``: Table 4 when one
    of them is a GPT-4 run without a strategy (``for_run``), else none.  Also attaches
    Table 5's row of its strategy to each strategy run (``RunScores.table5``)."""
    for run in runs:
        if not run.published:
            run.table5 = for_run(run.model, run.metrics.get("strategy"), run.language)["table5"]
    wanted = any(not r.published and for_run(r.model, r.metrics.get("strategy"), r.language)["table4"] for r in runs)
    return [table4()] if wanted else []
