"""A board's checks of a submitted framework run (``neocoder board add``; the descriptor's
``recompute`` and ``verify``, report/leaderboard/submissions.py).

Why: the verdicts are the judges', and the records that hold them are the submitter's
file.  Every judge turn is kept with its raw reply, phase, criterion, analyst, round and
the fragments it was shown (``FrameworkSolution.discussion``), so ``rescore`` rebuilds each
judge's prompts from the records (the shipped problem, the solution's steps, the fragment
store grown from the recorded replies, ChatEval's history) and reads every confidence,
stance, verdict and probability reply again with the framework's grammars (grammars.py,
the prompt given for its echo rule); then it replays each judge's decisions with the
judges' own rules (retrieval.py ``settled``, ``most_confident``, ``mean_confidence``;
chateval.py ``decide``) and refuses a recorded verdict, reading, round count, analyst or
turn count that the replies do not give, naming the first problem, judge and criterion.
A solution's steps and divergent scores are summarised again from its FrameworkSteps
(stepwise.py ``summarise``); each step's semantic entropy is taken as recorded: its
meaning classes come from the entailment backend (an NLI, embedding or LLM model a board
does not call), and which fragments a turn retrieved rests on the embedder.
``recompute`` gives metrics.json from the records with ``scores.run_scores`` and the run's
bootstrap settings, which the board compares.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

from neocoder.benchmarks.descriptor import RecordsDisagree
from neocoder.benchmarks.measures import bootstrap_settings

SUMMARY = ("steps", "entropies", "divergent", "divergent_min", "divergent_max", "stop_reason", "repeated")


def _read(folder: Path, model: str, domain: str):
    """The model's latest solution per problem of ``domain`` (finished or not) and the
    domain's FrameworkSteps."""
    from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
    from neocoder.store import RunFolder
    run = RunFolder(Path(folder), create=False)
    latest = {s.problem_id: s for s in run.read(FrameworkSolution) if s.model == model and s.domain == domain}
    return latest, [st for st in run.read(FrameworkStep) if st.domain == domain]


def recompute(folder: Path, model: str, config: dict, metrics: dict) -> dict:
    """metrics.json's numbers for ``model`` recomputed from its finished solutions as the
    task scores them (task.py ``score``: ``scores.run_scores``, BookMIA's repeated stories
    dropped) with the run's bootstrap settings.  Raises NeocoderError for bootstrap
    settings out of bounds."""
    from neocoder.benchmarks.framework.scores import run_scores
    resamples, seed = bootstrap_settings(metrics)
    domain = config.get("domain", "macgyver")
    latest, steps = _read(folder, model, domain)
    done = [s for s in latest.values() if s.finished]
    return run_scores(done, resamples, seed, drop_repeated=domain == "bookmia", steps=steps)


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def _reread(grammar, turn: dict, prompt: str):
    """``turn``'s recorded reply read again by ``grammar`` as the judge read it (its
    finish reason and provider-side reasoning as recorded, ``prompt`` rebuilt)."""
    from neocoder.benchmarks.framework.grammars import read
    reply = SimpleNamespace(text=turn.get("reply"), reasoning=turn.get("reasoning"),
                            extra={"finish_reason": turn.get("finish_reason")})
    reading = read(grammar, reply, prompt)
    kept = (turn.get("readings") or {}).get(grammar.name)
    if kept is not None and not _same(kept, {"value": reading.value, "reason": reading.reason}):
        raise RecordsDisagree(f"{kept!r} is the turn's recorded {grammar.name}, {reading.value!r} "
                              f"({reading.reason or 'readable'}) read again from its reply")
    return reading


def _fragments(turn: dict) -> list[str]:
    """The fragments a turn added to the retrieval judge's store (as ``RetrievalJudge`` adds them)."""
    from neocoder.benchmarks.framework.retrieval import fragments_of
    reply = turn.get("reply") or ""
    return fragments_of(reply.split("[[QUESTIONS]]", 1)[0] if turn.get("phase") == "discuss" else reply)


