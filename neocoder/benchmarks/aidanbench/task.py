"""AidanBench as a task: each generator answers each question until an answer is
incoherent or repetitive (neocoder/benchmarks/aidanbench/).

An item is one (generator, question); solving it is ``aidanbench.loop.run_question``,
which yields each ``Answer`` as it is judged and the ``QuestionResult`` last.  A recorded
source of several models (``--model replay/FILE``) is one generator per model.  The
score is per-model totals with bootstrap intervals over questions.  The runner
(neocoder/runner.py) owns the rest.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neocoder.benchmarks.aidanbench.config import AidanConfig, RescoreConfig
from neocoder.benchmarks.aidanbench.descriptor import AIDANBENCH, AIDANBENCH_RESCORE
from neocoder.benchmarks.aidanbench.loop import PROMPT_FILES
from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.errors import NeocoderError
from neocoder.runner import Run, Task
from neocoder.store import RunFolder


@dataclass
class AidanResult:
    """What an AidanBench run returns: per generator model, its question results (in
    question order) and totals; texts embedded, call-cache stats, wall time in seconds."""

    run: Path
    results: dict[str, list[QuestionResult]]
    totals: dict[str, dict]
    embedded: int = 0
    calls: dict = field(default_factory=dict)
    seconds: float = 0.0


def load_questions(path: Path | None = None) -> list[str]:
    """AidanBench questions, one per non-blank line of ``path`` (default: the 65 shipped
    questions).  Raises NeocoderError for a missing file."""
    if path is None:
        from importlib import resources
        text = resources.files("neocoder.benchmarks.aidanbench").joinpath("questions.txt").read_text(encoding="utf-8")
    elif not Path(path).is_file():
        raise NeocoderError(f"{path}: questions file not found")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return [q.strip() for q in text.splitlines() if q.strip()]


@dataclass
class AidanInputs:
    """What an AidanBench run works with (``AidanTask.open``): the ``generators`` (one per
    model of a recorded source, each behind the call cache), the coherence ``judge``
    (None: novelty only), the ``embedder``, the ``questions``; then the answers of the
    questions left ``unfinished`` (per item) and, once scored, the ``results``."""

    generators: list
    judge: Any
    embedder: Any
    questions: list[str]
    unfinished: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)


class AidanTask(Task, name=AIDANBENCH, config_type=AidanConfig, unit="question", prompts=PROMPT_FILES):
    """AidanBench (see the module)."""

    def check(self) -> None:
        """Refuse settings the loop cannot honour (``loop.check_settings``: the coherence scale,
        lambda, entailment and its threshold), NeocoderError naming the option."""
        from neocoder.benchmarks.aidanbench.loop import check_settings
        check_settings(self.config, self.config.judge is not None)

    def open(self, run: Run) -> AidanInputs:
        """Open the generator model (one generator per model of a recorded source), the judge (the
        generator's own model at the judge's temperature when both name the same spec), the
        embedder, and read the questions (``--questions``, else the recorded source's own, else
        the 65 shipped ones), cut to ``--limit``."""
        from neocoder.models.embedders import embedder_for
        config = self.config
        raw = run.open_model(config.model)
        judge = None
        if config.judge is not None:
            shared = raw.with_temperature(config.judge.temperature) if config.judge.spec == config.model.spec else None
            judge = run.cached(shared or run.open_model(config.judge))
        questions = load_questions(config.questions) if config.questions or not raw.recorded_items() \
            else raw.recorded_items()
        return AidanInputs(generators=[run.cached(m) for m in raw.variants()], judge=judge,
                           embedder=embedder_for(config.embedder, config.model),
                           questions=questions[:config.limit] if config.limit else questions)

    def items(self, run: Run) -> list:
        """Every (generator index, question index) pair, generator by generator."""
        return [(g, i) for g in range(len(run.inputs.generators)) for i in range(len(run.inputs.questions))]

    def pending(self, run: Run, items: list) -> list:
        """Questions not ended yet; an unfinished one continues after its last answer
        (kept in ``run.inputs.unfinished``).  Raises NeocoderError when the folder holds
        answers judged on another coherence scale."""
        from neocoder.benchmarks.aidanbench.loop import check_scale, resume_state
        ended, unfinished = {}, {}
        for g, generator in enumerate(run.inputs.generators):
            check_scale(run.folder, [a for a in run.folder.read(Answer) if a.model == generator.name],
                        self.config.coherence_scale)
            done, partial = resume_state(run.folder, generator.name)
            ended.update({(g, i): q for i, q in done.items()})
            unfinished.update({(g, i): answers for i, answers in partial.items()})
        run.inputs.unfinished = unfinished
        return [item for item in items if item not in ended]

    def solve(self, item, run: Run):
        """Answer one (generator, question) until the stop rule, continuing after the answers an
        interrupted run kept (``loop.run_question``)."""
        from neocoder.benchmarks.aidanbench.loop import run_question
        g, i = item
        s = run.inputs
        return run_question(i, s.questions[i], s.generators[g], s.judge, s.embedder, self.config,
                            s.unfinished.get(item, []))

    def label(self, run: Run) -> str:
        """The progress bar's description: "aidanbench" and the generators' names."""
        return "aidanbench " + ", ".join(g.name for g in run.inputs.generators)

    def manifest(self, run: Run) -> dict:
        """The number of questions asked (``questions``)."""
        return {"questions": len(run.inputs.questions)}

    def results(self, run: Run) -> dict[str, list[QuestionResult]]:
        """Per generator, its judged QuestionResults in question order (resumed ones
        included; those in error or unreadable are counted in ``outcome``, not here)."""
        count = len(run.inputs.questions)
        ended = run.folder.read(QuestionResult)
        return {g.name: sorted((q for q in ended if q.model == g.name and q.question_index < count and q.finished
                                and q.stop_reason != "unreadable"),
                               key=lambda q: q.question_index) for g in run.inputs.generators}

    def outcome(self, run: Run) -> tuple[dict, dict]:
        """The ``"outcome"`` block (unit "question": every generator's question ended judged,
        unreadable or in error; the last record of each counts; every generator reply counted
        with ``Outcome.answered``, its ``no_answer`` reason, so a run whose replies mostly hold
        no answer fails) and the ``"unreadable"`` block (``replies.Tally`` per judge role:
        coherence, similarity, entailment) counted from every answer's ``judge_readings``
        (the last record of each answer)."""
        from neocoder.replies import Tally
        from neocoder.runner import Outcome
        count, names = len(run.inputs.questions), {g.name for g in run.inputs.generators}
        ended = {q.key: q for q in run.folder.read(QuestionResult) if q.model in names and q.question_index < count}
        outcome = Outcome("question", answer="answer")
        for q in ended.values():
            outcome.add(judged=q.stop_reason not in ("error", "unreadable"), unreadable=q.stop_reason == "unreadable",
                        error=q.error if q.stop_reason == "error" else None)
        for _ in range(len(run.inputs.generators) * count - len(ended)):
            outcome.add(error="not ended (the run stopped before this question)")
        tally = Tally()
        answers = {a.key: a for a in run.folder.read(Answer) if a.model in names and a.question_index < count}
        for a in answers.values():
            outcome.answered(a.no_answer)  # every generator reply, read before it was judged
            for role, reason in a.judge_readings:
                tally.add_reason(role, reason)
        return outcome.to_dict(), tally.to_dict()

    def score(self, run: Run) -> dict:
        """Per generator, its ``loop.totals`` over its judged questions with bootstrap
        ``intervals`` over questions and ``no_answer`` (its replies that held no answer, per
        reason: ``no_answer_counts``), under ``models``; ``bootstrap`` says how the intervals
        were drawn; ``outcome`` and ``unreadable`` as ``self.outcome`` gives them."""
        from neocoder.benchmarks.aidanbench.loop import total_intervals, totals
        from neocoder.metrics.bootstrap import bootstrap_info
        config = self.config
        run.inputs.results = results = self.results(run)
        models = {}
        missing = no_answer_counts(run)
        for name, lines in results.items():
            models[name] = totals(lines)
            if missing.get(name):
                models[name]["no_answer"] = missing[name]
            models[name]["intervals"] = total_intervals(lines, config.bootstrap, config.bootstrap_seed)
        outcome, unreadable = self.outcome(run)
        return {"benchmark": "aidanbench", "models": models, "outcome": outcome, "unreadable": unreadable,
                "bootstrap": bootstrap_info(config.bootstrap, config.bootstrap_seed, "question")}

    def result(self, run: Run, metrics: dict) -> AidanResult:
        """An AidanResult: the run folder, the question results and totals per generator, texts
        embedded, call-cache stats and wall seconds."""
        return AidanResult(run.folder.path, run.inputs.results, metrics["models"],
                           embedded=run.inputs.embedder.texts_embedded, calls=run.cache.stats(),
                           seconds=run.seconds())


def no_answer_counts(run: Run) -> dict[str, dict[str, int]]:
    """Per generator, its replies that held no answer, per reason (``Answer.no_answer``:
    empty, reasoning only, echo, refusal, cut off), most frequent first; the last record of
    each answer counts."""
    count, names = len(run.inputs.questions), {g.name for g in run.inputs.generators}
    answers = {a.key: a for a in run.folder.read(Answer) if a.model in names and a.question_index < count}
    out: dict[str, dict[str, int]] = {}
    for a in answers.values():
        if a.no_answer:
            per = out.setdefault(a.model, {})
            per[a.no_answer] = per.get(a.no_answer, 0) + 1
    return {m: dict(sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))) for m, per in out.items()}


@dataclass
class RescoreInputs:
    """What a re-score works with (``RescoreTask.open``): the questions the run ``ended``,
    their ``new`` records (the answers shown and the new result, per question) and the
    ``result`` being filled."""

    ended: list
    new: list
    result: Any


class RescoreTask(Task, name=AIDANBENCH_RESCORE, config_type=RescoreConfig, unit="question"):
    """AidanBench re-scored at new thresholds from a run's stored judge scores and
    novelties, with no model call (neocoder/benchmarks/aidanbench/rescore.py has the method).  An
    item is one question the run ended; the new folder's manifest has the run's kind and
    config with the new thresholds, so every reader treats it as an AidanBench run."""


    def check(self) -> None:
        """Read the run and resolve the rule and ``out``.  Raises NeocoderError when
        ``run`` is not an AidanBench run folder, for a bad threshold, and when ``out`` is
        the run itself or a folder that is not an earlier re-score."""
        from neocoder.benchmarks.aidanbench.rescore import check_out, default_out, new_rule, source_rule
        config = self.config
        self.source = RunFolder(Path(config.run), create=False)
        self.origin = self.source.read_manifest()
        if self.origin.kind != AIDANBENCH:
            raise NeocoderError(f"{self.source.path}: a {self.origin.kind!r} run folder; rescore reads AidanBench runs")
        self.run_rule = source_rule(self.origin.config)
        self.rule = new_rule(self.run_rule, config.coherence_stop, config.novelty_stop, config.max_answers,
                             config.mmr_lambda)
        out = Path(config.out) if config.out is not None else default_out(self.source.path, self.rule, self.run_rule)
        check_out(self.source.path, out)
        self.config = dataclasses.replace(config, out=out)
        self.resamples = self.origin.config.get("bootstrap", 2000) if config.bootstrap is None else config.bootstrap
        self.seed = self.origin.config.get("bootstrap_seed", 0) if config.bootstrap_seed is None \
            else config.bootstrap_seed

    def open(self, run: Run) -> "RescoreInputs":
        """Re-score every question the run ended, before anything is written: a
        contradiction in the records (NeocoderError) leaves an earlier re-score in the
        folder as it was; otherwise the new records replace it whole (``score``)."""
        from neocoder.benchmarks.aidanbench.rescore import RescoreResult, rescore_question
        answers = {a.key: a for a in self.source.read(Answer)}
        ended = sorted(self.source.read(QuestionResult), key=lambda q: (q.model, q.question_index))
        started = {(a.model, a.question_index) for a in answers.values()}
        new = [rescore_question(self.source, answers, q, self.rule, self.run_rule.max_answers, self.origin.config)
               for q in ended]
        return RescoreInputs(ended=ended, new=new, result=RescoreResult(
            run=self.config.out, source=self.source.path, rule=self.rule,
            unfinished=len(started - {(q.model, q.question_index) for q in ended})))

    def items(self, run: Run) -> list:
        """No items: the whole re-score is done in ``open``."""
        return []  # the work is done in ``open``: nothing may be written before every question is re-scored

    def solve(self, item, run: Run):
        """Nothing to do (there are no items)."""
        return ()

    def manifest_head(self, run: Run) -> tuple[str, dict]:
        """The source run's kind (AidanBench) and config, with the new thresholds, bootstrap
        settings and ``out``: every reader treats the re-score as an AidanBench run."""
        rule = self.rule
        return AIDANBENCH, dict(self.origin.config, coherence_stop=rule.coherence_stop,
                                novelty_stop=rule.novelty_stop, max_answers=rule.max_answers,
                                mmr_lambda=rule.mmr_lambda, bootstrap=self.resamples, bootstrap_seed=self.seed,
                                out=str(self.config.out))

    def manifest(self, run: Run) -> dict:
        """Where the re-score comes from: the source folder (``rescored_from``) and the source
        manifest's start, commit, command and config; its question count and prompts."""
        origin = self.origin
        return {"rescored_from": str(self.source.path.resolve()),
                "source": {"started": origin.started, "git_commit": origin.git_commit, "command": origin.command,
                           "config": origin.config},
                "questions": origin.extra.get("questions"), "prompts": origin.extra.get("prompts", {})}

    def score(self, run: Run) -> dict:
        """Write the re-scored records (each question's answers shown and its new result) in
        place of the folder's, and return the new totals per model beside the ``original``
        ones, with the unfinished-question count and ``model_calls`` 0."""
        from neocoder.benchmarks.aidanbench.loop import totals
        from neocoder.benchmarks.aidanbench.rescore import model_totals
        from neocoder.metrics.bootstrap import bootstrap_info
        result = run.inputs.result
        records = []
        for i, q in enumerate(run.inputs.ended):
            shown, new = run.inputs.new[i]
            records += shown + [new]
            result.results.setdefault(q.model, []).append(new)
            result.original.setdefault(q.model, []).append(q)
        run.folder.write_all(records)
        result.original = {m: totals(qs) for m, qs in result.original.items()}
        result.totals = model_totals(result.results, self.resamples, self.seed)
        return {"benchmark": AIDANBENCH, "models": result.totals, "original": result.original,
                "rescored_from": str(self.source.path.resolve()), "unfinished_questions": result.unfinished,
                "model_calls": 0, "bootstrap": bootstrap_info(self.resamples, self.seed, "question")}

    def result(self, run: Run, metrics: dict):
        """The RescoreResult ``open`` began, filled by ``score``, with the wall seconds."""
        run.inputs.result.seconds = run.seconds()
        return run.inputs.result


def rescore_run(run: Path, out: Path | None = None, **thresholds):
    """Re-score the AidanBench run folder ``run`` at new thresholds from its stored judge
    scores and novelties, with no model call (the ``aidanbench-rescore`` task).
    ``thresholds``: ``coherence_stop``, ``novelty_stop``, ``max_answers``, ``mmr_lambda``,
    ``bootstrap``, ``bootstrap_seed`` (None: the run's own).  Writes a new run folder
    (``out``, default beside ``run``) and returns its RescoreResult.  Raises NeocoderError
    as ``RescoreTask.check`` says."""
    from neocoder.runner import run as run_task
    return run_task(RescoreTask(RescoreConfig(run=Path(run), out=None if out is None else Path(out), **thresholds)))
