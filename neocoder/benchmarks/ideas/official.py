"""LiveIdeaBench's own files, read at run time from a clone of the authors' repository.

``--protocol official --liveideabench DIR`` points at the user's clone of the public
LiveIdeaBench repository (``x66ccff/liveideabench``, MIT; ``../shared/liveideabench/official``
in the tests).  Nothing of it is copied into neocoder: its texts are read when a run
starts and the manifest records the SHA-256 of every file read.  Read from the clone:

- ``utils/prompts.json``: ``idea_prompt.description`` (the idea prompt, ``{{keywords}}``
  for the keyword), ``idea_prompt.fallback_description`` (asked after a refusal),
  ``critic_prompt.description`` (the critic: a short analysis, then a JSON block with
  originality, feasibility and clarity 1-10) and ``fluency_critic_prompt.description``
  (two ideas ``{{A}}`` and ``{{B}}`` for ``{{keyword}}``, answered A-D);
- ``config.py``: the list ``CRITIC_MODELS`` (the authors' judge panel), read as Python
  syntax with ``ast`` (never imported or run: it reads API keys when imported);
- ``csvs/Livebench20250315.csv``, ``csvs/keyword_classifications.csv`` and
  ``results/LiveIdeaBench-202412.csv`` for the analyses (analyses.py).

The refusal phrases are not among those files (they are in the authors' code); the
official rule matches ``REFUSAL_PHRASES`` (our list, in our words) or the phrases of a
file given with ``--refusal-phrases`` anywhere in a reply (docs/ideas.md).
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass
from pathlib import Path

from neocoder.errors import NeocoderError, RecordError

PROMPTS_JSON = "utils/prompts.json"
CONFIG_PY = "config.py"
LIVEBENCH_CSV = "csvs/Livebench20250315.csv"
CLASSIFICATIONS_CSV = "csvs/keyword_classifications.csv"
LEADERBOARD_CSV = "results/LiveIdeaBench-202412.csv"
# (key path in prompts.json, placeholders its text must hold)
PROMPT_KEYS = {"idea": (("idea_prompt", "description"), ("{{keywords}}",)),
               "fallback": (("idea_prompt", "fallback_description"), ("{{keywords}}",)),
               "critic": (("critic_prompt", "description"), ()),
               "fluency": (("fluency_critic_prompt", "description"), ("{{keyword}}", "{{A}}", "{{B}}"))}
# Phrases that mark a refusal anywhere in a reply (lower case), ours: the authors' list is in their code.
REFUSAL_PHRASES = ("i'm sorry", "i am sorry", "i apologize", "i apologise", "i cannot", "i can't", "i can not",
                   "i won't", "i will not", "i must decline", "i am unable", "i'm unable", "i am not able",
                   "i'm not able", "as an ai", "i don't feel comfortable", "i do not feel comfortable")


@dataclass(frozen=True)
class OfficialFiles:
    """The authors' four prompts and where they were read: ``root`` (the clone) and
    ``files`` (the clone-relative paths read, for the manifest's hashes)."""

    root: Path
    idea: str
    fallback: str
    critic: str
    fluency: str
    files: tuple[str, ...] = (PROMPTS_JSON,)


def clone_dir(path: Path | None) -> Path:
    """The clone: ``path``, else ``$LIVEIDEABENCH_REPO``.  NeocoderError when neither is given
    or the folder has no ``utils/prompts.json``."""
    if path is None:
        env = os.environ.get("LIVEIDEABENCH_REPO")
        if not env:
            raise NeocoderError("--protocol official needs a clone of the LiveIdeaBench repository: give "
                                "--liveideabench DIR (or set LIVEIDEABENCH_REPO)")
        path = Path(env)
    path = Path(path)
    if not (path / PROMPTS_JSON).is_file():
        raise NeocoderError(f"{path}: not a LiveIdeaBench clone (no {PROMPTS_JSON}); --liveideabench names the "
                            "folder holding utils/ and config.py")
    return path.resolve()


def load_official(path: Path | None) -> OfficialFiles:
    """The authors' prompts from ``path/utils/prompts.json`` (``PROMPT_KEYS``).  Raises
    NeocoderError for a missing clone, RecordError naming the file, the key and the field
    for unreadable JSON, a missing key, or a prompt without its placeholders."""
    root = clone_dir(path)
    file = root / PROMPTS_JSON
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordError(file, "-", "json", f"not readable JSON: {exc}") from None
    texts = {}
    for name, (keys, holes) in PROMPT_KEYS.items():
        node = data
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        where = ".".join(keys)
        if not isinstance(node, str) or not node.strip():
            raise RecordError(file, where, "description", "missing or not a text")
        for hole in holes:
            if hole not in node:
                raise RecordError(file, where, "description", f"has no {hole} placeholder")
        texts[name] = node
    return OfficialFiles(root=root, **texts)


def critic_models(path: Path | None) -> list[str]:
    """The authors' judge panel: the string items of ``CRITIC_MODELS`` in ``path/config.py``,
    read with ``ast`` (the file is never imported).  Raises RecordError naming the file when
    it has no such list of strings."""
    file = clone_dir(path) / CONFIG_PY
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except (OSError, SyntaxError) as exc:
        raise RecordError(file, "-", "CRITIC_MODELS", f"not readable Python: {exc}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CRITIC_MODELS"
                                                for t in node.targets):
            if isinstance(node.value, ast.List) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                        for e in node.value.elts):
                return [e.value for e in node.value.elts]
            raise RecordError(file, f"line {node.lineno}", "CRITIC_MODELS", "not a list of model names")
    raise RecordError(file, "-", "CRITIC_MODELS", "no CRITIC_MODELS list")


def refusal_phrases(path: Path | None = None) -> tuple[str, ...]:
    """The phrases whose presence anywhere marks a refusal (lower case): one per non-blank
    line of ``path`` (``#`` starts a comment line), else ``REFUSAL_PHRASES``.  RecordError
    for a file without phrases."""
    if path is None:
        return REFUSAL_PHRASES
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise NeocoderError(f"{path}: refusal phrases not readable: {exc}") from None
    phrases = tuple(line.strip().lower() for line in lines if line.strip() and not line.strip().startswith("#"))
    if not phrases:
        raise RecordError(path, "-", "phrase", "no refusal phrases in the file")
    return phrases
