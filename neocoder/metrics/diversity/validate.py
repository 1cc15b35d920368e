"""``neocoder diversity validate``: the measures scored against the labelled pairs.

``ValidateConfig`` declares the command's options once (options.py); ``run_validation``
reads the labelled set (labelled.py) with the release's human programs and the shipped
GPT-4 programs, scores every measure on the held-out half with thresholds from the
tuning half (validity.py), and adds the judge measure when a model is given
(judge_measure.py; its calls cached in ``judge_cache``).  The judge's replies are read by
its grammar, as in every run: an unreadable verdict sets its program aside (none of its
pairs is scored), and the report says how many replies were unreadable, by reason
(``"unreadable"``, replies.Tally's form), and how many programs and pairs were set aside.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from neocoder.config import BOOTSTRAP, BOOTSTRAP_SEED, Config, GenerateDefaults, ModelConfig, SandboxConfig
from neocoder.metrics.diversity import labelled, validity
from neocoder.options import Option, option
from neocoder.paths import cache_root

JUDGE_CACHE = "same_algorithm_calls.jsonl"
DEFAULT_MEASURES = (validity.TECHNIQUE, validity.STRUCTURE, validity.STRUCTURE_TUNED, validity.NORMALISED,
                    validity.OPERATIONS, validity.LEARNED)


def parse_measures(text: str) -> list[str]:
    """``--measures technique,operations`` -> ["technique", "operations"]; ValueError for none."""
    got = [m.strip() for m in text.split(",") if m.strip()]
    if not got:
        raise ValueError("name at least one measure")
    return got


@dataclass
class ValidateConfig(Config):
    """``neocoder diversity validate``: ``release_dir`` holds ``human_solutions.json``;
    ``labels`` is a labelled set (None: the shipped one); ``model`` the judge (None: no
    judge measure)."""

    # the same-algorithm judge answers a sentence and its marker, greedily (a reasoning judge gets room to think)
    roles: ClassVar[dict[str, GenerateDefaults]] = {
        "model": GenerateDefaults(temperature=0.0, max_tokens=160, reasoning_max_tokens=4096)}

    release_dir: Path
    model: ModelConfig | None = None
    sandbox: SandboxConfig | None = None  # where --execution runs the programs (default: Docker, 2 workers)
    labels: Path | None = option(None, "A labelled-pairs file (default: the one shipped with neocoder; "
                                 "docs/algorithm-pairs.md).", file=True)
    measures: list[str] = Option(help="Measures to score, comma-separated (the judge is added by --model, "
                                 "execution by --execution).", choices=validity.MEASURES, parse=parse_measures,
                                 text=",".join(DEFAULT_MEASURES), factory=lambda: list(DEFAULT_MEASURES)).field()
    execution: bool = option(False, "Also score the execution measure: fingerprints of the labelled programs in "
                             "the sandbox (slow the first time, then cached).")
    bootstrap: int = BOOTSTRAP.field()
    seed: int = BOOTSTRAP_SEED.field()
    judge_programs: int | None = option(None, "Programs per problem the judge classes, the first N in the "
                                        "labelled set's order (default: all; a slow local model may need fewer).",
                                        ge=2)
    judge_cache: Path | None = option(None, "Call cache of the judge measure (default: "
                                      f"$NEOCODER_CACHE/diversity/{JUDGE_CACHE}).")


def statements() -> dict[str, str]:
    """problem id -> its statement (state 0 of the shipped dataset, else its first state)."""
    from neocoder.dataset.shipped import load_states
    out: dict[str, str] = {}
    for s in sorted(load_states(), key=lambda x: (x.problem_id, x.state)):
        out.setdefault(s.problem_id, s.statement)
    return out


def run_validation(config: ValidateConfig) -> dict:
    """validity.validate on the labelled set, plus ``"default"`` (the measure of highest
    kappa on the tuning half) and, when a judge ran, ``"judge_calls"`` ({"calls",
    "unreadable", "set_aside_programs", "set_aside_pairs", "model"}) and ``"unreadable"``
    (replies.Tally.to_dict(): per role, replies, readable, unreadable, share, reasons).  Raises
    LabelledSetError for an unreadable set or release, ModelError when the judge fails."""
    from neocoder.dataset.shipped import recorded_codes
    config.check()
    config = config.resolved()  # the judge's role defaults (temperature, token budget)
    humans = labelled.release_humans(config.release_dir)
    problems = labelled.load(humans, recorded_codes(labelled.GPT4), path=config.labels)
    measures = list(config.measures)
    judge = None
    if config.model is not None:
        from neocoder.metrics.diversity.judge_measure import Judge
        from neocoder.models import get_model
        cache = config.judge_cache or Path(cache_root()) / "diversity" / JUDGE_CACHE
        judge = Judge(get_model(config.model), statements(), cache)
        judge.limit = config.judge_programs
        if validity.JUDGE not in measures:
            measures.append(validity.JUDGE)
    elif validity.JUDGE in measures:
        measures.remove(validity.JUDGE)
    keys = None
    if config.execution:
        keys = _execution(problems, config)
        measures.append(validity.EXECUTION) if validity.EXECUTION not in measures else None
    elif validity.EXECUTION in measures:
        measures.remove(validity.EXECUTION)
    try:
        report = validity.validate(problems, measures, judge, config.bootstrap, config.seed, keys)
    finally:
        if judge is not None:
            judge.model.close()
    from neocoder.metrics.diversity.classes import VALID_LOW
    report["default"], report["validated"] = validity.choose_default(report, VALID_LOW)
    if config.labels is None:  # the shipped set has a second reader on some problems: the ceiling of any measure
        second = labelled.load(humans, recorded_codes(labelled.GPT4), path=labelled.shipped_path(labelled.SECOND))
        report["inter_rater"] = validity.inter_rater(problems, second, config.bootstrap, config.seed)
    if judge is not None:
        report["judge_calls"] = {"calls": judge.calls, "unreadable": judge.unreadable,
                                 "set_aside_programs": len(judge.set_aside), "set_aside_pairs": judge.pairs_set_aside(),
                                 "model": config.model.spec}
        report["unreadable"] = judge.tally.to_dict()
    return report


def summary(report: dict) -> dict:
    """The compact summary the report reads (labelled.shipped_summary): the default and,
    per measure, its held-out kappa with interval, agreement, and the pairs behind them."""
    out = {"default": report["default"], "validated": report["validated"], "measures": {}}
    if "inter_rater" in report:
        r = report["inter_rater"]
        out["inter_rater"] = {"kappa": r["kappa"]["value"], "low": r["kappa"]["low"], "high": r["kappa"]["high"],
                              "agreement": r["agreement"]["value"], "problems": r["problems"], "pairs": r["pairs"]}
    for name, m in report["measures"].items():
        h = m["held_out"]
        out["measures"][name] = {"kappa": h["kappa"]["value"], "low": h["kappa"]["low"], "high": h["kappa"]["high"],
                                 "agreement": h["agreement"]["value"], "pairs": h["pairs"],
                                 "different": h["pairs"] - h["same"], "threshold": m["threshold"],
                                 "classed": h["programs_classed"],
                                 "programs": report["pairs"][labelled.HELD_OUT]["programs"]}
    return out


def _execution(problems, config: ValidateConfig) -> dict:
    """The labelled programs' execution keys (labelled_execution.py) in the configured sandbox."""
    from neocoder.judge import make_sandbox
    from neocoder.metrics.diversity.labelled_execution import execution_keys
    sandbox_config = config.sandbox or SandboxConfig(workers=2)
    sandbox = make_sandbox(sandbox_config.kind, concurrency=sandbox_config.workers, fresh=sandbox_config.fresh,
                           runtime=sandbox_config.runtime)
    try:
        return execution_keys(problems, sandbox, config.release_dir, workers=sandbox_config.workers)
    finally:
        getattr(sandbox, "close", lambda: None)()


