"""A generator's reply read before it is judged (issue 56; docs/aidanbench.md): whether
it holds an answer (``read_generator_reply``, after ``replies.read_answer``), the record of
one that holds none (``no_answer_record``), the chain-of-thought split (``split_reasoning``)
and the embedder's call as a question's error (``embedded``).  ``loop.py`` runs them."""

from __future__ import annotations

import re

from neocoder.benchmarks.aidanbench.records import Answer
from neocoder.models import ModelError, Reply
from neocoder.models.base import EndpointError
from neocoder.replies import ECHO, EMPTY, REASONING_ONLY, read_answer

_ANSWER_MARK = re.compile(r"(?:^|\s)\**\s*(?:final\s+)?answer\s*\**\s*:\s*\**\s*", re.I)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """(answer, reasoning) of a chain-of-thought reply: the answer is what follows the
    last "Answer:" (or "Final answer:", any case), the reasoning what comes before it.
    A reply without the mark is all answer, with reasoning None; so is a mark with
    nothing after it (the whole reply is kept rather than an empty answer)."""
    marks = list(_ANSWER_MARK.finditer(text))
    if not marks:
        return text.strip(), None
    last = marks[-1]
    answer, reasoning = text[last.end():].strip(), text[:last.start()].strip()
    if not answer:
        return text.strip(), None
    return answer, reasoning or None




def embedded(embedder, texts: list[str]) -> tuple:
    """``(embedder.embed(texts), None, None)``: shape (len(texts), d); or ``(None, "error",
    "embedder: <why>")`` when the embedder gave no usable embeddings (a ModelError: a
    dropped connection, a body that is no list of embeddings), the question's error.  An
    embeddings endpoint that cannot be reached or refuses the request (EndpointError) stops
    the run."""
    try:
        return embedder.embed(texts), None, None
    except EndpointError:
        raise
    except ModelError as exc:
        return None, "error", f"embedder: {exc}"


NO_ANSWER = "no answer"  # the stop of a question whose generator reply held no answer (docs/aidanbench.md)


def read_generator_reply(reply: Reply, shown: str, shown_first: str | None,
                         cot: bool = False) -> tuple[str, str | None, str | None]:
    """(answer, reasoning, why there is no answer) of a generator reply, read before it is
    judged (``replies.read_answer``, docs/replies.md; issue 56): ``empty``, ``reasoning
    only`` (inline thinking and nothing after it, or thinking returned apart with an empty
    text), ``echo`` (the prompt's instructions or the question sent back), ``refusal`` (the
    reply opens with one), else None with the answer (``cot``: the text after the last
    "Answer:", ``split_reasoning``).

    An answer cut at the token limit is an answer (AidanBench's answers are short and the
    budget is the benchmark's own: its coherence is the judge's to rate; ``finish_reason``
    is kept in the record), except with ``cot`` when the cut came before any "Answer:"
    mark: then the reply holds reasoning only and is ``cut off``.  A reply repeating an
    earlier answer (in ``shown``, the prompt's text, but not in ``shown_first``, the
    prompt of the question's first answer; None for the first answer) is no echo: it is an answer, whose
    novelty stops the question as repetitive, as the paper's rule says."""
    finish = (reply.extra or {}).get("finish_reason")
    reading = read_answer(reply.text, shown, finish, cut_off=False)
    if reading.reason == ECHO and shown_first is not None and read_answer(reply.text, shown_first, finish,
                                                                         cut_off=False).readable:
        reading = read_answer(reply.text, None, finish, cut_off=False)  # an earlier answer again, not the prompt
    if reading.reason == EMPTY and (reply.reasoning or "").strip():
        return "", None, REASONING_ONLY  # the thinking came apart from an empty answer
    if not reading.readable:
        return "", None, reading.reason
    if not cot:
        return reading.value.strip(), None, None
    answer, reasoning = split_reasoning(reading.value)
    if reasoning is None and finish == "length":
        return "", answer, "cut off"  # cut before its "Answer:": reasoning only, no answer
    return answer, reasoning, None


def no_answer_record(model: str, index: int, question: str, number: int, reply: Reply, why: str, scale: int,
                     seconds: float) -> Answer:
    """The ``Answer`` record of a generator reply that held no answer (``why``, one of
    ``replies.ANSWER_REASONS``): the raw reply as ``answer``, no coherence, no novelty,
    ``stop`` "no answer"; it stops its question and is never judged or embedded."""
    return Answer(model=model, question_index=index, question=question, answer_num=number, answer=reply.text or "",
                  stop=NO_ANSWER, no_answer=why, finish_reason=(reply.extra or {}).get("finish_reason"),
                  tokens={"generator": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens}},
                  seconds={"generate": round(seconds, 3)}, coherence_scale=scale)
