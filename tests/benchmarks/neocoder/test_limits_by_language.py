"""Which time limit each language is judged with (issue 58): Python gets the state's limit,
which the oracle may raise above the Codeforces limit for slow accepted Python humans; C++
gets the problem's own Codeforces limit.  No shipped problem has a raised Python limit, so
these tests make one (with the oracle's own rule) and check the rule where the two differ:
in ``pipeline.state_limits`` (the eval), in the chain builder (``denial.denial_chain``,
which calls it), and in the real Docker sandbox with a program whose CPU time falls
between the two limits.  The model is a scripted OpenAI-compatible endpoint on loopback;
the sandbox is the real one, wrapped to keep the Limits each submission was given."""

import dataclasses

import pytest
from loopback import RespondingServer

from neocoder.benchmarks.neocoder.denial import denial_chain
from neocoder.benchmarks.neocoder.pipeline import judge_sample, state_limits
from neocoder.dataset.shipped import load_states
from neocoder.judge.verdicts import AC, TLE
from neocoder.models.openai_compat import OpenAICompatModel
from neocoder.oracle import time_limit
from neocoder.records import ProblemState
from neocoder.techniques import detect

CODEFORCES_S = 0.25  # the problem's own limit (CPU seconds per test)
SPIN_S = 0.5  # the CPU seconds the slow program spins: 2x the Codeforces limit, so TLE under it
HUMAN_S = 5.0  # the slowest accepted human Python run the oracle saw
# the oracle's rule raises the limit for that human to 10 s.  The margins are wide on
# purpose: the wall backstop (2x the CPU limit + 1 s: 21 s) must not stop the spin on a
# loaded 2-core machine (measured at load 14: a 1 s spin took 11 to 13 s of wall)
RAISED_S = time_limit(CODEFORCES_S, [["ok", "5\n", HUMAN_S]])["time_limit_s"]

SLOW_PYTHON = ("```python\nimport sys\nimport time\n\n"
               "a, b = map(int, sys.stdin.read().split())\n"
               "start = time.process_time()\n"
               f"while time.process_time() - start < {SPIN_S}:\n"
               "    pass\n"
               "print(a + b)\n```")
QUICK_CPP = ("```cpp\n#include <cstdio>\n"
             "int main() { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); }\n```")


def raised_state() -> ProblemState:
    """A state-0 A+B problem whose Python limit the oracle raised above its Codeforces one."""
    return ProblemState(problem_id="LIM1", state=0, constraints=[], statement="A. Sum\nPrint a + b.",
                        tests=[{"input": "2 3\n", "output": "5\n"}], time_limit_s=RAISED_S, memory_limit_mb=256,
                        extra={"codeforces_time_limit_s": CODEFORCES_S})


class Recording:
    """The real sandbox, keeping ``(language, Limits)`` of every submission it judged."""

    def __init__(self, box):
        self.box, self.seen = box, []

    def run(self, source, tests, limits, **kwargs):
        self.seen.append((kwargs.get("language", "python"), limits))
        return self.box.run(source, tests, limits, **kwargs)


def test_the_oracle_raises_the_python_limit_in_the_scenario_tested():
    assert RAISED_S == 10.0 and CODEFORCES_S < SPIN_S < RAISED_S  # the program falls between the two limits
    assert time_limit(CODEFORCES_S, [["ok", "5\n", 0.1]])["time_limit_s"] == CODEFORCES_S  # a quick human: none


