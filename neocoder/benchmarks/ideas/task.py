"""LiveIdeaBench as a task: research ideas per keyword, judged by a panel (neocoder/benchmarks/ideas/).

An item is one (idea model, keyword); solving it is ``ideas.loop.run_keyword``, which
yields the ``Idea``, ``IdeaJudgement`` and ``FluencyGrade`` records as they are made and
skips what an earlier run finished.  A recorded source of several models
(``--model replay/FILE``) is judged per model.  The panel is checked before any model
(or local server) starts and before a run folder exists.  The score is per idea model
the five scores with bootstrap intervals over keywords (ideas/__init__.py
``summarize_model``).  The runner (neocoder/runner.py) owns the rest.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, field
from pathlib import Path

from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.descriptor import IDEAS
from neocoder.benchmarks.ideas.loop import PROMPT_FILES
from neocoder.errors import NeocoderError
from neocoder.models import ModelError
from neocoder.runner import LostItems, Run, Task


def _open_idea_model(config: IdeasConfig, run: Run):
    """The idea model, closed when the run ends: recorded ideas for ``replay/SOURCE``,
    else the provider's model."""
    if config.model.spec.startswith("replay/"):
        from neocoder.benchmarks.ideas.replay import load_recorded_ideas
        return run.stack.enter_context(load_recorded_ideas(config.model.spec))
    return run.open_model(config.model)


@dataclass
class IdeasInputs:
    """What a LiveIdeaBench run works with (``IdeasTask.open``): the ``keywords``, per idea
    model the seat names ``allowed`` to judge it, the panel's ``seats`` behind the call
    cache, one ``writers`` entry per idea model; then per writer the records an earlier
    run finished (``done``)."""

    keywords: list
    allowed: dict
    seats: dict
    writers: list
    done: list = field(default_factory=list)


