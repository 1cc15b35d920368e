"""Recorded replies answered without any network: ``replay/<source>``.

Three sources, one provider:

- ``replay/gpt-4-1106-preview``: the NeoCoder release records, for every problem and
  Denial Prompting round, the augmentation model's own solution (``codes`` in
  NeoCoder.json, written by gpt-4-1106-preview); neocoder ships them with its dataset
  (neocoder/dataset/shipped.py); a ``ModelConfig.release_dir`` given reads a release's
  own file instead.  State t of a problem is answered with the code recorded at the state's
  ``source_index`` (the first round holding its list).
- ``replay/<run folder>``: the replies recorded in any earlier run's ``records.jsonl``
  (NeoCoder samples or AidanBench answers, of any model), so a run can be judged again
  (a new checker, detector or threshold) without calling the model.
- ``replay/<answers.jsonl>``: recorded AidanBench answers, lines ``{"model", "question",
  "answer_num", "answer"}``, the form published results come in; a file holding several
  models' answers gives one replay model per recorded model (``variants()``).

The prompt's ``replay_key`` says which recorded reply answers it.  The model layer reads
the recorded codes only through the dataset stage's loaders (``shipped.recorded_codes``,
``load_release_problems``), a stage to its left, and builds no prompt.
"""

from __future__ import annotations

from pathlib import Path

from neocoder.config import ModelConfig
from neocoder.dataset import load_release_problems, shipped
from neocoder.errors import RecordError
from neocoder.models.base import Model, ModelError, NoRecordedReply, Prompt, ReplayKey, Reply
from neocoder.store import RunFolder, jsonl_lines

RECORDED_MODELS = {"gpt-4-1106-preview"}


class ReleaseReplay(Model):
    """Answers from the recorded ``codes``: the shipped ones, or those in
    ``<release_dir>/NeoCoder.json`` when a release is given.

    Raises ModelError for an unknown recorded model; NoRecordedReply when a prompt asks
    for a problem or index the recording does not hold.
    """

    def __init__(self, name: str, recorded: str, release_dir: Path | None = None):
        if recorded not in RECORDED_MODELS:
            raise ModelError(f"no recorded outputs for {recorded!r}: give one of {sorted(RECORDED_MODELS)}, "
                             "an earlier run folder, or a recorded answers JSONL file")
        self.name = name
        self.codes = shipped.recorded_codes(recorded) if release_dir is None else \
            {p["problem_id"]: p["codes"] for p in load_release_problems(release_dir)}

    def generate(self, prompt: Prompt) -> Reply:
        """The recorded reply for ``prompt``'s replay key.  Raises NoRecordedReply when none is recorded."""
        key = _key_of(self, prompt)
        codes = self.codes.get(key.item)
        index = key.step if key.source_index is None else key.source_index
        if codes is None or not 0 <= index < len(codes):
            raise NoRecordedReply(f"{self.name}: no recorded code for {key.item} index {index}")
        return Reply(text=codes[index])


class RecordedReplay(Model):
    """Answers from recorded replies, per recorded model, keyed by (item, step, sample):
    NeoCoder samples (problem id, state, sample) or AidanBench answers (question, answer
    number, 0).  A source of several models answers through its ``variants()``."""

    def __init__(self, name: str, replies: dict[str, dict[tuple, Reply]], items: list[str]):
        self.name, self.replies, self.items = name, replies, items

    def generate(self, prompt: Prompt) -> Reply:
        """The recorded reply for ``prompt``'s replay key.  Raises NoRecordedReply when none is recorded."""
        key = _key_of(self, prompt)
        if len(self.replies) != 1:
            raise ModelError(f"{self.name} holds the replies of {len(self.replies)} models: replay each variant")
        got = next(iter(self.replies.values())).get((key.item, key.step, key.sample))
        if got is None:
            raise NoRecordedReply(f"{self.name}: no recorded reply for {key.item!r} step {key.step} "
                                  f"sample {key.sample}")
        return Reply(text=got.text, code_prefix=got.code_prefix, extra=dict(got.extra))

    def recorded_items(self) -> list[str]:
        """The items (problem ids, questions) the recording holds, in order."""
        return list(self.items)

    def variants(self) -> list[Model]:
        """One replay model per recorded model (``<name>#<model>``) when the source holds several."""
        if len(self.replies) <= 1:
            return [self]
        return [RecordedReplay(f"{self.name}#{model}", {model: replies},
                               [i for i in self.items if any(k[0] == i for k in replies)])
                for model, replies in self.replies.items()]


def _key_of(model: Model, prompt: Prompt) -> ReplayKey:
    if prompt.replay_key is None:
        raise ModelError(f"{model.name}: this prompt carries no replay key, so no recorded reply answers it")
    return prompt.replay_key


def _from_run_folder(name: str, folder: Path) -> RecordedReplay:
    replies: dict[str, dict[tuple, Reply]] = {}
    items = []
    for rec in RunFolder(folder, create=False).read():
        recorded = rec.recorded_reply()
        if recorded is None:
            continue
        key, text, prefix = recorded
        reply = Reply(text=text, code_prefix=prefix)
        reply.extra["recorded_model"] = rec.model
        if getattr(rec, "finish_reason", None):  # a reply cut at the token limit is read as cut off again
            reply.extra["finish_reason"] = rec.finish_reason
        replies.setdefault(rec.model, {})[key] = reply
        items.append(key[0])
    if not replies:
        raise RecordError(folder, "-", "-", "no recorded replies in this run folder")
    return RecordedReplay(name, replies, list(dict.fromkeys(items)))


def _from_answers_file(name: str, path: Path) -> RecordedReplay:
    replies: dict[str, dict[tuple, Reply]] = {}
    items = []
    for number, row in jsonl_lines(path):
        if not isinstance(row, dict):
            raise RecordError(path, f"line {number}", "-", "expected an object")
        for field_name, kind in (("question", str), ("answer", str), ("answer_num", int)):
            if not isinstance(row.get(field_name), kind):
                raise RecordError(path, f"line {number}", field_name, f"missing or not {kind.__name__}")
        model = str(row.get("model") or "recorded")
        key = (row["question"], row["answer_num"], 0)
        if key in replies.get(model, {}):
            raise RecordError(path, f"line {number}", "answer_num",
                               f"appears twice for this question and model {model!r}")
        replies.setdefault(model, {})[key] = Reply(text=row["answer"], extra={"recorded_model": model})
        items.append(row["question"])
    if not replies:
        raise RecordError(path, "-", "-", "no recorded answers")
    return RecordedReplay(name, replies, list(dict.fromkeys(items)))


def from_config(name: str, config: ModelConfig) -> Model:
    """``replay/<name>``: a recorded model of the release, a run folder, or an answers file."""
    path = Path(name)
    if path.is_dir():
        return _from_run_folder(config.spec, path)
    if path.suffix == ".jsonl" or path.is_file():
        return _from_answers_file(config.spec, path)
    return ReleaseReplay(config.spec, name, config.release_dir)
