"""Plain-text tables of results, as the CLI prints them.

Each function takes what the library returns (metrics dicts, records, reports) and
gives a string; nothing here computes a score.
"""

from __future__ import annotations

from neocoder.benchmarks.aidanbench.records import QuestionResult
from neocoder.dataset import RELEASE_DATASET  # metrics["dataset"] of a `--dataset release` run
from neocoder.records import HUMAN, ProblemState

NO_SAMPLES = "no samples"  # a state with no judged sample: its rates are unknown, never 0.0%


def percent(value: float | None, interval: dict | None = None) -> str:
    """A rate as "17.1%", with "±5.3" (half the 95% interval's width, in points) when given."""
    if value is None:
        return "-"
    half = f" ±{50 * (interval['high'] - interval['low']):.1f}" if interval else ""
    return f"{100 * value:.1f}%{half}"


# a rate whose base is not the row's n: (rate key, the metrics.json count of its base, what that base is)
BASES = (("pass@1_plus", "n_extended", "those whose state has extended tests"),
         ("constraint_following", "n_program", "those whose reply held a program"),
         ("divergent", "n_divergent", "those whose problem has a human technique set"),
         ("neogauge", "n_divergent", "those whose problem has a human technique set"))


def base_of(state: dict, key: str) -> int | None:
    """How many samples rate ``key`` of one metrics.json state is over, when that is not
    the state's ``n`` (``BASES``: n_extended, n_program, n_divergent); None when it is n
    (or the state does not record it: runs from before, human baselines)."""
    field_ = next((count for rate, count, _ in BASES if rate == key), None)
    base = state.get(field_) if field_ else None
    return base if base is not None and base != state.get("n") else None


def _rate_cell(state: dict, key: str) -> str:
    """One rate of one state as printed: "12.0% ±4.9", with " of 168" where its base is not n."""
    text = percent(state.get(key), state.get("intervals", {}).get(key))
    base = base_of(state, key)
    return text + (f" of {base}" if base is not None and state.get(key) is not None else "")


def bases_line(metrics: dict) -> str | None:
    """The legend of the "of N" cells of ``eval_table``: which samples each such rate is
    over, and pass@1 on the same samples as pass@1+ext (``pass@1_examples_tiered``), so
    a pass@1+ext above pass@1 reads as a smaller base, not as more passing; None when
    every rate is over n."""
    states = metrics["states"]
    shown = [(rate, what) for rate, _, what in BASES
             if any(m.get("n") and m.get(rate) is not None and base_of(m, rate) is not None for m in states.values())]
    if not shown:
        return None
    names = {"pass@1_plus": "pass@1+ext", "constraint_following": "follow", "neogauge": "NeoGauge"}
    parts: dict[str, list[str]] = {}
    for rate, what in shown:
        parts.setdefault(what, []).append(names.get(rate, rate))
    same = [f"t={t}: {percent(m['pass@1_examples_tiered'])}" for t, m in states.items()
            if base_of(m, "pass@1_plus") is not None and m.get("pass@1_examples_tiered") is not None]
    clauses = []
    for what, rates in parts.items():
        clause = f"{' and '.join(rates)} over {what}"
        if "pass@1+ext" in rates and same:
            clause += " (pass@1 on those same samples: " + ", ".join(same) + ")"
        clauses.append(clause)
    text = "; ".join(clauses)
    return f"of N: the rate is over N of the row's n samples, not all of them: {text}"


