"""Where an OpenAI-compatible endpoint is, and with which key: one rule for every provider
(``openai/``, ``inspect-api/openai/``, the ``openai/`` embedder) and every role (generator,
judge, embedder), so a setting reaches them all the same way whether it came as an option,
an environment variable or the default (docs/models.md, "One endpoint rule").

- The base URL: ``--base-url`` (``ModelConfig.base_url``), else ``$OPENAI_BASE_URL``, else
  none (OpenAI's own, ``DEFAULT_BASE_URL``).
- The key: ``--api-key``, else ``$OPENAI_API_KEY``, else ``"none"`` when a base URL was
  given (local servers take any key); with neither a key nor a base URL, ModelError.
- A shared server (an endpoint policy installed, neocoder/netpolicy.py) never lends its own
  environment: only what the job gave counts, and with no base URL it is OpenAI's own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlparse

from neocoder.models.base import ModelError
from neocoder.netpolicy import current as endpoint_policy

BASE_URL_ENV, API_KEY_ENV = "OPENAI_BASE_URL", "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOSTS = ("api.openai.com",)  # OpenAI's own endpoint (inspect's openai/ provider knows its models)
LOCAL_KEY = "none"  # sent to a server that takes any key


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint as resolved: ``base_url`` (None: OpenAI's own, the
    openai client's default), ``api_key`` (never None) and ``source``, where the base URL
    came from (``"--base-url"``, ``"$OPENAI_BASE_URL"`` or ``"default"``)."""

    base_url: str | None
    api_key: str
    source: str

    def is_openai(self) -> bool:
        """Whether this is OpenAI's own endpoint (no base URL, or one on ``api.openai.com``)."""
        return self.base_url is None or urlparse(self.base_url).hostname in OPENAI_HOSTS


def environment(name: str) -> str | None:
    """The value of the environment variable ``name`` where this process may lend it (no
    endpoint policy installed: a local run), else None; an empty value is None."""
    return None if endpoint_policy() is not None else (os.environ.get(name) or None)


def openai_endpoint(spec: str, base_url: str | None, api_key: str | None) -> Endpoint:
    """Resolve the endpoint and key of the model or embedder ``spec`` (named in the error)
    from its options ``base_url`` and ``api_key`` (None: not given), by the rule of the
    module.  Raises ModelError when there is no key and no base URL was given (OpenAI's own
    endpoint needs a key)."""
    url, source = base_url, "--base-url"
    if not url:
        url, source = environment(BASE_URL_ENV), f"${BASE_URL_ENV}"
    if not url:
        url, source = (DEFAULT_BASE_URL if endpoint_policy() is not None else None), "default"
    key = api_key or environment(API_KEY_ENV)
    if not key:
        if source == "default":
            raise ModelError(f"{spec}: no API key (set {API_KEY_ENV} or pass --api-key; for a server of your own, "
                             f"--base-url or ${BASE_URL_ENV}; on a shared server, the job's model must carry one)")
        key = LOCAL_KEY
    return Endpoint(url, key, source)
