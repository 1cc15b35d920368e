"""A run folder as tables other tools read, chosen by the run's benchmark (its manifest's kind).

``neocoder export RUN --format parquet|jsonl`` writes, for a NeoCoder run (``eval``, and
the ``human`` baselines), ``samples.<ext>`` (one row per ``Sample`` record of
records.jsonl) and ``states.<ext>`` (one row per state t of metrics.json); for a run of
the creativity-evaluation framework (``framework``), ``steps.<ext>`` (one row per
``FrameworkStep``) and ``problems.<ext>`` (one row per ``FrameworkSolution``); the shapes
lm-eval and lighteval users load with ``datasets.load_dataset("parquet", data_files=...)``
or ``pandas.read_parquet``.  Any other benchmark is refused with a NeocoderError naming
the folder and the benchmark.  The columns are declared once below (``SAMPLE_COLUMNS``,
``STATE_COLUMNS``, ``STEP_COLUMNS``, ``PROBLEM_COLUMNS`` and ``problem_columns``) with
their types; docs/records.md ("Exported tables") documents them.  Rates are fractions in
[0, 1] as in metrics.json; nothing is recomputed: per-sample convergent and NeoGauge terms
are Eq. 2 and the product Eq. 4 averages, a step's entropy is Eq. 3 and a solution's
divergent score the mean of its step entropies, each read off its record.  Parquet needs
only pyarrow.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.records import FrameworkSolution, FrameworkStep, Sample
from neocoder.store import RunFolder

FORMATS = ("parquet", "jsonl")
STRINGS = "list<string>"
BOOLS, INTS, DOUBLES = "list<bool>", "list<int64>", "list<double>"
NEOCODER_KINDS = ("eval", "human")  # the benchmarks whose runs export as samples and states
FRAMEWORK_KIND = "framework"  # neocoder.benchmarks.FRAMEWORK: exported as steps and problems

# column -> (type, how it is read from a Sample record)
SAMPLE_COLUMNS = {
    "model": ("string", lambda s: s.model),
    "problem_id": ("string", lambda s: s.problem_id),
    "state": ("int64", lambda s: int(s.state)),
    "sample": ("int64", lambda s: int(s.sample)),
    "seed": ("int64", lambda s: s.seed),
    "strategy": ("string", lambda s: s.strategy),
    "excluded": ("bool", lambda s: s.excluded),
    "error": ("string", lambda s: s.error),
    "pass": ("bool", lambda s: s.correct),
    "pass_plus": ("bool", lambda s: s.correct_plus),
    "follows": ("bool", lambda s: s.follows),
    "convergent": ("bool", lambda s: s.convergent),
    "divergent": ("double", lambda s: s.divergent),
    "neogauge": ("double", lambda s: s.neogauge),
    "constraints": (STRINGS, lambda s: list(s.constraints)),
    "techniques": (STRINGS, lambda s: list(s.techniques)),
    "violated_constraints": (STRINGS, lambda s: list(s.violated_constraints)),
    "new_techniques": (STRINGS, lambda s: None if s.new_techniques is None else list(s.new_techniques)),
    "human_techniques": (STRINGS, lambda s: None if s.human_techniques is None else list(s.human_techniques)),
    "example_verdicts": (STRINGS, lambda s: s.examples.verdicts if s.examples else None),
    "plus_verdicts": (STRINGS, lambda s: s.plus.verdicts if s.plus else None),
    "entry": ("string", lambda s: s.entry),
    "compile_error": ("string", lambda s: s.compile_error),
    "prompt_tokens": ("int64", lambda s: (s.tokens or {}).get("prompt")),
    "completion_tokens": ("int64", lambda s: (s.tokens or {}).get("completion")),
    "judge_seconds": ("double", lambda s: (s.timings or {}).get("judge_s")),
    "prompt_sha256": ("string", lambda s: s.prompt_sha256),
    "code_sha256": ("string", lambda s: s.code_sha256),
    "code": ("string", lambda s: s.code),
    "reply": ("string", lambda s: s.reply),
}

STATE_RATES = ("pass@1", "pass@1_plus", "constraint_following", "convergent", "divergent", "neogauge",
               "cumulative_neogauge")
STATE_COLUMNS = {"model": "string", "dataset": "string", "state": "int64", "n": "int64", "excluded": "int64",
                 **{rate.replace("@", "_at_"): "double" for rate in STATE_RATES},
                 **{f"{rate.replace('@', '_at_')}_{end}": "double"
                    for rate in STATE_RATES if rate != "cumulative_neogauge" for end in ("low", "high")}}


def sample_rows(folder: Path) -> list[dict]:
    """One row per ``Sample`` record of the run at ``folder``, in key order (problem, state,
    sample), with the ``SAMPLE_COLUMNS``.  Raises RecordError for a malformed record."""
    samples = sorted(RunFolder(folder, create=False).read(Sample), key=lambda s: s.key)
    return [{name: read(s) for name, (_, read) in SAMPLE_COLUMNS.items()} for s in samples]


def state_rows(folder: Path) -> list[dict]:
    """One row per state t of the run's metrics.json, with the ``STATE_COLUMNS``: the rates
    and their 95% bootstrap interval ends (``<rate>_low``, ``<rate>_high``; None without one).
    Raises NeocoderError when the run has no metrics.json (it has not finished)."""
    run = RunFolder(folder, create=False)
    if not (run.path / run.METRICS).is_file():
        raise NeocoderError(f"{folder}: no {run.METRICS} (the run has not finished): run it to the end first")
    metrics = run.read_metrics()
    rows = []
    for t, state in sorted((metrics.get("states") or {}).items(), key=lambda kv: int(kv[0])):
        row = {"model": metrics.get("model"), "dataset": metrics.get("dataset"), "state": int(t),
               "n": state.get("n"), "excluded": state.get("excluded")}
        for rate in STATE_RATES:
            name = rate.replace("@", "_at_")
            row[name] = state.get(rate)
            if rate != "cumulative_neogauge":
                ci = (state.get("intervals") or {}).get(rate) or {}
                row[f"{name}_low"], row[f"{name}_high"] = ci.get("low"), ci.get("high")
        rows.append(row)
    return rows


# column -> (type, how it is read from a FrameworkStep record)
STEP_COLUMNS = {
    "domain": ("string", lambda s: s.domain),
    "problem_id": ("string", lambda s: s.problem_id),
    "step": ("int64", lambda s: int(s.step)),
    "candidates": (STRINGS, lambda s: list(s.candidates)),
    "stops": (BOOLS, lambda s: list(s.stops)),
    "logprobs": (DOUBLES, lambda s: list(s.logprobs)),
    "classes": (INTS, lambda s: list(s.classes)),
    "n_classes": ("int64", lambda s: len(set(s.classes))),
    "entropy": ("double", lambda s: s.entropy),
    "estimator": ("string", lambda s: s.estimator),
    "chosen": ("int64", lambda s: s.chosen),
    "chosen_text": ("string", lambda s: None if s.chosen is None else s.candidates[s.chosen]),
    "stopped": ("bool", lambda s: s.stopped),
    "entailment": ("string", lambda s: s.entailment),
    "calls": ("int64", lambda s: (s.tokens or {}).get("calls")),
    "prompt_tokens": ("int64", lambda s: (s.tokens or {}).get("prompt_tokens")),
    "completion_tokens": ("int64", lambda s: (s.tokens or {}).get("completion_tokens")),
}

# column -> (type, how it is read from a FrameworkSolution record); problem_columns adds the
# verdicts per judge and criterion and the judges' tokens
PROBLEM_COLUMNS = {
    "domain": ("string", lambda s: s.domain),
    "problem_id": ("string", lambda s: s.problem_id),
    "model": ("string", lambda s: s.model),
    "n_steps": ("int64", lambda s: len(s.steps)),
    "steps": (STRINGS, lambda s: list(s.steps)),
    "entropies": (DOUBLES, lambda s: list(s.entropies)),
    "divergent": ("double", lambda s: s.divergent),
    "divergent_min": ("double", lambda s: s.divergent_min),
    "divergent_max": ("double", lambda s: s.divergent_max),
    "stop_reason": ("string", lambda s: s.stop_reason),
    "repeated": ("bool", lambda s: s.repeated),
    "error": ("string", lambda s: s.error),
    "program": ("string", lambda s: s.program),
    "sandbox_correct": ("bool", lambda s: s.sandbox_correct),
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
    from neocoder.benchmarks.framework.domains import CRITERIA
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


def run_kind(folder: Path) -> str | None:
    """The benchmark of the run at ``folder`` (its manifest's kind: "eval", "framework",
    ...), or None for a folder without a manifest (an older or hand-made NeoCoder run,
    exported as one).  Raises RecordError for a manifest of another format version."""
    if not (Path(folder) / RunFolder.MANIFEST).is_file():
        return None
    return RunFolder(folder, create=False).read_manifest().kind


def export_run(folder: Path, fmt: str = "parquet", out: Path | None = None) -> list[Path]:
    """Write the tables of the run at ``folder`` into ``out`` (default ``<folder>/export``)
    and return their paths: ``samples.<fmt>`` and ``states.<fmt>`` for a NeoCoder run
    (``NEOCODER_KINDS``, or no manifest), ``steps.<fmt>`` and ``problems.<fmt>`` for a
    framework run.  Raises NeocoderError for an unknown format, a folder that is not a run
    folder, a NeoCoder run that has not finished, a benchmark with no tables here (naming
    the folder and the benchmark), or parquet without pyarrow."""
    if fmt not in FORMATS:
        raise NeocoderError(f"--format must be one of {FORMATS}, got {fmt!r}")
    if not (Path(folder) / RunFolder.RECORDS).is_file():
        raise NeocoderError(f"{folder}: not a run folder (no {RunFolder.RECORDS})")
    kind = run_kind(folder)
    if kind == FRAMEWORK_KIND:
        domain = framework_domain(folder)
        tables = [("steps", step_rows(folder), {n: k for n, (k, _) in STEP_COLUMNS.items()}),
                  ("problems", problem_rows(folder), {n: k for n, (k, _) in problem_columns(domain).items()})]
    elif kind is None or kind in NEOCODER_KINDS:
        tables = [("samples", sample_rows(folder), {n: k for n, (k, _) in SAMPLE_COLUMNS.items()}),
                  ("states", state_rows(folder), STATE_COLUMNS)]
    else:
        raise NeocoderError(f"{folder}: a {kind!r} run; neocoder export writes tables for NeoCoder runs "
                            f"({', '.join(NEOCODER_KINDS)}) and {FRAMEWORK_KIND!r} runs, not for {kind!r} "
                            "(its records.jsonl and metrics.json are the run's data)")
    out = Path(out) if out is not None else Path(folder) / "export"
    out.mkdir(parents=True, exist_ok=True)
    write = _write_parquet if fmt == "parquet" else _write_jsonl
    return [write(rows, types, out / f"{name}.{fmt}") for name, rows, types in tables]


def _write_jsonl(rows: list[dict], types: dict, path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def _write_parquet(rows: list[dict], types: dict, path: Path) -> Path:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise NeocoderError("--format parquet needs pyarrow: pip install pyarrow (or use --format jsonl)") from exc
    kinds = {"string": pa.string(), "int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_(),
             STRINGS: pa.list_(pa.string()), BOOLS: pa.list_(pa.bool_()), INTS: pa.list_(pa.int64()),
             DOUBLES: pa.list_(pa.float64())}
    schema = pa.schema([(name, kinds[kind]) for name, kind in types.items()])
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path)
    return path
