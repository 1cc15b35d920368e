"""Plain-text tables of results, as the CLI prints them.

Each function takes what the library returns (metrics dicts, records, reports) and
gives a string; nothing here computes a score.
"""

from __future__ import annotations

from ..records import ProblemState, QuestionResult


def percent(value: float | None, interval: dict | None = None) -> str:
    """A rate as "17.1%", with "±5.3" (half the 95% interval's width, in points) when given."""
    if value is None:
        return "-"
    half = f" ±{50 * (interval['high'] - interval['low']):.1f}" if interval else ""
    return f"{100 * value:.1f}%{half}"


def eval_table(metrics: dict) -> str:
    """The NeoCoder metrics (``{"model", "states": {t: {...}}}``) as a table; rates as
    percentages with ± half the 95% bootstrap interval where the metrics have intervals."""
    cols = [("state", None), ("n", "n"), ("pass@1", "pass@1"), ("follow", "constraint_following"),
            ("convergent", "convergent"), ("divergent", "divergent"), ("NeoGauge", "neogauge"),
            ("cum.NeoGauge", "cumulative_neogauge")]
    if any(m.get("n_extended") for m in metrics["states"].values()):
        cols.insert(3, ("pass@1+ext", "pass@1_plus"))
    lines = [f"model: {metrics['model']}", "  ".join(f"{c:>13}" for c, _ in cols)]
    for t, m in metrics["states"].items():
        cells = [f"{t:>13}", f"{m['n']:>13}"]
        cells += [f"{percent(m.get(key), m.get('intervals', {}).get(key)):>13}" for _, key in cols[2:]]
        lines.append("  ".join(cells))
    excluded = sum(m["excluded"] for m in metrics["states"].values())
    if excluded:
        lines.append(f"({excluded} samples excluded: sandbox INFRA failures or model errors; rerun to retry)")
    if metrics.get("dataset"):
        lines.append(f"tests: {' + '.join(metrics.get('tests', ['examples']))}; dataset: {metrics['dataset']}")
    last = max(metrics["states"], key=int, default=None)
    if metrics["model"] != "human" and last is not None and metrics["states"][last].get("cumulative_neogauge") is not None:
        m = metrics["states"][last]
        lines.append(f"headline: cumulative NeoGauge@{last} = "
                     f"{percent(m['cumulative_neogauge'], m.get('intervals', {}).get('cumulative_neogauge'))} "
                     "(NeoGauge@t, Eq. 4, summed over states; correct = every human-validated example AC)")
    if "bootstrap" in metrics:
        b = metrics["bootstrap"]
        lines.append(f"± half the {b['level']:.0%} interval, in points: bootstrap over {b['unit']}s, "
                     f"{b['resamples']} resamples, seed {b['seed']}")
    if metrics["model"] == "human":
        lines.append("human: accepted Codeforces solutions (Python and C/C++), not judged; convergent is Eq. 5, "
                     "divergent Eq. 6 (techniques no other human solution of the problem uses)")
    return "\n".join(lines)


def aidan_table(results: list[QuestionResult], totals: dict) -> str:
    """One generator's AidanBench results: a row per question, then its totals."""
    lines = [f"{'#':>3}  {'answers':>7}  {'novelty sum':>11}  stop reason    question"]
    for q in results:
        lines.append(f"{q.question_index + 1:>3}  {q.answers:>7}  {q.novelty_sum:>11.3f}  "
                     f"{q.stop_reason:<13}  {q.question[:60]}")
    ci = totals.get("intervals") or {}
    answers = f"{totals['answers']}" + (f" [{ci['answers']['low']:.0f}, {ci['answers']['high']:.0f}]"
                                         if ci.get("answers") else "")
    novelty = f"{totals['novelty_sum']:.3f}" + (f" [{ci['novelty_sum']['low']:.3f}, {ci['novelty_sum']['high']:.3f}]"
                                                if ci.get("novelty_sum") else "")
    lines.append(f"total: {answers} answers over {totals['questions']} questions, novelty sum {novelty} "
                 f"(95% bootstrap intervals over questions); stops: {totals['stop_reasons']}")
    return "\n".join(lines)


def states_per_t(states: list[ProblemState]) -> str:
    """'problems per state t: t=0: 199, t=1: 199, ...' for written records."""
    counts: dict[int, int] = {}
    for s in states:
        counts[s.state] = counts.get(s.state, 0) + 1
    return "problems per state t: " + ", ".join(f"t={t}: {n}" for t, n in sorted(counts.items()))


def oracle_summary(report: dict, seconds: float) -> str:
    """Plain-text summary of a build_oracle report."""
    probs = report["problems"].values()
    kinds: dict[str, int] = {}
    for p in probs:
        c = p["checker"]
        name = c["kind"] + (" (any case)" if c["ignore_case"] else "")
        kinds[name] = kinds.get(name, 0) + 1
    several = sum(1 for p in probs if p["checker"].get("consensus_evidence"))
    case = sum(1 for p in probs if p["checker"].get("case_evidence"))
    dropped = sum(1 for p in probs for e in p.get("log", []) if e["action"] == "dropped")
    ten = sum(1 for p in probs if p.get("extended", 0) >= 10)
    lines = [f"human oracle: {len(report['problems'])} problems in {seconds:.0f}s, "
             f"{report['cache_hits']} cached human runs reused",
             "checkers: " + ", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())),
             f"turned consensus by human evidence: {several}, any-case by human evidence: {case}; "
             f"example tests dropped: {dropped}; problems below 90% of humans: "
             f"{len(report['below_90'])}",
             f"extended tests: {sum(p.get('extended', 0) for p in probs)} in all; "
             f"{ten} problems with at least 10"]
    lines += [f"  below 90%: {b['problem_id']} ({b['share']:.1%}): {b['reason']}; failing solutions: "
              + ", ".join(f"{k}: {v}" for k, v in b.get("failures", {}).items()) for b in report["below_90"]]
    return "\n".join(lines)


def agreement_table(result: dict, min_support: int) -> str:
    """Detector agreement (techniques/agreement.py) per language: micro/macro F1, then a
    row per technique with precision, recall, F1 and support."""
    lines = []
    for lang, r in result.items():
        lines.append(f"{lang}: {r['solutions']} solutions, micro F1 {r['micro_f1']:.3f}, macro F1 "
                     f"{r['macro_f1']:.3f} (support >= {min_support}), {r['dropped_labels']} labels outside "
                     "the taxonomy")
        lines.append(f"  {'technique':22} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8}")
        for name, m in sorted(r["per_technique"].items(), key=lambda kv: -kv[1]["support"]):
            lines.append(f"  {name:22} {m['precision']:9.2f} {m['recall']:7.2f} {m['f1']:6.2f} {m['support']:8d}")
    return "\n".join(lines)