class IdeasTask(Task, name=IDEAS, config_type=IdeasConfig, unit="keyword", prompts=PROMPT_FILES):
    """LiveIdeaBench on ``config.model`` with the panel ``config.judges`` (see the module)."""

    def check(self) -> None:
        """Refuse a bad config and, for a live idea model, a panel with fewer than
        ``judges_per_idea`` seats besides it (judged by spec, so a seat name never lets
        a model judge itself)."""
        from neocoder.benchmarks.ideas.panel import eligible, panel_names
        from neocoder.benchmarks.ideas.protocol import make_protocol
        config = self.config
        if not config.judges:  # each value's own bounds are checked by the runner (config.check)
            raise NeocoderError("no judges: give a panel with --judges J1,J2,J3 or --panel FILE")
        self.names = panel_names(config.judges, config.judge_names)
        self.seat_specs = [(name, judge.spec) for name, judge in zip(self.names, config.judges)]
        self.panel_rules = self._check_panel()
        # the protocol's files are read (and checked) before anything starts
        self.protocol = make_protocol(config.protocol, config.liveideabench, config.refusal_phrases)
        self.prompts = self.protocol.prompt_files  # the runner records these prompt files (none: official)
        self.critics = self._against_clone()
        if not config.model.spec.startswith("replay/"):  # refused before a model (or a local server) starts
            eligible(self.seat_specs, {config.model.spec}, config.judges_per_idea, config.model.spec)

    def _check_panel(self) -> list[str]:
        """LiveIdeaBench's panel rules (ideas/panel_file.py): refused or warned per
        ``panel_rules``; the seats of the idea model's spec are named (never judging it)."""
        from neocoder.benchmarks.ideas.panel_file import check_rules, infer_entry, left_out, load_panel
        config = self.config
        by_name = {e.name: e for e in load_panel(config.panel)} if config.panel is not None else {}
        entries = [by_name.get(n) or infer_entry(n, spec) for n, spec in self.seat_specs]
        found = check_rules(entries, config.panel_rules)
        if not config.model.spec.startswith("replay/"):
            left_out(entries, config.model.spec)
        return found

    def _against_clone(self) -> dict | None:
        """For the official protocol on the shipped default panel: that panel beside the
        clone's CRITIC_MODELS (warned about when they differ; recorded in the manifest)."""
        from neocoder.benchmarks.ideas.panel_file import against_clone, default_panel_path, load_panel
        config = self.config
        if config.protocol != "official" or config.panel is None or \
                Path(config.panel).resolve() != default_panel_path().resolve():
            return None
        return against_clone(load_panel(config.panel), self.protocol.source.root)

    def open(self, run: Run) -> "IdeasInputs":
        """Open the idea model (recorded ideas for ``replay/SOURCE``), work out per idea model the
        seats allowed to judge it (NeocoderError when too few), read the keywords (a replayed
        source's own when no ``--keywords``; cut to ``--limit``), then open the seats needed
        and one IdeaWriter per idea model."""
        from neocoder.benchmarks.ideas.loop import IdeaWriter
        from neocoder.benchmarks.ideas.panel import eligible
        from neocoder.benchmarks.ideas.sources import load_keywords
        config = self.config
        replay = config.model.spec.startswith("replay/")
        keywords = load_keywords(config.keywords) if config.keywords is not None or not replay else None
        raw = _open_idea_model(config, run)
        variants = raw.variants()
        allowed = {}
        for variant in variants:
            own = {config.model.spec} | variant.recorded_models
            allowed[variant.name] = eligible(self.seat_specs, own, config.judges_per_idea, variant.name)
        if keywords is None:  # a replayed source's own keywords (ideas/replay.py, RecordedIdeas)
            keywords = raw.keywords
        # the run folder (and its call cache) is made only once the panel is known to be large enough
        return IdeasInputs(keywords=keywords[:config.limit] if config.limit else keywords, allowed=allowed,
                           seats=self._seats(run, {name for names in allowed.values() for name in names}),
                           writers=[IdeaWriter(v, run.cache) for v in variants])

    def _seats(self, run: Run, needed: set[str]) -> dict:
        """The panel's seats that may judge some idea model, each behind the call cache;
        seats with the same model config share one model (and one local server)."""
        from neocoder.benchmarks.ideas.panel import Seat
        models, seats = {}, {}
        for name, judge in zip(self.names, self.config.judges):
            if name not in needed:
                continue
            key = astuple(judge)
            if key not in models:
                try:
                    models[key] = run.open_model(judge)
                except ModelError as exc:
                    raise ModelError(f"judge seat {name!r}: {exc}") from exc
            seats[name] = Seat(name, judge.spec, run.cached(models[key]))
        return seats

    def items(self, run: Run) -> list:
        """Every (writer index, keyword index) pair, writer by writer."""
        return [(w, i) for w in range(len(run.inputs.writers)) for i in range(len(run.inputs.keywords))]

    def pending(self, run: Run, items: list) -> list:
        """Every keyword: ``run_keyword`` keeps an earlier run's finished records (kept in
        ``run.inputs.done``) and redoes the rest."""
        from neocoder.benchmarks.ideas.loop import resume_state
        run.inputs.done = [resume_state(run.folder, w.name) for w in run.inputs.writers]
        return list(items)

    def solve(self, item, run: Run):
        """Run the ideas loop on one (idea model, keyword) (``loop.run_keyword``), keeping what
        an earlier run finished for it."""
        from neocoder.benchmarks.ideas.loop import run_keyword
        w, i = item
        s = run.inputs
        writer, keyword = s.writers[w], s.keywords[i]
        done = s.done[w].get((i, keyword.text), {"ideas": {}, "judgements": {}, "fluency": None})
        return run_keyword(i, keyword, writer, s.seats, s.allowed[writer.name], self.config, done,
                           self.protocol)

    def label(self, run: Run) -> str:
        """The progress bar's description: "ideas" and the idea models' names."""
        return "ideas " + ", ".join(w.name for w in run.inputs.writers)

    def manifest(self, run: Run) -> dict:
        """The number of keywords, the panel's seats (name, spec), the protocol's own fields and
        the panel rules (mode, the rules broken, the panel file, the clone's critic models)."""
        return {"keywords": len(run.inputs.keywords), "panel": self._panel(), **self.protocol.manifest(),
                "panel_rules": {"mode": self.config.panel_rules, "broken": self.panel_rules,
                                "file": None if self.config.panel is None else str(self.config.panel),
                                "critic_models": self.critics}}

    def _panel(self) -> list[dict]:
        return [{"name": n, "spec": s} for n, s in self.seat_specs]

    def score(self, run: Run) -> dict:
        """Per idea model its ``summary.summarize_model`` (under ``models``), the panel, how the
        bootstrap was drawn (over keywords), the call-cache stats, and ``outcome`` and
        ``unreadable`` as ``self.outcome`` gives them."""
        from neocoder.benchmarks.ideas.summary import summarize_model
        from neocoder.metrics.bootstrap import bootstrap_info
        config, s = self.config, run.inputs
        summaries = {w.name: summarize_model(run.folder, w.name, s.allowed[w.name], config, s.keywords)
                     for w in s.writers}
        outcome, unreadable = self.outcome(run)
        return {"benchmark": "ideas", "models": summaries, "panel": self._panel(), "outcome": outcome,
                "unreadable": unreadable,
                "bootstrap": bootstrap_info(config.bootstrap, config.bootstrap_seed, "keyword"),
                "calls": run.cache.stats()}

    def outcome(self, run: Run) -> tuple[dict, dict]:
        """The ``"outcome"`` block (unit "idea"; the last record of each counts): an idea
        whose model call failed, or one of whose judge calls failed with none scoring it, is
        in error; a kept idea that some judge scored is judged; one whose judges' replies
        were all unreadable is unreadable; a refused, too long or no idea is counted,
        neither; the reply that settled each idea is counted with ``Outcome.answered`` (its
        ``no_idea`` reason: refusal, empty, ...), so a run whose replies mostly hold no idea
        fails).
        And the ``"unreadable"`` block (``replies.Tally``): every judge reply, retries
        included, under its seat's name for the scores and "fluency <seat>" for the grades."""
        from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
        from neocoder.replies import Tally
        from neocoder.runner import Outcome
        names = {w.name for w in run.inputs.writers}
        ideas = {i.key: i for i in run.folder.read(Idea) if i.model in names}
        judgements: dict = {}
        for j in run.folder.read(IdeaJudgement):
            if j.model in names:
                judgements[j.key] = j
        by_idea: dict = {}
        for j in judgements.values():
            by_idea.setdefault((j.model, int(j.keyword_index), int(j.idea_num)), []).append(j)
        outcome, tally = Outcome("idea", answer="idea"), Tally()
        for key, idea in ideas.items():
            if idea.status == "error":
                outcome.add(error=idea.error or "idea model call failed")
                continue
            outcome.answered(idea.no_idea)  # the reply that settled the idea: refusal, empty, ... or an idea
            if idea.status != "ok":
                outcome.add()
                continue
            seats = by_idea.get(key, [])
            failed = [j.error for j in seats if j.scores is None and (j.error or "").startswith("judge:")]
            if any(j.scores is not None for j in seats):
                outcome.add(judged=True)
            elif failed:
                outcome.add(error=failed[0])
            elif seats:
                outcome.add(unreadable=True)
            else:
                outcome.add(error="no judge was asked")
        for j in judgements.values():
            for reason in j.reasons:
                tally.add_reason(j.judge, reason)
        for g in {g.key: g for g in run.folder.read(FluencyGrade) if g.model in names}.values():
            for reason in g.reasons:
                tally.add_reason(f"fluency {g.judge}", reason)
        return outcome.to_dict(), tally.to_dict()

    def result(self, run: Run, metrics: dict):
        """An IdeasResult: the run folder, the per-model summaries, call-cache stats and wall
        seconds.  Raises UnreadableMeasures (metrics.json written first) when a model's
        measure rests on mostly unreadable judge replies (``unreadable_line``)."""
        from neocoder.benchmarks.ideas.summary import IdeasResult
        from neocoder.runner import Outcome
        result = IdeasResult(run.folder.path, metrics["models"], run.cache.stats(), run.seconds())
        line = unreadable_line(metrics["models"])
        if line:
            raise UnreadableMeasures(line, Outcome.from_dict(metrics["outcome"]), result)
        return result


