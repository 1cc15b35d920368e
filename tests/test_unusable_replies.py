"""A run whose endpoint gives no usable reply for one item (issue 56, item 3): `neocoder eval`
and `neocoder aidanbench` (generator, judge, embedder) run as the user runs them, in a
subprocess with this checkout first on the path, against a loopback endpoint that answers well
for every item but one, and for that one a proxy's HTML page, a dropped connection or a reset
mid-body (tests/support/drifting.py).  The item is kept with its reason, metrics.json is
written with outcome.errors counted, the command exits 1 with one line and no traceback,
``--max-errors 1`` accepts it, and a rerun of the same --out retries the item."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from drifting import DROP, HTML, HTML_AS_JSON, RESET, DriftingServer, prompt_text

import neocoder

CHECKOUT = Path(neocoder.__file__).resolve().parents[1]
WRONG = "```python\ndef solve():\n    a = input()\n    print(-1)\n```"


class OneBroken:
    """A respond function: the first item seen (``item_of(kind, body)``; None: not an item
    this breaks) gets ``say`` on every try until ``healed``; every other call ``good(kind,
    body)``.  ``tries`` counts the broken item's calls."""

    def __init__(self, say, good, item_of):
        self.say, self.good, self.item_of = say, good, item_of
        self.victim, self.healed, self.tries = None, False, 0
        self.lock = threading.Lock()

    def __call__(self, kind, body):
        item = self.item_of(kind, body)
        with self.lock:
            if item is not None and self.victim is None:
                self.victim = item
            broken = item is not None and item == self.victim and not self.healed
            self.tries += broken
        return self.say if broken else self.good(kind, body)


def cli(*args: str) -> subprocess.CompletedProcess:
    """``neocoder ARGS`` in a fresh process, this checkout first on its path."""
    env = dict(os.environ, PYTHONPATH=f"{CHECKOUT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600, cwd=CHECKOUT)


def one_error_line(done: subprocess.CompletedProcess, unit: str) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"Error: 1 of 3 {unit}s ended in error"), done.stderr
    return lines[0]


def metrics(out: Path) -> dict:
    return json.loads((out / "metrics.json").read_text())


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


@pytest.mark.docker
@pytest.mark.parametrize("say,reason", [(HTML, "the body is not JSON"), (DROP, "the connection was dropped")],
                         ids=["html", "dropped"])
def test_eval_keeps_the_sample_without_a_usable_reply_as_its_error(tmp_path, release_dir, sandbox, say, reason):
    respond = OneBroken(say, lambda kind, body: WRONG, lambda kind, body: prompt_text(kind, body))
    out = tmp_path / "run"
    with DriftingServer(respond) as server:
        args = ["eval", "--model", "openai/m", "--base-url", server.url, "--api-key", "k", "--max-retries", "1",
                "--limit", "3", "--states", "0", "--samples", "1", "--out", str(out), "--release", str(release_dir),
                "--quiet"]
        line = one_error_line(cli(*args), "sample")
        assert respond.tries == 2  # the call and its one retry
        assert f"no usable reply from {server.url}/ ({reason}" in line, line
        (lost,) = [s for s in records(out) if s["error"]]
        assert f"openai/m: no usable reply from {server.url}/ ({reason}" in lost["error"], lost["error"]
        assert len(records(out)) == 3
        outcome = metrics(out)["outcome"]
        assert (outcome["items"], outcome["judged"], outcome["errors"]) == (3, 2, 1)
        (counted,) = outcome["reasons"]
        assert lost["error"].startswith(counted) and "no usable reply" in counted

        tolerated = cli(*args, "--max-errors", "1")  # the item is tried again, fails again, and is accepted
        assert tolerated.returncode == 0, tolerated.stderr
        assert respond.tries == 4 and metrics(out)["outcome"]["errors"] == 1

        respond.healed = True
        healed = cli(*args)  # the same --out: the sample in error is retried, and now judged
        assert healed.returncode == 0, healed.stderr
        assert metrics(out)["outcome"]["errors"] == 0 and metrics(out)["outcome"]["judged"] == 3


QUESTIONS = ["What could cities do about heat?", "Why do people keep diaries?", "How might we teach chess?"]


def aidan_good(kind, body):
    """Distinct answers for the generator, a high coherence score for the judge, hashed
    embeddings: every question goes to --max-answers."""
    if kind == "embeddings" or body.get("model") == "judge":
        return "<score>80</score>"
    digest = hashlib.sha256(prompt_text(kind, body).encode()).hexdigest()[:12]
    return f"An answer numbered {digest}."


def question_of(role):
    """Which item a call belongs to, for the calls of ``role`` (a model id: gen, judge, e)."""
    def item_of(kind, body):
        if kind == "embeddings":
            return json.dumps(body.get("input")) if role == "e" else None
        if body.get("model") == role:
            return next((q for q in QUESTIONS if q in prompt_text(kind, body)), None)
        return None
    return item_of


@pytest.mark.parametrize("role,part,say,reason,tries", [
    ("gen", "generator", DROP, "the connection was dropped", 2),
    ("judge", "judge", HTML_AS_JSON, "the body is not JSON", 2),
    ("judge", "judge", RESET, "the connection was dropped", 2),
    ("e", "embedder", HTML_AS_JSON, "the body is not JSON", 4)],  # the embedder's own 3 retries
    ids=["generator-dropped", "judge-html", "judge-reset", "embedder-html"])
def test_aidanbench_keeps_the_question_without_a_usable_reply_as_its_error(tmp_path, role, part, say, reason, tries):
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(QUESTIONS) + "\n")
    respond = OneBroken(say, aidan_good, question_of(role))
    out = tmp_path / "run"
    with DriftingServer(respond) as server:
        args = ["aidanbench", "--model", "openai/gen", "--judge", "openai/judge", "--base-url", server.url,
                "--api-key", "k", "--max-retries", "1", "--embedder", "openai/e", "--questions", str(questions),
                "--max-answers", "2", "--judge-retries", "0", "--out", str(out), "--quiet"]
        line = one_error_line(cli(*args), "question")
        assert respond.tries == tries, respond.tries
        assert f"openai/{role}: no usable reply from {server.url}/ ({reason}" in line, line
        (lost,) = [r for r in records(out) if r.get("stop_reason") == "error"]
        assert lost["error"].startswith(f"{part}: openai/{role}: no usable reply from {server.url}/ ({reason}"), lost
        outcome = metrics(out)["outcome"]
        assert (outcome["items"], outcome["judged"], outcome["errors"]) == (3, 2, 1)
        (counted,) = outcome["reasons"]  # the reason, as long as the outcome block keeps one
        assert lost["error"].startswith(counted) and "no usable reply" in counted

        assert cli(*args, "--max-errors", "1").returncode == 0
        respond.healed = True
        healed = cli(*args)
        assert healed.returncode == 0, healed.stderr
        assert metrics(out)["outcome"]["errors"] == 0 and metrics(out)["outcome"]["judged"] == 3
