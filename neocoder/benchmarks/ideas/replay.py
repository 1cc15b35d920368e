"""Recorded ideas judged again: ``neocoder ideas --model replay/SOURCE``.

SOURCE is an earlier ideas run folder (its ``Idea`` records) or a JSONL file of ideas,
one per line: ``{"model": str (optional), "keyword": str, "idea": str, "idea_num": int
(optional: the order of the model's ideas for the keyword), "category": str
(optional)}``.  A source holding several models' ideas gives one replay model per
recorded model (``replay/SOURCE#model``), each judged on its own, as AidanBench's
recorded answers are.  No network: the recorded text answers the idea prompt, the
length and refusal rules apply to it again, and a recorded refusal answers the first
prompt while the recorded fallback reply answers the fallback prompt.

This lives beside the ideas loop rather than in ``neocoder/models/replay.py``, whose
run-folder source reads NeoCoder samples and AidanBench answers only.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.benchmarks.ideas.records import Idea
from neocoder.benchmarks.ideas.sources import Keyword
from neocoder.errors import NeocoderError, RecordError
from neocoder.models import Model, ModelError, NoRecordedReply, Prompt, Reply
from neocoder.records import Manifest
from neocoder.store import RunFolder, jsonl_lines

MAIN, FALLBACK = 0, 1  # ReplayKey.sample of the idea prompt and of the fallback prompt


class RecordedIdeas(Model):
    """Recorded ideas of one model (or of several, answered through ``variants()``).

    ``replies``: recorded model -> {(keyword, idea_num, MAIN or FALLBACK): text};
    ``keywords``: the recorded keywords in first-seen order.  Raises NoRecordedReply for
    an idea the source does not hold.
    """

    def __init__(self, name: str, replies: dict[str, dict[tuple, str]], keywords: list[Keyword]):
        self.name, self.replies, self.keywords = name, replies, keywords

    @property
    def recorded_models(self) -> set[str]:
        """Who wrote the ideas: never a judge of them."""
        return set(self.replies)

    def generate(self, prompt: Prompt) -> Reply:
        """The recorded idea for the prompt's replay key (keyword, idea number, MAIN or
        FALLBACK; the main reply again when no fallback was recorded), with ``recorded_model``
        in the reply's ``extra``.  Raises ModelError for a prompt with no replay key or a
        source of several models (replay its variants), NoRecordedReply for an idea it lacks."""
        key = prompt.replay_key
        if key is None:
            raise ModelError(f"{self.name}: this prompt carries no replay key, so no recorded idea answers it")
        if len(self.replies) != 1:
            raise ModelError(f"{self.name} holds the ideas of {len(self.replies)} models: replay each variant")
        (model, table), = self.replies.items()
        text = table.get((key.item, key.step, key.sample))
        if text is None and key.sample == FALLBACK:
            text = table.get((key.item, key.step, MAIN))  # no fallback recorded: the same reply again
        if text is None:
            raise NoRecordedReply(f"{self.name}: no recorded idea {key.step} for keyword {key.item!r}")
        return Reply(text=text, extra={"recorded_model": model})

    def recorded_items(self) -> list[str]:
        """The recorded keywords' texts, in first-seen order."""
        return [k.text for k in self.keywords]

    def variants(self) -> list[Model]:
        """One replay model per recorded model (``<name>#<model>``) when the source holds several."""
        if len(self.replies) <= 1:
            return [self]
        return [RecordedIdeas(f"{self.name}#{model}", {model: table},
                              [k for k in self.keywords if any(key[0] == k.text for key in table)])
                for model, table in self.replies.items()]


def is_ideas_source(path: Path) -> bool:
    """True for an ideas run folder (manifest kind "ideas") or a ``.jsonl`` file."""
    path = Path(path)
    if path.is_dir():
        try:
            return RunFolder(path, create=False).read_manifest().kind == "ideas"
        except NeocoderError:
            return False
    return path.is_file()


def load_recorded_ideas(spec: str) -> RecordedIdeas:
    """``replay/SOURCE`` -> a RecordedIdeas model.  Raises NeocoderError for a source that
    is neither an ideas run folder nor a file, RecordError (file, line, field) for a bad
    line, and NeocoderError for a source without ideas."""
    path = Path(spec.partition("/")[2])
    replies: dict[str, dict[tuple, str]] = {}
    keywords: dict[str, Keyword] = {}
    if path.is_dir():
        manifest: Manifest = RunFolder(path, create=False).read_manifest()
        if manifest.kind != "ideas":
            raise NeocoderError(f"{path}: a {manifest.kind!r} run folder; replay needs an ideas run folder or a "
                                "JSONL file of ideas")
        for idea in sorted(RunFolder(path, create=False).read(Idea), key=lambda i: (i.keyword_index, i.idea_num)):
            if idea.status == "error" or idea.reply is None:
                continue
            table = replies.setdefault(idea.recorded_model or idea.model, {})
            keywords.setdefault(idea.keyword, Keyword(idea.keyword, idea.category))
            if idea.fallback:
                table[(idea.keyword, idea.idea_num, MAIN)] = idea.refused_reply or ""
                table[(idea.keyword, idea.idea_num, FALLBACK)] = idea.reply
            else:
                table[(idea.keyword, idea.idea_num, MAIN)] = idea.reply
    elif path.is_file():
        counts: dict[tuple, int] = {}
        for number, row in jsonl_lines(path):
            if not isinstance(row, dict):
                raise RecordError(path, f"line {number}", "-", "expected a JSON object")
            for name in ("keyword", "idea"):
                if not isinstance(row.get(name), str) or not row[name].strip():
                    raise RecordError(path, f"line {number}", name, "missing, empty or not a string")
            model = str(row.get("model") or "recorded")
            keyword = " ".join(row["keyword"].split())
            counts[(model, keyword)] = counts.get((model, keyword), 0) + 1
            num = row.get("idea_num", counts[(model, keyword)])
            if not isinstance(num, int) or isinstance(num, bool) or num < 1:
                raise RecordError(path, f"line {number}", "idea_num", f"{num!r} is not a positive whole number")
            table = replies.setdefault(model, {})
            if (keyword, num, MAIN) in table:
                raise RecordError(path, f"line {number}", "idea_num",
                                  f"idea {num} of {keyword!r} appears twice for model {model!r}")
            table[(keyword, num, MAIN)] = row["idea"]
            keywords.setdefault(keyword, Keyword(keyword, str(row.get("category") or "")))
    else:
        raise NeocoderError(f"{path}: no such run folder or ideas file (replay/SOURCE needs an ideas run folder "
                            "or a JSONL file of ideas)")
    if not replies:
        raise NeocoderError(f"{path}: no recorded ideas")
    return RecordedIdeas(spec, replies, list(keywords.values()))