def _retrieval_turn(turn, state, index, ctx) -> None:
    """One recorded retrieval-judge turn replayed into ``state`` (per criterion)."""
    from neocoder.benchmarks.framework.calls import fill
    from neocoder.benchmarks.framework.grammars import CONFIDENCE, STANCE, VERDICT, as_bool
    from neocoder.benchmarks.framework.retrieval import FOCUS
    phase, a, c = turn.get("phase"), turn.get("analyst"), turn.get("criterion")
    if phase in ("init", "discuss"):
        index.add(_fragments(turn), a)
        return
    mine = state.setdefault(c, {"confidences": {}, "stances": {}, "readings": [], "rounds": 0, "asked": []})
    shown = index.show([i for i in turn.get("retrieved") or [] if 0 <= i < len(index.texts)])
    where = dict(role=a, focus=FOCUS.get(a, ""), fragments=shown, criterion=c, definition=ctx["criteria"].get(c, ""),
                 problem=ctx["problem"], solution=ctx["solution"], words=ctx["words"])
    if phase == "confidence":
        prompt = fill("framework_confidence.txt", **where)
        conf, stance = _reread(CONFIDENCE, turn, prompt), _reread(STANCE, turn, prompt)
        mine["confidences"][a], mine["stances"][a] = conf.value, as_bool(stance)
        mine["readings"] += [{"role": "confidence", "analyst": a, "round": turn.get("round"), "value": conf.value,
                              "reason": conf.reason},
                             {"role": "stance", "analyst": a, "round": turn.get("round"), "value": stance.value,
                              "reason": stance.reason}]
        mine["asked"].append((turn.get("round"), dict(mine["confidences"])))
    elif phase == "verdict":
        verdict = _reread(VERDICT, turn, fill("framework_verdict.txt", **where))
        mine["readings"].append({"role": "verdict", "analyst": a, "value": verdict.value, "reason": verdict.reason})
        mine["verdict"] = (a, verdict)


class _Store:
    """The retrieval judge's fragment store rebuilt from the recorded replies: texts and
    authors only (which fragments a turn saw is recorded, ``retrieved``)."""

    def __init__(self):
        from neocoder.benchmarks.framework.retrieval import FragmentIndex
        self.index = FragmentIndex(None)

    def add(self, texts, author):
        texts = [t for t in texts if t.strip()]
        self.index.texts += texts
        self.index.authors += [author] * len(texts)

    @property
    def texts(self):
        return self.index.texts

    def show(self, ids):
        return self.index.show(ids)


def rebuild_retrieval(turns: list, ctx: dict, settings) -> dict:
    """The retrieval judge's verdicts per criterion rebuilt from its recorded ``turns``: the
    replies read again, the early stop (``settled``) after each round, the verdict's
    analyst (``most_confident``).  Raises RecordsDisagree (without the problem's name)."""
    from neocoder.benchmarks.framework.grammars import as_bool
    from neocoder.benchmarks.framework.retrieval import ANALYSTS, mean_confidence, most_confident, settled
    state, store = {}, _Store()
    for n, turn in enumerate(turns):
        try:
            _retrieval_turn(turn, state, store, ctx)
        except RecordsDisagree as exc:
            raise RecordsDisagree(f"{turn.get('criterion')}: turn {n + 1}: {exc}") from exc
    out = {}
    for c, mine in state.items():
        rounds = sorted({r for r, _ in mine["asked"]})
        for r in rounds:
            seen = [conf for rr, conf in mine["asked"] if rr == r][-1]
            if set(seen) != set(ANALYSTS):
                raise RecordsDisagree(f"{c}: round {r} holds no confidence of every analyst")
            if settled(seen, settings.threshold) and r != rounds[-1]:
                raise RecordsDisagree(f"{c}: round {r + 1} after the confidences of round {r} settled it")
        last = rounds[-1] if rounds else 0
        if rounds != list(range(1, last + 1)) or (last < settings.rounds and not settled(mine["confidences"],
                                                                                      settings.threshold)):
            raise RecordsDisagree(f"{c}: rounds {rounds} recorded, the stop rule asks otherwise")
        if "verdict" not in mine:
            raise RecordsDisagree(f"{c}: no verdict turn")
        analyst, verdict = mine["verdict"]
        if analyst != most_confident(mine["confidences"]):
            raise RecordsDisagree(f"{c}: the verdict asked of the {analyst}, the most confident is the "
                                  f"{most_confident(mine['confidences'])}")
        out[c] = {"verdict": as_bool(verdict), "reason": verdict.reason,
                  "confidence": mean_confidence(mine["confidences"]), "analyst": analyst, "rounds": last,
                  "confidences": mine["confidences"], "stances": mine["stances"], "readings": mine["readings"]}
    return out


