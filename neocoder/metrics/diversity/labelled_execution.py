"""Execution classes of the labelled programs, so the execution measure is scored too.

Each labelled problem's accepted human Python solutions validate its grown inputs and
get their fingerprints (execution.human_reference, the same inputs and cache a run's
``--execution-classes`` uses); a labelled GPT-4 program is fingerprinted on those inputs.
A program without a fingerprint (the problem cannot be grown, no size is kept, or the
program does not run cleanly there) has no execution class: the execution measure is
scored on the pairs whose two programs both have one, and the coverage is reported.
"""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from neocoder.metrics.diversity.execution import default_cache, fingerprint, human_python, human_reference
from neocoder.metrics.diversity.labelled import LabelledProblem


def execution_keys(problems: list[LabelledProblem], sandbox, release_dir: Path, workers: int = 2,
                   progress: bool = False) -> dict[tuple[str, str], tuple | None]:
    """(problem, ident) -> the program's execution class key (execution.Fingerprint.key())
    or None, for every labelled program.  Needs the sandbox (Docker or process) and the
    release (its human solutions); every run is cached on disk."""
    from neocoder.dataset.shipped import load_states
    first = {}
    for s in sorted(load_states(), key=lambda x: (x.problem_id, x.state)):
        first.setdefault(s.problem_id, s)
    humans = human_python(release_dir, [p.problem for p in problems])
    cache = default_cache()
    out: dict[tuple[str, str], tuple | None] = {}
    for p in tqdm(problems, desc="execution classes", unit="problem", disable=not progress):
        sources = humans.get(p.problem, [])
        inputs, prints, _ = human_reference(sandbox, first[p.problem], sources, cache, workers)
        by_code = {src: fp for src, fp in zip(sources, prints)}
        for x in p.programs:
            if x.human:
                fp = by_code.get(x.code)
            else:
                fp = fingerprint(sandbox, first[p.problem], x.code, inputs=inputs, cache=cache) if inputs else None
            out[(p.problem, x.ident)] = fp.key() if fp is not None else None
    return out
