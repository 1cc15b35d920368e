"""LiveIdeaBench's section of the report (runs of kind ``ideas``, ``neocoder ideas``):
``ideas.html`` on the index and ``ideas_samples.html`` per run.

Why: an ideas run is judged by a panel's 1-10 scores and by how its scores compare with the
published leaderboard.  The index shows the five scores with their intervals, the run
beside the published December 2024 leaderboard's columns (read from
``../shared/liveideabench`` or ``$LIVEIDEABENCH_DIR`` when the report is built, never
copied), and the scores per discipline and per keyword; each run's drill-down page shows
every idea per keyword with what became of it, its judges' scores and the keyword's
fluency grade.
"""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from neocoder.benchmarks.ideas.descriptor import IDEAS
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.errors import NeocoderError
from neocoder.report import plots
from neocoder.report.ideas import LEADERBOARD_COLUMNS, comparison_rows, leaderboard_svg
from neocoder.report.render import render, write_page
from neocoder.report.runs import Run, display_name, model_names
from neocoder.report.sections.base import Section

IDEA_SCORES = (("originality", "originality"), ("feasibility", "feasibility"), ("clarity", "clarity"),
               ("fluency", "fluency"), ("flexibility", "flexibility"))
CRITERIA = ("originality", "feasibility", "clarity")  # what each judge scores
# an idea's status -> the verdict colour it borrows
STATUS_BADGE = {"ok": "AC", "too long": "TLE", "refused": "WA", "no idea": "WA"}
KEYWORDS_OPEN = 40  # a longer per-keyword table is folded


class LiveIdeaBenchSection(Section):
    """LiveIdeaBench runs: totals, the published leaderboard, per discipline and keyword."""

    name = IDEAS
    kinds = (IDEAS,)
    page_link = "ideas"

    def read(self, run: Run, folder) -> None:
        """Read the run's ideas (sorted by model, keyword and idea number), judgements and fluency
        grades into ``run.parts``; the label is the model."""
        records = folder.read()
        run.parts["ideas"] = sorted((r for r in records if isinstance(r, Idea)),
                           key=lambda i: (i.model, i.keyword_index, i.idea_num))
        run.parts["judgements"] = [r for r in records if isinstance(r, IdeaJudgement)]
        run.parts["grades"] = [r for r in records if isinstance(r, FluencyGrade)]
        run.label = run.model_label()

    def size(self, run: Run) -> str:
        """The counts of ideas, judgements and fluency grades."""
        return (f"{len(run.parts['ideas'])} ideas, {len(run.parts['judgements'])} judgements, "
                f"{len(run.parts['grades'])} fluency grades")

    def index_html(self, runs: list[Run]) -> str:
        """``ideas.html``: the five scores per model with their intervals and protocols, the
        published leaderboard beside them, the scores per discipline and keyword, and the
        paper's analyses (``analyses_view``)."""
        names = model_names(runs)
        models = {names[(r.path, m)]: r.metrics["models"][m] for r in runs for m in r.metrics.get("models", {})}
        protocols = {names[(r.path, m)]: protocol_of(r) for r in runs for m in r.metrics.get("models", {})}
        return render("ideas.html", runs=runs, models=models, scores=IDEA_SCORES, columns=LEADERBOARD_COLUMNS,
                      leaderboard=leaderboard_view(models, protocols), keywords_open=KEYWORDS_OPEN,
                      protocols=protocols, analyses=analyses_view(runs, names))

    def write_pages(self, runs: list[Run], out: Path) -> None:
        """Write ``ideas_samples.html`` per run (``ideas_page``): every idea per keyword, its
        judges' scores and the keyword's fluency grade."""
        for run in runs:
            write_page(out / run.page, f"{run.label}: ideas", render("ideas_samples.html", **ideas_page(run)))


def protocol_of(run: Run) -> str:
    """The protocol a run was made with (its manifest; runs before issue 38: ours)."""
    return run.manifest.config.get("protocol") or "ours"


def clone_of(runs: list[Run]) -> Path | None:
    """The LiveIdeaBench clone the analyses read: an official run's ``--liveideabench``, else
    ``$LIVEIDEABENCH_REPO``, else ``official/`` beside the shared LiveIdeaBench files."""
    import os

    from neocoder.benchmarks.ideas.official import PROMPTS_JSON
    from neocoder.benchmarks.ideas.sources import liveideabench_dir
    for run in runs:
        given = run.manifest.config.get("liveideabench")
        if given and (Path(given) / PROMPTS_JSON).is_file():
            return Path(given)
    if os.environ.get("LIVEIDEABENCH_REPO"):
        return Path(os.environ["LIVEIDEABENCH_REPO"])
    beside = liveideabench_dir() / "official"
    return beside if (beside / PROMPTS_JSON).is_file() else None


