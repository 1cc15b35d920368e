"""One NeoCoder sample through every stage: problem state -> model -> sandbox -> techniques.

``judge_sample`` takes one sample of one problem state through the strategy (the model),
the sandbox, the detector and Eq. 2-3 and returns its ``Sample`` record; ``judge_reply``
is the part after the model, for a reply from anywhere.  The eval task
(neocoder/benchmarks/neocoder/evaluation.py) calls ``judge_sample`` once per item; the runner
(neocoder/runner.py) does the rest (resume, concurrency, the run folder).
"""

from __future__ import annotations

import hashlib
import time

from neocoder.benchmarks.neocoder.paper import PaperProtocol
from neocoder.benchmarks.neocoder.program import program_from_reply, prompt_text, read_program
from neocoder.benchmarks.neocoder.strategies import Context, StrategyOptions, get_strategy
from neocoder.config import CPP, PYTHON
from neocoder.judge import Limits, Sandbox, SubmissionResult
from neocoder.metrics.rates import divergent_ratio
from neocoder.models import Model, ModelError, Reply
from neocoder.models.openai_compat import EndpointError
from neocoder.records import ProblemState, Sample, TierResult
from neocoder.techniques import detect, judge_constraints


def tier(result: SubmissionResult) -> TierResult:
    """One judged tier of tests as a record (an INFRA verdict marks the tier ``infra``)."""
    return TierResult(tests=[t.to_dict() for t in result.tests], correct=result.accepted,
                      infra=result.infra_failure or "INFRA" in result.verdicts,
                      skipped=result.verdicts.count("SKIPPED"))


def state_limits(state: ProblemState, cpu_scale: float = 1.0, language: str = PYTHON) -> Limits:
    """The sandbox limits of one test of ``state`` for a program in ``language``: its time
    limit times ``cpu_scale`` as CPU seconds, its memory limit in MiB.

    The one owner of the rule of which time limit a language gets (the chain builder,
    denial.py, calls it too): Python gets ``state.time_limit_s``, which the oracle
    (neocoder/oracle.py ``time_limit``) may have raised above the Codeforces limit for
    slow accepted Python humans; C++ gets the problem's own Codeforces limit,
    ``extra["codeforces_time_limit_s"]`` where the record keeps one (else
    ``time_limit_s``, which is then the Codeforces limit)."""
    seconds = float(state.time_limit_s)
    if language == CPP:
        seconds = float(state.extra.get("codeforces_time_limit_s") or seconds)
    return Limits.for_cpu(seconds * cpu_scale, int(state.memory_limit_mb))


