"""The report's figures: matplotlib drawings returned as SVG text, ready to inline in HTML.

Each function takes plain data (a run's label and its ``metrics.json`` states, counts,
answer scores) and returns one ``<svg>`` element as a string, so the HTML pages stay
static and readable without JavaScript or a network.  Figures are built on a
``matplotlib.figure.Figure`` with an Agg canvas (never pyplot: no global figure
registry, no window), inside an ``rc_context`` (no global style changes), with
text kept as SVG text (``svg.fonttype: none``: smaller, searchable) and a per-figure
``svg.hashsalt`` (deterministic ids that do not collide when several figures share a
page).

Which paper figure each one follows:

- ``neogauge_svg``: NeoCoder (Lu et al., NAACL 2025) Fig. 4, NeoGauge@t and cumulative
  NeoGauge per state t, with the bootstrap interval as a band;
- ``creativity_svg``: Fig. 6 and Fig. 8, convergent and divergent creativity per state
  for every run and the humans, side by side, with interval error bars;
- ``pass_svg``: pass@1 on the example tests against pass@1 with the extended tests
  (the EvalPlus-style second tier, ``pass@1_plus``);
- ``verdicts_svg``: the sample verdicts per state as stacked bars;
- ``aidan_totals_svg``, ``aidan_answers_svg``, ``aidan_curves_svg``: AidanBench
  (McLaughlin et al.) totals with intervals, answers per question, and Fig. 3's
  novelty (and coherence) against the answer number, one panel per question.

Published figures (the paper's Table 4 and Table 5, ``published.py``) are passed as
ordinary series whose labels are in ``published``: drawn dotted with hollow markers (lines)
or hatched and pale (bars), never with bands, so they read as references beside the
measured runs.

Intervals follow the ``metrics.json`` schema ``states[t]["intervals"][rate] = {"low",
"high", "se"}`` (fractions, like the rates); a run without them is drawn without bands.
"""

from __future__ import annotations

import io
import math

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from neocoder.records import HUMAN
from neocoder.report.verdicts import VERDICT_COLORS  # verdict order and colours, AC at the bottom (verdicts.SHOWN)

HUMAN_COLOR = "#222222"
_CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
_RC = {"svg.fonttype": "none", "font.size": 9, "axes.titlesize": 10, "axes.spines.top": False,
       "axes.spines.right": False, "legend.fontsize": 8, "legend.frameon": False}


def palette(labels: list[str]) -> dict[str, str]:
    """A colour per run label, stable in the order given; ``human`` (also tagged with its
    language, "human [python]") is always near-black."""
    colors, i = {}, 0
    for label in labels:
        if label == HUMAN or label.startswith(HUMAN + " ["):
            colors[label] = HUMAN_COLOR
        else:
            colors[label] = _CYCLE[i % len(_CYCLE)]
            i += 1
    return colors


