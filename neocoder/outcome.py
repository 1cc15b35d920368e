"""How a run's items ended, and the rule that fails a run that lost some (the lost-items
rule), owned by the runner for every task, built-in or plug-in (docs/tasks.md).

- ``Outcome`` is the ``"outcome"`` block of ``metrics.json``: items judged, unreadable
  or in error, with the reasons; ``check_outcome`` raises ``LostItems`` when a run has
  more items in error than its ``--max-errors`` tolerates, or none judged.
- A task that counts its own block (every built-in benchmark: its ``score`` writes one)
  keeps it.  A task with a ``record_type`` that writes none gets one from the runner,
  counted by ``tally`` from its records by one convention: a record whose ``error``
  attribute is set, or whose ``finished`` is False, is in error (and done again on
  resume: ``settled``); one whose ``unreadable`` attribute is set is unreadable; any
  other is judged.  An item whose ``solve`` raised a ``ModelError`` (not an
  ``EndpointError``) is in error with that message (the runner catches it, ``lost``).
- ``tolerating(config_type)`` gives a config that declares no ``max_errors`` option one,
  so every task's command and request take ``--max-errors`` / ``max_errors``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from neocoder.errors import NeocoderError

NOT_ENDED = "not ended (no record: the run stopped before it)"
class LostItems(NeocoderError):
    """A run ended with items in error beyond what its ``--max-errors`` tolerates, or with
    no item judged.  The records and ``metrics.json`` are written first: nothing is lost,
    and a rerun resumes (retrying the items in error).  ``outcome`` is ``Outcome``."""

    def __init__(self, message: str, outcome: "Outcome"):
        super().__init__(message)
        self.outcome = outcome


@dataclass
class Outcome:
    """How a run's items ended, the ``"outcome"`` block of every ``metrics.json``:
    ``items`` in the run, ``judged`` (they got a number), ``unreadable`` (every judge
    reply about them was unreadable: kept and counted, not an error), ``errors`` (a model,
    sandbox or protocol failure ended them: kept with the error) and ``reasons``
    (``{error: count}``).  The unit is the task's (a sample, a question, an idea, a
    solution).

    The replies of the *model under test* are counted apart (``answered``): ``replies``
    read, ``no_answer`` of them holding no ``answer`` (a program, an answer, an idea: what
    the benchmark needs; ``replies.read_answer``) and ``no_answer_reasons`` (``{reason:
    count}``).  A run in which more than half of them hold none fails (``failure``)."""

    unit: str
    items: int = 0
    judged: int = 0
    unreadable: int = 0
    errors: int = 0
    reasons: dict = field(default_factory=dict)
    answer: str = "answer"
    replies: int = 0
    no_answer: int = 0
    no_answer_reasons: dict = field(default_factory=dict)

    def add(self, judged: bool = False, unreadable: bool = False, error: str | None = None) -> None:
        """Count one item: in error (``error``, its message), unreadable, judged, or none of
        them (an item that asks no judge, e.g. a refused idea)."""
        self.items += 1
        if error:
            self.errors += 1
            key = " ".join(str(error).split())[:160]
            self.reasons[key] = self.reasons.get(key, 0) + 1
        elif unreadable:
            self.unreadable += 1
        elif judged:
            self.judged += 1

    def answered(self, reason: str | None) -> None:
        """Count one reply of the model under test: ``reason`` None when it held an answer,
        else why not (one of ``replies.ANSWER_REASONS``)."""
        self.replies += 1
        if reason:
            self.no_answer += 1
            self.no_answer_reasons[reason] = self.no_answer_reasons.get(reason, 0) + 1

    def to_dict(self) -> dict:
        """The ``metrics.json`` form (reasons most frequent first); the model's replies
        (``answer``, ``replies``, ``no_answer``, ``no_answer_reasons``) only where the task
        counted them."""
        reasons = dict(sorted(self.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        out = {"unit": self.unit, "items": self.items, "judged": self.judged, "unreadable": self.unreadable,
               "errors": self.errors, "reasons": reasons}
        if self.replies:
            out.update(answer=self.answer, replies=self.replies, no_answer=self.no_answer,
                       no_answer_reasons=dict(sorted(self.no_answer_reasons.items(), key=lambda kv: (-kv[1], kv[0]))))
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Outcome":
        """The block as written by ``to_dict``."""
        return cls(**{k: data[k] for k in ("unit", "items", "judged", "unreadable", "errors", "reasons", "answer",
                                           "replies", "no_answer", "no_answer_reasons") if k in data})

    def failure(self, max_errors: int = 0) -> str | None:
        """One line saying why the run fails (more than ``max_errors`` items in error, more
        than half the model's replies holding no answer, or none of its items judged; the
        first that holds, in that order), None when it does not."""
        unit = self.unit
        if self.errors > max_errors:
            top = "; ".join(f"{n} x {why}" for why, n in list(self.to_dict()["reasons"].items())[:3])
            return (f"{self.errors} of {self.items} {unit}s ended in error ({top}); they are kept in the run and "
                    f"counted in metrics.json (rerun to retry them, or --max-errors {self.errors} to accept them)")
        if self.replies and 2 * self.no_answer > self.replies:
            top = ", ".join(f"{n} x {why}" for why, n in list(self.to_dict()["no_answer_reasons"].items())[:3])
            return (f"{self.no_answer} of {self.replies} replies of the model under test held no {self.answer} "
                    f"({top}); they are recorded with their reason and counted in metrics.json")
        if self.items and not self.judged:
            why = f"{self.unreadable} unreadable, " if self.unreadable else ""
            return (f"no {unit} of {self.items} was judged ({why}{self.errors} in error): "
                    "metrics.json counts them; there is no number to report")
        return None


def check_outcome(metrics: dict, max_errors: int = 0) -> None:
    """Raise LostItems when ``metrics["outcome"]`` (``Outcome``'s form) says the run lost
    items: more than ``max_errors`` in error, or none judged.  Metrics without the block
    (a task that judges nothing) pass."""
    block = metrics.get("outcome") if isinstance(metrics, dict) else None
    if not block:
        return
    outcome = Outcome.from_dict(block)
    message = outcome.failure(max_errors)
    if message:
        raise LostItems(message, outcome)


def in_error(record) -> str | None:
    """Why a record of a task's ``record_type`` leaves its item in error: its ``error``
    attribute when set, else "not finished" when its ``finished`` is False; None when it
    does not (the item is judged or unreadable)."""
    error = getattr(record, "error", None)
    if error:
        return str(error)
    return None if record.finished else "not finished (done again on resume)"


def settled(record) -> bool:
    """Whether a resumed run keeps ``record`` (a record of a task's ``record_type``): it is
    ``finished`` and holds no ``error`` (a record in error is always done again)."""
    return in_error(record) is None


def tally(unit: str, keys: list, records: dict, lost: dict) -> Outcome:
    """The ``Outcome`` (unit ``unit``) of the items whose keys are ``keys``, from
    ``records`` (item key -> the item's latest record of the task's ``record_type``) and
    ``lost`` (item key -> the message of the ModelError its ``solve`` raised in this run):
    in error when its record is (``in_error``) or when it has none (the error it raised,
    else ``NOT_ENDED``); unreadable when its record's ``unreadable`` is set; judged else."""
    outcome = Outcome(unit)
    for key in keys:
        record = records.get(key)
        why = None if record is None else in_error(record)
        if record is None or why:
            outcome.add(error=lost.get(key) or why or NOT_ENDED)
        else:
            unreadable = bool(getattr(record, "unreadable", None))
            outcome.add(judged=not unreadable, unreadable=unreadable)
    return outcome


def with_lost(block: dict, lost: list[str]) -> dict:
    """The ``"outcome"`` block ``block`` a task counted itself, with the items ``lost``
    (their error messages: items whose ``solve`` raised and left no record, which the
    task's own count cannot see) added in error.  ``block`` itself when none was lost."""
    if not lost:
        return block
    outcome = Outcome.from_dict(block)
    for message in lost:
        outcome.add(error=message)
    return outcome.to_dict()


_WIDENED: dict[type, type] = {}  # a config type -> its subclass with max_errors, made once


def tolerating(config_type):
    """``config_type`` when it declares ``max_errors`` (or is no dataclass), else its
    subclass of the same name adding ``max_errors`` (config.MAX_ERRORS: keyword-only, out
    of the manifest), made once, so the command line, the server's request and the suite
    offer ``--max-errors`` for every task.  The subclass's ``widened`` is ``config_type``;
    its instances pickle and copy through ``config_type`` (``_rebuilt``)."""
    from neocoder.config import MAX_ERRORS
    if not dataclasses.is_dataclass(config_type) or "max_errors" in {f.name for f in dataclasses.fields(config_type)}:
        return config_type
    if config_type not in _WIDENED:
        params = config_type.__dataclass_params__
        extra = dataclasses.field(default=MAX_ERRORS.default, kw_only=True, metadata={"option": MAX_ERRORS})
        derived = dataclasses.make_dataclass(
            config_type.__name__, [("max_errors", int, extra)], bases=(config_type,), frozen=params.frozen,
            eq=params.eq, order=params.order, namespace={"__reduce__": _reduce, "widened": config_type})
        derived.__module__, derived.__qualname__ = config_type.__module__, config_type.__qualname__
        derived.__doc__ = config_type.__doc__
        _WIDENED[config_type] = derived
    return _WIDENED[config_type]


def _reduce(config):
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.init}
    return _rebuilt, (type(config).widened, values)


def _rebuilt(base: type, values: dict):
    """A config of ``tolerating(base)`` holding ``values`` (how such a config unpickles)."""
    return tolerating(base)(**values)


def widen(config, config_type):
    """``config`` as an instance of ``config_type`` when that is ``tolerating``'s subclass
    of ``config``'s own type (its values kept, ``max_errors`` the class default); ``config``
    itself otherwise."""
    base = getattr(config_type, "widened", None)
    if base is None or type(config) is not base:
        return config
    return config_type(**{f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.init})
