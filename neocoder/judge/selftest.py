"""The sandbox regression corpus: attacks that must be contained, programs that must pass.

``neocoder sandbox selftest`` runs every case through the real sandbox, then a
canary (a correct program) in the same pool to show the sandbox is still healthy,
and prints a table.  Cases with a ``follow_up`` run it as the next submission in
the same warm container: it must find nothing the attack left behind.  Cases with
``same_worker`` need the canary judged by the very worker the attack ran in (the
attack did not cost the worker); ``max_seconds`` bounds how long the verdict may
take, and ``detail`` is a text the verdict's detail must contain.  The C++ cases
(``language="cpp"``) are in ``selftest_cpp.CPP_CASES``; ``neocoder sandbox selftest``
runs both lists.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from neocoder.judge.pool import Limits, PooledSandbox
from neocoder.judge.verdicts import AC, RE

CANARY = "def solve():\n    a, b = map(int, input().split())\n    print(a + b)\n"
CANARY_TEST = {"input": "2 3\n", "output": "5\n"}
LIMITS = Limits(cpu_seconds=1.0, wall_seconds=4.0, memory_mb=256)
MEMORY_ATTACK_LIMITS = Limits(cpu_seconds=5.0, wall_seconds=10.0, memory_mb=256)

# A program that finds anything an earlier submission could have left behind.
LEFTOVERS = r'''
import os
def solve():
    found = []
    for root in ("/tmp", "/dev/shm", os.getcwd()):
        for dirpath, dirs, files in os.walk(root):
            found += [os.path.join(dirpath, f) for f in files if f not in ("solution.py", "stdin", "status")]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            if b"777" in cmd.split(b"\0"):
                found.append("daemon " + pid)
    print("clean" if not found else " ".join(found))
'''

# Sends a signal to every process it can see (and to -1), never to itself.
SIGNAL_EVERYTHING = r'''
import os, signal
def signal_everything(sig):
    me = os.getpid()
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me:
            try:
                os.kill(int(name), sig)
            except OSError:
                pass
    try:
        os.kill(-1, sig)
    except OSError:
        pass
'''


@dataclass
class Case:
    """One corpus entry: ``expect`` is the set of acceptable verdicts of its one test."""

    name: str
    source: str
    expect: set
    input: str = "1\n"
    output: str = "ok\n"
    kind: str = "attack"
    follow_up: str | None = None
    limits: Limits = field(default=LIMITS)
    needs: frozenset = frozenset()  # features the backend must enforce (PooledSandbox.enforces)
    same_worker: bool = False  # the canary must be judged by the worker the attack ran in
    max_seconds: float | None = None  # the verdict must come within this many seconds
    detail: str | None = None  # a text the verdict's detail must contain
    language: str = "python"  # the program's language (verdicts.LANGUAGES): "cpp" cases are compiled first


CASES = [
    Case("infinite loop", "def solve():\n    while True:\n        pass\n", {"TLE"}),
    Case("sleep forever", "import time\ndef solve():\n    time.sleep(10**6)\n", {"TLE"}),
    Case("block reading stdin",
         "import os, sys\ndef solve():\n    sys.stdin.buffer.read()\n"
         "    print('ok' if os.read(0, 10) == b'' else 'data')\n",
         {"AC"}),
    Case("SIGTERM ignored",
         "import signal\ndef solve():\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
         "    while True:\n        pass\n",
         {"TLE"}),
    Case("8 busy threads",
         "import threading\ndef spin():\n    while True:\n        pass\n"
         "def solve():\n    for _ in range(8):\n        threading.Thread(target=spin, daemon=True).start()\n"
         "    spin()\n",
         {"TLE"}, needs=frozenset({"memory cgroup"})),
    Case("8 busy processes",
         "import os\ndef solve():\n    for _ in range(7):\n        if os.fork() == 0:\n            break\n"
         "    while True:\n        pass\n",
         {"TLE"}),
    # Memory attacks get a 5 s CPU limit: which limit a program hits first is a race,
    # and page faulting can be slow on a cold or busy machine (seen in CI: 1 s of CPU
    # before reaching 300 MiB); with time to spare, memory must be what stops them.
    Case("memory bomb",
         "def solve():\n    x = []\n    while True:\n        x.append(bytearray(1 << 20))\n", {"MLE"},
         limits=MEMORY_ATTACK_LIMITS),
    Case("one huge allocation", "def solve():\n    x = bytearray(1 << 34)\n    print(len(x))\n", {"MLE"},
         limits=MEMORY_ATTACK_LIMITS),
    Case("infinite recursion, raised limit",
         "import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1) + 1\ndef solve():\n    f(0)\n",
         {"RE", "MLE"}, limits=MEMORY_ATTACK_LIMITS,
         needs=frozenset({"memory cgroup"})),
    Case("fork bomb", "import os\ndef solve():\n    while True:\n        os.fork()\n", {"RE", "TLE"}),
    Case("thread bomb",
         "import threading, time\ndef solve():\n    while True:\n"
         "        threading.Thread(target=time.sleep, args=(100,)).start()\n",
         {"RE"}),
    Case("double-forked daemon",
         "import os\ndef solve():\n    if os.fork() == 0:\n        os.setsid()\n        if os.fork() == 0:\n"
         "            os.execvp('sleep', ['sleep', '777'])\n        os._exit(0)\n    print('ok')\n",
         {"AC"}, follow_up=LEFTOVERS),
    # The runner, the fork server and the keep-alive are out of the program's reach
    # (another uid, or PID 1 of the namespace): these reach only the program itself.
    Case("kill(-1, SIGKILL)",
         "import os, signal\ndef solve():\n    try:\n        os.kill(-1, signal.SIGKILL)\n    except OSError:\n"
         "        pass\n    print('ok')\n", {"AC"}, same_worker=True),
    Case("SIGKILL to every process it can see",
         SIGNAL_EVERYTHING + "def solve():\n    signal_everything(signal.SIGKILL)\n    print('ok')\n",
         {"AC"}, same_worker=True, follow_up=LEFTOVERS, max_seconds=LIMITS.wall_seconds + 1),
    Case("SIGSTOP to every process it can see",
         SIGNAL_EVERYTHING + "def solve():\n    signal_everything(signal.SIGSTOP)\n    print('ok')\n",
         {"AC"}, same_worker=True, follow_up=LEFTOVERS, max_seconds=LIMITS.wall_seconds + 1),
    Case("SIGSTOP to every process, then to itself",
         SIGNAL_EVERYTHING + "def solve():\n    signal_everything(signal.SIGSTOP)\n"
         "    os.kill(os.getpid(), signal.SIGSTOP)\n",
         {"TLE"}, same_worker=True, max_seconds=LIMITS.wall_seconds + 1),
    Case("an 18 MB program", "x = 1\n" * (3 << 20), {RE}, max_seconds=5.0, detail="source is 18.0 MB, limit 64 KB"),
    Case("stdout flood", "def solve():\n    while True:\n        print('x' * 65536)\n", {"OLE"}),
    Case("stderr flood",
         "import sys\ndef solve():\n    for _ in range(300):\n        sys.stderr.write('e' * 65536)\n    print('ok')\n",
         {"AC"}),
    Case("64 KiB + 1 byte of output", "import sys\ndef solve():\n    sys.stdout.write('x' * 65536 + '\\n')\n", {"AC"},
         output="x" * 65536 + "\n"),
    Case("binary and invalid UTF-8 output",
         "import sys\ndef solve():\n    sys.stdout.buffer.write(b'\\xff\\xfe\\x00ok\\xc3\\x28\\r\\n')\n", {"WA"}),
    Case("filling /tmp",
         "def solve():\n    try:\n        with open('/tmp/fill', 'wb') as f:\n            while True:\n"
         "                f.write(b'x' * (1 << 20))\n    except OSError:\n        print('ok')\n",
         {"AC"}, follow_up=LEFTOVERS),
    Case("writing to /, /etc and the interpreter",
         "import sys\ndef solve():\n    out = []\n    for p in ('/x', '/etc/passwd', sys.executable):\n        try:\n"
         "            open(p, 'a').write('x')\n            out.append('written')\n        except OSError:\n"
         "            out.append('denied')\n    print('ok' if out == ['denied'] * 3 else out)\n", {"AC"}),
    Case("files left for the next submission",
         "import os\ndef solve():\n    for p in ('/tmp/left', '/dev/shm/left', 'left', '/tmp/d/e/f'):\n"
         "        os.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n        open(p, 'w').write('x')\n"
         "    os.chmod('/tmp/d', 0)\n    print('ok')\n", {"AC"}, follow_up=LEFTOVERS),
    Case("sockets to outside and to the host gateway",
         "import socket\ndef solve():\n    out = []\n    for host in ('192.0.2.1', '172.17.0.1'):\n        try:\n"
         "            socket.create_connection((host, 80), timeout=1)\n            out.append('open')\n"
         "        except OSError:\n            out.append('blocked')\n"
         "    print('ok' if out == ['blocked'] * 2 else out)\n",
         {"AC"}),
    Case("reading /proc/1/environ and the runner's environ",
         "import os\ndef solve():\n    out = []\n"
         "    for p in ('/proc/1/environ', f'/proc/{os.getppid()}/environ'):\n        try:\n"
         "            data = open(p, 'rb').read()\n"
         "            out.append('secret' if b'NEOCODER_SELFTEST_SECRET' in data else 'nothing')\n"
         "        except OSError:\n            out.append('denied')\n"
         "    print('ok' if all(x != 'secret' for x in out) and 'NEOCODER_SELFTEST_SECRET' not in os.environ "
         "else out)\n",
         {"AC"}),
    # known-good programs: all must be AC
    Case("fractions",
         "from fractions import Fraction\ndef solve():\n    print('ok' if Fraction(1, 3) * 3 == 1 else 'no')\n",
         {"AC"}, kind="good"),
    Case("decimal", "from decimal import Decimal, getcontext\ndef solve():\n    getcontext().prec = 50\n"
         "    print('ok' if str(Decimal(1) / Decimal(7))[:10] == '0.14285714' else 'no')\n", {"AC"}, kind="good"),
    Case("heapq", "import heapq\ndef solve():\n    h = [5, 1, 4]\n    heapq.heapify(h)\n"
         "    print('ok' if heapq.heappop(h) == 1 else 'no')\n", {"AC"}, kind="good"),
    Case("bisect", "import bisect\ndef solve():\n    print('ok' if bisect.bisect_left([1, 3, 5], 4) == 2 else 'no')\n",
         {"AC"}, kind="good"),
    Case("lru_cache deep recursion, raised limit",
         "import sys\nfrom functools import lru_cache\nsys.setrecursionlimit(10**6)\n@lru_cache(None)\n"
         "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\n"
         "def solve():\n    print('ok' if f(100000) == 100000 else 'no')\n",
         {"AC"}, kind="good"),
    Case("threading.stack_size big stack",
         "import sys, threading\nsys.setrecursionlimit(10**6)\nthreading.stack_size(1 << 27)\n"
         "def f(n):\n    return 0 if n == 0 else f(n - 1) + 1\nres = []\ndef main():\n    res.append(f(200000))\n"
         "def solve():\n    t = threading.Thread(target=main)\n    t.start()\n    t.join()\n"
         "    print('ok' if res == [200000] else res)\n",
         {"AC"}, kind="good"),
    Case("sys.stdin.buffer.read()",
         "import sys\ndef solve():\n    data = sys.stdin.buffer.read().split()\n"
         "    print('ok' if data == [b'1'] else data)\n",
         {"AC"}, kind="good"),
    Case("printing 2*10^5 numbers", "def solve():\n    print('\\n'.join(map(str, range(200000))))\n", {"AC"},
         kind="good", output="\n".join(map(str, range(200000))) + "\n"),
]


@dataclass
class Outcome:
    """What one case gave: its verdict and detail, how long it took, the follow-up's
    verdict, and whether the canary after it passed (in the same worker, if asked)."""

    case: Case
    verdict: str
    detail: str | None
    seconds: float
    follow_up: str | None  # verdict of the follow-up program, if any
    healthy: bool          # the canary got AC right after (in the same worker where the case asks)
    skipped: str | None = None  # why the backend cannot run this case

    @property
    def passed(self) -> bool:
        """Whether the case went as expected: skipped (the backend cannot run it), or a verdict
        in ``expect`` with a healthy canary after, the follow-up AC (if any), within
        ``max_seconds`` (if set) and with ``detail`` in the verdict's detail (if set)."""
        case = self.case
        return self.skipped is not None or (
            self.verdict in case.expect and self.healthy
            and (case.follow_up is None or self.follow_up == AC)
            and (case.max_seconds is None or self.seconds <= case.max_seconds)
            and (case.detail is None or case.detail in (self.detail or "")))


