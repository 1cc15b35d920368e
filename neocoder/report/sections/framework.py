"""The creativity framework's section of the report (runs of kind ``framework``,
``neocoder framework``): its part of ``index.html`` and ``framework_<run>.html`` per run.

Why: a framework run has two kinds of numbers, divergent (the semantic entropy of each
step, aggregated per solution) and convergent (the judges' verdicts per criterion), plus
what the judges cost; the index shows them with their intervals over problems, the
drill-down page every step's candidates, classes and entropy and every verdict.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.report.render import render, write_page
from neocoder.report.runs import Run
from neocoder.report.sections.base import Section

KIND = "framework"


class FrameworkSection(Section):
    """Framework runs: divergent and convergent scores, judge cost, per-problem pages."""

    name = KIND
    kinds = (KIND,)
    page_link = "steps and verdicts"

    def read(self, run: Run, folder) -> None:
        """Read the run's steps and solutions into ``run.records``; the label is the model and the domain."""
        run.records = [r for r in folder.read() if isinstance(r, (FrameworkStep, FrameworkSolution))]
        run.label = f"{run.model_label()} ({run.manifest.config.get('domain', '?')})"

    def size(self, run: Run) -> str:
        """The counts of solutions and steps ("10 solutions, 43 steps")."""
        solutions = sum(isinstance(r, FrameworkSolution) for r in run.records)
        steps = sum(isinstance(r, FrameworkStep) for r in run.records)
        return f"{solutions} solutions, {steps} steps"

    def index_html(self, runs: list[Run]) -> str:
        """``framework.html``: every run's divergent and convergent scores and judge cost."""
        return render("framework.html", runs=runs)

    def write_pages(self, runs: list[Run], out: Path) -> None:
        """Write ``framework_<run>.html`` per run: each solution (by problem id) with its steps in
        order, their candidates, classes and entropy, and the judges' verdicts."""
        for run in runs:
            steps: dict[str, list] = {}
            for r in run.records:
                if isinstance(r, FrameworkStep):
                    steps.setdefault(r.problem_id, []).append(r)
            solutions = sorted((r for r in run.records if isinstance(r, FrameworkSolution)),
                               key=lambda r: r.problem_id)
            problems = [{"solution": s, "steps": sorted(steps.get(s.problem_id, []), key=lambda x: x.step)}
                        for s in solutions]
            write_page(out / run.page, f"{run.label}: steps and verdicts",
                       render("framework_steps.html", run=run, problems=problems))
