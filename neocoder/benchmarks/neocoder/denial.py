"""Denial Prompting (NeoCoder, Lu et al. NAACL 2025, Algorithm 1): build constraint chains.

For one problem, in one conversation thread with the augmentation model:

1. ask for a solution to the statement with its constraints so far (round 0: none);
2. judge it in the sandbox on the problem's tests (the chain records whether the
   model that made a state could solve it);
3. detect the techniques of that solution alone (no conversation history);
4. draw one technique not yet forbidden, with an RNG seeded from (seed, problem id),
   from the *sorted* list of candidates, so the draw does not depend on set order;
   if no technique is new, the round adds nothing and the list stays;
5. put the technique first in the statement's constraints block (newest first, after
   the title, as in the release) and ask again; repeat for ``rounds`` rounds.

Every distinct constraint list becomes one canonical problem-state record (the
``--from-release`` format, state t = number of constraints), plus ``augmentation``:
the solution, its techniques, its verdicts and whether it was accepted.
"""

from __future__ import annotations

import hashlib
import random

from neocoder.benchmarks.neocoder.pipeline import state_limits
from neocoder.benchmarks.neocoder.program import program_from_reply
from neocoder.benchmarks.neocoder.solve import constraint_glossary, solve_prompt
from neocoder.config import CPP, PYTHON
from neocoder.dataset.statement import with_constraints
from neocoder.models import Model, Prompt
from neocoder.records import ProblemState
from neocoder.resources import prompt_text as load_prompt
from neocoder.techniques import TAXONOMY

FOLLOWUP = {PYTHON: "denial_followup.txt", CPP: "denial_followup_cpp.txt"}  # the next round's request, per language


def chain_rng(seed: int, problem_id: str) -> random.Random:
    """The RNG of one problem's chain: seeded from SHA-256 of "seed:problem_id", so it is
    the same in every run and process (Python's hash() is salted per process)."""
    digest = hashlib.sha256(f"{seed}:{problem_id}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def next_constraint(techniques: set[str], constraints: list[str], rng: random.Random) -> str | None:
    """Algorithm 1's draw: one technique of the solution that is not forbidden yet, chosen
    uniformly from the sorted candidates (taxonomy names only); None if none is new."""
    candidates = sorted(t for t in techniques if t in TAXONOMY and t not in constraints)
    return rng.choice(candidates) if candidates else None


def _thread_prompt(messages: list[dict], statement: str, language: str = PYTHON) -> Prompt:
    """The conversation so far for chat models; completion models see the current
    statement in the code-prefix prompt (a base model has no conversation)."""
    completion = solve_prompt(statement, None, language)
    return Prompt(messages=tuple(messages), completion=completion.completion, code_prefix=completion.code_prefix)


def _followup(statement: str, language: str) -> str:
    """The next round's request: the language's follow-up text with the new statement and,
    for C++, the C++ meaning of the techniques it denies (``solve.constraint_glossary``)."""
    return load_prompt(FOLLOWUP[language]).replace("{glossary}", constraint_glossary(statement, language)).replace(
        "{statement}", statement)


def denial_chain(problem: dict, model: Model, detect, sandbox, rounds: int = 5, seed: int = 0,
                 language: str = PYTHON) -> list[dict]:
    """Run Algorithm 1 on ``problem`` (a state-0 record: problem_id, statement, tests,
    checker, time_limit_s, memory_limit_mb) and return its problem-state records.

    ``detect(code) -> set[str]`` is the technique detector; ``sandbox`` judges each
    solution.  ``language`` ("python" or "cpp"): the prompt asks for it, the sandbox
    judges in it (with the eval's limits, ``pipeline.state_limits``: C++ gets the problem's
    own Codeforces time limit where the record keeps one), and a C++ chain's augmentation
    says ``"language": "cpp"``.  Model errors
    propagate (ModelError): the caller records the problem as failed and, with the call
    cache, a rerun resumes it without repeating calls.
    """
    rng = chain_rng(seed, problem["problem_id"])
    constraints: list[str] = []
    statement = problem["statement"]
    first = solve_prompt(statement, None, language)
    messages = list(first.messages)
    records, seen = [], set()
    # the eval's rule, owned there; a raw problem is its state 0, with nothing denied yet
    limits = state_limits(ProblemState.from_dict({"state": 0, "constraints": [], **problem}), 1.0, language)
    for round_index in range(rounds + 1):
        prompt = _thread_prompt(messages, statement, language)
        reply = model.generate(prompt)
        code = program_from_reply(reply, language)
        result = sandbox.run(code, problem["tests"], limits, checker=problem.get("checker"), language=language)
        techniques = detect(code)
        if tuple(constraints) not in seen:
            seen.add(tuple(constraints))
            records.append({
                **{k: v for k, v in problem.items() if k not in ("statement", "state", "constraints")},
                "state": len(constraints), "constraints": list(constraints), "statement": statement,
                "source_index": round_index,
                "augmentation": {"model": model.name, "round": round_index, "solution": code,
                                 "techniques": sorted(techniques), "verdicts": result.verdicts,
                                 "accepted": result.accepted,
                                 "tokens": {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens},
                                 **({"language": language} if language != PYTHON else {})},
            })
        if round_index == rounds:
            break
        new = next_constraint(techniques, constraints, rng)
        if new is not None:
            constraints = [new] + constraints
            statement = with_constraints(problem["statement"], constraints)
        messages += [{"role": "assistant", "content": reply.text},
                     {"role": "user", "content": _followup(statement, language)}]
    return records
