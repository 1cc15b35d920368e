"""Plain-text prompts for the framework's calls, and the meter that counts every call.

Each call is one text, sent as a user message to chat models and as the completion prompt
to base models (the local llama.cpp model); its sampling (temperature, top_p, seed,
max_tokens, log-probabilities) goes on the ``Prompt`` as per-call overrides, so one model
serves the candidates (T = 1.0) and the judge (T = 0) alike.  ``Meter`` adds up the calls
and tokens of one judge (or one step) so the records say what each part cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from neocoder.models import Model, Prompt, Reply
from neocoder.resources import prompt_text

TEXT_STOP = ("\n\n\n",)  # a base model's reply ends at a blank gap


def fill(name: str, **values) -> str:
    """The prompt file ``prompts/<name>`` with ``{key}`` replaced by ``values`` (str())."""
    text = prompt_text(name)
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def text_prompt(text: str, max_tokens: int, stop: tuple | None = TEXT_STOP, **sampling) -> Prompt:
    """A Prompt asking ``text`` of a chat model (one user message) or a base model (the
    completion prompt); ``sampling``: temperature, top_p, seed, logprobs overrides."""
    return Prompt(messages=({"role": "user", "content": text},), completion=text, code_prefix="",
                  stop=stop, max_tokens=max_tokens, **sampling)


@dataclass
class Meter:
    """Calls and tokens of one judge or loop: ``add(reply)`` after each call."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, reply: Reply) -> Reply:
        """Count ``reply`` (one call, its prompt and completion tokens) and return it."""
        with self.lock:
            self.calls += 1
            self.prompt_tokens += reply.prompt_tokens or 0
            self.completion_tokens += reply.completion_tokens or 0
        return reply

    def ask(self, model: Model, prompt: Prompt) -> Reply:
        """``model.generate(prompt)``, counted.  Raises what the model raises."""
        return self.add(model.generate(prompt))

    def judge_turn(self, model: Model, transcript: list, text: str, max_tokens: int, **where) -> Reply:
        """One judge turn: ``text`` asked of ``model`` (greedy, at most ``max_tokens``),
        counted, and kept in ``transcript`` with ``where`` it happened, its tokens and the
        endpoint's finish reason.  Returns the Reply.  Raises what the model raises."""
        reply = self.ask(model, text_prompt(text, max_tokens, temperature=0.0))
        transcript.append({**where, "reply": reply.text, "finish_reason": (reply.extra or {}).get("finish_reason"),
                           "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens})
        if reply.reasoning:
            transcript[-1]["reasoning"] = reply.reasoning
        return reply

    def to_dict(self) -> dict:
        """``{"calls", "prompt_tokens", "completion_tokens"}`` so far, for a record."""
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


def read_turn(transcript: list, grammar, reply: Reply, prompt: str):
    """Read the judge turn just kept in ``transcript`` (its last entry) with ``grammar``
    (grammars.py), keep the reading on it under ``readings[grammar.name]`` (``{"value",
    "reason"}``) and return the ``Reading``."""
    from neocoder.benchmarks.framework.grammars import read, reading_dict
    reading = read(grammar, reply, prompt)
    transcript[-1].setdefault("readings", {})[grammar.name] = reading_dict(reading)
    return reading

