"""Panel files and the panel rules of LiveIdeaBench.

A panel file (TOML, ``--panel FILE``) lists judge seats, each ``[[judge]]`` with ``name``,
``spec``, ``organisation``, ``base``, ``reasoning`` and optionally model options of that
seat (any ModelConfig field: ``max_tokens``, ``timeout``, ...; the seam through which a
reasoning judge gets its own budget and request parameters).  The default panel,
``liveideabench_panel.toml`` shipped in this package, is the authors' critic list
(``CRITIC_MODELS`` in their ``config.py``) with attribution; ``--protocol official``
uses it when neither ``--judges`` nor ``--panel`` is given.

The rules (LiveIdeaBench, "Experimental Protocol": the panel's diversity constraints), each
named so an error or warning says which one broke:

- ``organisation-cap``: at most two models (distinct specs) per organisation;
- ``one-per-base``: one model per base model (a reasoning variant and its base, or two
  reasoning efforts of one model, never sit together);
- ``no-self-judging``: the idea model never judges its own ideas (its seats are left out
  for it; panel.py ``eligible``).

``check_rules`` refuses a panel breaking the first two (NeocoderError) under
``--panel-rules refuse`` (the default) and warns under ``warn``; the third always holds
(its seats are left out, with a warning naming the rule).  Seats given with ``--judges``
have their organisation read from an OpenRouter-style name (``openai/anthropic/claude-...``:
``anthropic``) and their base from the name without reasoning marks (``:thinking``,
``-thinking``, ``-high``/``-medium``/``-low``, ``:free``); a seat whose organisation
cannot be read (``local/gemma-3-270m``, ``openai/j1``) is outside the first two rules.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import tomllib

from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError, RecordError

DEFAULT_PANEL = "liveideabench_panel.toml"
ORG_CAP = 2
RULES = ("organisation-cap", "one-per-base", "no-self-judging")
_ENTRY_KEYS = {"name", "spec", "organisation", "base", "reasoning"}
_MARKS = re.compile(r"(:thinking|:free|:beta|:extended|-thinking|-(?:high|medium|low)$)", re.I)


class PanelWarning(UserWarning):
    """A panel rule broken under ``--panel-rules warn``, or a seat left out (no-self-judging)."""


@dataclass(frozen=True)
class PanelEntry:
    """One seat of a panel: name, spec, organisation and base (None: unknown), reasoning,
    and the seat's own model options (ModelConfig fields)."""

    name: str
    spec: str
    organisation: str | None = None
    base: str | None = None
    reasoning: bool = False
    options: dict = field(default_factory=dict)


def default_panel_path() -> Path:
    """The shipped default panel file (the authors' critics)."""
    return Path(str(resources.files("neocoder.benchmarks.ideas").joinpath(DEFAULT_PANEL)))


