"""The ideas loop: write, filter, judge, grade fluency; resumable, one JSONL of records.

Per keyword (``run_keyword``), for one idea model:

1. ideas 1..K (``ideas_per_keyword``): the model gets the keyword (``prompts/ideas_user.txt``
   with ``ideas_system.txt``, or ``ideas_completion.txt`` for a completions-API base
   model); the idea is the reply after a leading "Idea:" (``scoring.extract_idea``).  A
   reply holding no idea (empty, reasoning only, echo, cut off: ``read_idea``) is recorded
   as "no idea" with its reason, neither judged nor a refusal.  A
   refusal (``scoring.is_refusal``) is asked once more with the fallback prompt
   (``ideas_fallback_*.txt``); refused again, the idea is recorded as "refused".  An idea
   over ``max_words`` words is recorded as "too long" and not judged.  Each idea number
   is sampled with its own seed (the model's seed + idea number - 1, a per-call override) and has the number
   in its call-cache key, so K ideas are K calls, not one cached reply;
2. each kept idea is scored by ``judges_per_idea`` seats drawn from the panel
   (panel.py), one call per seat (``ideas_judge.txt``), read by ``scoring.parse_scores``
   with up to ``judge_retries`` more asks after an unparseable reply, then recorded as an
   error, never as a score;
3. when the keyword has two or more kept ideas, one drawn seat grades their fluency
   (``ideas_fluency.txt``, ``scoring.parse_grade``, the same retries).

That is our protocol (the default); with ``--protocol official`` the prompts, the idea's
cut, the refusal rule and the fluency pair are LiveIdeaBench's own (protocol.py,
official.py): the loop asks its protocol object and is otherwise the same.

Every record is appended as it is made (records.py), by the runner as ``run_keyword``
yields it (the ideas task, neocoder/benchmarks/ideas/task.py).  A rerun with the same folder keeps
finished records and redoes the rest: ideas whose call failed, judgements that ended in
an error (from the call cache, so at no cost when the replies were merely unparseable),
and a fluency grade whose kept ideas changed.  A model endpoint that cannot be reached
(EndpointError) stops the run.
"""

from __future__ import annotations

import time
from dataclasses import replace

from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.panel import draw_fluency_judge, draw_judges
from neocoder.benchmarks.ideas.protocol import PROMPT_FILES, OursProtocol, fluency_prompt, idea_prompt, judge_prompt  # noqa: F401 (re-exported)
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.scoring import fluency_points, strip_reasoning, word_count
from neocoder.benchmarks.ideas.sources import Keyword
from neocoder.models import Model, ModelError, NoRecordedReply, Prompt, Reply
from neocoder.models.cache import CachedModel, CallCache
from neocoder.models.openai_compat import EndpointError
from neocoder.replies import CUT_OFF, EMPTY, REASONING_ONLY, REFUSAL, read_answer
from neocoder.store import RunFolder

OURS = OursProtocol()

class _Numbered(Model):
    """An idea model for one idea number: its own sampling seed, and the number in the
    call-cache key (so the K ideas of a keyword are K calls even without a seed)."""

    def __init__(self, inner: Model, idea_num: int):
        self.inner, self.idea_num, self.name = inner, idea_num, inner.name

    def request(self, prompt: Prompt) -> dict | None:
        req = self.inner.request(prompt)
        return None if req is None else {**req, "idea_num": self.idea_num}

    def generate(self, prompt: Prompt) -> Reply:
        return self.inner.generate(prompt)


class IdeaWriter:
    """The idea model behind the call cache, one cached view per idea number (the number
    is part of the call-cache key, so the K ideas of a keyword are K calls even where the
    model takes no seed; ``write_idea`` sends idea n with seed ``seed + n - 1``)."""

    def __init__(self, model: Model, cache: CallCache):
        self.model, self.cache, self.name = model, cache, model.name
        self._per_num: dict[int, Model] = {}

    def for_idea(self, idea_num: int) -> Model:
        """The cached model that writes idea ``idea_num`` (1-based) of every keyword."""
        if idea_num not in self._per_num:
            self._per_num[idea_num] = CachedModel(_Numbered(self.model, idea_num), self.cache)
        return self._per_num[idea_num]


def _tokens(*replies: Reply) -> dict:
    """Summed tokens of ``replies``, with a reasoning model's reasoning tokens (a part of
    the completion tokens) where any reply reports them."""
    reasoning = [r.reasoning_tokens for r in replies if r.reasoning_tokens is not None]
    return {"prompt": sum(r.prompt_tokens or 0 for r in replies),
            "completion": sum(r.completion_tokens or 0 for r in replies),
            **({"reasoning": sum(reasoning)} if reasoning else {})}