class UnreadableMeasures(LostItems):
    """An ideas run some of whose measures rest on mostly unreadable judge replies (docs/replies.md,
    issue 56 item 4): the records and metrics.json are written, those measures have no
    number and no published rank, and the run fails with one line naming them.  ``result``
    is the IdeasResult, for a surface that shows the tables before the line."""

    def __init__(self, message: str, outcome, result):
        super().__init__(message, outcome)
        self.result = result


def unreadable_line(models: dict) -> str | None:
    """One line naming, per idea model, its measures that are unreadable (a summary's
    ``unreadable_measures``) and the replies they rest on, e.g. "openai/w: originality,
    feasibility, clarity, flexibility unreadable (16 of 23 judge score replies could not be
    read: 16 x refusal)"; None when every measure is readable."""
    from neocoder.replies import mostly_unreadable
    parts = []
    for name, s in models.items():
        bad = s.get("unreadable_measures") or []
        if not bad:
            continue
        why = []
        for part, block in (s.get("replies") or {}).items():
            if mostly_unreadable(block):
                top = ", ".join(f"{n} x {r}" for r, n in sorted(block["reasons"].items(), key=lambda kv: -kv[1]))
                what = "score" if part == "scores" else "fluency"
                why.append(f"{block['unreadable']} of {block['replies']} judge {what} replies could not be read: {top}")
        parts.append(f"{name}: {', '.join(bad)} unreadable ({'; '.join(why)})")
    if not parts:
        return None
    return ("; ".join(parts) + ". metrics.json counts the replies; no number or published rank is given from "
            "these measures")
