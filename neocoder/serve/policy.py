"""What a caller's job may ask of the server's network and machine: the operator's policy.

A job names models (``model``, an AidanBench ``judge``, a LiveIdeaBench ``judges``
panel: every field derive.py's ``model_fields`` finds in the task's config).  Each one's
provider must be one the operator allows (``--allow-provider``: ``local`` starts a model
server on the server's machine, so it is off unless named), a ``local/`` model must be one
neocoder knows, and its ``base_url`` must pass the endpoint policy (neocoder/netpolicy.py,
``--allow-endpoint``).  ``CallerPolicy.problems`` lists what is refused, each with the
request field it names, so a route answers 422 before the job is queued; the job runner
asks again before a stored job runs (the server may have restarted with another policy).
"""

from __future__ import annotations

from dataclasses import dataclass

from neocoder.netpolicy import EndpointPolicy, EndpointRefused
from neocoder.records import HUMAN
from neocoder.serve.derive import model_fields


@dataclass(frozen=True)
class CallerPolicy:
    """The providers (``providers``: names of models.PROVIDERS) and endpoints (``endpoints``)
    a caller's models may use."""

    endpoints: EndpointPolicy
    providers: tuple = ("openai", "replay")

    def model_problems(self, model: dict) -> list[tuple[str, str]]:
        """``(field, message)`` for what is refused in one model of a stored request (a
        ModelSpec as plain JSON: ``spec``, ``base_url``, ...); empty when it may run."""
        spec = str(model.get("spec", ""))
        if spec == HUMAN:
            return []
        provider, _, name = spec.partition("/")
        if provider not in self.providers:
            return [("spec", f"provider {provider!r} is not allowed on this server (allowed: "
                             f"{', '.join(self.providers) or 'none'}; the operator chooses with --allow-provider)")]
        if provider == "local":
            from neocoder.models.local import LOCAL_MODELS
            if name not in LOCAL_MODELS:
                return [("spec", f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)}")]
        url = model.get("base_url")
        if url is not None:
            try:
                self.endpoints.check_url(str(url), "base_url")
            except EndpointRefused as exc:
                return [(exc.field, str(exc))]
        return []

    def problems(self, stored: dict, config_type=None) -> list[tuple[tuple, str]]:
        """``(loc, message)`` for every refused model of a stored job request: an eval job's
        (``config_type`` EvalConfig, locations under ``body``) or a task's ``{"task",
        "config"}`` (``config_type`` the task's, locations under ``body.config``).
        ``loc`` is a request location as FastAPI's (``("body", "judges", 0, "base_url")``)."""
        if "task" in stored:
            values, prefix = stored.get("config") or {}, ("body", "config")
        else:  # an eval request as POST /v1/evals takes it
            values, prefix = stored, ("body",)
        found = []
        for name, is_list in model_fields(config_type):
            value = values.get(name)
            items = list(enumerate(value)) if is_list and isinstance(value, list) else [(None, value)]
            for index, model in items:
                if isinstance(model, dict):
                    where = prefix + (name,) + (() if index is None else (index,))
                    found += [(where + (field,), message) for field, message in self.model_problems(model)]
        return found