def rebuild_chateval(turns: list, ctx: dict, settings) -> dict:
    """ChatEval's verdicts per criterion rebuilt from its recorded ``turns``: each final
    reply read again (its prompt: the criterion's whole recorded debate), the verdict by
    ``decide`` (majority, tie, no vote).  Raises RecordsDisagree."""
    from neocoder.benchmarks.framework.calls import fill
    from neocoder.benchmarks.framework.chateval import decide
    from neocoder.benchmarks.framework.grammars import CHATEVAL_VERDICT, PROBABILITY, as_bool
    from neocoder.benchmarks.framework.retrieval import ANALYSTS
    history, finals, out = {}, {}, {}
    for n, turn in enumerate(turns):
        c, a = turn.get("criterion"), turn.get("analyst")
        if turn.get("phase") == "discuss":
            history.setdefault(c, []).append(f"{a}: {(turn.get('reply') or '').strip()}")
            continue
        prompt = fill("framework_chateval_verdict.txt", role=a, history="\n".join(history.get(c, [])),
                      problem=ctx["problem"], solution=ctx["solution"], criterion=c,
                      definition=ctx["criteria"].get(c, ""))
        try:
            vote, prob = _reread(CHATEVAL_VERDICT, turn, prompt), _reread(PROBABILITY, turn, prompt)
        except RecordsDisagree as exc:
            raise RecordsDisagree(f"{c}: turn {n + 1}: {exc}") from exc
        finals.setdefault(c, []).append((a, as_bool(vote), vote, prob))
    for c, votes in finals.items():
        if len(history.get(c, [])) != settings.chateval_rounds * len(ANALYSTS) or \
                [a for a, *_ in votes] != list(ANALYSTS):
            raise RecordsDisagree(f"{c}: {len(history.get(c, []))} debate turns and final votes of "
                                  f"{[a for a, *_ in votes]}, not {settings.chateval_rounds} rounds of every analyst")
        verdict, reason = decide([v for _, v, _, _ in votes])
        known = [p.value for *_, p in votes if p.value is not None]
        readings = [r for a, _, vote, prob in votes
                    for r in ({"role": "verdict", "analyst": a, "value": vote.value, "reason": vote.reason},
                              {"role": "probability", "analyst": a, "value": prob.value, "reason": prob.reason})]
        out[c] = {"verdict": verdict, "reason": reason, "votes": [v for _, v, _, _ in votes],
                  "probabilities": [p.value for *_, p in votes],
                  "confidence": sum(known) / len(known) if known else None, "readings": readings}
    return out


REBUILD = {"retrieval": rebuild_retrieval, "chateval": rebuild_chateval}


def judge_settings_of(config: dict):
    """The judges' settings as the run recorded them (its manifest ``config``)."""
    from neocoder.benchmarks.framework.retrieval import JudgeSettings
    names = ("discuss_k", "score_j", "verdict_l", "threshold", "rounds", "words", "chateval_rounds")
    return JudgeSettings(**{k: config[k] for k in names if k in config})


def _context(solution, problems: dict, words: int) -> dict:
    """What the judges were shown of ``solution``: the shipped problem, its criteria, the
    solution text (task.py ``solution_text``; the code domain's plan with its program)."""
    from neocoder.benchmarks.framework.task import solution_text
    problem = problems.get(solution.problem_id)
    if problem is None:
        raise RecordsDisagree(f"problem {solution.problem_id}: not a problem of the shipped {solution.domain} set")
    text = solution_text(problem, solution.steps)
    if problem.domain == "code":
        text = f"Plan:\n{text}\n\nProgram:\n{solution.program}"
    return {"problem": problem.text, "solution": text, "criteria": problem.criteria, "words": words}