def eval_table(metrics: dict, samples: list | None = None) -> str:
    """The NeoCoder metrics (``{"model", "states": {t: {...}}}``) as a table; rates as
    percentages with ± half the 95% bootstrap interval where the metrics have intervals,
    and " of N" where a rate is over N of the row's n samples (``BASES``, explained by
    ``bases_line``).  ``samples`` (the run's Sample records, optional) names the k of the
    best-of-k NeoGauge (``best_of_ks``); without them the column says best@k."""
    cols = [("state", None), ("n", "n"), ("pass@1", "pass@1"), ("follow", "constraint_following"),
            ("convergent", "convergent"), ("divergent", "divergent"), ("NeoGauge", "neogauge"),
            ("cum.NeoGauge", "cumulative_neogauge")]
    if any(m.get("n_extended") for m in metrics["states"].values()):
        cols.insert(3, ("pass@1+ext", "pass@1_plus"))
    rows = [[c for c, _ in cols]]
    for t, m in metrics["states"].items():
        cells = [t, str(m["n"])]
        if not m["n"]:  # every sample excluded: no rate is known, none is 0
            rows.append(cells + [NO_SAMPLES])
            continue
        rows.append(cells + [_rate_cell(m, key) for _, key in cols[2:]])
    widths = [max([13] + [len(r[i]) for r in rows if i < len(r)]) for i in range(len(cols))]
    lines = [f"model: {metrics['model']}"] + ["  ".join(f"{c:>{w}}" for c, w in zip(r, widths)) for r in rows]
    bases = bases_line(metrics)
    if bases:
        lines.append(bases)
    lines += sampling_lines(metrics, samples)
    lines += diversity_lines(metrics.get("diversity"))
    excluded = sum(m["excluded"] for m in metrics["states"].values())
    if excluded:
        lines.append(f"({excluded} samples excluded: sandbox INFRA failures or model errors; rerun to retry)")
    held_none = no_program_line(metrics)
    if held_none:
        lines.append(held_none)
    if metrics.get("dataset"):
        language = f"; language: {metrics['language']}" if metrics.get("language") else ""
        tiers = " + ".join(metrics.get("tests", ["examples"]))
        lines.append(f"tests: {tiers}; dataset: {metrics['dataset']}{language}")
    last = max(metrics["states"], key=int, default=None)
    empty = [t for t, m in metrics["states"].items() if not m["n"]]
    if metrics["model"] != HUMAN and empty:
        lines.append(f"headline: cumulative NeoGauge@{last}: {NO_SAMPLES} judged at t={','.join(empty)} (every "
                     "sample excluded; rerun to retry)")
    elif (metrics["model"] != HUMAN and last is not None
          and metrics["states"][last].get("cumulative_neogauge") is not None):
        m = metrics["states"][last]
        lines.append(f"headline: cumulative NeoGauge@{last} = "
                     f"{percent(m['cumulative_neogauge'], m.get('intervals', {}).get('cumulative_neogauge'))} "
                     f"(NeoGauge@t, Eq. 4, summed over states; correct = {correctness(metrics.get('dataset'))})")
    if "bootstrap" in metrics:
        b = metrics["bootstrap"]
        lines.append(f"± half the {b['level']:.0%} interval, in points: bootstrap over {b['unit']}s, "
                     f"{b['resamples']} resamples, seed {b['seed']}")
    if metrics["model"] == HUMAN:
        lines.append("human: accepted Codeforces solutions (Python and C/C++), not judged; convergent is Eq. 5, "
                     "divergent Eq. 6 (techniques no other human solution of the problem uses)")
    return "\n".join(lines)


def no_program_counts(metrics: dict) -> tuple[int, dict[str, int]]:
    """The judged samples of a NeoCoder run and, per reason, those whose reply held no
    program (summed over its states' ``no_program``, most frequent first); (0, {}) for
    a run with none (or one written before they were counted)."""
    reasons: dict[str, int] = {}
    for m in metrics.get("states", {}).values():
        for why, count in (m.get("no_program") or {}).items():
            reasons[why] = reasons.get(why, 0) + count
    total = sum(m.get("n") or 0 for m in metrics.get("states", {}).values())
    return total, dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))


def no_program_line(metrics: dict) -> str | None:
    """One line counting the replies that held no program, per reason ("2 of 6 replies held
    no program: 1 x empty, 1 x cut off ..."); None when every reply held one."""
    total, reasons = no_program_counts(metrics)
    if not reasons:
        return None
    why = ", ".join(f"{n} x {reason}" for reason, n in reasons.items())
    return (f"({sum(reasons.values())} of {total} replies held no program: {why}; never judged, wrong in every "
            "rate, left out of follow's base)")