def judge_sample(state: ProblemState, sample: int, model: Model, sandbox: Sandbox,
                 human: set[str] | None, cpu_scale: float = 1.0, judge_all_tests: bool = True,
                 strategy: str = "direct", options: StrategyOptions | None = None, seed: int | None = None,
                 protocol: PaperProtocol | None = None, language: str = PYTHON) -> Sample:
    """Run one sample of one problem state through every stage; return its record.

    The ``strategy`` (neocoder/strategies/) solves the state with the model, seeing only
    the example tests; its final reply is judged here like any other: the examples and
    the extended tests (the ``plus`` tier, where the state has them) as two submissions
    kept side by side (``judge_reply``).  The strategy's attempts and spend (calls,
    tokens, seconds) go into the record; ``seed`` is this sample's sampling seed.  A
    model failure is recorded as ``error`` (the sample is retried on resume and left out
    of the metrics); a sandbox failure marks its tier ``infra`` and also excludes the
    sample.  EndpointError (the endpoint is unreachable, or refuses the key, the model or
    a parameter: RequestRefused) propagates: every sample would fail, so the run stops.
    A model error inside a strategy of several calls (self-correct, self-plan, sample,
    mcts) is recorded the same way, never judged as a wrong program: ``error`` names the
    strategy, ``attempts`` keeps those made before it and ends with ``{"kind": "error",
    "call": the failing call's number, "error"}``.
    ``protocol`` (neocoder/paper.py) judges as the release's harness did (docs/paper.md);
    None: this project's judging.  ``language`` ("python" or "cpp") is what the model is
    asked for (prompts/solve_*.txt or solve_cpp_*.txt), how its program is extracted,
    compiled and judged, and which detector grammar reads it.
    """
    options = options or StrategyOptions()
    limits = state_limits(state, cpu_scale, language)
    ctx = Context(state, sample, model, sandbox, human, limits, seed, options, language)
    prompt = ctx.solve_prompt()
    record = Sample(problem_id=state.problem_id, state=state.state, sample=sample, model=model.name,
                    constraints=list(state.constraints), prompt_sha256=prompt.sha256(), strategy=strategy, seed=seed)
    t0 = time.monotonic()
    try:
        solution = get_strategy(strategy)(ctx)
    except EndpointError:
        raise
    except ModelError as exc:
        if strategy == "direct":
            record.error = str(exc)
        else:
            record.error = f"{strategy}: {exc}"
            record.attempts = list(ctx.attempts) + [{"kind": "error", "call": ctx.failed_call, "error": str(exc)}]
        record.cost = dict(ctx.cost, seconds=round(time.monotonic() - t0, 4))
        return record
    judge_reply(record, state, solution.reply, sandbox, human, cpu_scale, judge_all_tests, limits, protocol,
                tried=ctx.tried(program_from_reply(solution.reply, language)), language=language,
                prompt=prompt_text(solution.prompt or prompt))
    record.attempts = solution.attempts
    record.logprob = solution.reply.mean_logprob
    record.cost = dict(ctx.cost, seconds=round(time.monotonic() - t0, 4))
    if ctx.cost["calls"] > 1:  # the final reply's tokens alone would hide what the strategy spent
        record.tokens = {"prompt": ctx.cost["prompt_tokens"], "completion": ctx.cost["completion_tokens"],
                         **({"reasoning": ctx.cost["reasoning_tokens"]} if ctx.cost["reasoning_tokens"] else {})}
    record.timings["total_s"] = round(time.monotonic() - t0, 4)
    return record


