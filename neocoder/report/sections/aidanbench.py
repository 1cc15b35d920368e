"""AidanBench's section of the report (runs of kind ``aidanbench``, ``aidanbench.html``).

Why: an AidanBench run is judged by how many novel, coherent answers a model gives per
question before it repeats itself.  Runs over the same question list are drawn together;
each such group gets its totals with bootstrap intervals over questions, answers per
question, novelty and coherence per answer (AidanBench Fig. 3) and stop reasons per
question.  There is no drill-down page: the per-question table is the detail.
"""

from __future__ import annotations

from markupsafe import Markup

from neocoder.benchmarks.aidanbench.config import COHERENCE_STOP, COHERENCE_STOP_10
from neocoder.benchmarks.aidanbench.descriptor import AIDANBENCH
from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.report import plots
from neocoder.report.render import render
from neocoder.report.runs import Run, model_names
from neocoder.report.sections.base import Section

# the totals' columns: (key in a model's metrics, format); a key a run lacks shows — (the
# first two every run has)
TOTALS = (("answers", "{:.0f}"), ("novelty_sum", "{:.2f}"), ("gated_novelty", "{:.2f}"), ("mmr", "{:.2f}"),
          ("semantic_entropy", "{:.3f}"))
ALWAYS = ("answers", "novelty_sum")


class AidanBenchSection(Section):
    """AidanBench runs, grouped by their question list."""

    name = AIDANBENCH
    kinds = (AIDANBENCH,)

    def read(self, run: Run, folder) -> None:
        """Read the run's answers and question results, sorted by model, question and answer
        number, into ``run.parts``; the label is the model."""
        run.parts["answers"] = sorted(folder.read(Answer), key=lambda a: (a.model, a.question_index, a.answer_num))
        run.parts["questions"] = sorted(folder.read(QuestionResult), key=lambda q: (q.model, q.question_index))
        run.label = run.model_label()

    def size(self, run: Run) -> str:
        """The counts of question results and answers ("65 question results, 512 answers")."""
        return f"{len(run.parts['questions'])} question results, {len(run.parts['answers'])} answers"

    def index_html(self, runs: list[Run]) -> str:
        """``aidanbench.html`` with the runs grouped by their question list (the texts of the
        questions they answered), one ``group_view`` per group."""
        groups: dict[tuple, list[Run]] = {}
        for r in runs:
            texts = {q.question_index: q.question for q in r.parts["questions"]}
            texts.update({a.question_index: a.question for a in r.parts["answers"]})
            groups.setdefault(tuple(texts[i] for i in sorted(texts)), []).append(r)
        return render("aidanbench.html", runs=runs,
                      groups=[group_view(list(questions), members) for questions, members in groups.items()])


def group_view(questions: list[str], runs: list[Run]) -> dict:
    """What the page shows of runs over one question list: the models' totals (as table
    rows), the three figures, and per question each model's answers, novelty sum and
    stop reason."""
    names = model_names(runs)
    totals = {names[(r.path, m)]: t for r in runs for m, t in r.metrics.get("models", {}).items()}
    per_q: dict[str, dict[int, QuestionResult]] = {shown: {} for shown in totals}
    curves: dict[str, dict[int, list]] = {shown: {} for shown in totals}
    for r in runs:
        for q in r.parts["questions"]:
            if (r.path, q.model) in names:
                per_q[names[(r.path, q.model)]][q.question_index] = q
        for a in r.parts["answers"]:
            if (r.path, a.model) in names:
                curves[names[(r.path, a.model)]].setdefault(a.question_index, []).append(
                    (a.answer_num, a.novelty, a.coherence, a.stop))
    colors = plots.palette(list(totals))
    config = runs[0].manifest.config
    scale = config.get("coherence_scale") or 100
    stop = config.get("coherence_stop")
    if stop is None:
        stop = COHERENCE_STOP_10 if scale == 10 else COHERENCE_STOP
    curves = {m: {i: [(n, nov, None if c is None else c * 100 / scale, st) for n, nov, c, st in pts]
                  for i, pts in per.items()} for m, per in curves.items()}
    figures = {"totals": plots.aidan_totals_svg(totals, colors),
               "answers": plots.aidan_answers_svg(questions, {m: {i: q.answers for i, q in per.items()}
                                                              for m, per in per_q.items()}, colors),
               "curves": plots.aidan_curves_svg(questions, curves, colors, config.get("novelty_stop"),
                                                stop * 100 / scale)}
    left = {names[key]: got for r in runs for key, got in left_out(r).items() if key in names}
    return {"questions": questions, "models": list(totals),
            "totals": [totals_row(m, t, left.get(m)) for m, t in totals.items()],
            "figures": {k: Markup(v) for k, v in figures.items()}, "scale": scale, "per_q": per_q}


def left_out(run: Run) -> dict[tuple, dict[str, int]]:
    """Per (run folder, model) of an AidanBench run, its questions left out of its totals,
    as the run's ``outcome`` counts them (aidanbench/task.py): ``{"error": ended in an
    error, "not ended": never ended (the run stopped first), "unreadable": its judge's
    replies could not be read}``, the last record of each question counting.  Models with
    none left out are absent."""
    asked = run.manifest.extra.get("questions")
    last = {(q.model, q.question_index): q for q in run.parts.get("questions", [])
            if asked is None or q.question_index < asked}
    out: dict[tuple, dict[str, int]] = {}
    for model in run.metrics.get("models", {}):
        mine = [q for (m, _), q in last.items() if m == model]
        got = {"error": sum(q.stop_reason == "error" for q in mine),
               "not ended": max(0, (asked or 0) - len(mine)),
               "unreadable": sum(q.stop_reason == "unreadable" for q in mine)}
        got = {why: n for why, n in got.items() if n}
        if got:
            out[(run.path, model)] = got
    return out


def totals_row(model: str, t: dict, left: dict[str, int] | None = None) -> dict:
    """One model's totals as the table shows them: each column's value and interval as
    text (None: the run has no such column), the stop reasons (a "no answer" stop with
    the reasons of the replies that held none), its judged questions and, in ``errors``,
    the questions left out of its totals (``left_out``: "1 left out: 1 error"; "0" when
    none), the per-model count the run's outcome sums.  (metrics.json's per-model
    ``errors`` counts errors among the judged questions, always 0: a question that ended
    in an error is not judged.)"""
    ivs = t.get("intervals") or {}
    cells = []
    for key, form in TOTALS:
        if key not in t and key not in ALWAYS:
            cells.append(None)
            continue
        iv = ivs.get(key)
        interval = f"[{form.format(iv['low'])}, {form.format(iv['high'])}]" if iv else ""
        cells.append((form.format(t.get(key, 0)), interval))
    errors = (f"{sum(left.values())} left out: " + ", ".join(f"{n} {why}" for why, n in left.items())
              if left else "0")
    return {"model": model, "questions": t.get("questions", ""), "cells": cells, "errors": errors,
            "stops": ", ".join(f"{k}: {v}" + (_no_answer(t) if k == "no answer" else "")
                              for k, v in (t.get("stop_reasons") or {}).items())}


def _no_answer(t: dict) -> str:
    """The reasons of a model's replies that held no answer, e.g. " (1 empty, 1 refusal)"."""
    why = t.get("no_answer") or {}
    return " (" + ", ".join(f"{n} {reason}" for reason, n in why.items()) + ")" if why else ""

