"""The drill-down page of a NeoCoder model run (``run<i>-<folder>.html``, ``eval_samples.html``).

Why: a researcher wants to open any sample and see where a model fails and what it wrote
instead of a forbidden technique.  One row per sample, filterable by state and verdict
(``filter.js`` reads the rows' ``data-state`` and ``data-verdict``), each row opening the
sample: statement with constraints, code (pygments), each test's input, expected and
produced output, techniques with the violated ones and the new ones marked, and the
strategy's attempts.  Statements and tests are read again from the dataset or release
the run's manifest names (``report.runs.run_states``); when they cannot be, the page says why.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from markupsafe import Markup

from neocoder.errors import NeocoderError
from neocoder.records import Sample, TierResult
from neocoder.report import plots
from neocoder.report.render import CODE_CLASS, render, write_page
from neocoder.report.runs import Run
from neocoder.report.sections.metrics_view import metrics_view
from neocoder.report.verdicts import sample_verdict, tier_verdict

HEAD_LINES, HEAD_WIDTH, PLUS_SHOWN = 8, 160, 5  # test texts: lines and characters shown; extended tests shown
NO_CODE = Markup('<p class="note">no code</p>')


def write_drilldowns(models: list[Run], out: Path) -> None:
    """Write the drill-down page of every model run in ``models`` to ``out / run.page``.
    The code of all runs is highlighted in one pass (the largest cost: about 2 s for the
    1,063 programs of the full replay run)."""
    states = problem_states(models)
    highlighted = highlight_codes({code_key(s): s.code for r in models for s in r.samples if s.code})
    for run in models:
        write_page(out / run.page, f"{run.label}: samples", drill_body(run, states[run.path], highlighted),
                   script=True)


def highlight_codes(codes: dict[str, str]) -> dict[str, str]:
    """{key: Python source} -> {key: pygments HTML} (a ``div`` of class ``CODE_CLASS``)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    lexer, formatter = PythonLexer(), HtmlFormatter(cssclass=CODE_CLASS)
    return {key: highlight(code, lexer, formatter) for key, code in codes.items()}


def code_key(s: Sample) -> str:
    """The key of a sample's code among the highlighted programs (its SHA-256)."""
    return s.code_sha256 or hashlib.sha256((s.code or "").encode()).hexdigest()


def problem_states(models: list[Run]) -> dict[Path, dict | str]:
    """Per model run, its problem states by (problem_id, state) (``runs.run_states``), or
    the message of why they cannot be read.  Runs naming the same dataset and release
    share one read (the states depend only on those two manifest fields)."""
    from neocoder.report.runs import run_states

    shared: dict[tuple, dict | str] = {}
    result = {}
    for run in models:
        config = run.manifest.config
        key = (str(config.get("dataset")), str(config.get("release_dir")))
        if key not in shared:
            try:
                shared[key] = run_states(run.path)
            except NeocoderError as exc:
                shared[key] = str(exc)
        result[run.path] = shared[key]
    return result


def drill_body(run: Run, states: dict | str, highlighted: dict[str, str]) -> str:
    """The drill-down page's body for ``run``: ``states`` are its problem states by key
    (or why they are missing), ``highlighted`` the pygments HTML of the code by
    ``code_key``."""
    samples = [sample_view(s, states.get((s.problem_id, int(s.state))) if isinstance(states, dict) else None,
                           highlighted) for s in run.samples]
    verdicts = {v["verdict"] for v in samples}
    return render("eval_samples.html", run=run, samples=samples, view=metrics_view(run),
                  several=any(s.sample for s in run.samples), missing=None if isinstance(states, dict) else states,
                  present_states=sorted({s.state for s in run.samples}),
                  present_verdicts=[v for v in plots.VERDICT_COLORS if v in verdicts])


def sample_view(s: Sample, problem, highlighted: dict[str, str]) -> dict:
    """What the page shows of one sample: its verdicts, anchor, code, tests and attempts."""
    code = Markup(highlighted.get(code_key(s), NO_CODE)) if s.code else NO_CODE
    return {"s": s, "verdict": sample_verdict(s), "anchor": anchor(s), "problem": problem, "code": code,
            "plus_verdict": None if s.plus is None else tier_verdict(s.plus),
            "examples": None if s.examples is None else tests_view(s.examples, problem.tests if problem else None),
            "extended": None if s.plus is None else tests_view(
                s.plus, problem.extended_tests if problem else None, PLUS_SHOWN),
            "attempts": attempts_view(s) if s.attempts else None}


def anchor(s: Sample) -> str:
    """The id of a sample's section (``#s-1899A-2-0``)."""
    return "s-" + re.sub(r"[^A-Za-z0-9_-]+", "_", f"{s.problem_id}-{s.state}-{s.sample}")


def head(text: str | None) -> str:
    """The first lines of a test's text, each cut to a width, with what was left out."""
    if text is None:
        return ""
    if not text:
        return "(empty)"
    lines = text.splitlines()
    shown = [line if len(line) <= HEAD_WIDTH else line[:HEAD_WIDTH] + " …" for line in lines[:HEAD_LINES]]
    more = f"\n… ({len(lines)} lines in all)" if len(lines) > HEAD_LINES else ""
    return "\n".join(shown) + more


def tests_view(tier: TierResult, tests: list[dict] | None, limit: int | None = None) -> dict:
    """A tier's tests as the page's table shows them (the first ``limit``): ``{"skipped":
    n}`` when the whole tier was left out after a failed example, else ``{"rows": [...],
    "total": n}`` with each row's verdict, input, expected and produced heads and detail."""
    results = tier.tests
    if not results and tier.skipped:
        return {"skipped": tier.skipped}
    shown = results if limit is None else results[:limit]
    rows = []
    for j, result in enumerate(shown):
        case = tests[j] if tests is not None and j < len(tests) else {}
        cost = "" if result.get("cpu_seconds") is None else f'{result["cpu_seconds"]:.2f}s CPU'
        rows.append({"verdict": result.get("verdict", "?"), "input": head(case.get("input")),
                     "output": head(case.get("output")), "produced": head(result.get("stdout_head")),
                     "detail": " ".join(x for x in (cost, result.get("detail") or "") if x)})
    return {"skipped": 0, "rows": rows, "total": len(results)}


def attempts_view(s: Sample) -> dict:
    """A strategy's attempts (plans, earlier programs with their feedback, candidates,
    rollouts) as table rows, with the sample's spend."""
    rows = []
    for a in s.attempts:
        what = a.get("kind", "")
        if what == "tree":
            continue
        label = {"attempt": f"attempt {a.get('round', 0) + 1}", "candidate": f"candidate {a.get('index', 0) + 1}",
                 "rollout": f"rollout {a.get('index', 0) + 1}"}.get(what, what)
        score = "" if a.get("reward") is None else f"reward {a['reward']:.2f}"
        if a.get("product") is not None:
            score += f"; convergent x divergent {a['product']:.2f}"
        text = a.get("feedback") or a.get("reply") or a.get("continuation") or ""
        rows.append({"label": label + (" (kept)" if a.get("chosen") else ""), "score": score,
                     "verdicts": " ".join(a.get("verdicts") or []), "text": head(text) if text else ""})
    cost = s.cost or {}
    return {"rows": rows, "calls": cost.get("calls", 1), "seconds": cost.get("seconds", 0),
            "tokens": cost.get("prompt_tokens", 0) + cost.get("completion_tokens", 0)}
