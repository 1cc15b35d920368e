"""The judge panel: reading ``--judges``, leaving the idea model out, drawing judges.

A panel is a list of seats, each a name and a model.  ``--judges`` takes comma-separated
entries ``[NAME=]PROVIDER/NAME``: the name is how the seat appears in the records and the
report (default: the spec), so one model can sit in several seats under distinct names,
e.g. ``--judges a=local/gemma-3-270m,b=local/gemma-3-270m,openai/gpt-4o``.  Seats of one
spec share one model (one local server) and the call cache, so at temperature 0 they
give the same replies: a name gives a seat, not a different model.

**No self-judging** (LiveIdeaBench: the idea model never judges its own ideas): a seat
whose *spec* is the idea model's spec, or the spec of the model that wrote replayed
ideas (``replay/...``), is left out, whatever its name.  When fewer than
``judges_per_idea`` seats remain, the run is refused before any call (NeocoderError).

**The draw**: for each idea, ``judges_per_idea`` distinct seats drawn uniformly without
replacement from the remaining ones (``random.Random.sample``); for each keyword one seat
grades fluency.  The generator is seeded from SHA-256 of (seed, purpose, keyword, idea
number), so a draw does not depend on the order ideas are judged in, on --concurrency,
on --limit, on resuming, or on the idea model (two models' ideas for the same keyword
and number get the same judges when both exclude the same seats).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass

from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError
from neocoder.models import PROVIDERS, Model, Prompt, Reply

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]*")


@dataclass(frozen=True)
class SeatSpec:
    """One entry of ``--judges``: the seat's ``name`` and the model's ``spec``."""

    name: str
    spec: str


def parse_judges(text: str, option: str = "--judges") -> list[SeatSpec]:
    """``"a=local/gemma-3-270m,openai/gpt-4o"`` -> seats, in order.

    An entry is ``[NAME=]PROVIDER/NAME``; NAME (letters, digits, ``._:+-``, not starting
    with a punctuation mark) defaults to the spec.  Raises NeocoderError naming the
    option, the entry's position and the field for an empty entry, a spec without
    ``PROVIDER/`` or with an unknown provider, a bad name, or a name used twice.
    """
    seats: list[SeatSpec] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(text.split(","), 1):
        entry = raw.strip()
        where = f"{option}: entry {i} ({entry!r})"
        if not entry:
            raise NeocoderError(f"{where}: field 'spec': empty entry (a doubled or trailing comma?)")
        name, sep, spec = entry.partition("=")
        if not sep:
            name, spec = entry, entry
        name, spec = name.strip(), spec.strip()
        if sep and not _NAME.fullmatch(name):
            raise NeocoderError(f"{where}: field 'name': {name!r} is not a name (letters, digits and ._:+-)")
        provider, slash, model = spec.partition("/")
        if not slash or not provider or not model:
            raise NeocoderError(f"{where}: field 'spec': {spec!r} is not PROVIDER/NAME")
        if provider not in PROVIDERS:
            raise NeocoderError(f"{where}: field 'spec': unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")
        if name in seen:
            raise NeocoderError(f"{where}: field 'name': {name!r} is already entry {seen[name]}; give each seat "
                                "its own name (NAME=PROVIDER/NAME)")
        seen[name] = i
        seats.append(SeatSpec(name, spec))
    return seats


def panel_names(judges: list[ModelConfig], names: list | None) -> list[str]:
    """The seat names of a panel: ``names`` when given (one per judge), else the specs.
    Raises NeocoderError when the counts differ or a name repeats."""
    shown = list(names) if names is not None else [j.spec for j in judges]
    if len(shown) != len(judges):
        raise NeocoderError(f"judge_names has {len(shown)} names for {len(judges)} judges")
    twice = sorted({n for n in shown if shown.count(n) > 1})
    if twice:
        raise NeocoderError(f"judge seat(s) named twice: {', '.join(twice)}; give each seat its own name "
                            "(--judges NAME=PROVIDER/NAME,...)")
    return shown


def eligible(seats: list[tuple[str, str]], idea_specs: set[str], needed: int, model_name: str) -> list[str]:
    """The seat names that may judge ``model_name``'s ideas: every seat ``(name, spec)``
    whose spec is not in ``idea_specs`` (the idea model's spec and, for replayed ideas,
    the recorded model's).  Raises NeocoderError when fewer than ``needed`` remain."""
    left = [name for name, spec in seats if spec not in idea_specs]
    if len(left) < needed:
        out = [f"{name} ({spec})" for name, spec in seats if spec in idea_specs]
        raise NeocoderError(
            f"{model_name}: the panel has {len(left)} judge(s) besides the idea model, fewer than the "
            f"{needed} drawn per idea (a model never judges its own ideas; left out: {', '.join(out) or 'none'}); "
            "add judges to --judges or lower --judges-per-idea")
    return left


def _rng(seed: int, purpose: str, keyword: str, idea_num: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}\0{purpose}\0{keyword}\0{idea_num}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def draw_judges(names: list[str], k: int, seed: int, keyword: str, idea_num: int) -> list[str]:
    """``k`` distinct seats of ``names`` for one idea, drawn uniformly without replacement
    with a generator seeded by (``seed``, keyword, idea number); listed in panel order.
    Raises ValueError when ``k`` > len(names)."""
    picked = set(_rng(seed, "idea", keyword, idea_num).sample(sorted(names), k))
    return [n for n in names if n in picked]


def draw_fluency_judge(names: list[str], seed: int, keyword: str) -> str:
    """The one seat that grades fluency for a keyword, drawn uniformly with a generator
    seeded by (``seed``, keyword)."""
    return _rng(seed, "fluency", keyword, 0).choice(sorted(names))


class Seat(Model):
    """A panel seat: a model under the seat's name (records and the report show the name;
    calls, and the call cache's keys, are the model's)."""

    def __init__(self, name: str, spec: str, inner: Model):
        self.name, self.spec, self.inner = name, spec, inner

    def generate(self, prompt: Prompt) -> Reply:
        """The seat's model's reply to ``prompt``.  Raises what that model raises."""
        return self.inner.generate(prompt)

    def request(self, prompt: Prompt) -> dict | None:
        """The seat's model's call-cache key for ``prompt`` (the seat's name is not part of it)."""
        return self.inner.request(prompt)