def write_idea(writer: IdeaWriter, keyword: Keyword, index: int, idea_num: int, settings: IdeasConfig,
               proto=OURS) -> Idea | None:
    """Ask for idea ``idea_num`` of ``keyword`` with ``proto``'s prompts (protocol.py), read
    the reply (``read_idea``: a reply holding no idea is recorded as "no idea" with its
    reason, never judged, never a refusal), apply the protocol's refusal rule (asked once
    more with the fallback prompt) and the length rule, and return its Idea record (status
    "ok", "too long", "refused", "no idea" or "error").  None when a replayed source holds no such idea.
    EndpointError propagates (the run stops)."""
    model = writer.for_idea(idea_num)
    started = time.monotonic()
    record = Idea(model=writer.name, keyword_index=index, keyword=keyword.text, idea_num=idea_num,
                  category=keyword.category)
    replies: list[Reply] = []
    try:
        seed = None if settings.model.seed is None else settings.model.seed + idea_num - 1  # idea n: its own draw
        prompt = replace(proto.idea_prompt(keyword.text, idea_num), seed=seed)
        reply = model.generate(prompt)
        replies.append(reply)
        text, why = read_idea(reply, prompt, proto)
        if why == REFUSAL:  # the protocol's refusal rule: asked once more with the fallback prompt
            record.fallback, record.refused_reply = True, reply.text
            prompt = replace(proto.idea_prompt(keyword.text, idea_num, fallback=True), seed=seed)
            reply = model.generate(prompt)
            replies.append(reply)
            text, why = read_idea(reply, prompt, proto)
    except NoRecordedReply:
        return None
    except EndpointError:
        raise
    except ModelError as exc:
        record.status, record.error = "error", str(exc)
        record.tokens, record.seconds = _tokens(*replies), round(time.monotonic() - started, 3)
        return record
    record.reply, record.idea, record.words = reply.text, text, word_count(text)
    record.recorded_model = reply.extra.get("recorded_model")
    record.finish_reason = reply.extra.get("finish_reason")
    record.no_idea = why
    if why == REFUSAL:
        record.status = "refused"
    elif why is not None:
        record.status = NO_IDEA
    elif record.words > settings.max_words:
        record.status = "too long"
    record.tokens, record.seconds = _tokens(*replies), round(time.monotonic() - started, 3)
    return record


NO_IDEA = "no idea"  # the status of an idea whose reply held none (``Idea.no_idea`` says why)


def read_idea(reply: Reply, prompt: Prompt, proto=OURS) -> tuple[str, str | None]:
    """(the idea, why the reply holds none) of an idea model's reply, read before it is
    judged (``replies.read_answer``, docs/replies.md; issue 56), in this order:

    - ``empty`` (nothing, or an "Idea:" marker with nothing after it), ``reasoning only``
      (thinking inline or returned apart, no idea after it), ``echo`` (only the prompt's
      lines came back): no idea, and no refusal either;
    - ``refusal``: the protocol's refusal rule (ours: the idea opens with a refusal; the
      authors': a refusal phrase anywhere in the reply), the one that asks the fallback;
    - ``cut off``: the endpoint stopped at the token limit (``finish_reason: length``): the
      idea's end is missing, so it is not judged as written;
    - else None: ``proto.extract_idea``'s idea."""
    finish = (reply.extra or {}).get("finish_reason")
    reading = read_answer(reply.text, prompt.shown(), finish, holds=lambda text: True, cut_off=False)
    if reading.reason == EMPTY and (reply.reasoning or "").strip():
        return "", REASONING_ONLY
    if not reading.readable:
        return "", reading.reason
    text = proto.extract_idea(reply.text)
    if not text.strip():
        bare = strip_reasoning(reply.text).strip()
        return "", EMPTY if bare else REASONING_ONLY  # "Idea:" and nothing after it, or only thinking
    if proto.refused(reply.text, text):
        return text, REFUSAL
    if finish == "length":
        return text, CUT_OFF
    return text, None


def ask_judge(judge: Model, prompts, parse, retries: int, why=None,
              reasons: list | None = None) -> tuple[object, list[str], dict, str | None]:
    """Ask ``judge`` ``prompts(attempt)`` until ``parse`` reads the reply (the prefix of a
    completion prompt included), at most ``retries`` + 1 times.  Returns (parsed value or
    None, the raw replies, summed tokens, error or None).  A ModelError becomes the error
    (starting "judge: "); EndpointError propagates.  ``why(text, finish_reason)`` gives an
    unreadable reply's reason (neocoder/replies.py), appended to ``reasons`` per reply (None: readable)."""
    replies, tokens = [], {"prompt": 0, "completion": 0}
    for attempt in range(retries + 1):
        try:
            reply = judge.generate(prompts(attempt))
        except EndpointError:
            raise
        except ModelError as exc:
            return None, replies, tokens, f"judge: {exc}"
        replies.append(reply.text)
        tokens = {**tokens, **{k: tokens.get(k, 0) + v for k, v in _tokens(reply).items()}}
        value = parse(reply.code_prefix + reply.text)
        if reasons is not None:
            finish = (reply.extra or {}).get("finish_reason")
            why_not = why(reply.code_prefix + reply.text, finish) if why and value is None else None
            reasons.append(None if value is not None else why_not or "no marker")
        if value is not None:
            return value, replies, tokens, None
    return None, replies, tokens, f"judge reply unparseable after {retries + 1} attempts"