def test_state_limits_give_python_the_raised_limit_and_cpp_the_codeforces_one():
    shipped = load_states()[0]  # a real state, its Python limit raised as the oracle would
    state = dataclasses.replace(shipped, time_limit_s=3 * shipped.extra["codeforces_time_limit_s"])
    codeforces = shipped.extra["codeforces_time_limit_s"]
    assert state_limits(state, 1.0, "python").cpu_seconds == 3 * codeforces
    assert state_limits(state, 1.0, "cpp").cpu_seconds == codeforces
    assert state_limits(state, 2.0, "python").cpu_seconds == 6 * codeforces  # cpu_scale applies to each
    assert state_limits(state, 2.0, "cpp").cpu_seconds == 2 * codeforces
    assert state_limits(state).memory_mb == state_limits(state, 1.0, "cpp").memory_mb == shipped.memory_limit_mb
    # the wall backstop follows each language's own CPU limit, not the other's
    assert state_limits(state, 1.0, "cpp").wall_seconds < state_limits(state, 1.0, "python").wall_seconds
    # where the record keeps no Codeforces limit (a raw problem), time_limit_s is it, for both
    bare = dataclasses.replace(raised_state(), extra={})
    assert state_limits(bare, 1.0, "cpp").cpu_seconds == state_limits(bare, 1.0, "python").cpu_seconds == RAISED_S
    # a shipped state (none raised): both languages get the same limit
    assert state_limits(shipped, 1.0, "cpp") == state_limits(shipped, 1.0, "python")


@pytest.fixture(scope="module")
def endpoint():
    """A scripted endpoint: the slow Python program when asked for Python, A+B in C++ else."""
    def respond(kind, body):
        asked = body["messages"][-1]["content"]
        return (QUICK_CPP if "C++17" in asked else SLOW_PYTHON), None
    with RespondingServer(respond) as server:
        yield OpenAICompatModel("openai/limits", "limits", base_url=server.url, api_key="k", max_retries=0,
                                timeout=30)


@pytest.mark.docker
def test_the_eval_judges_python_with_the_raised_limit_in_the_real_sandbox(sandbox, endpoint):
    state, box = raised_state(), Recording(sandbox)
    record = judge_sample(state, 0, endpoint, box, None, language="python")
    assert [limits.cpu_seconds for _, limits in box.seen] == [RAISED_S]
    assert record.examples.verdicts == [AC] and record.examples.correct, record.examples.tests
    assert record.examples.tests[0]["cpu_seconds"] > CODEFORCES_S  # it did spin past the Codeforces limit
    # the same program under the C++ rule's limit (the Codeforces one) is TLE: the rule matters here
    lower = sandbox.run(record.code, state.tests, state_limits(state, 1.0, "cpp"))
    assert lower.verdicts == [TLE], lower.tests


@pytest.mark.docker
def test_the_eval_judges_cpp_with_the_codeforces_limit(sandbox, endpoint):
    box = Recording(sandbox)
    record = judge_sample(raised_state(), 0, endpoint, box, None, language="cpp")
    assert [(language, limits.cpu_seconds) for language, limits in box.seen] == [("cpp", CODEFORCES_S)]
    assert record.examples.verdicts == [AC] and record.entry_rule == "compiled"


@pytest.mark.docker
def test_the_chain_builder_gives_each_language_its_limit(sandbox, endpoint):
    problem = raised_state().to_dict()  # the builder reads flat records: codeforces_time_limit_s beside the rest
    python_box, cpp_box = Recording(sandbox), Recording(sandbox)
    [python] = denial_chain(problem, endpoint, detect, python_box, rounds=0, language="python")
    assert [limits.cpu_seconds for _, limits in python_box.seen] == [RAISED_S]
    assert python["augmentation"]["accepted"] and python["augmentation"]["verdicts"] == [AC]
    [cpp] = denial_chain(problem, endpoint, lambda code: detect(code, "cpp"), cpp_box, rounds=0, language="cpp")
    assert [(language, limits.cpu_seconds) for language, limits in cpp_box.seen] == [("cpp", CODEFORCES_S)]
    assert cpp["augmentation"]["accepted"] and cpp["augmentation"]["language"] == "cpp"
    # the chain's states keep both limits as they came, for the eval to apply the same rule
    assert python["time_limit_s"] == cpp["time_limit_s"] == RAISED_S
    assert python["codeforces_time_limit_s"] == cpp["codeforces_time_limit_s"] == CODEFORCES_S
