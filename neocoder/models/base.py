"""One interface for every model: a prompt in, a reply (text and token counts) out."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


class ModelError(RuntimeError):
    """A model could not be reached, started, or gave no usable reply."""


def load_prompt(name: str) -> str:
    """Text of ``prompts/<name>``; raises ModelError if the file is missing."""
    path = PROMPTS_DIR / name
    if not path.is_file():
        raise ModelError(f"prompt file {path} not found")
    return path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Prompt:
    """A problem-solving prompt in both shapes a model may need.

    ``messages`` is for chat APIs; ``completion`` is plain text for completions APIs
    and ends with ``code_prefix``, the start of the program the model continues.
    """

    messages: tuple
    completion: str
    code_prefix: str
    stop: tuple | None = None  # completions API stop sequences (default: the code ones)

    def sha256(self) -> str:
        """Stable hash of the prompt (both shapes), for the samples file."""
        blob = json.dumps([list(self.messages), self.completion], sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def solve_prompt(statement: str) -> Prompt:
    """Build the problem-solving prompt from ``prompts/solve_*.txt`` for one statement."""
    system = load_prompt("solve_system.txt").strip()
    user = load_prompt("solve_user.txt").replace("{statement}", statement.strip())
    completion = load_prompt("solve_completion.txt").replace(
        "{statement}", statement.strip().replace('"""', "'''"))
    prefix_start = completion.index("import sys")
    return Prompt(
        messages=({"role": "system", "content": system}, {"role": "user", "content": user}),
        completion=completion,
        code_prefix=completion[prefix_start:],
    )


@dataclass
class Reply:
    """What a model returned for one prompt.

    ``text`` is the raw reply; ``code_prefix`` is what the program starts with when
    the reply continues a completion prompt ("" for chat replies).  Token counts are
    None where the provider does not report them; ``seconds`` is wall time.
    """

    text: str
    code_prefix: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


class Model:
    """Base class: ``name`` is the ``PROVIDER/NAME`` given on the command line."""

    name: str = "?"

    def generate(self, prompt: Prompt, state: dict) -> Reply:  # pragma: no cover - interface
        """Answer ``prompt`` for problem state ``state`` (a canonical record)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (servers, connections)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