def load_panel(path: Path | None = None) -> list[PanelEntry]:
    """The seats of the panel file ``path`` (default: ``default_panel_path()``), in order.
    Raises RecordError naming the file, the entry and the field for unreadable TOML, a
    missing name or spec, a repeated name, or an option that is not a ModelConfig field."""
    path = Path(path) if path is not None else default_panel_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RecordError(path, "-", "judge", f"not a readable TOML panel file: {exc}") from None
    judges = data.get("judge")
    if not isinstance(judges, list) or not judges:
        raise RecordError(path, "-", "judge", "no [[judge]] entries")
    known = {f.name for f in dataclasses.fields(ModelConfig)} - {"spec"}
    out, seen = [], set()
    for i, entry in enumerate(judges, 1):
        where = f"judge {i}"
        for key in ("name", "spec"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise RecordError(path, where, key, "missing or not a text")
        if entry["name"] in seen:
            raise RecordError(path, where, "name", f"{entry['name']!r} is named twice")
        seen.add(entry["name"])
        options = {k: v for k, v in entry.items() if k not in _ENTRY_KEYS}
        if "reasoning" in entry:  # a seat said to be a reasoning model is also called as one (ModelConfig.reasoning)
            options["reasoning"] = bool(entry["reasoning"])
        for key in options:
            if key not in known:
                raise RecordError(path, where, key, f"not a model option; known: {', '.join(sorted(known))}")
        out.append(PanelEntry(entry["name"], entry["spec"], entry.get("organisation"), entry.get("base"),
                              bool(entry.get("reasoning", False)), options))
    return out


def infer_entry(name: str, spec: str) -> PanelEntry:
    """A seat given with ``--judges``: organisation and base read from its spec (module docstring)."""
    model = spec.partition("/")[2]
    org, slash, short = model.partition("/")
    if not slash:
        return PanelEntry(name, spec)
    base = _MARKS.sub("", short).lower()
    return PanelEntry(name, spec, org.lower(), base, base != short.lower())


def rule_breaks(entries: list[PanelEntry]) -> list[tuple[str, str]]:
    """The rules ``entries`` break, as (rule name, message) pairs; models are counted by
    distinct spec (several seats of one model are one model)."""
    models: dict[str, PanelEntry] = {}
    for e in entries:
        models.setdefault(e.spec, e)
    breaks = []
    by_org: dict[str, list[str]] = {}
    by_base: dict[str, list[str]] = {}
    for e in models.values():
        if e.organisation:
            by_org.setdefault(e.organisation.lower(), []).append(e.name)
        if e.organisation and e.base:
            by_base.setdefault(f"{e.organisation.lower()}/{e.base.lower()}", []).append(e.name)
    for org, names in by_org.items():
        if len(names) > ORG_CAP:
            breaks.append(("organisation-cap", f"{len(names)} models of {org} ({', '.join(names)}); at most "
                                               f"{ORG_CAP} per organisation"))
    for base, names in by_base.items():
        if len(names) > 1:
            breaks.append(("one-per-base", f"{', '.join(names)} share the base model {base}; keep one of them"))
    return breaks


def check_rules(entries: list[PanelEntry], mode: str = "refuse") -> list[str]:
    """Check the organisation cap and the base/reasoning pairs: NeocoderError naming the
    rule(s) when ``mode`` is "refuse", else a PanelWarning per broken rule.  Returns the
    messages (``rule: message``), for the manifest."""
    found = [f"panel rule {rule}: {message}" for rule, message in rule_breaks(entries)]
    if found and mode == "refuse":
        raise NeocoderError("; ".join(found) + " (LiveIdeaBench's panel rules, docs/ideas.md; --panel-rules warn "
                                               "runs anyway)")
    for message in found:
        warnings.warn(message, PanelWarning, stacklevel=2)
    return found


def left_out(entries: list[PanelEntry], idea_spec: str) -> list[str]:
    """The seats of ``idea_spec`` (rule ``no-self-judging``: never judging their own ideas),
    each warned about once; returns their names."""
    names = [e.name for e in entries if e.spec == idea_spec]
    if names:
        warnings.warn(f"panel rule no-self-judging: {', '.join(names)} ({idea_spec}) will not judge the ideas of "
                      f"{idea_spec}", PanelWarning, stacklevel=2)
    return names


def judge_configs(entries: list[PanelEntry], shared: ModelConfig) -> list[ModelConfig]:
    """One ModelConfig per seat: the judges' shared options (``shared``) with the seat's
    spec and its own options on top.  NeocoderError naming the seat for a bad option."""
    out = []
    for e in entries:
        try:
            out.append(shared.with_(spec=e.spec, **e.options))
        except TypeError as exc:
            raise NeocoderError(f"panel seat {e.name!r}: {exc}") from None
    return out


def against_clone(entries: list[PanelEntry], clone: Path) -> dict:
    """The shipped default panel beside the clone's ``CRITIC_MODELS`` (official.py
    ``critic_models``): ``{"file": "config.py", "sha256", "same": bool}``, with a
    PanelWarning naming both lists when they differ (a newer clone: pass ``--panel``)."""
    import hashlib

    from neocoder.benchmarks.ideas.official import CONFIG_PY, critic_models
    theirs = critic_models(clone)
    ours = [e.spec.partition("/")[2] for e in entries]
    same = ours == theirs
    if not same:
        warnings.warn(f"the default panel ({', '.join(ours)}) is not the clone's CRITIC_MODELS ({', '.join(theirs)}); "
                      "write a panel file of theirs and pass --panel FILE", PanelWarning, stacklevel=2)
    return {"file": CONFIG_PY, "sha256": hashlib.sha256((Path(clone) / CONFIG_PY).read_bytes()).hexdigest(),
            "same": same}
