"""The static HTML report of one or more run folders (``neocoder report RUN ... --out DIR``).

Why: a run ends with one table; a researcher wants to see the paper's figures for their
own runs, with uncertainty, and to open any sample to see where a model fails and what it
wrote instead of a forbidden technique.  The report is plain files that open offline
from disk: figures are matplotlib SVG inlined in the pages (``plots.py``), code is
highlighted by pygments, and the only script is the drill-down page's filter
(``filter.js``, no framework); without JavaScript every figure, table and sample still
shows.

``DIR`` gets:

- ``index.html``: the runs; for NeoCoder runs (``eval`` and ``human``) the metrics per
  state with their bootstrap intervals, NeoGauge@t and cumulative NeoGauge (NeoCoder
  Fig. 4), convergent and divergent creativity against the humans (Fig. 6, Fig. 8), the
  top-5 techniques per state against the humans' (Table 2), sample verdicts per state,
  pass@1 against pass@1 with the extended tests; for AidanBench runs the totals with
  intervals, answers per question, novelty and coherence per answer (AidanBench Fig. 3),
  stop reasons; for LiveIdeaBench runs (``neocoder ideas``) the five scores with intervals,
  the run beside the published leaderboard's columns (read from ``../shared/liveideabench``
  when the report is built), scores per discipline and per keyword;
- ``run<i>-<folder>.html`` per ideas run: every idea per keyword with what became of it,
  its judges' scores and the keyword's fluency grade;
- ``run<i>-<folder>.html`` per NeoCoder model run: one row per sample, filterable by
  state and verdict, each row opening the sample (statement with constraints, code,
  each test's input / expected / produced output, techniques with the violated ones
  and the new ones marked);
- ``report.css`` and ``filter.js`` (copied from the package).

Definitions used here (documented in ``docs/report.md``):

- a sample's *verdict* is that of its first example test that is not AC (Codeforces'
  convention), AC when all are; ``INFRA`` when the sandbox failed; ``no reply`` on a
  model error;
- the *humans' techniques at state t* (Table 2) are those of the accepted human
  solutions (Python and C/C++, detected by the same detector as model code) of the
  problems the model run has at state t that *follow that state's constraints* (use
  none of its forbidden techniques); a technique's share is averaged over problems
  (each problem weighs the same, as a model's one sample per problem does), and the
  model's share is the share of its samples at state t that use it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from importlib import resources
from pathlib import Path

from ..config import COHERENCE_STOP, COHERENCE_STOP_10
from ..errors import NeocoderError
from ..ideas.records import FluencyGrade, Idea, IdeaJudgement
from ..records import Answer, Manifest, QuestionResult, Sample, TierResult
from ..store import RunFolder
from . import plots

NEOCODER_KINDS = ("eval", "human")
KINDS = NEOCODER_KINDS + ("aidanbench", "ideas")
STATIC_FILES = ("report.css", "filter.js")
RATES = (("pass@1", "pass@1"), ("pass@1_plus", "pass@1+ext"), ("constraint_following", "follow"),
         ("convergent", "convergent"), ("divergent", "divergent"), ("neogauge", "NeoGauge@t"),
         ("cumulative_neogauge", "cum. NeoGauge"), ("pass@5", "pass@5"), ("pass@10", "pass@10"),
         ("neogauge_best@5", "best-of-5 NeoGauge"))
ENTROPIES = (("semantic_entropy", "semantic entropy"), ("semantic_entropy_rb", "SE (RB)"),
             ("technique_entropy", "technique entropy"), ("entropy_divergent_r", "r(SE, divergent)"))
HEAD_LINES, HEAD_WIDTH, PLUS_SHOWN = 8, 160, 5  # test texts: lines and characters shown; extended tests shown
CODE_CLASS = "hl"  # the CSS class of pygments' code blocks
SKIPPED = "skipped"  # a tier none of whose tests ran


@dataclass
class Run:
    """One run folder as the report reads it."""

    path: Path
    kind: str  # "eval", "human", "aidanbench" or "ideas" (the manifest's kind)
    manifest: Manifest
    metrics: dict
    label: str = ""  # the model (disambiguated by folder name when two runs share it)
    page: str | None = None  # the drill-down page's file name (eval and ideas runs)
    samples: list[Sample] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    questions: list[QuestionResult] = field(default_factory=list)
    ideas: list[Idea] = field(default_factory=list)
    judgements: list[IdeaJudgement] = field(default_factory=list)
    grades: list[FluencyGrade] = field(default_factory=list)


def load_run(path: Path) -> Run:
    """Read a run folder written by ``neocoder eval`` (model or ``--model human``),
    ``neocoder aidanbench`` or ``neocoder ideas``: manifest, metrics and records.

    Raises NeocoderError naming the folder when it is missing, is not a run folder (no
    ``manifest.json``), is of another kind (a built dataset), or has no ``metrics.json``
    yet; RecordError (a NeocoderError) for a record of another format version.
    """
    path = Path(path)
    if not path.is_dir():
        raise NeocoderError(f"{path}: no such run folder")
    if not (path / RunFolder.MANIFEST).is_file():
        raise NeocoderError(f"{path}: not a run folder (no {RunFolder.MANIFEST}); the report reads folders "
                            "written by `neocoder eval`, `neocoder aidanbench` or `neocoder ideas`")
    folder = RunFolder(path, create=False)
    try:
        manifest = folder.read_manifest()
        if manifest.kind not in KINDS:
            raise NeocoderError(f"{path}: a {manifest.kind!r} run folder; the report covers "
                                f"{', '.join(KINDS)} runs")
        metrics = folder.read_metrics()
    except NeocoderError:
        raise
    except (ValueError, TypeError) as exc:  # a manifest or metrics file that is not JSON of the expected shape
        raise NeocoderError(f"{path}: not a readable run folder ({exc})") from exc
    run = Run(path, manifest.kind, manifest, metrics)
    if run.kind == "eval":
        run.samples = sorted(folder.read(Sample), key=lambda s: (s.state, s.problem_id, s.sample))
        run.label = metrics.get("model") or manifest.config.get("model", {}).get("spec", path.name)
    elif run.kind == "human":
        run.label = "human"
    elif run.kind == "ideas":
        records = folder.read()
        run.ideas = sorted((r for r in records if isinstance(r, Idea)),
                           key=lambda i: (i.model, i.keyword_index, i.idea_num))
        run.judgements = [r for r in records if isinstance(r, IdeaJudgement)]
        run.grades = [r for r in records if isinstance(r, FluencyGrade)]
        run.label = manifest.config.get("model", {}).get("spec", path.name)
    else:
        run.answers = sorted(folder.read(Answer), key=lambda a: (a.model, a.question_index, a.answer_num))
        run.questions = sorted(folder.read(QuestionResult), key=lambda q: (q.model, q.question_index))
        run.label = manifest.config.get("model", {}).get("spec", path.name)
    return run


def build_report(runs: list[Path], out: Path) -> Path:
    """Write the static HTML report of ``runs`` (run folders of any of the kinds ``eval``,
    ``human``, ``aidanbench``, ``ideas``) into folder ``out`` and return the path of its
    ``index.html``.

    NeoCoder model runs and ideas runs get a drill-down page each.  The humans' techniques (Table 2) are
    detected in the release's accepted solutions once and cached (``human_solution_sets``).
    Raises NeocoderError for a folder that is not a run folder of those kinds (naming it)
    or for an empty ``runs``.
    """
    if not runs:
        raise NeocoderError("no run folders given")
    loaded = [load_run(Path(p)) for p in runs]
    _disambiguate(loaded)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _write_static(out)
    for i, run in enumerate(loaded, 1):
        if run.kind in ("eval", "ideas"):
            run.page = f"run{i}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', run.path.resolve().name)}.html"

    neo = [r for r in loaded if r.kind in NEOCODER_KINDS]
    models = [r for r in neo if r.kind == "eval"]
    human_sets, human_note = _human_sets_for(models)
    body = [_runs_table(loaded)]
    if neo:
        body.append(_neocoder_section(neo, human_sets, human_note))
    aidan = [r for r in loaded if r.kind == "aidanbench"]
    if aidan:
        body.append(_aidan_section(aidan))
    ideas = [r for r in loaded if r.kind == "ideas"]
    if ideas:
        body.append(_ideas_section(ideas))
        for run in ideas:
            _write(out / run.page, _page(f"{run.label}: ideas", _ideas_drill_body(run)))
    states = _problem_states(models)
    # the largest cost: about 2 s for the 1,063 programs of the full replay run
    highlighted = highlight_codes({_code_key(s): s.code for r in models for s in r.samples if s.code})
    for run in models:
        _write(out / run.page, _page(f"{run.label}: samples", _drill_body(run, states[run.path], highlighted),
                                     script=True))
    index = out / "index.html"
    _write(index, _page("NeoCoder report", "\n".join(body)))
    return index


def _write_static(out: Path) -> None:
    """Copy the package's style sheet (with pygments' colours for ``CODE_CLASS`` appended)
    and filter script into ``out``."""
    from pygments.formatters import HtmlFormatter

    for name in STATIC_FILES:
        data = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
        if name.endswith(".css"):
            data += "\n/* code colours (pygments) */\n" + HtmlFormatter().get_style_defs(f".{CODE_CLASS}") + "\n"
        _write(out / name, data)


# ----------------------------------------------------------------------------------------
# what the pages show, computed from the records


def sample_verdict(sample: Sample) -> str:
    """The verdict of a sample: "no reply" on a model error, "INFRA" when the sandbox
    failed, else the first non-AC verdict of its example tests, "AC" when all are AC."""
    if sample.error or sample.examples is None:
        return "no reply"
    return tier_verdict(sample.examples)


def tier_verdict(tier: TierResult) -> str:
    """A test tier's verdict: "INFRA" when the sandbox failed on it, "skipped" when none of
    its tests ran (the extended tests after a failed example, ``pipeline.judge_sample``'s
    fail-fast rule), else its first non-AC test's verdict, "AC" when all are AC."""
    if tier.infra:
        return "INFRA"
    if not tier.tests and tier.skipped:
        return SKIPPED
    return next((v for v in tier.verdicts if v != "AC"), "AC")


