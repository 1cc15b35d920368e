"""NeoCoder's exported tables (``neocoder export``, neocoder/export.py): ``samples`` (one
row per ``Sample`` record) and ``states`` (one row per state t of metrics.json).

The columns are declared once here (``SAMPLE_COLUMNS``, ``STATE_COLUMNS``) with their
types; docs/records.md ("Exported tables") documents them.  Rates are fractions in [0, 1]
as in metrics.json; nothing is recomputed: the per-sample convergent and NeoGauge terms are
NeoCoder's Eq. 2 and the product Eq. 4 averages, read off the record.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks.descriptor import STRINGS, attributes, lists
from neocoder.errors import NeocoderError
from neocoder.records import Sample
from neocoder.store import RunFolder

# column -> (type, how it is read from a Sample record)
SAMPLE_COLUMNS = {
    **attributes(model="string"),
    "language": ("string", None),  # the run's, not the record's (sample_rows)
    **attributes(problem_id="string"),
    "state": ("int64", lambda s: int(s.state)),
    "sample": ("int64", lambda s: int(s.sample)),
    **attributes(seed="int64", strategy="string", excluded="bool", error="string"),
    "pass": ("bool", lambda s: s.correct),
    "pass_plus": ("bool", lambda s: s.correct_plus),
    **attributes(follows="bool", convergent="bool", divergent="double", neogauge="double"),
    **lists(constraints=STRINGS, techniques=STRINGS, violated_constraints=STRINGS),
    "new_techniques": (STRINGS, lambda s: None if s.new_techniques is None else list(s.new_techniques)),
    "human_techniques": (STRINGS, lambda s: None if s.human_techniques is None else list(s.human_techniques)),
    "example_verdicts": (STRINGS, lambda s: s.examples.verdicts if s.examples else None),
    "plus_verdicts": (STRINGS, lambda s: s.plus.verdicts if s.plus else None),
    **attributes(entry="string", compile_error="string"),
    "prompt_tokens": ("int64", lambda s: (s.tokens or {}).get("prompt")),
    "completion_tokens": ("int64", lambda s: (s.tokens or {}).get("completion")),
    "judge_seconds": ("double", lambda s: (s.timings or {}).get("judge_s")),
    **attributes(prompt_sha256="string", code_sha256="string", code="string", reply="string"),
}

STATE_RATES = ("pass@1", "pass@1_plus", "constraint_following", "convergent", "divergent", "neogauge",
               "cumulative_neogauge")
STATE_COLUMNS = {"model": "string", "dataset": "string", "language": "string", "state": "int64", "n": "int64",
                 "excluded": "int64",
                 **{rate.replace("@", "_at_"): "double" for rate in STATE_RATES},
                 **{f"{rate.replace('@', '_at_')}_{end}": "double"
                    for rate in STATE_RATES if rate != "cumulative_neogauge" for end in ("low", "high")}}


def sample_rows(folder: Path) -> list[dict]:
    """One row per ``Sample`` record of the run at ``folder``, in key order (problem, state,
    sample), with the ``SAMPLE_COLUMNS``; ``language`` is the run's (its manifest's config;
    "python" for runs from before C++).  Raises RecordError for a malformed record."""
    run = RunFolder(folder, create=False)
    samples = sorted(run.read(Sample), key=lambda s: s.key)
    language = _language(run)
    return [{name: language if name == "language" else read(s) for name, (_, read) in SAMPLE_COLUMNS.items()}
            for s in samples]


def _language(run: RunFolder) -> str:
    """The language of the run's programs, from its manifest ("python" without one)."""
    if not (run.path / run.MANIFEST).is_file():
        return "python"
    return run.read_manifest().config.get("language") or "python"


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
        row = {"model": metrics.get("model"), "dataset": metrics.get("dataset"),
               "language": metrics.get("language") or "python", "state": int(t),
               "n": state.get("n"), "excluded": state.get("excluded")}
        for rate in STATE_RATES:
            name = rate.replace("@", "_at_")
            row[name] = state.get(rate)
            if rate != "cumulative_neogauge":
                ci = (state.get("intervals") or {}).get(rate) or {}
                row[f"{name}_low"], row[f"{name}_high"] = ci.get("low"), ci.get("high")
        rows.append(row)
    return rows


def tables(folder: Path) -> list[tuple[str, list[dict], dict]]:
    """The tables of the NeoCoder run at ``folder``: ``samples`` and ``states``, each as
    ``(name, rows, {column: type})``.  Raises NeocoderError when the run has not finished,
    RecordError for a malformed record."""
    return [("samples", sample_rows(folder), {n: k for n, (k, _) in SAMPLE_COLUMNS.items()}),
            ("states", state_rows(folder), STATE_COLUMNS)]