def _figure(width: float, height: float, rows: int = 1, cols: int = 1):
    """A Figure on an Agg canvas and its axes grid (a flat list)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def _svg(fig: Figure, salt: str) -> str:
    """The figure as one ``<svg>`` element (no XML prolog or doctype, so it can be inlined)."""
    buf = io.StringIO()
    with rc_context({"svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _series(states: dict, rate: str) -> tuple[list[int], list[float], list[tuple[float, float] | None]]:
    """States t (sorted), the rate at each t, and its interval (low, high) or None, for the
    states where the rate is not None."""
    ts, values, bands = [], [], []
    for t in sorted(states, key=int):
        value = states[t].get(rate)
        if value is None:
            continue
        ts.append(int(t))
        values.append(value)
        iv = (states[t].get("intervals") or {}).get(rate)
        bands.append((iv["low"], iv["high"]) if iv else None)
    return ts, values, bands


def _line_with_band(ax, ts, values, bands, color, label, linestyle="-", published=False) -> None:
    if published:  # a reference: dotted, hollow markers, no band
        ax.plot(ts, [100 * v for v in values], marker="D", markersize=4, color=color, label=label, linestyle=":",
                fillstyle="none")
        return
    ax.plot(ts, [100 * v for v in values], marker="o", markersize=3.5, color=color, label=label,
            linestyle=linestyle)
    if bands and all(b is not None for b in bands):
        ax.fill_between(ts, [100 * b[0] for b in bands], [100 * b[1] for b in bands], color=color, alpha=0.15,
                        linewidth=0)


def _state_axis(ax, ylabel: str) -> None:
    ax.set_xlabel("state t (techniques forbidden)")
    ax.set_ylabel(ylabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)


def _pair(runs: list[tuple[str, dict]], colors: dict[str, str], panels, draw, salt: str,
          published=frozenset()) -> str:
    """Two per-state panels side by side: ``panels`` holds (rate, title) for each, and
    ``draw(ax, runs, rate, colors, published)`` draws one."""
    with rc_context(_RC):
        fig, axes = _figure(9.5, 3.4, 1, 2)
        for ax, (rate, title) in zip(axes, panels):
            draw(ax, runs, rate, colors, published)
            ax.set_title(title)
            _state_axis(ax, "%")
        axes[0].legend(loc="best")
        return _svg(fig, salt)


def _lines(ax, runs, rate: str, colors, published=frozenset()) -> None:
    """A line per run, with its interval band (published series: dotted, no band)."""
    for label, states in runs:
        ts, values, bands = _series(states, rate)
        _line_with_band(ax, ts, values, bands, colors[label], label, published=label in published)


def _error_bars(values: list[float], bands: list) -> list | None:
    """matplotlib's [below, above] error lengths from (low, high) intervals; None unless
    every value has one."""
    if not bands or not all(b is not None for b in bands):
        return None
    return [[max(0.0, v - b[0]) for v, b in zip(values, bands)], [max(0.0, b[1] - v) for v, b in zip(values, bands)]]


def _grouped_bars(ax, runs, rate: str, colors, published=frozenset()) -> None:
    """One group of bars per state, a bar per run, error bars from the intervals
    (published series: pale, hatched, outlined, no error bars)."""
    width = 0.8 / max(1, len(runs))
    for i, (label, states) in enumerate(runs):
        ts, values, bands = _series(states, rate)
        xs = [t - 0.4 + width * (i + 0.5) for t in ts]
        if label in published:
            ax.bar(xs, [100 * v for v in values], width=width, color="white", edgecolor=colors[label], hatch="///",
                   linewidth=0.8, label=label)
            continue
        err = _error_bars([100 * v for v in values], [b and (100 * b[0], 100 * b[1]) for b in bands])
        ax.bar(xs, [100 * v for v in values], width=width, color=colors[label], label=label, yerr=err,
               error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": "#555555"})


def neogauge_svg(runs: list[tuple[str, dict]], colors: dict[str, str], published=frozenset()) -> str:
    """NeoCoder Fig. 4: NeoGauge@t (left) and cumulative NeoGauge (right) per state, in %.

    ``runs``: (label, ``metrics["states"]``) per run, humans included; ``colors``: label
    -> colour (``palette``); ``published``: the labels of published series (drawn dotted).
    Bands are the runs' bootstrap intervals where present.
    """
    return _pair(runs, colors, (("neogauge", "NeoGauge@t"), ("cumulative_neogauge", "cumulative NeoGauge")),
                 _lines, "neogauge", published)


def creativity_svg(runs: list[tuple[str, dict]], colors: dict[str, str], published=frozenset()) -> str:
    """NeoCoder Fig. 6 / Fig. 8: convergent (left) and divergent (right) creativity per
    state, in %, a bar per run (humans: Eq. 5 and Eq. 6) with interval error bars;
    ``published`` labels are drawn as hatched outline bars."""
    return _pair(runs, colors, (("convergent", "convergent creativity (correct and following)"),
                                ("divergent", "divergent creativity (share of techniques no human used)")),
                 _grouped_bars, "creativity", published)


def pass_svg(runs: list[tuple[str, dict]], colors: dict[str, str], published=frozenset()) -> str:
    """pass@1 on the example tests (solid) against pass@1 with the extended tests (dashed,
    where the run has them), per state, in %, with interval bands; ``published`` labels'
    pass@1 is drawn dotted."""
    with rc_context(_RC):
        fig, (ax,) = _figure(8.0, 3.2)
        for label, states in runs:
            for rate, style, suffix in (("pass@1", "-", ""), ("pass@1_plus", "--", " +ext")):
                ts, values, bands = _series(states, rate)
                if ts:
                    _line_with_band(ax, ts, values, bands, colors[label], label + suffix, linestyle=style,
                                    published=label in published)
        ax.set_title("pass@1: example tests (solid) and with extended tests (dashed)")
        _state_axis(ax, "%")
        ax.set_ylim(0, max(5.0, ax.get_ylim()[1]))
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig, "pass")


def diversity_svg(runs: list[tuple[str, dict]], colors: dict[str, str]) -> str | None:
    """Model against human diversity along the Denial Prompting chain (issue 25): a panel
    per measure (operations, technique, structure, execution; each titled with its kappa
    against the hand-labelled pairs), a pair of bars per model run: the
    algorithm classes among its correct programs across states (mean per problem) and
    the classes as many accepted human solutions give (mean of ``human_classes``), with
    interval error bars.  ``runs``: (label, ``metrics["diversity"]``); None when no run
    has a chain block."""
    runs = [(label, block["chain"]) for label, block in runs if block and block.get("chain")]
    if not runs:
        return None
    from neocoder.metrics.diversity.labelled import shipped_summary
    measures = [m for m in ("operations", "technique", "structure", "execution")
                if any(m in chain for _, chain in runs)]
    kappas = {m: got.get("kappa") for m, got in shipped_summary().get("measures", {}).items()}
    with rc_context(_RC):
        fig, axes = _figure(3.2 * len(measures) + 1.5, 3.2, 1, len(measures))
        for ax, measure in zip(axes, measures):
            for i, (label, chain) in enumerate(runs):
                got = chain.get(measure, {})
                for j, (key, face) in enumerate((("classes", colors[label]), ("human_classes", "white"))):
                    g = got.get(key)
                    if not g or g.get("value") is None:
                        continue
                    err = [[g["value"] - g.get("low", g["value"])], [g.get("high", g["value"]) - g["value"]]]
                    ax.bar(i + (j - 0.5) * 0.38, g["value"], width=0.36, color=face, edgecolor=colors[label],
                           hatch="///" if j else None, yerr=err, error_kw={"elinewidth": 0.8, "capsize": 2},
                           label=f"{label}" if j == 0 else f"humans, as many as {label}'s correct")
            ax.set_xticks(range(len(runs)), [_short(label, 18) for label, _ in runs])
            worth = f" (kappa {kappas[measure]:.2f} vs hand labels)" if kappas.get(measure) is not None else ""
            ax.set_title(f"classes by {measure}{worth}", fontsize=8)
            ax.set_ylabel("algorithm classes per problem")
        axes[-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig, "diversity")


def verdicts_svg(runs: list[tuple[str, dict[int, dict[str, int]]]]) -> str:
    """Sample verdicts per state as stacked bars, a panel per run.

    ``runs``: (label, {t: {verdict: count}}); verdicts are those of ``VERDICT_COLORS``
    (a sample's verdict is decided by the caller, e.g. its first non-AC test).
    """
    with rc_context(_RC):
        cols = min(3, max(1, len(runs)))
        rows = math.ceil(len(runs) / cols)
        fig, axes = _figure(4.2 * cols, 3.0 * rows, rows, cols)
        for ax, (label, counts) in zip(axes, runs):
            ts = sorted(counts)
            bottom = [0] * len(ts)
            for verdict, color in VERDICT_COLORS.items():
                heights = [counts[t].get(verdict, 0) for t in ts]
                if any(heights):
                    ax.bar(ts, heights, bottom=bottom, color=color, label=verdict, width=0.7)
                    bottom = [b + h for b, h in zip(bottom, heights)]
            ax.set_title(label)
            _state_axis(ax, "samples")
            ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        for ax in axes[len(runs):]:
            ax.set_visible(False)
        return _svg(fig, "verdicts")


def aidan_totals_svg(totals: dict[str, dict], colors: dict[str, str]) -> str:
    """AidanBench totals per model: answers (left) and novelty sum (right), with the
    bootstrap interval over questions as error bars where ``totals[m]["intervals"]`` has it."""
    with rc_context(_RC):
        names = list(totals)
        fig, axes = _figure(9.0, 0.9 + 0.45 * len(names), 1, 2)
        for ax, key, title in ((axes[0], "answers", "answers (total)"), (axes[1], "novelty_sum", "novelty sum")):
            values = [totals[m][key] for m in names]
            ivs = [(totals[m].get("intervals") or {}).get(key) for m in names]
            err = _error_bars(values, [iv and (iv["low"], iv["high"]) for iv in ivs])
            ax.barh(range(len(names)), values, xerr=err, color=[colors[m] for m in names], height=0.6,
                    error_kw={"elinewidth": 0.8, "capsize": 2})
            ax.set_yticks(range(len(names)), names if ax is axes[0] else [""] * len(names))
            ax.invert_yaxis()
            ax.set_title(title)
            ax.grid(axis="x", alpha=0.3)
        return _svg(fig, "aidan-totals")


def aidan_answers_svg(questions: list[str], answers: dict[str, dict[int, int]], colors: dict[str, str]) -> str:
    """Answers kept per question (AidanBench's per-question count), a bar per model.

    ``questions``: the texts by question index; ``answers``: model -> {question index:
    answers before the stop}.
    """
    with rc_context(_RC):
        fig, (ax,) = _figure(9.0, 1.0 + 0.22 * len(questions) * max(1, len(answers)) ** 0.5)
        height = 0.8 / max(1, len(answers))
        for i, (model, per_q) in enumerate(answers.items()):
            ys = [q - 0.4 + height * (i + 0.5) for q in range(len(questions))]
            ax.barh(ys, [per_q.get(q, 0) for q in range(len(questions))], height=height, color=colors[model],
                    label=model)
        ax.set_yticks(range(len(questions)), [_short(q, 60) for q in questions])
        ax.invert_yaxis()
        ax.set_xlabel("answers before the stop")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return _svg(fig, "aidan-answers")


def aidan_curves_svg(questions: list[str], curves: dict[str, dict[int, list[tuple]]], colors: dict[str, str],
                     novelty_stop: float | None = None, coherence_stop: float | None = None) -> str:
    """AidanBench Fig. 3 style: per question, novelty (solid) and coherence / 100 (dashed)
    against the answer number, a line per model; the answer that stopped the question is
    marked with an x on the score that stopped it; the stop thresholds are dotted lines.

    ``curves``: model -> {question index: [(answer_num, novelty, coherence or None,
    stop or None), ...]} in answer order.
    """
    with rc_context(_RC):
        cols = min(4, max(1, len(questions)))
        rows = math.ceil(len(questions) / cols)
        fig, axes = _figure(2.6 * cols, 0.5 + 2.1 * rows, rows, cols)
        for q, ax in enumerate(axes[:len(questions)]):
            for model, per_q in curves.items():
                points = per_q.get(q, [])
                if not points:
                    continue
                nums = [p[0] for p in points]
                ax.plot(nums, [p[1] if p[1] is not None else math.nan for p in points], color=colors[model],
                        marker="o", markersize=2.5, linewidth=1, label=model)
                if any(p[2] is not None for p in points):
                    ax.plot(nums, [p[2] / 100 if p[2] is not None else math.nan for p in points],
                            color=colors[model], linestyle="--", linewidth=0.9, marker="s", markersize=2,
                            fillstyle="none")
                for num, nov, coherence, stop in points:
                    if stop:  # on the score that stopped it
                        y = coherence / 100 if stop == "incoherent" and coherence is not None else nov or 0
                        ax.plot([num], [y], marker="x", color="#c00000", markersize=6)
            for level in (novelty_stop, None if coherence_stop is None else coherence_stop / 100):
                if level is not None:
                    ax.axhline(level, color="#999999", linestyle=":", linewidth=0.8)
            ax.set_title(f"{q + 1}. {_short(questions[q], 38)}", fontsize=7.5, loc="left")
            ax.set_ylim(-0.04, 1.06)
            last = max((p[0] for per_q in curves.values() for p in per_q.get(q, [])), default=1)
            ax.set_xlim(0.5, last + 0.5)
            if last <= 12:
                ax.set_xticks(range(1, last + 1))
            else:
                ax.xaxis.get_major_locator().set_params(integer=True)
            ax.tick_params(labelsize=7)
        for ax in axes[len(questions):]:
            ax.set_visible(False)
        if curves:
            legend = {}
            for ax in axes:
                for handle, label in zip(*ax.get_legend_handles_labels()):
                    legend.setdefault(label, handle)
            fig.legend(list(legend.values()), list(legend), loc="outside upper center",
                       ncols=min(4, max(1, len(legend))))
        fig.supxlabel("answer number", fontsize=8)
        fig.supylabel("novelty (solid), coherence / 100 (dashed)", fontsize=8)
        return _svg(fig, "aidan-curves")


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"
