"""Denial Prompting as a task: constraint chains for raw problems, built with any model.

``ChainTask`` (``neocoder build-dataset --model``): an item is one raw problem; solving
it is ``denial.denial_chain`` (NeoCoder Algorithm 1: solve, detect the techniques, deny
one, solve again, every solution judged in the sandbox).  The chains are written as
problem states in problem order when the run ends; a killed build resumes from the call
cache (calls.jsonl) without repeating a call.  A problem whose model calls fail is
reported in ``failed`` (an error in the outcome block); with ``--detector llm``, a problem
whose technique detector gave no readable list (techniques/llm.py: after its retries) is
reported in ``unreadable`` (unreadable in the outcome block: its techniques are unknown,
so nothing can be denied, and its chain is not built on a guess), and every detector reply
is counted under ``"unreadable"`` (role "technique detector").  An unreachable endpoint
stops the run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from neocoder.benchmarks.neocoder.building import DatasetResult
from neocoder.benchmarks.neocoder.config import ChainConfig
from neocoder.benchmarks.neocoder.descriptor import CHAINS
from neocoder.config import PYTHON
from neocoder.errors import NeocoderError
from neocoder.records import ProblemState
from neocoder.runner import Outcome, Run, Task


@dataclass
class ChainInputs:
    """What chain building works with (``ChainTask.open``): the raw problems file
    ``path`` and its ``problems``, the sandbox ``box``, the cached ``model``, the technique
    detector ``detect`` (and the LLM ``detector`` whose replies it counts, None for
    tree-sitter), and what the items have built so far: ``chains`` per problem index,
    ``failed`` and ``unreadable`` (the reason) per problem id."""

    path: Path
    problems: list
    box: Any
    model: Any
    detect: Callable
    detector: Any = None
    chains: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    unreadable: dict = field(default_factory=dict)


class ChainTask(Task, name=CHAINS, config_type=ChainConfig, unit="problem"):
    """Denial Prompting chains for raw problems (see the module)."""

    def open(self, run: Run) -> ChainInputs:
        """Read the raw problems (``--problems``, else the release's crawl; cut to ``--limit``),
        open the sandbox and the cached model, and pick the technique detector (tree-sitter, or
        the model itself with ``--detector llm``).  Raises DatasetError as
        ``load_raw_problems`` does."""
        from neocoder.dataset.raw import CRAWL_FILE, load_raw_problems
        from neocoder.dataset.release import release_file
        from neocoder.techniques import detect
        config = self.config
        path = config.problems or release_file(config.release_dir, CRAWL_FILE)
        problems = load_raw_problems(path)
        box = run.open_sandbox(config.sandbox, config.concurrency)
        model = run.cached(run.open_model(config.model))
        detect_code, detector = (lambda code: detect(code, config.language)), None
        if config.detector == "llm" and config.language != PYTHON:
            raise NeocoderError(f"--detector llm reads Python programs; --language {config.language} chains are "
                                "detected by the tree-sitter rules (--detector treesitter)")
        if config.detector == "llm":
            from neocoder.techniques.llm import LLMDetector
            detector = LLMDetector(model)
            detect_code = detector.detect
        return ChainInputs(path=path, problems=problems[:config.limit] if config.limit else problems, box=box,
                           model=model, detect=detect_code, detector=detector)

    def items(self, run: Run) -> list:
        """The raw problems' indexes, in file order."""
        return list(range(len(run.inputs.problems)))

    def key(self, item) -> tuple:
        """``(index,)`` of the raw problem."""
        return (item,)

    def solve(self, item, run: Run):
        """Build the problem's constraint chain (``denial.denial_chain``) into
        ``run.inputs.chains``; a model failure is kept in ``run.inputs.failed`` instead, an
        unreadable technique list (DetectionError) in ``run.inputs.unreadable``.  Yields no
        record (the states are written by ``score``).  Raises EndpointError (every call
        would fail alike)."""
        from neocoder.benchmarks.neocoder.denial import denial_chain
        from neocoder.models import ModelError
        from neocoder.models.openai_compat import EndpointError
        from neocoder.techniques.llm import DetectionError
        s, config = run.inputs, self.config
        problem = s.problems[item]
        try:
            s.chains[item] = denial_chain(problem, s.model, s.detect, s.box, rounds=config.rounds,
                                          seed=config.seed, language=config.language)
        except EndpointError:
            raise
        except ModelError as exc:
            s.failed[problem["problem_id"]] = str(exc)
        except DetectionError as exc:
            s.unreadable[problem["problem_id"]] = exc.reason or str(exc)
        return ()

    def concurrency(self, run: Run) -> int:
        """Problems in flight: ``concurrency`` judged (the sandbox's slots) plus those
        waiting on the model (``--max-connections``, bounded by the model's limiter)."""
        return self.config.concurrency + run.connections

    def manifest(self, run: Run) -> dict:
        """The number of raw problems and the SHA-256 of their file."""
        return {"problems": len(run.inputs.problems),
                "problems_sha256": hashlib.sha256(Path(run.inputs.path).read_bytes()).hexdigest()}

    def score(self, run: Run) -> dict:
        """Write every chain's problem states in problem order; return the counts of problems,
        states and states whose solution was accepted, the failed problems, those whose
        technique list was unreadable, the detector's ``"unreadable"`` tally (replies.Tally
        form; empty with tree-sitter), the call-cache stats and the ``"outcome"`` block."""
        s = run.inputs
        s.states = states = [ProblemState.from_dict(r) for i in sorted(s.chains) for r in s.chains[i]]
        run.folder.write_all(states)
        outcome = Outcome("problem")
        for problem in s.problems:
            pid = problem["problem_id"]
            outcome.add(judged=pid not in s.failed and pid not in s.unreadable, unreadable=pid in s.unreadable,
                        error=s.failed.get(pid))
        return {"problems": len(s.problems), "failed": s.failed, "states": len(states),
                "accepted": sum(st.extra["augmentation"]["accepted"] for st in states), "calls": run.cache.stats(),
                "unreadable_problems": s.unreadable,
                "unreadable": s.detector.tally.to_dict() if s.detector is not None else {},
                "outcome": outcome.to_dict()}

    def result(self, run: Run, metrics: dict) -> DatasetResult:
        """A DatasetResult: the run folder, the states, the failed problems, call-cache stats, wall seconds."""
        return DatasetResult(run.folder.path, run.inputs.states, failed=run.inputs.failed, calls=metrics["calls"],
                             seconds=run.seconds())
