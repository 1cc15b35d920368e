"""Model stage: every provider behind one interface, chosen by ``PROVIDER/NAME``."""

from __future__ import annotations

from pathlib import Path

from .base import Model, ModelError, Prompt, Reply, solve_prompt

PROVIDERS = ("openai", "local", "replay")


def get_model(spec: str, *, release_dir: Path | None = None, base_url: str | None = None,
              api_key: str | None = None, api: str | None = None, temperature: float = 0.0,
              max_tokens: int = 1024, **client) -> Model:
    """Build the model named ``spec`` = ``PROVIDER/NAME``.

    - ``openai/<name>``: any OpenAI-compatible endpoint (``base_url``, ``api_key`` or
      $OPENAI_BASE_URL / $OPENAI_API_KEY); ``api`` "chat" (default) or "completion".
    - ``local/gemma-3-270m``: a llama.cpp server started here; ``api`` defaults to
      "completion" (it is a base model).
    - ``replay/gpt-4-1106-preview``: recorded codes from the release in ``release_dir``.

    ``client`` options (``timeout`` seconds per call, ``max_retries`` on 429, 5xx and
    timeouts, ``seed``) go to the openai client of openai/ and local/ models.
    Raises ModelError for an unknown provider or a model that cannot start.
    """
    provider, sep, name = spec.partition("/")
    if not sep or not name or provider not in PROVIDERS:
        raise ModelError(f"--model must be PROVIDER/NAME with PROVIDER in {PROVIDERS}, got {spec!r}")
    if provider == "replay":
        from .replay import ReplayModel
        if release_dir is None:
            raise ModelError("replay models need the release folder")
        return ReplayModel(spec, name, Path(release_dir))
    if provider == "local":
        from .local import LocalModel
        return LocalModel(spec, name, api=api or "completion", temperature=temperature,
                          max_tokens=max_tokens, **client)
    from .openai_compat import OpenAICompatModel
    return OpenAICompatModel(spec, name, base_url=base_url, api_key=api_key, api=api or "chat",
                             temperature=temperature, max_tokens=max_tokens, **client)


__all__ = ["Model", "ModelError", "Prompt", "Reply", "get_model", "solve_prompt"]