def mean_text(got: dict | None, digits: int = 2) -> str:
    """A diversity mean as "2.29 ±0.27" (± half the 95% interval), "-" when absent."""
    if not got or got.get("value") is None:
        return "-"
    half = f" ±{(got['high'] - got['low']) / 2:.{digits}f}" if "low" in got else ""
    return f"{got['value']:.{digits}f}{half}"


def diversity_lines(diversity: dict | None) -> list[str]:
    """The ``diversity`` block of a metrics.json (neocoder/metrics/diversity/run.py) as lines:
    per state the k-sample measures, the chain's classes against k humans, or (human
    baselines) the classes among each problem's solutions; means over problems."""
    if not diversity:
        return []
    lines = []
    if "humans" in diversity:
        for m, got in diversity["humans"].items():
            lines.append(f"algorithm classes by {m}: {mean_text(got.get('classes'))} among "
                         f"{mean_text(got.get('solutions'), 1)} solutions per problem; among 6 drawn: "
                         f"{mean_text(got.get('classes@6'))} "
                         f"({_worth(m, diversity)})")
        status = default_status(diversity)
        return lines + [status] if lines and status else lines
    for t, by_measure in diversity.get("states", {}).items():
        cells = [f"{m}: distinct_k {mean_text(g.get('distinct_k'))}, utility_k {mean_text(g.get('utility_k'))}, "
                 f"effective {mean_text(g.get('effective'))}" if "distinct_k" in g else
                 f"{m}: effective {mean_text(g.get('effective'))}" for m, g in by_measure.items()]
        k = next((g["k"]["value"] for g in by_measure.values() if "k" in g), 0)
        lines.append(f"diversity at t={t} (k={k:.1f} per problem): " + "; ".join(cells))
    if diversity.get("states"):
        measures = sorted({m for by in diversity["states"].values() for m in by})
        lines.append("diversity measures: " + "; ".join(f"{m}: {_worth(m, diversity)}" for m in measures))
    for m, g in diversity.get("chain", {}).items():
        human = f", {mean_text(g.get('human_classes'))} for as many humans" if g.get("human_classes") else ""
        shared = f", {percent(g['overlap_humans']['value'])} of them also human" if g.get("overlap_humans") else ""
        lines.append(f"chain diversity by {m}: {mean_text(g.get('classes'))} classes among "
                     f"{mean_text(g.get('correct'))} correct programs per problem{human}{shared} "
                     f"({_worth(m, diversity)})")
    status = default_status(diversity)
    return lines + [status] if lines and status else lines


def _worth(measure: str, diversity: dict) -> str:
    """The measure's measured agreement with the hand-labelled pairs, and whether it is
    the default (issue 39; docs/metrics.md, "What a class is worth")."""
    from neocoder.metrics.diversity.labelled import validity_note
    lead = ""
    if diversity.get("default") == measure:
        # issue 48: a default that failed its held-out check is printed as such, never as a settled figure
        lead = "default measure, " if diversity.get("validated") is True else "UNVALIDATED default measure, "
    return lead + validity_note(measure)


def default_status(diversity: dict) -> str | None:
    """One line saying what the default diversity measure's status means where it is
    printed (issue 48's rule, ``validity.choose_default``: the measure of highest held-out
    kappa against the hand-labelled pairs, validated when its 95% interval starts at 0.4
    or above); None when the block names no default."""
    measure = diversity.get("default")
    if not measure:
        return None
    if diversity.get("validated") is True:
        return (f"default measure: {measure}, the measure of highest held-out kappa against hand-labelled pairs "
                "of programs whose 95% interval starts at 0.4 or above (docs/metrics.md, \"The default rule\")")
    return (f"UNVALIDATED default measure: {measure} agrees best with hand-labelled pairs of programs (held-out "
            "kappa) but its 95% interval starts below 0.4, the bar for a validated default: read its class counts "
            "as rough (docs/metrics.md, \"The default rule\")")