def judge_reply(record: Sample, state: ProblemState, reply: Reply, sandbox: Sandbox, human: set[str] | None,
                cpu_scale: float = 1.0, judge_all_tests: bool = True, limits: Limits | None = None,
                protocol: PaperProtocol | None = None, tried=None, language: str = PYTHON,
                prompt: str | None = None, cancel=None) -> Sample:
    """Fill ``record`` with what the sandbox and the detector say of ``reply`` for ``state``:
    the program, both test tiers, techniques, constraints followed, divergent (Eq. 3).

    The stages after the model, for a reply from anywhere (a model, a recorded run, a
    program sent to ``neocoder serve``).  ``judge_all_tests`` False stops each tier at
    its first failing test and judges the extended tier only when the examples are all
    AC (a wrong sample is wrong whatever the other tests say; skipped tests are recorded
    as SKIPPED and no rate changes).  ``limits`` default to the state's, with the CPU
    time scaled by ``cpu_scale``.  ``protocol`` (neocoder/paper.py), when given, decides
    how the program is entered and compares outputs as the release's harness did.
    ``tried``: the strategy's Trial of this program on the examples (strategies/base.py),
    whose verdicts and techniques are taken instead of judging and detecting it again
    wherever they are what this judging would give (this project's judging, every example
    judged or every one AC, and no sandbox failure).  ``language`` ("python" or "cpp"): the
    program's.  A reply holding no program (``program.read_program``; ``prompt``: the text
    shown, for echoes) is never judged (``no_program_record``).  ``cancel``: to ``sandbox.run``.  Returns ``record``.
    """
    t0 = time.monotonic()
    code = (reading := read_program(reply, prompt, language)).value
    if not reading.readable:
        return no_program_record(record, state, reply, human, reading.reason, t0)
    limits = limits or state_limits(state, cpu_scale, language)
    fail_fast = not judge_all_tests
    source, entry = protocol.program(code) if protocol else (code, "auto")
    keep = bool(protocol and protocol.keeps_output)

    def judged(tests, stops={"cancel": cancel} if cancel else {}):  # a sandbox stand-in may take no cancel
        result = sandbox.run(source, tests, limits, checker=state.checker, keep_output=keep, entry=entry,
                             stop_at_first_failure=fail_fast, language=language, **stops)
        return protocol.rejudge(result, tests) if protocol else result
    reuse = (tried is not None and protocol is None and (judge_all_tests or tried.result.accepted)
             and not tier(tried.result).infra)  # a sandbox failure is judged again, never kept
    examples = tried.result if reuse else judged(state.tests)
    plus = None
    if state.extended_tests and (judge_all_tests or examples.accepted):
        plus = judged(state.extended_tests)
    techniques = set(tried.techniques) if reuse else detect(code, language)
    violated, unchecked = judge_constraints(state.constraints, techniques)
    record.reply, record.code_prefix, record.code = reply.text, reply.code_prefix, code
    record.code_sha256 = hashlib.sha256(code.encode()).hexdigest()
    record.entry, record.compile_error = examples.entry, examples.compile_error
    record.entry_rule, record.calls_solve = examples.entry_rule, examples.calls_solve
    record.examples = tier(examples)
    record.plus = tier(plus) if plus is not None else (
        TierResult(tests=[], correct=False, skipped=len(state.extended_tests)) if state.extended_tests else None)
    record.techniques = sorted(techniques)
    record.violated_constraints, record.unchecked_constraints = violated, unchecked
    record.follows = not violated
    if human is not None:
        record.human_techniques, record.new_techniques = sorted(human), sorted(techniques - human)
        record.divergent = divergent_ratio(techniques, human)
    _reply_fields(record, reply)
    judge_s = examples.seconds + (plus.seconds if plus is not None else 0.0)
    record.timings = {"model_s": round(reply.seconds, 4), "judge_s": round(judge_s, 4),
                      "total_s": round(time.monotonic() - t0, 4)}
    return record


def _reply_fields(record: Sample, reply: Reply) -> None:
    """What the record keeps of the reply whatever it held: tokens, reasoning, parameters
    sent, and the endpoint's finish reason ("length": it stopped at the token limit)."""
    record.finish_reason = reply.extra.get("finish_reason")
    record.tokens = {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens,
                     **({"reasoning": reply.reasoning_tokens} if reply.reasoning_tokens is not None else {})}
    record.reasoning, record.sent = reply.reasoning, dict(reply.sent)


def no_program_record(record: Sample, state: ProblemState, reply: Reply, human: set[str] | None, reason: str,
                      t0: float) -> Sample:
    """Fill ``record`` for a reply that holds no program (``reason``, one of
    ``replies.ANSWER_REASONS``), judging nothing: ``no_program`` set, no code, both tiers
    with every test skipped (so the sample is wrong, and it is kept in the rates, not
    excluded), no technique, ``follows`` False (constraint following counts only replies
    holding a program, docs/metrics.md), and where the problem has a human technique set a
    divergent of 0 (Eq. 3 with an empty T(s)), so convergent, divergent and NeoGauge count
    it as 0 over every reply, as the paper's 1 / |Y_t| does.  Returns ``record``."""
    record.no_program = reason
    record.reply, record.code_prefix, record.code, record.code_sha256 = reply.text, reply.code_prefix, None, None
    record.examples = TierResult(tests=[], correct=False, skipped=len(state.tests))
    record.plus = TierResult(tests=[], correct=False, skipped=len(state.extended_tests)) \
        if state.extended_tests else None
    record.techniques, record.violated_constraints, record.unchecked_constraints = [], [], []
    record.follows = False
    if human is not None:
        record.human_techniques, record.new_techniques = sorted(human), []
        record.divergent = divergent_ratio(set(), human)
    _reply_fields(record, reply)
    record.timings = {"model_s": round(reply.seconds, 4), "judge_s": 0.0, "total_s": round(time.monotonic() - t0, 4)}
    return record