def analyses_view(runs: list[Run], names: dict) -> dict:
    """The paper's analyses over the report's ideas runs and the published rows
    (ideas/analyses.py) with their figures (report/ideas_plots.py), or why they are missing."""
    from neocoder.benchmarks.ideas.analyses import RunData, analyse_runs
    from neocoder.report import ideas_plots
    clone = clone_of(runs)
    if clone is None:
        return {"error": "no LiveIdeaBench clone found (give --liveideabench to the runs, or set "
                         "LIVEIDEABENCH_REPO)"}
    data = [RunData(r.path, protocol_of(r), {names[(r.path, m)]: s for m, s in r.metrics.get("models", {}).items()},
                    r.parts["ideas"], r.parts["judgements"]) for r in runs]
    try:
        result = analyse_runs(data, clone, published=True)
    except NeocoderError as exc:
        return {"error": str(exc)}
    colors = plots.palette([names[(r.path, m)] for r in runs for m in r.metrics.get("models", {})])
    raw = {m: colors[names[(r.path, m)]] for r in runs for m in r.metrics.get("models", {})}
    figures = {"livebench": ideas_plots.livebench_svg(result["livebench"], colors),
               "length": ideas_plots.length_svg(result["length"], raw),
               "disciplines": ideas_plots.discipline_svg(result["disciplines"]),
               "pareto": ideas_plots.pareto_svg(result["points"], result["pareto"], colors)}
    return {"error": None, **result, "figures": {k: Markup(v) if v else None for k, v in figures.items()}}


def leaderboard_view(models: dict[str, dict], protocols: dict[str, str] | None = None) -> dict:
    """The run's models among the published leaderboard's rows (``report.ideas.comparison_rows``)
    with the bar figure and where the leaderboard was read, or why it could not be."""
    from neocoder.benchmarks.ideas.sources import LEADERBOARD_FILE, load_leaderboard

    try:
        leaderboard = load_leaderboard()
    except NeocoderError as exc:
        return {"error": str(exc)}
    merged = comparison_rows(models, leaderboard, protocols)
    return {"error": None, "rows": merged, "path": LEADERBOARD_FILE,  # no path of this machine
            "figure": Markup(leaderboard_svg(merged, plots.palette(list(models))))}


def ideas_page(run: Run) -> dict:
    """What the drill-down page of an ideas run shows: per (model, keyword) its ideas, each
    with its badge and its judges' rows, and the keyword's fluency grade as text."""
    judged: dict[tuple, list[IdeaJudgement]] = {}
    for j in run.parts["judgements"]:
        judged.setdefault((j.model, j.keyword_index, j.idea_num), []).append(j)
    grades = {(g.model, g.keyword_index): g for g in run.parts["grades"]}
    by_keyword: dict[tuple, list[Idea]] = {}
    for idea in run.parts["ideas"]:
        by_keyword.setdefault((idea.model, idea.keyword_index), []).append(idea)
    several = len({i.model for i in run.parts["ideas"]}) > 1
    keywords = []
    for (model, index), ideas in by_keyword.items():
        keywords.append({"first": ideas[0], "fluency": fluency_text(grades.get((model, index))),
                         "who": " · " + display_name(model) if several else "",
                         "ideas": [{"idea": idea, "badge": STATUS_BADGE.get(idea.status, "INFRA"),
                                    "text": idea.idea or idea.reply or idea.error or "",
                                    "why": getattr(idea, "no_idea", None),
                                    "judges": sorted(judged.get((model, index, idea.idea_num), []),
                                                     key=lambda j: j.judge)} for idea in ideas]})
    return {"run": run, "limit": run.manifest.config.get("max_words"), "keywords": keywords, "criteria": CRITERIA}


def fluency_text(grade: FluencyGrade | None) -> str:
    """A keyword's fluency grade as the page says it."""
    if grade is None:
        return "not graded (fewer than 2 judged ideas)"
    if grade.grade is None:
        return f"error ({grade.error or ''})"
    return f"{grade.grade} = {grade.score:.0f} by {grade.judge} on ideas {', '.join(map(str, grade.idea_nums))}"


def published_rows() -> list[dict]:
    """The leaderboard's published LiveIdeaBench rows (``Benchmark.published``): each model
    of its December 2024 leaderboard with originality, feasibility, fluency and
    flexibility on 1-10 (the leaderboard has no clarity); none when the leaderboard file
    cannot be read here (it is not shipped: $LIVEIDEABENCH_DIR)."""
    from neocoder.benchmarks.ideas.sources import load_leaderboard
    from neocoder.report.leaderboard.collect import slug
    try:
        board = load_leaderboard()
    except NeocoderError:
        return []
    return [{"id": "published-liveideabench-" + slug(entry["model"]), "model": entry["model"],
             "origin": "LiveIdeaBench leaderboard, December 2024",
             "values": {f"{IDEAS}.{k.lower()}": {"value": entry[k]}
                        for k in ("Originality", "Feasibility", "Fluency", "Flexibility")}}
            for entry in board]