def run_selftest(sandbox: PooledSandbox, cases=CASES, progress=None) -> list[Outcome]:
    """Run every case, its follow-up and a canary; return the outcomes in order."""
    outcomes = []
    for case in cases:
        missing = case.needs - set(sandbox.enforces)
        if missing:
            outcomes.append(Outcome(case, "-", None, 0.0, None, True,
                                    skipped=f"{sandbox.name} backend does not enforce {', '.join(sorted(missing))}"))
            if progress:
                progress(outcomes[-1])
            continue
        start = time.monotonic()
        res = sandbox.run(case.source, [{"input": case.input, "output": case.output}], case.limits,
                          language=case.language)
        seconds = time.monotonic() - start
        test = res.tests[0]
        follow = None
        if case.follow_up:
            fu = sandbox.run(case.follow_up, [{"input": "1\n", "output": "clean\n"}], case.limits)
            verdict = fu.tests[0].verdict
            follow = verdict if verdict != "WA" else f"WA: {fu.tests[0].stdout_head.strip()[:120]}"
        canary = sandbox.run(CANARY, [CANARY_TEST], LIMITS)
        healthy = canary.accepted and (not case.same_worker or sandbox.fresh or canary.worker == res.worker)
        outcomes.append(Outcome(case, test.verdict, test.detail, seconds, follow, healthy))
        if progress:
            progress(outcomes[-1])
    return outcomes


def format_outcomes(outcomes: list[Outcome]) -> str:
    """A plain-text table of the outcomes, one row per case, and a summary line."""
    rows = [f"{'case':50} {'kind':6} {'expected':10} {'got':5} {'seconds':>8}  {'next':6} {'healthy':7} result"]
    for o in outcomes:
        rows.append(f"{o.case.name:50} {o.case.kind:6} {'/'.join(sorted(o.case.expect)):10} {o.verdict:5} "
                    f"{o.seconds:8.2f}  {(o.follow_up or '-')[:6]:6} {'yes' if o.healthy else 'NO':7} "
                    f"{'skip' if o.skipped else 'pass' if o.passed else 'FAIL'}"
                    + (f"  ({o.skipped or o.detail})" if o.skipped or (o.detail and not o.passed) else ""))
    failed = [o for o in outcomes if not o.passed]
    skipped = [o for o in outcomes if o.skipped]
    rows.append(f"{len(outcomes) - len(failed) - len(skipped)} passed, {len(failed)} failed"
                + (f", {len(skipped)} skipped" if skipped else ""))
    return "\n".join(rows)
