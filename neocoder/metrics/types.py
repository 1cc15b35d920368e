"""The typed metrics of a NeoCoder run: what ``metrics.json`` holds, one type per level.

``EvalMetrics`` is a run (a model's samples, or the human baselines): its model, its
states and how their intervals were made, and for a model run the strategy, the call
cache's counts, the test tiers and the dataset.  ``StateMetrics`` is one state of a
model run, ``HumanStateMetrics`` one state of the human baselines; every rate in them
is computed once, by ``neocoder/metrics/rates.py``, as the value of a per-problem ratio whose
bootstrap gives its interval (``neocoder/metrics/bootstrap.py``).

``to_dict()`` gives exactly the layout metrics.json has always had, key order included,
so its readers (report/, compare, the CLI) read it as plain dicts unchanged: a field
``pass_at_1`` is the key ``pass@1`` (``_at_`` is written ``@``), an optional rate is
left out where it is None, and a state with no kept sample has the short layout it
always had.  Formulas and their sources: ``neocoder/metrics/rates.py`` and docs/metrics.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from neocoder.metrics.bootstrap import Interval

_OPTIONAL = {"optional": True}  # field metadata: left out of to_dict() when None


def json_key(name: str) -> str:
    """The metrics.json key of a field: ``pass_at_1`` -> ``pass@1``, others unchanged."""
    return name.replace("_at_", "@")


def field_name(key: str) -> str:
    """The field of a metrics.json key: ``pass@1`` -> ``pass_at_1`` (json_key's inverse)."""
    return key.replace("@", "_at_")


def _layout(metrics) -> dict:
    """A metrics dataclass as metrics.json holds it: its fields in declared order under
    their ``json_key``, optional ones only where set, intervals as ``{"low", "high", "se"}``."""
    out: dict = {}
    for f in fields(metrics):
        value = getattr(metrics, f.name)
        if value is None and f.metadata.get("optional"):
            continue
        if f.name == "intervals":
            value = {rate: got.to_dict() for rate, got in value.items()}
        out[json_key(f.name)] = value
    return out


class _Rates:
    """What both kinds of state share: a rate by its metrics.json key, and the layout."""

    def rate(self, key: str):
        """The value under metrics.json key ``key`` (None when there is none)."""
        return getattr(self, field_name(key), None)

    def to_dict(self) -> dict:
        """The state as metrics.json holds it (module docstring)."""
        return _layout(self)


@dataclass
class StateMetrics(_Rates):
    """The metrics of one state t of a model's run, from its ``Sample`` records.

    Rates are fractions in [0, 1] (entropies in nats, r in [-1, 1]); a rate is None where
    there is nothing to average over.  Samples with a model error or an INFRA verdict are
    left out of every rate and counted in ``excluded``.
    """

    n: int
    """Samples kept (neither a model error nor an INFRA verdict)."""
    excluded: int
    """Samples left out of every rate: the model call failed or the sandbox did."""
    no_program: dict | None = field(default=None, metadata=_OPTIONAL)
    """Kept samples whose reply held no program, per reason (``{"empty": 2, "cut off": 1}``;
    program.py ``read_program``): in every rate's base as wrong, but not in constraint
    following's; None when every reply held one."""
    pass_at_1: float | None = None
    """pass@1 (Chen et al. 2021, Eq. 1, k = 1) on the example tests, averaged over problems."""
    n_extended: int = 0
    """Kept samples whose state has extended tests."""
    pass_at_1_examples_tiered: float | None = None
    """pass@1 on the examples alone over the ``n_extended`` samples (EvalPlus' base)."""
    pass_at_1_plus: float | None = None
    """pass@1 on the examples and the extended tests over the same samples (EvalPlus' plus)."""
    n_program: int | None = field(default=None, metadata=_OPTIONAL)
    """Kept samples whose reply held a program (the base of constraint following); None
    when every kept sample's did (then it is ``n``)."""
    constraint_following: float | None = None
    """Share of the samples holding a program that use none of the state's constraint
    techniques (a reply with no program follows nothing: docs/metrics.md)."""
    convergent: float | None = None
    """Eq. 2: share of samples correct and following the constraints."""
    n_divergent: int = 0
    """Kept samples whose problem has a human technique set (the base of divergent, NeoGauge)."""
    divergent: float | None = None
    """Eq. 3, |T(s) \\ H(p)| / |T(s)|, averaged over the ``n_divergent`` samples."""
    neogauge: float | None = None
    """Eq. 4: mean of convergent x divergent over the ``n_divergent`` samples."""
    pass_at_5: float | None = field(default=None, metadata=_OPTIONAL)
    """pass@5 (Eq. 1), averaged over the problems with at least 5 samples."""
    pass_at_10: float | None = field(default=None, metadata=_OPTIONAL)
    """pass@10 (Eq. 1), averaged over the problems with at least 10 samples."""
    neogauge_best_at_5: float | None = field(default=None, metadata=_OPTIONAL)
    """Best-of-k NeoGauge (Sec. 5.3), k = min(5, n), averaged over problems with 2 scored samples."""
    semantic_entropy: float | None = field(default=None, metadata=_OPTIONAL)
    """Entropy (nats) of the problem's samples over behaviour classes, averaged over problems."""
    semantic_entropy_rb: float | None = field(default=None, metadata=_OPTIONAL)
    """The Rao-Blackwellised semantic entropy (class weights from log-probabilities)."""
    technique_entropy: float | None = field(default=None, metadata=_OPTIONAL)
    """Entropy (nats) of the samples' technique sets, averaged over problems."""
    entropy_divergent_r: float | None = field(default=None, metadata=_OPTIONAL)
    """Pearson's r across problems between semantic entropy and mean divergent."""
    cost: dict | None = field(default=None, metadata=_OPTIONAL)
    """Mean spend per sample (excluded ones too): ``{"calls", "prompt_tokens",
    "completion_tokens", "tokens"}``."""
    cumulative_neogauge: float | None = field(default=None, metadata=_OPTIONAL)
    """Sum of NeoGauge@t' over the run's states t' <= t (an undefined one counting 0);
    None for a state scored on its own."""
    intervals: dict[str, Interval] | None = field(default=None, metadata=_OPTIONAL)
    """Rate key (as in metrics.json) -> its bootstrap interval; None when not computed."""

    def to_dict(self) -> dict:
        """The state as metrics.json holds it (module docstring)."""
        if self.n:
            return _layout(self)
        out = {"n": 0, "excluded": self.excluded, "pass@1": None, "constraint_following": None, "convergent": None,
               "divergent": None, "neogauge": None, "n_divergent": 0}  # nothing kept: the short layout
        rest = _layout(self)
        out.update((key, rest[key]) for key in ("cumulative_neogauge", "intervals") if key in rest)
        return out


@dataclass
class HumanStateMetrics(_Rates):
    """The human baseline of one state t (NeoCoder Appendix A): the release's accepted
    solutions scored as if they were samples, each rate a mean over problems of the
    per-problem means (``HumanBaseline`` records)."""

    n: int
    """Human solutions counted (over the state's problems)."""
    excluded: int = 0
    """Always 0: accepted solutions are not judged here."""
    pass_at_1: None = None
    """Always None: accepted solutions are not judged here."""
    constraint_following: float | None = None
    """Eq. 5: share of a problem's solutions that use none of the constraint techniques."""
    convergent: float | None = None
    """Eq. 5 again (accepted solutions are correct, so convergent = constraint following)."""
    divergent: float | None = None
    """Eq. 6: mean share of a solution's techniques no other solution of the problem uses."""
    neogauge: float | None = None
    """Mean over solutions of follows x the Eq. 6 share."""
    n_divergent: int = 0
    """Equal to ``n``: every solution has a technique set."""
    cumulative_neogauge: float | None = field(default=None, metadata=_OPTIONAL)
    """Sum of NeoGauge@t' over states t' <= t."""
    intervals: dict[str, Interval] | None = field(default=None, metadata=_OPTIONAL)
    """Rate key -> its bootstrap interval (over problems); None when not computed."""



@dataclass
class EvalMetrics:
    """The metrics of one NeoCoder run (``neocoder eval``, or ``--model human``)."""

    model: str | None
    """The model's name (PROVIDER/NAME), or "human" for the human baselines."""
    states: dict[str, StateMetrics | HumanStateMetrics]
    """str(t) -> the state's metrics, in increasing t."""
    bootstrap: dict | None = field(default=None, metadata=_OPTIONAL)
    """How the intervals were made: bootstrap.bootstrap_info (resamples, seed, unit, level, method)."""
    strategy: str | None = field(default=None, metadata=_OPTIONAL)
    """The strategy that produced the samples (neocoder/strategies/), for a model run."""
    calls: dict | None = field(default=None, metadata=_OPTIONAL)
    """The call cache's counts for the run (models/cache.py ``CallCache.stats``)."""
    tests: list[str] | None = field(default=None, metadata=_OPTIONAL)
    """The test tiers judged: ["examples"] or ["examples", "plus"]."""
    dataset: str | None = field(default=None, metadata=_OPTIONAL)
    """What the problem states were judged on (tasks.evaluation.describe_dataset)."""
    language: str | None = field(default=None, metadata=_OPTIONAL)
    """The programs' language when it is not Python ("cpp", issue 49); None (left out) for Python."""
    diversity: dict | None = field(default=None, metadata=_OPTIONAL)
    """How different the programs are: algorithm classes by technique, structure and
    execution, per state, along the chain and against the humans (diversity/run.py)."""
    outcome: dict | None = field(default=None, metadata=_OPTIONAL)
    """How the samples ended (runner.Outcome, unit "sample"): judged, or in error (a model
    error, a sandbox INFRA verdict), with the errors' reasons."""

    def to_dict(self) -> dict:
        """The content of metrics.json, key order included."""
        out = _layout(self)
        out["states"] = {t: m.to_dict() for t, m in self.states.items()}
        return out