def _check_summary(solution, steps: list, cap: int) -> None:
    """Refuse a solution whose steps or divergent scores its FrameworkSteps do not give
    (stepwise.py ``summarise``; the steps' entropies as recorded)."""
    from neocoder.benchmarks.framework.stepwise import summarise
    again = summarise(steps, cap)
    for name in SUMMARY:
        if not _same(getattr(solution, name), again[name]):
            raise RecordsDisagree(f"problem {solution.problem_id}: {name} is {getattr(solution, name)!r} in "
                                  f"records.jsonl, {again[name]!r} from its recorded steps")


def check_solution(solution, steps: list, problems: dict, config: dict) -> int:
    """Refuse (RecordsDisagree) a solution whose recorded verdicts, per judge and criterion,
    its recorded judge turns do not give (``REBUILD``), whose judge cost is not its turns',
    or whose summary its steps do not give.  The judge turns read."""
    settings = judge_settings_of(config)
    _check_summary(solution, steps, int(config.get("max_steps", 8)))
    ctx = _context(solution, problems, settings.words)
    turns_read = 0
    judges = sorted(set(solution.verdicts) | set(solution.discussion))
    for judge in judges:
        where = f"problem {solution.problem_id} judge {judge}"
        if judge not in REBUILD:
            raise RecordsDisagree(f"{where}: not a judge of the framework")
        turns = (solution.discussion or {}).get(judge) or []
        try:
            again = REBUILD[judge](turns, ctx, settings)
        except RecordsDisagree as exc:
            raise RecordsDisagree(f"{where} criterion {exc}") from exc
        recorded = (solution.verdicts or {}).get(judge) or {}
        for c in sorted(set(recorded) | set(again) | set(ctx["criteria"])):
            if c not in recorded or c not in again:
                raise RecordsDisagree(f"{where} criterion {c}: {'no recorded verdict' if c in again else 'no turns'}")
            for key, value in again[c].items():
                if not _same(recorded[c].get(key), value):
                    raise RecordsDisagree(f"{where} criterion {c}: {key} is {recorded[c].get(key)!r} in "
                                          f"records.jsonl, {value!r} re-read from its recorded replies")
        cost = (solution.judge_cost or {}).get(judge) or {}
        sums = {"calls": len(turns), "prompt_tokens": sum(t.get("prompt_tokens") or 0 for t in turns),
                "completion_tokens": sum(t.get("completion_tokens") or 0 for t in turns)}
        if not _same({k: cost.get(k) for k in sums}, sums):
            raise RecordsDisagree(f"{where}: cost {cost} in records.jsonl, {sums} counted in its turns")
        turns_read += len(turns)
    return turns_read


def rescore(folder: Path, model: str, config: dict, scratch: Path) -> str:
    """Re-score ``model``'s solutions from their recorded judge turns (see the module):
    returns "re-scored from recorded judgements: N of N judge turns on M problems agree
    (step entropies as recorded)".  Raises RecordsDisagree naming the first problem, judge
    and criterion that differs; NeocoderError for a domain a board cannot read."""
    from neocoder.benchmarks.framework.domains import load_problems
    domain = config.get("domain", "macgyver")
    if domain not in ("macgyver", "code") or config.get("data"):
        from neocoder.errors import NeocoderError
        raise NeocoderError(f"domain {domain!r} with data {config.get('data')!r} is not a shipped problem set")
    problems = {p.problem_id: p for p in load_problems(domain)}
    latest, steps = _read(folder, model, domain)
    done = [s for _, s in sorted(latest.items()) if s.finished]
    turns = 0
    for s in done:
        turns += check_solution(s, [st for st in steps if st.problem_id == s.problem_id], problems, config)
    return (f"re-scored from recorded judgements: {turns} of {turns} judge turns on {len(done)} problems agree "
            "(step entropies as recorded)")
