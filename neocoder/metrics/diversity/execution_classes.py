"""Execution classes for a run (``--execution-classes``): the model's correct programs and
the humans' Python solutions fingerprinted on the same grown inputs (execution.py).

Per problem of the run: the inputs every accepted human Python solution validates are
grown once (``execution.human_reference``), each human gets its fingerprint there, and
each of the run's *correct* programs is measured on the same inputs.  Only correct
programs are fingerprinted: a wrong program's cost curve on inputs it does not solve
says little, and the execution measure is meant for effective diversity.  Everything is
cached on disk (``execution.default_cache``), so a second run costs no sandbox time.
"""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from neocoder.metrics.diversity.classes import Program
from neocoder.metrics.diversity.execution import default_cache, fingerprint, human_python, human_reference
from neocoder.records import ProblemState, Sample


def execution_classes(sandbox, states: list[ProblemState], samples: list[Sample], release_dir: Path,
                      problems=None, workers: int = 2, progress: bool = False) -> tuple[dict, dict]:
    """``(code_sha256 -> execution class key, problem_id -> [key or None per human Python
    solution, in release order])`` for the problems of ``samples`` with a correct program
    (or every problem of ``problems``, for the human reference).  ``states`` gives each
    problem's examples (its state 0, else its first state).  Raises DatasetError when the
    release at ``release_dir`` cannot be read."""
    first: dict[str, ProblemState] = {}
    for s in sorted(states, key=lambda x: (x.problem_id, x.state)):
        first.setdefault(s.problem_id, s)
    correct: dict[str, list[Sample]] = {}
    for s in samples:
        if s.correct and s.code and not s.excluded:
            correct.setdefault(s.problem_id, []).append(s)
    wanted = sorted(set(problems) if problems is not None else set(correct))
    wanted = [p for p in wanted if p in first]
    humans = human_python(release_dir, wanted)
    cache = default_cache()
    code_keys: dict[str, tuple] = {}
    human_keys: dict[str, list] = {}
    for pid in tqdm(wanted, desc="execution classes", unit="problem", disable=not progress):
        state = first[pid]
        inputs, prints, _ = human_reference(sandbox, state, humans.get(pid, []), cache, workers)
        human_keys[pid] = [fp.key() if fp else None for fp in prints]
        for s in correct.get(pid, []) if inputs else []:
            fp = fingerprint(sandbox, state, s.code, inputs=inputs, cache=cache)
            if fp is not None:
                code_keys[s.code_sha256] = fp.key()
    return code_keys, human_keys


def attach(programs: dict[str, list[Program]], human_keys: dict[str, list]) -> None:
    """Give each human Python ``Program`` (humans.human_programs, in release order) its
    execution class from ``human_keys``; C/C++ solutions keep none."""
    for pid, progs in programs.items():
        keys = iter(human_keys.get(pid, []))
        for p in progs:
            if p.language == "python":
                p.execution = next(keys, None)
