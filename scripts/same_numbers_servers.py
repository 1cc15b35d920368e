"""Scripted OpenAI-compatible servers on loopback for `scripts/same_numbers.py`.

Every reply is a pure function of the request's content (prompt, model id, seed,
max_tokens), never of the order requests arrive in, so two measurements of the same code
get the same replies even when the runner sends requests from several threads.  Three
scripts are served:

- ``solver``: NeoCoder replies for the first two release problems (1901A "Line Trip",
  1899A "Game with Integers"): a wrong program, a right one with a for loop and a right
  one by recursion, chosen by the problem, the turn of the conversation and the seed; plans for
  self-plan; and, on the completions API, a two-branch code tree with token log-probabilities
  for MCTS (the wrong branch is the likelier, as in tests/benchmarks/neocoder/test_strategies.py).
- ``aidan_judge``: AidanBench coherence scores ``<score>N</score>`` from a hash of the answer.
- ``ideas_panel``: LiveIdeaBench ideas per keyword and seed, judge scores per (judge, idea)
  and fluency grades, all from hashes.

The HTTP server is tests/support/loopback.py's ``RespondingServer`` of this checkout (the one the
script runs from, whatever checkout it measures).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from loopback import RespondingServer  # noqa: E402

Reply = tuple[str, "dict | None"]  # (text, completion logprobs or None)

WRONG = {
    "1901A": ["    t = int(input())\n", "    for _ in range(t):\n", "        n, x = map(int, input().split())\n",
              "        a = list(map(int, input().split()))\n", "        print(max(a))\n"],
    "1899A": ["    t = int(input())\n", "    for _ in range(t):\n", "        n = int(input())\n",
              "        print('First' if n % 2 else 'Second')\n"],
}
RIGHT_FOR = {
    "1901A": ["    t = int(input())\n", "    for _ in range(t):\n", "        n, x = map(int, input().split())\n",
              "        a = list(map(int, input().split()))\n", "        best = max(a[0], 2 * (x - a[-1]))\n",
              "        for i in range(1, n):\n", "            best = max(best, a[i] - a[i - 1])\n",
              "        print(best)\n"],
    "1899A": ["    t = int(input())\n", "    for _ in range(t):\n", "        n = int(input())\n",
              "        print('Second' if n % 3 == 0 else 'First')\n"],
}
RIGHT_RECURSIVE = {  # right without any loop statement: recursion over the test cases
    "1901A": ["    def case(k):\n", "        if k == 0:\n", "            return\n",
              "        n, x = map(int, input().split())\n", "        a = list(map(int, input().split()))\n",
              "        print(max([a[0], 2 * (x - a[-1])] + [b - c for b, c in zip(a[1:], a)]))\n",
              "        case(k - 1)\n", "    case(int(input()))\n"],
    "1899A": ["    def case(k):\n", "        if k == 0:\n", "            return\n", "        n = int(input())\n",
              "        print('Second' if n % 3 == 0 else 'First')\n", "        case(k - 1)\n",
              "    case(int(input()))\n"],
}
TITLES = {"Line Trip": "1901A", "Game with Integers": "1899A"}
PLAN = "1. Read the number of test cases.\n2. Solve each case directly.\n3. Print one answer per case."
DEFAULT_BODY = ["    print(0)\n"]


def digest_int(*parts: object) -> int:
    """A stable integer from the parts' text (SHA-256), for scripted choices."""
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def problem_of(text: str) -> str | None:
    """The release problem id whose title appears in the prompt, else None."""
    return next((pid for title, pid in TITLES.items() if title in text), None)


def program(lines: list[str]) -> str:
    return "def solve():\n" + "".join(lines)


def chat_solver(body: dict) -> str:
    """A chat reply: a plan when asked for one, else a fenced program chosen by the
    problem, the number of earlier assistant turns and the seed."""
    messages = body.get("messages", [])
    last = messages[-1]["content"] if messages else ""
    if "numbered list" in last:
        return PLAN
    pid = problem_of(json.dumps(messages))
    if pid is None:
        return "```python\n" + program(DEFAULT_BODY) + "```"
    turns = sum(1 for m in messages if m["role"] == "assistant")
    seed = body.get("seed") or 0
    index = (list(TITLES.values()).index(pid) + turns + (seed // 10_007) % 3) % 3
    chosen = (WRONG, RIGHT_FOR, RIGHT_RECURSIVE)[index][pid]
    return "```python\n" + program(chosen) + "```"


def completion_solver(body: dict) -> Reply:
    """The completions API: the code tree of MCTS.  After the prompt's ``def solve():``
    the candidates are the problem's wrong and right (for loop) bodies; an expansion
    (``max_tokens`` 1) returns the next line of each candidate as its top tokens (the
    wrong one likelier), a rollout finishes the likeliest candidate that fits."""
    prompt = body.get("prompt", "")
    pid = problem_of(prompt)
    head = "def solve():\n"
    written = prompt[prompt.rindex(head) + len(head):] if head in prompt else ""
    bodies = [WRONG[pid], RIGHT_FOR[pid]] if pid else [DEFAULT_BODY]
    fitting = [b for b in bodies if "".join(b).startswith(written)]
    if body.get("max_tokens") == 1:
        top: dict[str, float] = {}
        for rank, lines in enumerate(fitting):
            cuts = ["".join(lines[:k]) for k in range(len(lines))]
            if written in cuts:
                top.setdefault(lines[cuts.index(written)], math.log(0.7) if rank == 0 else math.log(0.3))
        if not top:
            return "", {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
        token = max(top, key=top.get)
        return token, {"tokens": [token], "token_logprobs": [top[token]], "top_logprobs": [top], "text_offset": [0]}
    if not fitting:
        return "", None
    return "".join(fitting[0])[len(written):], None


def solver(kind: str, body: dict) -> Reply:
    """The NeoCoder solver script for both APIs."""
    if kind == "chat":
        return chat_solver(body), None
    return completion_solver(body)


def aidan_judge(kind: str, body: dict) -> Reply:
    """AidanBench coherence judge: a score in [5, 100) from a hash of the prompt (so about
    one answer in ten is incoherent at the default stop of 15)."""
    text = json.dumps(body.get("messages") or body.get("prompt"))
    return f"<score>{5 + digest_int(text) % 95}</score>", None


def ideas_panel(kind: str, body: dict) -> Reply:
    """LiveIdeaBench writer, judges and fluency grader by model id and prompt."""
    messages = body.get("messages")
    text = "\n".join(m["content"] for m in messages) if messages else body.get("prompt", "")
    model = body.get("model")
    if "grade: X" in text:
        return "grade: " + "ABCD"[digest_int(model, text) % 4], None
    if "originality: N" in text:
        h = digest_int(model, text)
        return f"originality: {1 + h % 10}\nfeasibility: {1 + (h >> 8) % 10}\nclarity: {1 + (h >> 16) % 10}", None
    keyword = next((line.split(": ", 1)[1] for line in text.splitlines()
                    if line.startswith(("Keyword: ", "Your keyword is: "))), "?")
    num = (body.get("seed") or 0) + 1
    return f"Idea: study {keyword} with method {num} ({digest_int(keyword, num) % 997}) against a control.", None


# The server itself is the tests' (tests/support/loopback.py ``RespondingServer``, from this
# checkout's own tests/, whatever checkout is measured): only the scripts above are this file's.
ScriptedServer = RespondingServer
