"""Replies taken from an inspect_ai log: ``inspect/<log file>``.

A run made in inspect (``inspect eval neocoder/neocoder --model ...``, docs/inspect.md)
logs every sample's completion; ``neocoder eval --model inspect/<log file>`` answers each
prompt with the completion logged for its (problem, state, sample), so the run gets
NeoCoder's run folder, report, intervals and comparison.  The key is read from each
sample's metadata (``problem_id``, ``state``, ``sample``: what the neocoder task puts
there), the log through inspect_ai's own reader (``inspect_ai.log.read_eval_log``; the
``.eval`` and ``.json`` formats), so this provider needs inspect_ai
(``pip install 'neocoder[inspect]'``).
"""

from __future__ import annotations

from pathlib import Path

from neocoder.config import ModelConfig
from neocoder.errors import RecordError
from neocoder.models.base import Model, ModelError, NoRecordedReply, Prompt, Reply


def read_log_replies(path: Path) -> tuple[str, dict[tuple, Reply | str]]:
    """(the logged model's name, (problem_id, state, sample) -> its ``Reply``, or the error
    string of a sample whose model call failed) from the inspect log at ``path``.

    Raises ModelError when inspect_ai is missing or the file is not an inspect log;
    RecordError naming the file, the sample and the field when a sample lacks the
    NeoCoder key or appears twice (several epochs: use ``-T samples=N`` instead)."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise ModelError("--model inspect/<log> reads inspect_ai logs: pip install 'neocoder[inspect]'") from exc
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect raises its own and pydantic's errors for a file that is not a log
        raise ModelError(f"{path}: not an inspect_ai log ({type(exc).__name__}: {exc})") from exc
    replies: dict[tuple, Reply | str] = {}
    for sample in log.samples or []:
        meta = sample.metadata or {}
        for name in ("problem_id", "state", "sample"):
            if name not in meta:
                raise RecordError(path, f"sample {sample.id}", f"metadata.{name}",
                                  "missing: not a sample of the neocoder task")
        key = (str(meta["problem_id"]), int(meta["state"]), int(meta["sample"]))
        if key in replies:
            raise RecordError(path, f"sample {sample.id} epoch {sample.epoch}", "epoch",
                              "a second reply for this sample: run with -T samples=N, not --epochs")
        output = sample.output
        if sample.error is not None or output is None or not output.choices:
            replies[key] = str(sample.error.message if sample.error else "no completion logged")
            continue
        usage = output.usage
        replies[key] = Reply(text=output.completion, prompt_tokens=usage.input_tokens if usage else None,
                             completion_tokens=usage.output_tokens if usage else None,
                             extra={"recorded_model": log.eval.model, "prompt_sha256": meta.get("prompt_sha256")})
    return log.eval.model, replies


class InspectLogReplay(Model):
    """Answers a NeoCoder prompt with the completion an inspect log holds for its key."""

    def __init__(self, name: str, path: Path):
        if not path.is_file():
            raise ModelError(f"{name}: no inspect log at {path}")
        self.name, self.path = name, path
        self.logged_model, self.replies = read_log_replies(path)

    def generate(self, prompt: Prompt) -> Reply:
        """The logged completion for ``prompt.replay_key``.  Raises NoRecordedReply naming the
        log and the sample when the log has none; ModelError where the logged call failed."""
        key = prompt.replay_key
        if key is None:
            raise ModelError(f"{self.name}: this prompt carries no replay key, so no logged reply answers it")
        got = self.replies.get((key.item, key.step, key.sample))
        if got is None:
            raise NoRecordedReply(f"{self.path}: no logged sample {key.item}/t{key.step}/s{key.sample} "
                                  f"(problem {key.item}, state {key.step}, sample {key.sample})")
        if isinstance(got, str):
            raise ModelError(f"{self.path}: sample {key.item}/t{key.step}/s{key.sample}: the logged call failed: {got}")
        logged = got.extra.get("prompt_sha256")
        if logged and logged != prompt.sha256():
            raise ModelError(f"{self.path}: sample {key.item}/t{key.step}/s{key.sample} (metadata.prompt_sha256): the "
                             "log answered another prompt (another dataset or statement): score it with the dataset "
                             "it was made with")
        return Reply(text=got.text, prompt_tokens=got.prompt_tokens, completion_tokens=got.completion_tokens,
                     extra=dict(got.extra))

    def recorded_items(self) -> list[str]:
        """The problem ids the log holds samples of, in first-seen order."""
        return list(dict.fromkeys(k[0] for k in self.replies))


def from_config(name: str, config: ModelConfig) -> InspectLogReplay:
    """``inspect/<log file>``: the replies of an inspect_ai log (``.eval`` or ``.json``)."""
    return InspectLogReplay(config.spec, Path(name))