def judge_idea(idea: Idea, seat, settings: IdeasConfig, proto=OURS) -> IdeaJudgement:
    """One seat's scores of one kept idea (an error after the bounded retries), with the
    critic's analysis when it answered in the authors' format.  The call's budget and
    sampling are the seat's own ModelConfig (nothing is set per call here)."""
    reasons: list = []
    scores, replies, tokens, error = ask_judge(
        seat, lambda a: proto.judge_prompt(idea.keyword, idea.idea, a, settings.judge_retries),
        lambda text: proto.parse_reply(text)[0], settings.judge_retries, proto.reply_reason, reasons)
    analysis = proto.parse_reply(replies[-1])[1] if scores is not None else None
    return IdeaJudgement(model=idea.model, keyword_index=idea.keyword_index, keyword=idea.keyword,
                         idea_num=idea.idea_num, judge=seat.name, judge_spec=seat.spec, scores=scores, error=error,
                         replies=replies, tokens=tokens, analysis=analysis, reasons=reasons)


def grade_fluency(kept: list[Idea], seat, settings: IdeasConfig, proto=OURS) -> FluencyGrade:
    """One seat's fluency grade of the ideas ``kept`` (all of a keyword's kept ideas for our
    protocol, the pair A, B for the authors'; an error after the retries)."""
    first = kept[0]
    reasons: list = []
    grade, replies, tokens, error = ask_judge(
        seat, lambda a: proto.fluency_prompt(first.keyword, [i.idea for i in kept], a, settings.judge_retries),
        proto.parse_grade, settings.judge_retries, proto.grade_reason, reasons)
    return FluencyGrade(model=first.model, keyword_index=first.keyword_index, keyword=first.keyword,
                        judge=seat.name, judge_spec=seat.spec, idea_nums=[i.idea_num for i in kept], grade=grade,
                        score=None if grade is None else fluency_points(grade), error=error, replies=replies,
                        tokens=tokens, reasons=reasons)


def run_keyword(index: int, keyword: Keyword, writer: IdeaWriter, seats: dict, eligible: list[str],
                settings: IdeasConfig, done: dict, proto=OURS):
    """Write, judge and grade one keyword's ideas for one model, yielding each new record
    as it is made (the runner appends it).  ``seats``: seat name -> Seat; ``eligible``:
    the seat names that may judge this model; ``done``: this keyword's finished records
    from an earlier run (``{"ideas": {num: Idea}, "judgements": {(num, seat):
    IdeaJudgement}, "fluency": FluencyGrade | None}``), kept, not redone.  ``proto``: the
    protocol (protocol.py; default ours)."""
    kept = []
    for n in range(1, settings.ideas_per_keyword + 1):
        idea = done["ideas"].get(n)
        if idea is None:
            idea = write_idea(writer, keyword, index, n, settings, proto)
            if idea is None:  # a replayed source holds no more ideas for this keyword
                break
            yield idea
        if idea.status != "ok":
            continue
        kept.append(idea)
        for name in draw_judges(eligible, settings.judges_per_idea, settings.seed, keyword.text, n):
            if (n, name) not in done["judgements"]:
                yield judge_idea(idea, seats[name], settings, proto)
    graded, shown = done["fluency"], proto.fluency_ideas(kept)
    if len(kept) >= 2 and (graded is None or graded.idea_nums != [i.idea_num for i in shown]):
        yield grade_fluency(shown, seats[draw_fluency_judge(eligible, settings.seed, keyword.text)], settings, proto)


def resume_state(folder: RunFolder, model_name: str) -> dict[tuple, dict]:
    """The finished records of ``model_name`` per (keyword index, keyword): ``{"ideas":
    {num: Idea}, "judgements": {(num, seat): IdeaJudgement}, "fluency": FluencyGrade |
    None}``.  Keyed by the text too, so a folder resumed with another keywords file never
    takes one keyword's records for another's."""
    state: dict[tuple, dict] = {}

    def of(k):
        return state.setdefault(k, {"ideas": {}, "judgements": {}, "fluency": None})
    for rec in folder.read():
        if getattr(rec, "model", None) != model_name or not rec.finished:
            continue
        if isinstance(rec, Idea):
            of((rec.keyword_index, rec.keyword))["ideas"][rec.idea_num] = rec
        elif isinstance(rec, IdeaJudgement):
            of((rec.keyword_index, rec.keyword))["judgements"][(rec.idea_num, rec.judge)] = rec
        elif isinstance(rec, FluencyGrade):
            of((rec.keyword_index, rec.keyword))["fluency"] = rec
    return state
