"""The sandbox hardened (issue 57): the program is always the OOM killer's choice, and no
control character a program chooses reaches a terminal or a page.

The OOM trick: a program lowers its own OOM score (to the runner's: the kernel lets any
process go down to the score last set with CAP_SYS_RESOURCE, and no container has that
here) and spreads its memory over 50 processes, each smaller than the runner; at equal
scores the kernel kills the largest process, the runner, and the verdict was "RE: the
program killed or stalled the sandbox runner" with the worker replaced.  The runner now
confines what a test may open for writing (Landlock, ``child.confine_writes``): its
scratch folders and /dev/null, not /proc/self/oom_score_adj.
"""

import pytest

from neocoder.judge import verdicts
from neocoder.judge.docker_sandbox import DockerSandbox
from neocoder.judge.protocol import Limits
from neocoder.judge.selftest import MEMORY_ATTACK_LIMITS
from neocoder.judge.selftest_cpp import OOM_TRICK
from neocoder.judge.verdicts import AC, CE, MLE, RE, SubmissionResult, printable

# What a test may and may not open for writing: "yes" or the errno's name, per path.
WRITES = r'''
import errno, os
out = []
for path in ("/proc/self/oom_score_adj", "/proc/self/comm", "/tmp/x", "/dev/shm/x", "/dev/null"):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        os.close(fd)
        out.append("yes")
    except OSError as exc:
        out.append(errno.errorcode[exc.errno])
print(" ".join(out))
'''


@pytest.fixture(scope="module")
def box():
    """One Docker sandbox for the file's tests: a new one right after another's close can
    race with the engine removing the old one's containers (issue 57's first item)."""
    with DockerSandbox(concurrency=1) as sandbox:
        yield sandbox


@pytest.mark.docker
def test_the_oom_trick_is_mle_and_the_worker_survives_it(box):
    test = [{"input": "", "output": "ok\n"}]
    trick = box.run(OOM_TRICK, test, MEMORY_ATTACK_LIMITS, language="cpp")
    canary = box.run("print(1)\n", [{"input": "", "output": "1\n"}], Limits.for_cpu(1.0))
    writes = box.run(WRITES, [{"input": "", "output": "EACCES EACCES yes yes yes\n"}], Limits.for_cpu(1.0),
                     entry="script")
    assert trick.verdicts == [MLE], trick.tests[0]
    assert canary.accepted and canary.worker == trick.worker  # the runner was not the one killed
    assert writes.verdicts == [AC], writes.tests[0].stdout_head


@pytest.mark.docker
def test_a_program_chooses_no_escape_sequence_for_the_operator_s_terminal(box):
    evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mEvil"
    raises = f"raise type({evil!r}, (Exception,), {{}})()\n"
    test = [{"input": "", "output": ""}]
    python = box.run(raises, test, Limits.for_cpu(1.0), entry="script")
    cpp = box.run('#error "\x1b[2J\x1b[31mred\x07"\nint main() {}\n', test, Limits.for_cpu(1.0), language="cpp")
    assert python.verdicts == [RE] and python.tests[0].detail == "Evil"
    assert cpp.verdicts == [CE] and "#error" in cpp.compile_error and "red" in cpp.compile_error
    for text in (cpp.compile_error, cpp.tests[0].detail):
        assert not any(c in text for c in "\x1b\x07"), repr(text)


def test_printable_strips_control_characters_and_keeps_lines_tabs_and_letters():
    assert printable("a\x1b[31mred\x1b[0m\tb\nc\x07\x1b]0;title\x07d\r\x00e\u202eX\x9b2Jf\x1bcg") == "ared\tb\ncdeXfg"
    kept = "solve(): IndexError\n\tat line 3: 'naïve' → 答案 ok"
    assert printable(kept) == kept and printable(None) is None
    assert verdicts.TestVerdict(RE, detail="\x1b[2JBoom\x07", stdout_head="\x1b[1mhi\n").detail == "Boom"
    assert verdicts.TestVerdict(RE, stdout_head="\x1b[1mhi\n").stdout_head == "hi\n"
    assert SubmissionResult(compile_error="\x1b[31merror:\x1b[0m x\r\n").compile_error == "error: x\n"