def correctness(dataset: str | None) -> str:
    """What "correct" means for a run judged on ``dataset`` (``metrics["dataset"]``): the
    release's statement examples under plain checkers for ``--dataset release``, else the
    human-validated examples (the default dataset, a built one, or a run from before the
    field was written)."""
    if dataset == RELEASE_DATASET:
        return "every one of the release's statement examples AC, judged by plain checkers"
    return "every human-validated example AC"


SAMPLING_COLUMNS = (("pass@5", "pass@5", True), ("pass@10", "pass@10", True),
                    ("best@5 NeoG", "neogauge_best@5", True), ("sem.entropy", "semantic_entropy", False),
                    ("SE (RB)", "semantic_entropy_rb", False), ("tech.entropy", "technique_entropy", False))


def best_of_ks(samples: list) -> dict[str, tuple[int, int]]:
    """Per state "t", the smallest and largest k of the best-of-k NeoGauge that
    ``neocoder.metrics.rates.problem_values`` used over ``samples`` (Sample records): per
    problem k = min(BEST_OF_K, its kept samples with a divergent score), for problems with
    at least 2 such samples.  States where no problem has a best-of-k are left out."""
    from neocoder.metrics.rates import BEST_OF_K
    scored: dict[tuple[str, str], int] = {}
    for s in samples:
        if not s.excluded and s.divergent is not None:
            key = (str(s.state), s.problem_id)
            scored[key] = scored.get(key, 0) + 1
    out: dict[str, tuple[int, int]] = {}
    for (t, _), n in scored.items():
        if n >= 2:
            k = min(BEST_OF_K, n)
            low, high = out.get(t, (k, k))
            out[t] = (min(low, k), max(high, k))
    return out


def best_label(ks: dict[str, tuple[int, int]] | None, states=None) -> str:
    """The best-of-k column's name: "best@3" when every problem of ``states`` (all of
    ``ks`` when None) had k = 3, "best@2-5" when k varied, "best@k" when ``ks`` is None
    (the records were not read) or holds none of them."""
    if ks is None:
        return "best@k"
    got = [ks[t] for t in (ks if states is None else [str(t) for t in states]) if t in ks]
    if not got:
        return "best@k"
    low, high = min(k[0] for k in got), max(k[1] for k in got)
    return f"best@{low}" if low == high else f"best@{low}-{high}"


def sampling_lines(metrics: dict, samples: list | None = None) -> list[str]:
    """The multi-sample metrics (pass@k, best-of-k NeoGauge, semantic entropies in nats)
    as a second table where the run has them, and the strategy's spend per sample.  The
    best-of-k column is named with its k from ``samples`` (``best_label``; "best@k" and a
    line saying what k is without them)."""
    states = metrics["states"]
    cols = [c for c in SAMPLING_COLUMNS if any(m.get(c[1]) is not None for m in states.values())]
    ks = best_of_ks(samples) if samples is not None else None
    lines = []
    if cols:
        names = [f"{best_label(ks)} NeoG" if key == "neogauge_best@5" else c for c, key, _ in cols]
        lines.append("  ".join(f"{c:>13}" for c in ["state"] + names))
        for t, m in states.items():
            cells = [f"{t:>13}"]
            for _, key, rate in cols:
                ci = m.get("intervals", {}).get(key)
                if not rate and m.get(key) is not None:
                    text = f"{m[key]:.3f}" + (f" ±{(ci['high'] - ci['low']) / 2:.3f}" if ci else "")
                else:
                    text = percent(m.get(key), ci)
                cells.append(f"{text:>13}")
            lines.append("  ".join(cells))
        rb = ", SE (RB) from log-probabilities" if any(c[1] == "semantic_entropy_rb" for c in cols) else ""
        lines.append("entropies in nats over each problem's samples: behaviour classes (identical outputs on every "
                     f"test){rb}, technique sets")
        if any(key == "neogauge_best@5" for _, key, _ in cols):
            lines.append(f"{best_label(ks)} NeoG: the expected best convergent x divergent among k = min(5, n) of a "
                         "problem's n scored samples, over the problems with 2 or more"
                         + ("" if ks is not None else "; k not named: the run's records were not read"))
    costs = [m["cost"] for m in states.values() if m.get("cost")]
    if costs:
        calls = sum(c["calls"] for c in costs) / len(costs)
        tokens = sum(c["tokens"] for c in costs) / len(costs)
        lines.append(f"strategy {metrics.get('strategy', 'direct')}: {calls:.1f} model calls and {tokens:,.0f} "
                     "tokens per sample (prompt + completion, as the endpoint reports them)")
    return lines


