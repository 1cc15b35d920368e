"""The figures of LiveIdeaBench's analyses (ideas/analyses.py), as inline SVG.

Each follows a figure of Ruan et al. (LiveIdeaBench, arXiv:2412.17596), drawn from our
numbers: ``livebench_svg`` their Fig. 4 (LiveIdeaBench Average against LiveBench's Global
Average, with a least-squares line); ``length_svg`` Supplementary Figs. S.1-S.2 (an idea's
words against its quality, per model); ``discipline_svg`` Fig. 3 (the keyword average per
model and discipline as a heat map); ``pareto_svg`` Fig. 5 (originality against
feasibility per model, the Pareto front joined).  Published rows are drawn hollow and grey,
the runs' models filled in their colour, as in plots.py.
"""

from __future__ import annotations

import numpy as np
from matplotlib import rc_context

from neocoder.report.plots import _RC, _figure, _svg

PUBLISHED_COLOR = "#9e9e9e"


def _point_style(ax, x, y, point: dict, colors: dict[str, str]) -> None:
    if point["source"] == "published":
        ax.scatter([x], [y], s=28, facecolors="none", edgecolors=PUBLISHED_COLOR, linewidths=1.0)
    else:
        ax.scatter([x], [y], s=42, color=colors.get(point["label"], "#1f77b4"), edgecolors="black", linewidths=0.6)
    ax.annotate(point["label"], (x, y), xytext=(3, 3), textcoords="offset points", fontsize=6.5,
                color="black" if point["source"] == "run" else "#555555")


def livebench_svg(view: dict, colors: dict[str, str]) -> str | None:
    """LiveBench Global Average (x) against the model's Average (y, 1-10), one point per
    matched model, the least-squares line over all of them; None without two pairs."""
    pairs = view["pairs"]
    if len(pairs) < 2:
        return None
    with rc_context(_RC):
        fig, (ax,) = _figure(6.0, 4.0)
        for p in pairs:
            _point_style(ax, p["livebench"], p["average"], p, colors)
        x = np.array([p["livebench"] for p in pairs])
        y = np.array([p["average"] for p in pairs])
        if np.ptp(x) > 0:
            slope, icpt = np.polyfit(x, y, 1)
            xs = np.linspace(x.min(), x.max(), 2)
            ax.plot(xs, slope * xs + icpt, color="#444444", linewidth=0.8, linestyle="--")
        ax.set_xlabel("LiveBench Global Average (March 2025)")
        ax.set_ylabel("LiveIdeaBench Average (1-10)")
        ax.grid(alpha=0.3)
        return _svg(fig, "ideas-livebench")


def length_svg(view: dict, colors: dict[str, str]) -> str | None:
    """Each judged idea's words (x) against its quality (y, the mean of its three criteria),
    coloured by model, with the mean quality per length bin as a line; None without ideas."""
    points = view["points"]
    if not points:
        return None
    with rc_context(_RC):
        fig, (ax,) = _figure(6.0, 3.6)
        for name in sorted({p["model"] for p in points}):
            mine = [p for p in points if p["model"] == name]
            ax.scatter([p["words"] for p in mine], [p["quality"] for p in mine], s=10, alpha=0.6,
                       color=colors.get(name, "#1f77b4"), label=name)
        bins = view["bins"]
        if bins:
            ax.plot([b["words"] for b in bins], [b["mean"] for b in bins], color="black", linewidth=1.0, marker="s",
                    markersize=3, label="mean per length bin")
        ax.set_xlabel("idea length (words)")
        ax.set_ylabel("idea quality (mean of the 3 criteria)")
        ax.set_ylim(0.5, 10.5)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        return _svg(fig, "ideas-length")


def discipline_svg(view: dict) -> str | None:
    """The mean keyword average (four scores) per model (rows) and discipline (columns) as a
    heat map, the value written in each cell; None without disciplines."""
    disciplines, models = view["disciplines"], list(view["models"])
    if not disciplines or not models:
        return None
    grid = np.full((len(models), len(disciplines)), np.nan)
    for i, m in enumerate(models):
        for j, d in enumerate(disciplines):
            cell = view["models"][m].get(d)
            if cell and cell["average"] is not None:
                grid[i, j] = cell["average"]
    with rc_context(_RC):
        fig, (ax,) = _figure(max(4.0, 0.55 * len(disciplines) + 2.5), 0.9 + 0.4 * len(models))
        image = ax.imshow(grid, cmap="viridis", vmin=1, vmax=10, aspect="auto")
        ax.set_xticks(range(len(disciplines)), disciplines, rotation=45, ha="right")
        ax.set_yticks(range(len(models)), models)
        for i in range(len(models)):
            for j in range(len(disciplines)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=6.5,
                            color="white" if grid[i, j] < 6 else "black")
        fig.colorbar(image, ax=ax, label="average (1-10)")
        return _svg(fig, "ideas-disciplines")


def pareto_svg(points: list[dict], front: list[str], colors: dict[str, str]) -> str | None:
    """Originality (x) against feasibility (y) per model, the Pareto front (``front``, by
    originality) joined by a step line; None without points."""
    shown = [p for p in points if p["originality"] is not None and p["feasibility"] is not None]
    if not shown:
        return None
    with rc_context(_RC):
        fig, (ax,) = _figure(6.0, 4.2)
        for p in shown:
            _point_style(ax, p["originality"], p["feasibility"], p, colors)
        on = sorted((p for p in shown if p["label"] in front), key=lambda p: p["originality"])
        if on:
            ax.step([p["originality"] for p in on], [p["feasibility"] for p in on], where="post", color="#d62728",
                    linewidth=1.0, label="Pareto front")
            ax.legend(loc="best")
        ax.set_xlabel("originality (1-10)")
        ax.set_ylabel("feasibility (1-10)")
        ax.grid(alpha=0.3)
        return _svg(fig, "ideas-pareto")