def _pct(x) -> str:
    return "  -  " if x is None else f"{x:5.2f}"


def render(report: dict) -> str:
    """The validation report as text: one line per measure (held-out half)."""
    ho, tu = report["pairs"][labelled.HELD_OUT], report["pairs"][labelled.TUNE]
    lines = [f"labelled pairs: held-out {ho['pairs']} ({ho['different']} different) over {ho['problems']} problems, "
             f"{ho['programs']} programs; tuning {tu['pairs']} ({tu['different']} different) over {tu['problems']}",
             "held-out half, 95% intervals by bootstrap over problems; threshold chosen on the tuning half",
             f"{'measure':16s} {'thr':>5s} {'kappa [95% CI]':>20s} {'agree':>6s} {'P(same)':>8s} {'R(same)':>8s} "
             f"{'classes/problem (humans): measure / labels':>44s} {'tune kappa':>10s}"]
    for name, m in report["measures"].items():
        h = m["held_out"]
        k = h["kappa"]
        ci = f"{_pct(k['value'])} [{_pct(k['low'])},{_pct(k['high'])}]"
        c = h["human_classes"]
        classes = "-" if c["measured"] is None else f"{c['measured']:.2f} / {c['labelled']:.2f} (x{c['ratio']:.2f})"
        thr = "" if m["threshold"] is None else f"{m['threshold']:.2f}"
        lines.append(f"{name:16s} {thr:>5s} {ci:>20s} {_pct(h['agreement']['value']):>6s} "
                     f"{_pct(h['precision_same']['value']):>8s} {_pct(h['recall_same']['value']):>8s} "
                     f"{classes:>44s} {_pct(m['tune']['kappa']['value'] if m['tune'] else None):>10s}")
    from neocoder.metrics.diversity.classes import VALID_LOW
    if "inter_rater" in report:
        r = report["inter_rater"]
        k = r["kappa"]
        lines.append(f"{'second reader':16s} {'':>5s} {_pct(k['value'])} [{_pct(k['low'])},{_pct(k['high'])}] "
                     f"{_pct(r['agreement']['value']):>6s}   (two readers on {r['problems']} problems, {r['pairs']} "
                     "pairs: the ceiling a measure is judged against)")
    if report["validated"]:
        lines.append(f"default: {report['default']} (highest held-out kappa among the measures whose interval "
                     f"starts at {VALID_LOW} or above)")
    else:
        lines.append(f"default: none validated (no measure's held-out kappa interval starts at {VALID_LOW} or "
                     f"above); runs lead with {report['default']} (highest held-out kappa), marked unvalidated")
    if "judge_calls" in report:
        j = report["judge_calls"]
        reasons = next(iter(report.get("unreadable", {}).values()), {}).get("reasons") or {}
        why = f" ({', '.join(f'{n} {r}' for r, n in reasons.items())})" if reasons else ""
        lines.append(f"judge {j['model']}: {j['calls']} verdicts asked, {j['unreadable']} replies unreadable{why}; "
                     f"set aside (never counted as same or different): {j['set_aside_programs']} programs, "
                     f"{j['set_aside_pairs']} pairs")
    return "\n".join(lines)