def aidan_table(results: list[QuestionResult], totals: dict) -> str:
    """One generator's AidanBench results: a row per question, then its totals.  Columns
    for the coherence-gated novelty, MMR_AB and semantic entropy appear when the results
    have them; a re-score's "out of answers" questions are counted as lower bounds; the
    generator's replies that held no answer are counted per reason (``no_answer``)."""
    extra = [(title, key, fmt) for title, key, fmt in (("gated nov.", "gated_novelty", "{:>10.3f}"),
                                                       ("MMR_AB", "mmr", "{:>8.3f}"),
                                                       ("entropy", "semantic_entropy", "{:>7.3f}"))
             if any(getattr(q, key) is not None for q in results)]
    head = "".join(f"  {title:>{len(fmt.format(0.0))}}" for title, _, fmt in extra)
    lines = [f"{'#':>3}  {'answers':>7}  {'novelty sum':>11}{head}  stop reason     question"]
    for q in results:
        cells = "".join("  " + (fmt.format(getattr(q, key)) if getattr(q, key) is not None
                                else f"{'-':>{len(fmt.format(0.0))}}") for _, key, fmt in extra)
        lines.append(f"{q.question_index + 1:>3}  {q.answers:>7}  {q.novelty_sum:>11.3f}{cells}  "
                     f"{q.stop_reason:<14}  {q.question[:60]}")
    ci = totals.get("intervals") or {}

    def total(key: str, fmt: str) -> str:
        iv = ci.get(key)
        return fmt.format(totals[key]) + (f" [{fmt.format(iv['low'])}, {fmt.format(iv['high'])}]" if iv else "")

    lines.append(f"total: {total('answers', '{:.0f}')} answers over {totals['questions']} judged questions (one in "
                 "error or never ended is left out: the run's outcome counts it), novelty sum "
                 f"{total('novelty_sum', '{:.3f}')} (95% bootstrap intervals over questions); stops: "
                 f"{totals['stop_reasons']}")
    more = []
    if "gated_novelty" in totals:
        more.append(f"coherence-gated novelty {total('gated_novelty', '{:.3f}')}")
    if "mmr" in totals:
        more.append(f"MMR_AB {total('mmr', '{:.3f}')}")
    if "semantic_entropy" in totals:
        rb = (f", from log-probabilities {total('semantic_entropy_rb', '{:.3f}')}"
              if "semantic_entropy_rb" in totals else "")
        more.append(f"mean semantic entropy {total('semantic_entropy', '{:.3f}')} nats over "
                    f"{totals['semantic_entropy_questions']} questions{rb}")
    if more:
        lines.append("       " + "; ".join(more))
    if totals.get("no_answer"):
        why = ", ".join(f"{n} x {reason}" for reason, n in totals["no_answer"].items())
        lines.append(f"       replies that held no answer (not judged; each ended its question): {why}")
    if totals.get("out_of_answers"):
        lines.append(f"       {totals['out_of_answers']} questions out of answers: the run has none after its own "
                     "stop, so their counts are lower bounds")
    return "\n".join(lines)


def aidan_change(before: dict, after: dict) -> str:
    """A re-score's totals against the run's own (both from ``aidanbench.loop.totals``):
    answers and novelty sum, and the analyses both have, as "before -> after"."""
    parts = [f"answers {before['answers']} -> {after['answers']}",
             f"novelty sum {before['novelty_sum']:.3f} -> {after['novelty_sum']:.3f}"]
    for key, name in (("gated_novelty", "gated novelty"), ("mmr", "MMR_AB"), ("semantic_entropy", "entropy")):
        if key in before and key in after:
            parts.append(f"{name} {before[key]:.3f} -> {after[key]:.3f}")
    return "against the run: " + ", ".join(parts)


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
