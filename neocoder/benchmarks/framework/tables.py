"""The creativity framework's exported tables (``neocoder export``, neocoder/export.py):
``steps`` (one row per ``FrameworkStep``) and ``problems`` (one row per
``FrameworkSolution``, with a column per judge and criterion of the run's domain).

The columns are declared once here with their types; docs/records.md ("Exported tables")
documents them.  Nothing is recomputed: a step's entropy is the paper's Eq. 3 and a
solution's divergent score the mean of its step entropies, each read off its record.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks.descriptor import BOOLS, DOUBLES, INTS, STRINGS, attributes, lists
from neocoder.benchmarks.framework.domains import CRITERIA
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.errors import NeocoderError
from neocoder.store import RunFolder

# column -> (type, how it is read from a FrameworkStep record)
STEP_COLUMNS = {
    **attributes(domain="string", problem_id="string"),
    "step": ("int64", lambda s: int(s.step)),
    **lists(candidates=STRINGS, stops=BOOLS, logprobs=DOUBLES, classes=INTS),
    "n_classes": ("int64", lambda s: len({c for c in s.classes if c is not None})),
    **attributes(entropy="double", estimator="string", chosen="int64"),
    "chosen_text": ("string", lambda s: None if s.chosen is None else s.candidates[s.chosen]),
    **attributes(stopped="bool", entailment="string"),
    "calls": ("int64", lambda s: (s.tokens or {}).get("calls")),
    "prompt_tokens": ("int64", lambda s: (s.tokens or {}).get("prompt_tokens")),
    "completion_tokens": ("int64", lambda s: (s.tokens or {}).get("completion_tokens")),
}

# column -> (type, how it is read from a FrameworkSolution record); problem_columns adds the
# verdicts per judge and criterion and the judges' tokens
PROBLEM_COLUMNS = {
    **attributes(domain="string", problem_id="string", model="string"),
    "n_steps": ("int64", lambda s: len(s.steps)),
    **lists(steps=STRINGS, entropies=DOUBLES),
    **attributes(divergent="double", divergent_min="double", divergent_max="double", stop_reason="string",
                 repeated="bool", error="string", program="string", sandbox_correct="bool"),
    "sandbox_verdicts": (STRINGS, lambda s: list(s.sandbox_verdicts) if s.program is not None else None),
}
VERDICT_JUDGES = ("retrieval", "chateval")  # the judges whose verdicts are columns (framework/task.py open_judges)
COST_PARTS = ("retrieval", "chateval", "program")  # judge_cost's keys: the judges and the code domain's program
COSTS = ("calls", "prompt_tokens", "completion_tokens")


def column_name(text: str) -> str:
    """A criterion as part of a column name: lower case, runs of other characters as ``_``
    ("scientific accuracy" -> "scientific_accuracy")."""
    return "_".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def _verdict(judge: str, criterion: str, key: str):
    return lambda s: ((s.verdicts.get(judge) or {}).get(criterion) or {}).get(key)


def problem_columns(domain: str) -> dict:
    """The columns of ``problems.<ext>`` for a framework run on ``domain``: ``PROBLEM_COLUMNS``,
    then for each judge of ``VERDICT_JUDGES`` and each criterion of the domain
    (framework/domains.py CRITERIA) ``<judge>_<criterion>`` (bool: YES; null: no verdict or
    that judge did not run) and ``<judge>_<criterion>_confidence`` (double in [0, 1]), then
    for each part of ``COST_PARTS`` its ``<part>_calls``, ``<part>_prompt_tokens`` and
    ``<part>_completion_tokens`` (int64).  Raises NeocoderError for an unknown domain."""
    if domain not in CRITERIA:
        raise NeocoderError(f"framework domain {domain!r} is not one of {sorted(CRITERIA)}")
    out = dict(PROBLEM_COLUMNS)
    for judge in VERDICT_JUDGES:
        for criterion in CRITERIA[domain]:
            name = f"{judge}_{column_name(criterion)}"
            out[name] = ("bool", _verdict(judge, criterion, "verdict"))
            out[f"{name}_confidence"] = ("double", _verdict(judge, criterion, "confidence"))
    for part in COST_PARTS:
        for cost in COSTS:
            out[f"{part}_{cost}"] = ("int64", lambda s, part=part, cost=cost: (s.judge_cost.get(part) or {}).get(cost))
    return out


def framework_domain(folder: Path) -> str:
    """The domain of the framework run at ``folder`` (its manifest's config).  Raises
    NeocoderError when the manifest names none."""
    domain = RunFolder(folder, create=False).read_manifest().config.get("domain")
    if not domain:
        raise NeocoderError(f"{folder}: the manifest's config names no domain")
    return domain


def step_rows(folder: Path) -> list[dict]:
    """One row per ``FrameworkStep`` of the run at ``folder`` on its domain, in key order
    (problem, step), with the ``STEP_COLUMNS``.  Raises RecordError for a malformed record."""
    domain = framework_domain(folder)
    steps = sorted((s for s in RunFolder(folder, create=False).read(FrameworkStep) if s.domain == domain),
                   key=lambda s: (s.problem_id, s.step))
    return [{name: read(s) for name, (_, read) in STEP_COLUMNS.items()} for s in steps]


def problem_rows(folder: Path) -> list[dict]:
    """One row per ``FrameworkSolution`` of the run at ``folder`` on its domain (the last
    one per problem, a failed one with its ``error``), by problem id, with the columns
    ``problem_columns(domain)``.  Raises RecordError for a malformed record."""
    domain = framework_domain(folder)
    columns = problem_columns(domain)
    solutions = sorted((s for s in RunFolder(folder, create=False).read(FrameworkSolution) if s.domain == domain),
                       key=lambda s: s.problem_id)
    return [{name: read(s) for name, (_, read) in columns.items()} for s in solutions]


def tables(folder: Path) -> list[tuple[str, list[dict], dict]]:
    """The tables of the framework run at ``folder`` on its domain: ``steps`` and
    ``problems``, each as ``(name, rows, {column: type})``.  Raises NeocoderError when the
    manifest names no domain, RecordError for a malformed record."""
    domain = framework_domain(folder)
    return [("steps", step_rows(folder), {n: k for n, (k, _) in STEP_COLUMNS.items()}),
            ("problems", problem_rows(folder), {n: k for n, (k, _) in problem_columns(domain).items()})]
