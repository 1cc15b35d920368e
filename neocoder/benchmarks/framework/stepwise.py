"""The step-wise loop: divergent creativity as semantic entropy per step
(creativity-framework Sec. 3, Eq. 1-3; App. C, C.1, C.7.2; App. F for BookMIA).

At each step the model is shown the problem and the steps chosen so far and ``n``
candidate next steps are sampled (T = 1.0, top_p = 0.9 by default, each with its own
seed, log-probabilities asked for).  Then:

- each candidate is read by grammars.read_candidate: a step, or the word STOP (a vote to
  stop), or unreadable with its reason (empty, reasoning only, a refusal, the prompt
  echoed), recorded in ``unreadable`` and set aside: it is neither a vote nor a class;
- when a strict majority of the readable candidates vote STOP (``stop_majority``: 6 of 10,
  never a 5-5 tie), the solution ends (the step is recorded with ``stopped``, and its
  entropy is not part of the solution's score);
- the readable candidates are put into meaning classes by bidirectional entailment (entailment.py);
  STOP votes form one class of their own without asking the backend;
- the step's semantic entropy (Eq. 3) is Rao-Blackwellised (App. C: class probabilities
  from the candidates' length-normalised log-probabilities, Eq. 1 with the mean over
  tokens, normalised over the sampled classes) when every candidate has log-probabilities,
  else discrete (class counts); the record names the estimator;
- the candidate with the highest mean token log-probability among those that did not say
  STOP is appended (greedy); without log-probabilities, the first member of the largest
  class;
- a step identical to the one before it marks the solution ``repeated`` (the BookMIA
  filter of App. F drops such solutions from the scores; generation goes on as the
  paper's did);
- ``max_steps`` caps a solution.

The divergent score of a solution is the mean of its steps' entropies, with the minimum
and maximum kept as the ablations of App. C.7.2 (``summarise``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Iterator

from neocoder.benchmarks.framework.calls import Meter, fill, text_prompt
from neocoder.benchmarks.framework.config import FrameworkConfig
from neocoder.benchmarks.framework.domains import Problem
from neocoder.benchmarks.framework.entailment import Entailment
from neocoder.benchmarks.framework.grammars import read_candidate
from neocoder.benchmarks.framework.records import FrameworkStep
from neocoder.metrics.entropy import discrete_entropy, rao_blackwell_entropy
from neocoder.replies import Tally
from neocoder.resources import prompt_text

STOP_WORD = "STOP"
STEP_STOP = ("\n",)  # one step is one line


_DECLARED = {f.name: f.default for f in fields(FrameworkConfig)}


@dataclass
class StepSettings:
    """How candidates are sampled (FrameworkConfig's options, whose declared defaults these are)."""

    candidates: int = _DECLARED["candidates"]
    temperature: float = _DECLARED["sample_temperature"]
    top_p: float = _DECLARED["sample_top_p"]
    max_steps: int = _DECLARED["max_steps"]
    step_tokens: int = _DECLARED["step_tokens"]


_STEP_LABEL = re.compile(r"^\s*(?:step\s*\d+\s*[:.)-]\s*)+", re.I)


def candidate_text(reply: str) -> str:
    """The step a reply proposes: its first non-blank line, without a leading "Step N:"
    label (a base model often repeats the prompt's label); "" when nothing is left."""
    lines = [line for line in reply.splitlines() if line.strip()]
    return _STEP_LABEL.sub("", lines[0]).strip() if lines else ""


def step_prompt(problem: Problem, steps: list[str]) -> str:
    """The text asking for step ``len(steps) + 1`` of ``problem`` (prompts/framework_step.txt)."""
    done = "".join(f"Step {i}: {s}\n" for i, s in enumerate(steps, 1))
    return fill("framework_step.txt", task=prompt_text(f"framework_task_{problem.domain}.txt").strip(),
                problem=problem.text, steps=done, n=len(steps) + 1)


def step_entropy(classes: list[int], logprobs: list) -> tuple[float, str]:
    """(semantic entropy in nats, estimator): Rao-Blackwellised when every candidate has a
    log-probability (Eq. 1-3 with App. C's normalisation over the sampled classes), else
    discrete from the class counts.  Raises ValueError for no candidates."""
    if logprobs and all(lp is not None for lp in logprobs):
        return rao_blackwell_entropy(classes, logprobs), "rao-blackwell"
    return discrete_entropy(classes), "discrete"


def stop_majority(stops: list[bool]) -> bool:
    """Whether a step's candidates end the solution: strictly more than half of them vote
    STOP ("until majority of the samples indicate completion", creativity-framework Sec. 3.2);
    a tie (5 of 10) goes on."""
    return 2 * sum(map(bool, stops)) > len(stops)


def greedy_choice(texts: list[str], stops: list[bool], logprobs: list, classes: list[int]) -> int | None:
    """The index of the candidate to append: the highest mean token log-probability among
    those not voting STOP (ties: the first); without log-probabilities, the first member
    of the largest class of non-STOP candidates.  None when every candidate says STOP."""
    live = [i for i in range(len(texts)) if not stops[i]]
    if not live:
        return None
    scored = [i for i in live if logprobs[i] is not None]
    if len(scored) == len(live):
        return max(live, key=lambda i: (logprobs[i], -i))
    sizes: dict[int, int] = {}
    for i in live:
        sizes[classes[i]] = sizes.get(classes[i], 0) + 1
    biggest = max(sizes, key=lambda c: (sizes[c], -c))
    return next(i for i in live if classes[i] == biggest)


def sample_step(problem: Problem, steps: list[str], model, settings: StepSettings, meter: Meter):
    """The ``n`` candidates of the next step: their texts (the step, STOP, or for an
    unreadable one the reply as it came), mean log-probabilities and readings
    (grammars.read_candidate, the echo checked against the instructions and the problem)."""
    text = step_prompt(problem, steps)
    asked = step_prompt(problem, [])
    texts, logprobs, readings = [], [], []
    for j in range(settings.candidates):
        reply = meter.ask(model, text_prompt(text, settings.step_tokens, stop=STEP_STOP, seed=j, logprobs=1,
                                             temperature=settings.temperature, top_p=settings.top_p))
        reading = read_candidate(reply.text, asked, reply.reasoning)
        readings.append(reading)
        texts.append(candidate_text(reply.text) if reading.readable else (reply.text or "").strip())
        logprobs.append(reply.mean_logprob)
    return texts, logprobs, readings


def one_step(problem: Problem, steps: list[str], model, entailment: Entailment,
             settings: StepSettings) -> FrameworkStep:
    """Sample, read, class, score and choose step ``len(steps) + 1`` (see the module).  With
    no readable candidate the step has no entropy (None) and no choice: the solution ends
    there, unreadable."""
    meter = Meter()
    texts, logprobs, readings = sample_step(problem, steps, model, settings, meter)
    readable = [i for i, r in enumerate(readings) if r.readable]
    stops = [r.value == STOP_WORD for r in readings]
    live = [i for i in readable if not stops[i]]
    live_classes, asked = entailment.classes_read([texts[i] for i in live]) if live else ([], [])
    classes: list = [None] * len(texts)
    mapping: dict = {}
    for i in readable:  # ids in order of first appearance, STOP votes one class
        c = "stop" if stops[i] else live_classes[live.index(i)]
        classes[i] = mapping.setdefault(c, len(mapping))
    if readable:
        entropy, estimator = step_entropy([classes[i] for i in readable], [logprobs[i] for i in readable])
    else:
        entropy, estimator = None, "none"
    stopped = bool(readable) and stop_majority([stops[i] for i in readable])
    chosen = None if stopped or not readable else greedy_choice(texts, [stops[i] or i not in live
                                                                       for i in range(len(texts))],
                                                               logprobs, [c if c is not None else -1 for c in classes])
    tally = Tally()
    for r in asked:
        tally.add("entailment", r)
    return FrameworkStep(domain=problem.domain, problem_id=problem.problem_id, step=len(steps) + 1,
                         candidates=texts, stops=stops, logprobs=logprobs, classes=classes, entropy=entropy,
                         estimator=estimator, chosen=chosen, stopped=stopped, entailment=entailment.name,
                         tokens=meter.to_dict(), unreadable=[r.reason for r in readings],
                         entailment_replies=tally.to_dict().get("entailment", {}))


def run_steps(problem: Problem, model, entailment: Entailment, settings: StepSettings,
              done: list[FrameworkStep] = ()) -> Iterator[FrameworkStep]:
    """Yield the steps of ``problem`` after ``done`` (the steps a resumed run already
    has), until a STOP majority, a step with no candidate to choose, or the cap (for
    BookMIA, also the story's own number of middle sentences)."""
    done = sorted(done, key=lambda s: s.step)
    steps = [s.candidates[s.chosen] for s in done if s.chosen is not None]
    if done and (done[-1].stopped or done[-1].chosen is None):
        return
    cap = settings.max_steps
    if problem.domain == "bookmia":
        cap = min(cap, problem.extra.get("sentences", cap))
    while len(steps) < cap:
        step = one_step(problem, steps, model, entailment, settings)
        yield step
        if step.stopped or step.chosen is None:
            return
        steps.append(step.candidates[step.chosen])


def summarise(steps: list[FrameworkStep], cap: int) -> dict:
    """A solution's steps and scores: ``steps`` (the chosen texts), ``entropies`` (of
    the steps whose candidate was appended), ``divergent`` (their mean, the paper's
    divergent creativity), ``divergent_min``/``divergent_max`` (App. C.7.2),
    ``stop_reason`` ("stop", "cap", or "unreadable": no candidate of the last step was
    readable) and ``repeated`` (two identical consecutive steps)."""
    steps = sorted(steps, key=lambda s: s.step)
    chosen = [s for s in steps if s.chosen is not None and not s.stopped]
    texts = [s.candidates[s.chosen] for s in chosen]
    entropies = [s.entropy for s in chosen]
    repeated = any(a.strip().lower() == b.strip().lower() for a, b in zip(texts, texts[1:]))
    ended = bool(steps) and (steps[-1].stopped or steps[-1].chosen is None)
    reason = "cap"
    if ended:
        reason = "unreadable" if steps[-1].entropy is None else "stop"
    return {"steps": texts, "entropies": entropies,
            "divergent": sum(entropies) / len(entropies) if entropies else None,
            "divergent_min": min(entropies) if entropies else None,
            "divergent_max": max(entropies) if entropies else None,
            "stop_reason": reason, "repeated": repeated}