def verdict_counts(samples: list[Sample]) -> dict[int, dict[str, int]]:
    """{state t: {verdict: number of samples}} with ``sample_verdict``."""
    counts: dict[int, Counter] = {}
    for s in samples:
        counts.setdefault(int(s.state), Counter())[sample_verdict(s)] += 1
    return {t: dict(c) for t, c in sorted(counts.items())}


def top_techniques(groups: list[list[set[str]]], k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` most used techniques and their share in [0, 1]: per group (a problem), the
    share of its technique sets that use the technique, averaged over the groups; ties
    by name.  Empty groups are left out; no group gives []."""
    groups = [g for g in groups if g]
    shares: Counter = Counter()
    for sets in groups:
        for name, n in Counter(t for s in sets for t in s).items():
            shares[name] += n / len(sets) / len(groups)
    return sorted(shares.items(), key=lambda item: (-item[1], item[0]))[:k]


def technique_table(samples: list[Sample], human: dict[str, list[set[str]]] | None, k: int = 5) -> dict[int, dict]:
    """NeoCoder Table 2 for one model run: per state t, ``{"model": top-k of its samples,
    "human": top-k of the human solutions that follow the state's constraints (None
    without human sets), "problems": problems with such a solution}``.

    Excluded samples (model error, INFRA) are left out.  A model has one group per sample
    (so its share is the share of samples); humans one group per problem.
    """
    by_state: dict[int, list[Sample]] = {}
    for s in samples:
        if not s.excluded:
            by_state.setdefault(int(s.state), []).append(s)
    table = {}
    for t, rows in sorted(by_state.items()):
        entry = {"model": top_techniques([[set(s.techniques)] for s in rows], k), "human": None, "problems": 0}
        if human is not None:
            constraints = {s.problem_id: set(s.constraints) for s in rows}
            groups = [[sol for sol in human.get(pid, []) if not sol & forbidden]
                      for pid, forbidden in constraints.items()]
            entry["human"] = top_techniques(groups, k)
            entry["problems"] = sum(1 for g in groups if g)
        table[t] = entry
    return table


def human_solution_sets(release_dir: Path, problem_ids) -> dict[str, list[set[str]]]:
    """Technique set of every accepted human solution (Python and C/C++), per problem:
    ``techniques.human.human_solution_techniques``, cached.

    Detecting the 5,910 solutions of the 199 problems takes about a minute on 2 cores,
    so the sets are kept in ``$XDG_CACHE_HOME/neocoder`` (default ``~/.cache/neocoder``) in
    a file named after the SHA-256 of the release's ``human_solutions.json`` and of the
    detector's sources (a changed release or detector gets a new file); problems missing
    from it are detected and added.  A cache that cannot be written is skipped.  Raises
    DatasetError (a NeocoderError) for a malformed or missing solutions file.
    """
    from ..dataset.release import HUMAN_FILE
    from ..techniques.human import human_solution_techniques

    wanted = sorted(set(problem_ids))
    source = Path(release_dir) / HUMAN_FILE
    digest = hashlib.sha256(source.read_bytes() if source.is_file() else b"")
    digest.update(_detector_fingerprint())
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "neocoder" / \
        f"human-techniques-{digest.hexdigest()[:24]}.json"
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    missing = [p for p in wanted if p not in known]
    if missing:
        fresh = human_solution_techniques(Path(release_dir), missing)
        known.update({pid: [sorted(s) for s in sets] for pid, sets in fresh.items()})
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(known), encoding="utf-8")
            tmp.replace(cache)
        except OSError:
            pass
    return {pid: [set(s) for s in known[pid]] for pid in wanted if pid in known}


def _detector_fingerprint() -> bytes:
    """SHA-256 over the technique detector's shipped sources (modules and queries)."""
    digest = hashlib.sha256()
    pending = [resources.files("neocoder.techniques")]
    while pending:
        node = pending.pop()
        for entry in sorted(node.iterdir(), key=lambda e: e.name):
            if entry.is_dir():
                pending.append(entry)
            elif entry.name.endswith((".py", ".scm")):
                digest.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return digest.digest()


def _human_sets_for(models: list[Run]) -> tuple[dict | None, str]:
    """The human solution sets for every problem of the model runs (from the release the
    first model run's manifest names), and a note for the page (how they were found, or
    why they are missing)."""
    if not models:
        return None, ""
    release = models[0].manifest.config.get("release_dir")
    problems = {s.problem_id for r in models for s in r.samples}
    if not release:
        return None, "humans' techniques unavailable: the run's manifest names no release folder"
    started = time.monotonic()
    try:
        sets = human_solution_sets(Path(release), problems)
    except NeocoderError as exc:
        return None, f"humans' techniques unavailable: {exc}"
    return sets, (f"humans: {sum(len(v) for v in sets.values())} accepted solutions of {len(sets)} problems "
                  f"from {release} ({time.monotonic() - started:.1f}s, cached)")


def _problem_states(models: list[Run]) -> dict[Path, dict | str]:
    """Per model run, its problem states by (problem_id, state) (``api.run_states``), or
    the message of why they cannot be read.  Runs naming the same dataset and release
    share one read (the states depend only on those two manifest fields)."""
    from ..api import run_states

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


def display_name(model: str) -> str:
    """A model name as the pages show it: a replayed file or folder by its base name
    (``replay//long/path/answers.jsonl#m`` -> ``replay/answers.jsonl#m``); others as they are."""
    if model.startswith("replay/") and "/" in model[len("replay/"):]:
        path, sep, variant = model[len("replay/"):].partition("#")
        return f"replay/{Path(path).name}{sep}{variant}"
    return model


def _disambiguate(runs: list[Run]) -> None:
    """Labels shown for the runs: NeoCoder runs sharing a model (and AidanBench runs sharing
    one) get their folder's name added."""
    for r in runs:
        r.label = display_name(r.label)
    def group(kind: str) -> str:  # NeoCoder model runs and human baselines are one group
        return "neocoder" if kind in NEOCODER_KINDS else kind
    seen = Counter((group(r.kind), r.label) for r in runs)
    for r in runs:
        if seen[(group(r.kind), r.label)] > 1:
            r.label = f"{r.label} ({r.path.resolve().name})"


# ----------------------------------------------------------------------------------------
# HTML pieces


def _page(title: str, body: str, script: bool = False) -> str:
    tail = '<script src="filter.js"></script>\n' if script else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{escape(title)}</title>\n'
            f'<link rel="stylesheet" href="report.css">\n</head>\n<body>\n{body}\n{tail}</body>\n</html>\n')


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _pct(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _rate_cell(state: dict, key: str) -> str:
    """A rate as a percentage with its interval (when metrics.json has one)."""
    value = state.get(key)
    iv = (state.get("intervals") or {}).get(key)
    ci = "" if value is None or not iv else (
        f' <span class="ci" title="95% bootstrap interval; standard error {100 * iv["se"]:.1f} points">'
        f'[{100 * iv["low"]:.1f}, {100 * iv["high"]:.1f}]</span>')
    return f'<td class="num">{_pct(value)}{ci}</td>'


def _number_cell(state: dict, key: str) -> str:
    """An entropy (nats) or a correlation, with its interval where metrics.json has one."""
    value = state.get(key)
    iv = (state.get("intervals") or {}).get(key)
    ci = "" if value is None or not iv else f' <span class="ci">[{iv["low"]:.3f}, {iv["high"]:.3f}]</span>'
    return f'<td class="num">{"—" if value is None else f"{value:.3f}"}{ci}</td>'


def _metrics_table(run: Run) -> str:
    states = run.metrics.get("states", {})
    keys = [(k, name) for k, name in RATES if any(m.get(k) is not None for m in states.values())]
    numbers = [(k, name) for k, name in ENTROPIES if any(m.get(k) is not None for m in states.values())]
    costs = any(m.get("cost") for m in states.values())
    head = "".join(f'<th class="num">{escape(name)}</th>' for _, name in keys)
    second = "".join(f'<th class="num">{escape(name)}</th>' for _, name in numbers)
    second += '<th class="num">calls / sample</th><th class="num">tokens / sample</th>' if costs else ""
    rows, rows2 = [], []
    for t in sorted(states, key=int):
        m = states[t]
        cells = "".join(_rate_cell(m, k) for k, _ in keys)
        cells2 = "".join(_number_cell(m, k) for k, _ in numbers)
        if costs:
            c = m.get("cost") or {}
            cells2 += (f'<td class="num">{c.get("calls", 0):.1f}</td>'
                       f'<td class="num">{c.get("tokens", 0):,.0f}</td>')
        rows.append(f'<tr><td>{escape(str(t))}</td><td class="num">{m.get("n", "")}</td>'
                    f'<td class="num">{m.get("excluded", 0)}</td>{cells}</tr>')
        rows2.append(f'<tr><td>{escape(str(t))}</td>{cells2}</tr>')
    strategy = run.metrics.get("strategy")
    note = "" if not strategy else f'<p class="note">strategy: <code>{escape(strategy)}</code> (docs/strategies.md)'
    if numbers:
        note += ("" if note else '<p class="note">') + (
            "; entropies in nats over each problem's samples: behaviour classes (the same output or verdict on "
            "every test), RB from log-probabilities, technique sets; r: Pearson across problems (docs/metrics.md)")
    table2 = "" if not second else (f'<table class="metrics"><thead><tr><th>state</th>{second}</tr></thead>'
                                    f'<tbody>{"".join(rows2)}</tbody></table>')
    return (f'<table class="metrics"><thead><tr><th>state</th><th class="num">n</th>'
            f'<th class="num">excluded</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'{note + "</p>" if note else ""}{table2}')


def _bootstrap_note(runs: list[Run]) -> str:
    notes = []
    for r in runs:
        b = r.metrics.get("bootstrap")
        if b:
            notes.append(f"{escape(r.label)}: {100 * b.get('level', 0.95):.0f}% bootstrap intervals, "
                         f"{b.get('resamples')} resamples of {escape(str(b.get('unit')))}s, seed {b.get('seed')}")
    if not notes:
        return '<p class="note">No intervals: these runs were scored before bootstrap intervals were added.</p>'
    return '<p class="note">Brackets and bands: ' + "; ".join(notes) + ".</p>"


def _runs_table(runs: list[Run]) -> str:
    rows = []
    for r in runs:
        if r.kind == "eval":
            size = f"{len(r.samples)} samples"
        elif r.kind == "human":
            size = f"{sum(m.get('n', 0) for m in r.metrics.get('states', {}).values())} solution-states"
        elif r.kind == "ideas":
            size = f"{len(r.ideas)} ideas, {len(r.judgements)} judgements, {len(r.grades)} fluency grades"
        else:
            size = f"{len(r.questions)} question results, {len(r.answers)} answers"
        link = f'<a href="{escape(r.page)}">{"ideas" if r.kind == "ideas" else "samples"}</a>' if r.page else ""
        rows.append(f"<tr><td>{escape(r.label)}</td><td>{escape(r.kind)}</td><td><code>{escape(str(r.path.resolve()))}"
                    f"</code></td><td>{escape(r.manifest.started)}</td><td>{escape(size)}</td><td>{link}</td></tr>")
    return ('<h1>NeoCoder report</h1>\n<p class="note">Static report built by <code>neocoder report</code>; '
            'figures are SVG, everything works offline. See docs/report.md for what each part shows.</p>\n'
            '<h2 id="runs">Runs</h2>\n<table><thead><tr><th>run</th><th>kind</th><th>folder</th><th>started (UTC)'
            f'</th><th>size</th><th>drill-down</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{caption}</figcaption></figure>"


def _neocoder_section(neo: list[Run], human_sets, human_note: str) -> str:
    colors = plots.palette([r.label for r in neo])
    series = [(r.label, r.metrics.get("states", {})) for r in neo]
    models = [r for r in neo if r.kind == "eval"]
    parts = ['<h2 id="neocoder">NeoCoder</h2>', _bootstrap_note(neo)]
    parts.append(_figure(plots.neogauge_svg(series, colors),
                         "NeoGauge@t and cumulative NeoGauge per state (NeoCoder Fig. 4); bands: intervals."))
    parts.append(_figure(plots.creativity_svg(series, colors),
                         "Convergent and divergent creativity per state, models against the humans (NeoCoder "
                         "Fig. 6 and Fig. 8); humans: Eq. 5 and Eq. 6 over the accepted solutions."))
    parts.append("<h3>Metrics per state</h3>")
    for r in neo:
        parts.append(f"<h4>{escape(r.label)}</h4>{_metrics_table(r)}")
    if models:
        parts.append('<h3 id="techniques">Top-5 techniques per state against the humans\' (NeoCoder Table 2)</h3>')
        parts.append(f'<p class="note">Model: share of its samples at state t using the technique. Humans: the '
                     f'accepted solutions of the same problems that follow state t\'s constraints, share averaged '
                     f'over problems; techniques in bold are not among the humans\' top 5. {escape(human_note)}</p>')
        for r in models:
            parts.append(f"<h4>{escape(r.label)}</h4>{_technique_table_html(technique_table(r.samples, human_sets))}")
        counts = [(r.label, verdict_counts(r.samples)) for r in models]
        parts.append('<h3 id="verdicts">Verdicts per state</h3>')
        parts.append(_figure(plots.verdicts_svg(counts), "A sample's verdict is its first example test that is "
                             "not AC (AC when all are); INFRA: the sandbox failed; no reply: a model error."))
        parts.append(_verdict_table(counts))
        parts.append('<h3 id="pass">pass@1 and pass@1 with the extended tests</h3>')
        has_plus = any(m.get("pass@1_plus") is not None for r in models for m in r.metrics.get("states", {}).values())
        note = "" if has_plus else (" None of these runs has extended tests (evaluate with a dataset built by the "
                                    "oracle, <code>eval --dataset</code>, to get pass@1+ext).")
        parts.append(_figure(plots.pass_svg([(r.label, r.metrics.get("states", {})) for r in models], colors),
                             "pass@1 on the example tests and, dashed, on examples and extended tests." + note))
    return "\n".join(parts)


def _technique_badges(top: list[tuple[str, float]] | None, other: list | None = None) -> str:
    if top is None:
        return '<span class="note">unavailable</span>'
    if not top:
        return '<span class="note">none</span>'
    names = {n for n, _ in other} if other is not None else None
    out = []
    for name, share in top:
        text = f"{escape(name)} {100 * share:.0f}%" if share >= 0.005 else f"{escape(name)} &lt;1%"
        bold = names is not None and name not in names
        out.append(f'<span class="badge">{f"<b>{text}</b>" if bold else text}</span>')
    return "".join(out)


def _technique_table_html(table: dict[int, dict]) -> str:
    rows = "".join(f"<tr><td>{t}</td><td>{_technique_badges(e['model'], e['human'])}</td>"
                   f"<td>{_technique_badges(e['human'])}</td><td class=\"num\">{e['problems']}</td></tr>"
                   for t, e in table.items())
    return ('<table><thead><tr><th>state</th><th>model top 5</th><th>humans top 5 (following the constraints)</th>'
            f'<th class="num">problems with such a human solution</th></tr></thead><tbody>{rows}</tbody></table>')


def _verdict_table(counts: list[tuple[str, dict[int, dict[str, int]]]]) -> str:
    verdicts = [v for v in plots.VERDICT_COLORS if any(v in c for _, per in counts for c in per.values())]
    head = "".join(f'<th class="num">{escape(v)}</th>' for v in verdicts)
    rows = []
    for label, per in counts:
        for t, c in per.items():
            cells = "".join(f'<td class="num">{c.get(v, 0)}</td>' for v in verdicts)
            rows.append(f"<tr><td>{escape(label)}</td><td>{t}</td>{cells}</tr>")
    return f'<table><thead><tr><th>run</th><th>state</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


# ----------------------------------------------------------------------------------------
# AidanBench


def _aidan_section(runs: list[Run]) -> str:
    """Runs over the same question list are drawn together; each such group gets its
    totals, answers per question, per-answer curves and a per-question table."""
    groups: dict[tuple, list[Run]] = {}
    for r in runs:
        texts = {q.question_index: q.question for q in r.questions}
        texts.update({a.question_index: a.question for a in r.answers})
        groups.setdefault(tuple(texts[i] for i in sorted(texts)), []).append(r)
    parts = ['<h2 id="aidanbench">AidanBench</h2>', _bootstrap_note(runs)]
    for questions, members in groups.items():
        parts.append(_aidan_group(list(questions), members))
    return "\n".join(parts)


def _aidan_group(questions: list[str], runs: list[Run]) -> str:
    names = {}  # (run path, model) -> shown name
    for r in runs:
        for model in r.metrics.get("models", {}):
            names[(r.path, model)] = display_name(model)
    counts = Counter(names.values())
    for (path, model), shown in names.items():
        if counts[shown] > 1:
            names[(path, model)] = f"{shown} ({path.resolve().name})"
    totals = {names[(r.path, m)]: t for r in runs for m, t in r.metrics.get("models", {}).items()}
    per_q: dict[str, dict[int, QuestionResult]] = {shown: {} for shown in totals}
    curves: dict[str, dict[int, list]] = {shown: {} for shown in totals}
    for r in runs:
        for q in r.questions:
            if (r.path, q.model) in names:
                per_q[names[(r.path, q.model)]][q.question_index] = q
        for a in r.answers:
            if (r.path, a.model) in names:
                curves[names[(r.path, a.model)]].setdefault(a.question_index, []).append(
                    (a.answer_num, a.novelty, a.coherence, a.stop))
    colors = plots.palette(list(totals))
    config = runs[0].manifest.config
    parts = [f"<h3>{len(questions)} questions: {escape(', '.join(totals))}</h3>", _aidan_totals(totals)]
    parts.append(_figure(plots.aidan_totals_svg(totals, colors), "Totals per model with their intervals "
                                                                 "(bootstrap over questions) where present."))
    parts.append(_figure(plots.aidan_answers_svg(questions, {m: {i: q.answers for i, q in per.items()}
                                                             for m, per in per_q.items()}, colors),
                         "Answers before the stop, per question."))
    scale = config.get("coherence_scale") or 100
    stop = config.get("coherence_stop")
    if stop is None:
        stop = COHERENCE_STOP_10 if scale == 10 else COHERENCE_STOP
    curves = {m: {i: [(n, nov, None if c is None else c * 100 / scale, st) for n, nov, c, st in pts]
                  for i, pts in per.items()} for m, per in curves.items()}
    parts.append(_figure(plots.aidan_curves_svg(questions, curves, colors, config.get("novelty_stop"),
                                                stop * 100 / scale),
                         f"Novelty (solid) and coherence / {scale} (dashed) against the answer number, per question "
                         "(AidanBench Fig. 3 style); x: the answer that stopped the question; dotted: the stop "
                         "thresholds."))
    parts.append(_aidan_question_table(questions, per_q))
    return "\n".join(parts)


def _aidan_totals(totals: dict[str, dict]) -> str:
    rows = []
    for model, t in totals.items():
        ivs = t.get("intervals") or {}
        cells = []
        for key, fmt in (("answers", "{:.0f}"), ("novelty_sum", "{:.2f}"), ("gated_novelty", "{:.2f}"),
                         ("mmr", "{:.2f}"), ("semantic_entropy", "{:.3f}")):
            if key not in t and key not in ("answers", "novelty_sum"):
                cells.append('<td class="num">—</td>')
                continue
            iv = ivs.get(key)
            ci = f' <span class="ci">[{fmt.format(iv["low"])}, {fmt.format(iv["high"])}]</span>' if iv else ""
            cells.append(f'<td class="num">{fmt.format(t.get(key, 0))}{ci}</td>')
        stops = ", ".join(f"{escape(k)}: {v}" for k, v in (t.get("stop_reasons") or {}).items())
        rows.append(f'<tr><td>{escape(model)}</td><td class="num">{t.get("questions", "")}</td>{"".join(cells)}'
                    f'<td>{stops}</td><td class="num">{t.get("errors", 0)}</td></tr>')
    return ('<table><thead><tr><th>model</th><th class="num">questions</th><th class="num">answers</th>'
            '<th class="num">novelty sum</th><th class="num">gated novelty</th><th class="num">MMR_AB</th>'
            '<th class="num">semantic entropy</th><th>stop reasons</th><th class="num">errors</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _aidan_question_table(questions: list[str], per_q: dict[str, dict[int, QuestionResult]]) -> str:
    head = "".join(f'<th colspan="3">{escape(m)}</th>' for m in per_q)
    sub = '<th class="num">answers</th><th class="num">novelty sum</th><th>stop</th>' * len(per_q)
    rows = []
    for i, text in enumerate(questions):
        cells = []
        for per in per_q.values():
            q = per.get(i)
            cells.append('<td></td><td></td><td></td>' if q is None else
                         f'<td class="num">{q.answers}</td><td class="num">{q.novelty_sum:.3f}</td>'
                         f'<td>{escape(q.stop_reason)}</td>')
        rows.append(f"<tr><td>{i + 1}</td><td>{escape(text)}</td>{''.join(cells)}</tr>")
    return (f'<table class="questions"><thead><tr><th rowspan="2">#</th><th rowspan="2">question</th>{head}</tr>'
            f'<tr>{sub}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


# ----------------------------------------------------------------------------------------
# LiveIdeaBench (neocoder ideas)

IDEA_SCORES = (("originality", "originality"), ("feasibility", "feasibility"), ("clarity", "clarity"),
               ("fluency", "fluency"), ("flexibility", "flexibility"))


def _score_cell(value, iv: dict | None = None) -> str:
    """A 1-10 score with its 95% interval (when given)."""
    if value is None:
        return '<td class="num">—</td>'
    ci = (f' <span class="ci" title="95% bootstrap interval over keywords; standard error {iv["se"]:.2f}">'
          f'[{iv["low"]:.2f}, {iv["high"]:.2f}]</span>') if iv else ""
    return f'<td class="num">{value:.2f}{ci}</td>'


def _ideas_models(runs: list[Run]) -> dict[str, dict]:
    """{shown name: the model's summary} over the runs (a replayed source of several models
    gives several), names disambiguated by folder when two runs share one."""
    names = {(r.path, m): display_name(m) for r in runs for m in r.metrics.get("models", {})}
    counts = Counter(names.values())
    return {(f"{shown} ({path.resolve().name})" if counts[shown] > 1 else shown): run.metrics["models"][m]
            for run in runs for (path, m), shown in names.items() if path == run.path}


def _ideas_section(runs: list[Run]) -> str:
    """Totals with intervals, the run beside the published leaderboard (table and bars),
    scores per discipline and per keyword."""
    from ..ideas.sources import LEADERBOARD_FILE, liveideabench_dir, load_leaderboard
    from .ideas import LEADERBOARD_COLUMNS, comparison_rows, leaderboard_svg

    models = _ideas_models(runs)
    parts = ['<h2 id="ideas">LiveIdeaBench</h2>', _bootstrap_note(runs),
             '<p class="note">Ideas from one keyword each, scored 1-10 by judges drawn from the panel (never the '
             'idea model): originality, feasibility, clarity (the mean over an idea\'s judges, then over ideas); '
             'fluency: one judge\'s grade per keyword of how different its ideas are (A 10, B 7, C 4, D 1); '
             'flexibility: the 30th percentile over keywords of the keyword\'s average of the four scores. '
             'See docs/ideas.md.</p>']
    rows = []
    for name, s in models.items():
        ivs = s.get("intervals") or {}
        cells = "".join(_score_cell(s.get(k), ivs.get(k)) for k, _ in IDEA_SCORES)
        rows.append(f'<tr><td>{escape(name)}</td><td class="num">{s.get("keywords", 0)}</td>'
                    f'<td class="num">{s.get("ideas", 0)}</td><td class="num">{s.get("kept", 0)}</td>'
                    f'<td class="num">{s.get("too_long", 0)}</td><td class="num">{s.get("refused", 0)} '
                    f'<span class="ci">({s.get("fallback_asked", 0)} asked again)</span></td>'
                    f'<td class="num">{s.get("errors", 0)}</td><td class="num">{s.get("judge_errors", 0)}</td>'
                    f'{cells}</tr>')
    head = "".join(f'<th class="num">{escape(label)}</th>' for _, label in IDEA_SCORES)
    parts.append('<table class="metrics"><thead><tr><th>model</th><th class="num">keywords</th><th class="num">ideas'
                 '</th><th class="num">judged</th><th class="num">over the word limit</th><th class="num">refused</th>'
                 '<th class="num">model errors</th><th class="num">judge errors</th>'
                 f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')

    parts.append('<h3 id="ideas-leaderboard">Beside the published leaderboard</h3>')
    try:
        leaderboard = load_leaderboard()
    except NeocoderError as exc:
        parts.append(f'<p class="note">The published leaderboard is unavailable: {escape(str(exc))}</p>')
        leaderboard = None
    if leaderboard is not None:
        merged = comparison_rows(models, leaderboard)
        colors = plots.palette(list(models))
        parts.append(f'<p class="note">LiveIdeaBench\'s December 2024 leaderboard '
                     f'(<code>{escape(str(liveideabench_dir() / LEADERBOARD_FILE))}</code>, read when this report '
                     'was built; published figures, not re-measured) with this report\'s models in bold, placed by '
                     'Average. That leaderboard has no clarity column: its Flexibility is the 30th percentile over '
                     'keywords of the average of originality, feasibility and fluency, and its Average the mean of '
                     'its four columns; the runs\' rows use the same definitions, with their own judge panel and '
                     'keywords, so they are comparable in method, not in judges.</p>')
        parts.append(_figure(leaderboard_svg(merged, colors), "Average per model, highest first; this report's "
                             "models marked * with their 95% interval over keywords."))
        body = []
        for r in merged:
            cells = "".join(_score_cell(r[c], r["intervals"].get(c) if r["run"] else None) for c in LEADERBOARD_COLUMNS)
            rank = "" if r["run"] else str(r["rank"])
            model = f"<b>{escape(r['model'])}</b>" if r["run"] else escape(r["model"])
            mark = ' class="run" style="background: #fff3d6"' if r["run"] else ""
            body.append(f'<tr{mark}><td class="num">{rank}</td><td>{model}</td>{cells}</tr>')
        head = "".join(f'<th class="num">{c}</th>' for c in LEADERBOARD_COLUMNS)
        parts.append(f'<table class="leaderboard"><thead><tr><th class="num">published rank</th><th>model</th>{head}'
                     f'</tr></thead><tbody>{"".join(body)}</tbody></table>')

    for name, s in models.items():
        categories = s.get("per_category") or {}
        if [c for c in categories if c != "-"]:
            parts.append(f"<h3>Per discipline: {escape(name)}</h3>")
            crow = "".join(f'<tr><td>{escape(c)}</td><td class="num">{v["keywords"]}</td>'
                           + "".join(_score_cell(v.get(k)) for k, _ in IDEA_SCORES) + "</tr>"
                           for c, v in categories.items())
            parts.append('<table><thead><tr><th>discipline</th><th class="num">keywords</th>'
                         + "".join(f'<th class="num">{escape(label)}</th>' for _, label in IDEA_SCORES)
                         + f"</tr></thead><tbody>{crow}</tbody></table>")
        keywords = s.get("per_keyword") or []
        krows = "".join(
            f'<tr><td>{escape(k["keyword"])}</td><td>{escape(k.get("category") or "")}</td>'
            f'<td class="num">{k["kept"]} / {k["ideas"]}</td>'
            + "".join(_score_cell(k.get(c)) for c in ("originality", "feasibility", "clarity"))
            + ('<td class="num">—</td>' if k.get("fluency") is None else
               f'<td class="num">{k["fluency"]:.0f} ({escape(k.get("grade") or "")})</td>')
            + _score_cell(k.get("average")) + "</tr>" for k in keywords)
        table = ('<table class="keywords"><thead><tr><th>keyword</th><th>discipline</th><th class="num">judged / '
                 'ideas</th><th class="num">originality</th><th class="num">feasibility</th><th class="num">clarity'
                 '</th><th class="num">fluency (grade)</th><th class="num">average of the four</th></tr></thead>'
                 f'<tbody>{krows}</tbody></table>')
        summary = f"Per keyword: {escape(name)} ({len(keywords)} keywords)"
        parts.append(f"<h3>{summary}</h3>{table}" if len(keywords) <= 40 else
                     f"<details><summary><b>{summary}</b></summary>{table}</details>")
    links = ", ".join(f'<a href="{escape(r.page)}">{escape(r.label)}</a>' for r in runs if r.page)
    parts.append(f'<p class="note">Every idea with its judges\' scores: {links}.</p>')
    return "\n".join(parts)


def _idea_badge(status: str) -> str:
    kind = {"ok": "AC", "too long": "TLE", "refused": "WA"}.get(status, "INFRA")
    return f'<span class="v v-{kind}">{escape(status)}</span>'


def _ideas_drill_body(run: Run) -> str:
    """Every idea of an ideas run, per model and keyword: status, words, text, each
    judge's scores (or error), and the keyword's fluency grade."""
    judged: dict[tuple, list[IdeaJudgement]] = {}
    for j in run.judgements:
        judged.setdefault((j.model, j.keyword_index, j.idea_num), []).append(j)
    grades = {(g.model, g.keyword_index): g for g in run.grades}
    limit = run.manifest.config.get("max_words")
    parts = ['<nav class="top"><a href="index.html">&larr; report</a></nav>',
             f"<h1>{escape(run.label)}: {len(run.ideas)} ideas</h1>",
             f'<p class="note">Run folder <code>{escape(str(run.path.resolve()))}</code>, started '
             f'{escape(run.manifest.started)}. Ideas over {limit} words are left out; a refusal was asked again with '
             'the fallback prompt. Scores 1-10 per judge; an unreadable reply is an error, never a score.</p>']
    by_keyword: dict[tuple, list[Idea]] = {}
    for idea in run.ideas:
        by_keyword.setdefault((idea.model, idea.keyword_index), []).append(idea)
    for (model, index), ideas in by_keyword.items():
        first = ideas[0]
        g = grades.get((model, index))
        fluency = "not graded (fewer than 2 judged ideas)" if g is None else (
            f"error ({escape(g.error or '')})" if g.grade is None else
            f"{escape(g.grade)} = {g.score:.0f} by {escape(g.judge)}")
        who = " · " + escape(display_name(model)) if len({i.model for i in run.ideas}) > 1 else ""
        parts.append(f'<section class="keyword"><h3>{escape(first.keyword)} '
                     f'<span class="note">{escape(first.category)}{who}</span></h3>'
                     f'<p class="note">fluency: {fluency}</p>')
        for idea in ideas:
            rows = []
            for j in sorted(judged.get((model, index, idea.idea_num), []), key=lambda j: j.judge):
                if j.scores:
                    cells = "".join(f'<td class="num">{j.scores[c]:.0f}</td>'
                                    for c in ("originality", "feasibility", "clarity"))
                else:
                    cells = f'<td colspan="3" class="note">error: {escape(j.error or "")}</td>'
                rows.append(f"<tr><td>{escape(j.judge)}</td>{cells}</tr>")
            table = ('<table><thead><tr><th>judge</th><th class="num">originality</th><th class="num">feasibility'
                     f'</th><th class="num">clarity</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
                     if rows else "")
            text = idea.idea or idea.reply or idea.error or ""
            extra = ""
            if idea.fallback:
                extra = (f'<details><summary class="note">first reply (a refusal)</summary><pre>'
                         f'{escape(idea.refused_reply or "")}</pre></details>')
            parts.append(f'<div class="idea"><p>idea {idea.idea_num} {_idea_badge(idea.status)} '
                         f'<span class="note">{idea.words} words</span></p><blockquote>{escape(text)}</blockquote>'
                         f'{extra}{table}</div>')
        parts.append("</section>")
    return "\n".join(parts)


# ----------------------------------------------------------------------------------------
# the drill-down page of a model run


def highlight_codes(codes: dict[str, str]) -> dict[str, str]:
    """{key: Python source} -> {key: pygments HTML} (a ``div`` of class ``CODE_CLASS``)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    lexer, formatter = PythonLexer(), HtmlFormatter(cssclass=CODE_CLASS)
    return {key: highlight(code, lexer, formatter) for key, code in codes.items()}


def _code_key(s: Sample) -> str:
    return s.code_sha256 or hashlib.sha256((s.code or "").encode()).hexdigest()


def _drill_body(run: Run, states: dict | str, highlighted: dict[str, str]) -> str:
    verdicts = {id(s): sample_verdict(s) for s in run.samples}
    several = any(s.sample for s in run.samples)
    rows, sections = [], []
    for s in run.samples:
        anchor = _anchor(s)
        verdict = verdicts[id(s)]
        rows.append(_sample_row(s, verdict, anchor, several))
        code_html = highlighted.get(_code_key(s), '<p class="note">no code</p>') if s.code else \
            '<p class="note">no code</p>'
        problem = states.get((s.problem_id, int(s.state))) if isinstance(states, dict) else None
        sections.append(_sample_section(s, verdict, problem, code_html, anchor))
    present_states = sorted({s.state for s in run.samples})
    present_verdicts = [v for v in plots.VERDICT_COLORS if v in verdicts.values()]
    missing = "" if isinstance(states, dict) else (
        f'<p class="note">Statements and test inputs unavailable: {escape(states)}</p>')
    return "\n".join([
        '<nav class="top"><a href="index.html">&larr; report</a></nav>',
        f"<h1>{escape(run.label)}: {len(run.samples)} samples</h1>",
        f'<p class="note">Run folder <code>{escape(str(run.path.resolve()))}</code>, started '
        f'{escape(run.manifest.started)}. Click a problem to open the sample.</p>',
        _metrics_table(run), missing,
        f'<form id="filters" hidden><label>state <select id="f-state">{_options(present_states)}</select></label>'
        f'<label>verdict <select id="f-verdict">{_options(present_verdicts)}</select></label>'
        f'<span id="shown"></span></form>',
        '<table id="samples"><thead><tr><th>problem</th><th>state</th>'
        + ('<th>sample</th>' if several else "")
        + '<th>verdict</th><th>+ext</th><th>follows</th><th>divergent</th><th>techniques '
          '(<span class="badge violated">violated</span> <span class="badge new">no human used</span>)</th>'
          f'</tr></thead><tbody>\n{chr(10).join(rows)}\n</tbody></table>',
        '<div id="details">', *sections, "</div>",
    ])


def _sample_row(s: Sample, verdict: str, anchor: str, several: bool) -> str:
    """A drill-down table row; ``data-state`` and ``data-verdict`` are what filter.js reads."""
    cells = [f'<a href="#{anchor}">{escape(s.problem_id)}</a>', str(s.state)]
    cells += [str(s.sample)] if several else []
    cells += [_verdict_badge(verdict), "" if s.plus is None else _verdict_badge(tier_verdict(s.plus)),
              "yes" if s.follows else "no", "—" if s.divergent is None else f"{s.divergent:.2f}",
              _sample_techniques(s)]
    return (f'<tr data-state="{s.state}" data-verdict="{escape(verdict)}">'
            + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")


def _options(values) -> str:
    return '<option value="">all</option>' + "".join(
        f'<option value="{escape(str(v))}">{escape(str(v))}</option>' for v in values)


def _anchor(s: Sample) -> str:
    return "s-" + re.sub(r"[^A-Za-z0-9_-]+", "_", f"{s.problem_id}-{s.state}-{s.sample}")


def _verdict_badge(verdict: str) -> str:
    return f'<span class="v v-{escape(verdict.replace(" ", "-"))}">{escape(verdict)}</span>'


def _sample_techniques(s: Sample) -> str:
    violated, new = set(s.violated_constraints), set(s.new_techniques or ())
    return "".join(f'<span class="badge{" violated" if t in violated else ""}{" new" if t in new else ""}">'
                   f"{escape(t)}</span>" for t in s.techniques) or '<span class="note">none</span>'


def _head(text: str | None) -> str:
    """The first lines of a test's text, each cut to a width, with what was left out."""
    if text is None:
        return ""
    if not text:
        return "(empty)"
    lines = text.splitlines()
    shown = [line if len(line) <= HEAD_WIDTH else line[:HEAD_WIDTH] + " …" for line in lines[:HEAD_LINES]]
    more = f"\n… ({len(lines)} lines in all)" if len(lines) > HEAD_LINES else ""
    return "\n".join(shown) + more


def _tests_table(tier, tests: list[dict] | None, limit: int | None = None) -> str:
    results = tier.tests
    if not results and tier.skipped:  # fail fast: the whole tier was left out after a failed example
        return (f'<p class="note">not run: {tier.skipped} tests skipped, since an example test failed first '
                '(<code>eval --judge-all-tests</code> runs them)</p>')
    shown = results if limit is None else results[:limit]
    rows = []
    for j, result in enumerate(shown):
        case = tests[j] if tests is not None and j < len(tests) else {}
        cost = "" if result.get("cpu_seconds") is None else f'{result["cpu_seconds"]:.2f}s CPU'
        detail = " ".join(x for x in (cost, result.get("detail") or "") if x)
        rows.append(f'<tr><td class="num">{j + 1}</td><td>{_verdict_badge(result.get("verdict", "?"))}</td>'
                    f'<td><pre>{escape(_head(case.get("input")))}</pre></td>'
                    f'<td><pre>{escape(_head(case.get("output")))}</pre></td>'
                    f'<td><pre>{escape(_head(result.get("stdout_head")))}</pre></td>'
                    f'<td class="note">{escape(detail)}</td></tr>')
    more = "" if len(shown) == len(results) else f'<p class="note">first {len(shown)} of {len(results)} tests</p>'
    return ('<table class="tests"><thead><tr><th>#</th><th>verdict</th><th>input</th><th>expected</th>'
            f'<th>produced</th><th>detail</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{more}')


def _sample_section(s: Sample, verdict: str, problem, code_html: str, anchor: str) -> str:
    violated, unchecked = set(s.violated_constraints), set(s.unchecked_constraints)
    constraints = "".join(
        f'<span class="badge{" violated" if c in violated else " unchecked" if c in unchecked else ""}">'
        f'{escape(c)}{" (violated)" if c in violated else " (unchecked)" if c in unchecked else ""}</span>'
        for c in s.constraints) or '<span class="note">none (state 0)</span>'
    new = "".join(f'<span class="badge new">{escape(t)}</span>' for t in s.new_techniques or ()) or \
        '<span class="note">none</span>'
    humans = '<span class="note">unknown</span>' if s.human_techniques is None else \
        "".join(f'<span class="badge">{escape(t)}</span>' for t in s.human_techniques)
    parts = [f'<section class="sample" id="{anchor}">',
             f'<h3>{escape(s.problem_id)}, state {s.state}, sample {s.sample}: {_verdict_badge(verdict)} '
             f'<a class="note" href="#samples">back to the table</a></h3>',
             f"<p>constraints: {constraints}</p>",
             f"<p>techniques found: {_sample_techniques(s)}</p>",
             f"<p>new techniques no human used: {new} (divergent "
             f'{"—" if s.divergent is None else f"{s.divergent:.2f}"})</p>',
             f"<p>humans' techniques H(p): {humans}</p>"]
    if s.error:
        parts.append(f'<p class="note">model error: {escape(s.error)}</p>')
    if problem is not None:
        parts.append(f'<details open><summary>statement (as the model saw it)</summary>'
                     f'<pre class="statement">{escape(problem.statement)}</pre></details>')
    parts.append(f"<h4>code ({escape(s.entry or 'not run')})</h4>{code_html}")
    if s.compile_error:
        parts.append(f'<p class="note">compile error: {escape(s.compile_error)}</p>')
    if s.examples is not None:
        parts.append("<h4>example tests</h4>" + _tests_table(s.examples, problem.tests if problem else None))
    if s.plus is not None:
        parts.append("<h4>extended tests</h4>"
                     + _tests_table(s.plus, problem.extended_tests if problem else None, PLUS_SHOWN))
    if s.attempts:
        parts.append(_attempts_html(s))
    parts.append("</section>")
    return "\n".join(parts)


def _attempts_html(s: Sample) -> str:
    """A strategy's attempts (plans, earlier programs with their feedback, candidates,
    rollouts), folded, with the sample's spend."""
    cost = s.cost or {}
    rows = []
    for a in s.attempts:
        if a.get("kind") == "tree":
            continue
        what = a.get("kind", "")
        label = {"attempt": f"attempt {a.get('round', 0) + 1}", "candidate": f"candidate {a.get('index', 0) + 1}",
                 "rollout": f"rollout {a.get('index', 0) + 1}"}.get(what, what)
        verdicts = " ".join(a.get("verdicts") or [])
        score = "" if a.get("reward") is None else f"reward {a['reward']:.2f}"
        if a.get("product") is not None:
            score += f"; convergent x divergent {a['product']:.2f}"
        chosen = " (kept)" if a.get("chosen") else ""
        text = a.get("feedback") or a.get("reply") or a.get("continuation") or ""
        rows.append(f"<tr><td>{escape(label)}{chosen}</td><td>{escape(verdicts)}</td><td>{escape(score)}</td>"
                    f'<td><pre class="statement">{escape(_head(text) if text else "")}</pre></td></tr>')
    return (f'<details><summary>strategy <code>{escape(s.strategy)}</code>: {len(rows)} steps, '
            f'{cost.get("calls", 1)} model calls, {cost.get("prompt_tokens", 0) + cost.get("completion_tokens", 0):,} '
            f'tokens, {cost.get("seconds", 0):.1f} s</summary><table><thead><tr><th>step</th><th>example verdicts'
            f'</th><th>score</th><th>feedback, plan or reply</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            '</details>')
