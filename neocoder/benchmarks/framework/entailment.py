"""Meaning classes of sampled steps by bidirectional entailment, with three backends.

The classes are made greedily (Kuhn et al. 2023, Algorithm 1; creativity-framework
App. C.2.3): each candidate is compared with the first member of every class so far and
joins the first class it mutually entails, else it starts a class.  Backends, chosen by
``--entailment``:

- ``nli``: an NLI cross-encoder through ``transformers`` (the paper's
  tasksource/deberta-base-long-nli by default, Table 1), loaded once and kept for the run;
  each candidate's pairs with every class's first member, both directions, go through the
  model in batches of ``batch`` pairs; "entails" is the argmax label being the model's
  entailment label (found by name in its ``id2label``).
- ``llm``: a language model asked "if A, must B?" (prompts/framework_entail.txt), both
  directions; its reply is read by grammars.ENTAIL (the first word, yes or no; the same
  words later saying otherwise conflict).  Only a readable "yes" entails: an unreadable
  reply keeps the two candidates apart, and is recorded with its reason and counted
  (``classes_read``), never taken for an answer.
- ``embedding``: cosine similarity of sentence embeddings (the shipped MiniLM) at or above
  a threshold: an approximation, not an entailment test (entropy.classes_by_similarity).
"""

from __future__ import annotations

import threading
from pathlib import Path

from neocoder.benchmarks.framework.calls import Meter, fill, text_prompt
from neocoder.benchmarks.framework.grammars import ENTAIL, read
from neocoder.errors import NeocoderError
from neocoder.metrics.entropy import GreedyClasses, classes_by_similarity
from neocoder.replies import Reading


class Entailment:
    """A backend: ``classes(texts) -> ids`` and its ``name`` for the records."""

    name = "?"

    def classes_read(self, texts: list[str]) -> tuple[list[int], list]:
        """``(classes(texts), readings)``: the class ids and the model replies read on the way
        (``replies.Reading``, one per reply; none for a backend that asks no model)."""
        return self.classes(texts), []

    def classes(self, texts: list[str]) -> list[int]:  # pragma: no cover - interface
        """The class id (0, 1, ... in order of first appearance) of each of ``texts``."""
        raise NotImplementedError


class NLIEntailment(Entailment):
    """An NLI cross-encoder (``transformers``): ``model`` is a folder or a Hub name, read
    with ``local_files_only`` unless ``online``.  Raises NeocoderError when transformers is
    missing or the model cannot be loaded, or has no entailment label."""

    def __init__(self, model: str, batch: int = 16, device: str | None = None, online: bool = False):
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise NeocoderError("--entailment nli needs transformers and torch (pip install 'neocoder[aidanbench]')") \
                from exc
        local = Path(model).is_dir()
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local or not online)
            self.model = AutoModelForSequenceClassification.from_pretrained(model, local_files_only=local or not online)
        except (OSError, ValueError) as exc:
            raise NeocoderError(f"--nli-model {model}: cannot load it ({exc}); give a local folder holding the model "
                                "(e.g. a download of tasksource/deberta-base-long-nli) or use --entailment llm or "
                                "embedding") from exc
        labels = {int(i): str(name).lower() for i, name in self.model.config.id2label.items()}
        found = [i for i, name in labels.items() if name.startswith("entail")]
        if not found:
            raise NeocoderError(f"--nli-model {model}: no entailment label among {sorted(labels.values())}")
        self.entail_label, self.batch, self.torch = found[0], batch, torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device).eval()
        self.name, self.batches, self._lock = f"nli:{model}", 0, threading.Lock()

    def entails(self, pairs: list[tuple[str, str]]) -> list[bool]:
        """Per (premise, hypothesis) pair: does the model's argmax label say entailment."""
        out: list[bool] = []
        with self._lock, self.torch.no_grad():
            for start in range(0, len(pairs), self.batch):
                chunk = pairs[start:start + self.batch]
                enc = self.tokenizer([p for p, _ in chunk], [h for _, h in chunk], padding=True, truncation=True,
                                     return_tensors="pt").to(self.device)
                logits = self.model(**enc).logits
                out += [int(i) == self.entail_label for i in logits.argmax(dim=-1).tolist()]
                self.batches += 1
        return out

    def classes(self, texts: list[str]) -> list[int]:
        """Greedy classes by the model: a text joins the first class whose first member it
        entails both ways (its pairs go through ``entails`` in batches)."""
        members: list[str] = []
        ids = []
        for text in texts:
            pairs = [(m, text) for m in members] + [(text, m) for m in members]
            verdicts = self.entails(pairs) if pairs else []
            k = len(members)
            match = next((c for c in range(k) if verdicts[c] and verdicts[k + c]), None)
            if match is None:
                members.append(text)
                match = k
            ids.append(match)
        return ids


class LLMEntailment(Entailment):
    """A language model asked whether A entails B (both directions, at temperature 0)."""

    def __init__(self, model, meter: Meter | None = None):
        self.model, self.meter, self.name = model, meter or Meter(), f"llm:{model.name}"

    def read(self, a: str, b: str) -> Reading:
        """The model's answer to "if ``a``, must ``b``?" (one greedy call of at most 3 tokens,
        counted on the meter), read by grammars.ENTAIL: "yes" or "no", or unreadable with its
        reason.  Raises what the model raises."""
        text = fill("framework_entail.txt", a=a, b=b)
        reply = self.meter.ask(self.model, text_prompt(text, max_tokens=3, stop=("\n",), temperature=0.0))
        return read(ENTAIL, reply, text)

    def entails(self, a: str, b: str) -> bool:
        """Whether the model answers a readable "yes" (``read``)."""
        return self.read(a, b).value == "yes"

    def classes_read(self, texts: list[str]) -> tuple[list[int], list]:
        """Greedy classes by the model: a text joins the first class whose first member it entails
        both ways (up to two calls per class; the second only after a readable "yes"), with every
        reply's reading."""
        readings: list = []

        def both(a: str, b: str) -> bool:
            for x, y in ((a, b), (b, a)):
                got = self.read(x, y)
                readings.append(got)
                if got.value != "yes":
                    return False
            return True
        greedy = GreedyClasses(both)
        return [greedy.add(t) for t in texts], readings

    def classes(self, texts: list[str]) -> list[int]:
        """The class ids of ``classes_read``."""
        return self.classes_read(texts)[0]


class EmbeddingEntailment(Entailment):
    """Cosine similarity >= ``threshold`` of sentence embeddings (an approximation)."""

    def __init__(self, embedder, threshold: float):
        self.embedder, self.threshold = embedder, threshold
        self.name = f"embedding:{embedder.name}@{threshold:g}"

    def classes(self, texts: list[str]) -> list[int]:
        """Classes by embedding: a text joins the first class whose first member is at least
        ``threshold`` cosine-similar to it."""
        return classes_by_similarity(self.embedder.embed(texts), self.threshold)


def open_entailment(kind: str, *, nli_model: str = "", batch: int = 16, judge=None, embedder=None,
                    threshold: float = 0.85) -> Entailment:
    """The backend ``kind`` ("nli", "llm", "embedding").  Raises NeocoderError as the
    backends do, or for an unknown kind."""
    if kind == "nli":
        return NLIEntailment(nli_model, batch)
    if kind == "llm":
        return LLMEntailment(judge)
    if kind == "embedding":
        return EmbeddingEntailment(embedder, threshold)
    raise NeocoderError(f"--entailment {kind!r}: choose nli, llm or embedding")
