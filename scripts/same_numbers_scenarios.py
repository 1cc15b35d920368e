"""The scenarios of `scripts/same_numbers.py`: one function per scenario that runs the
``neocoder`` CLI as subprocesses into its own folder and returns the run folders it made.

Each scenario gets a ``Context`` (the CLI's path, its folder ``where``, and the list of
command lines it ran) and returns ``{label: (run folder, metrics or None)}``; metrics are
given only when they come from elsewhere than the folder's ``metrics.json`` (the serve job's
are fetched from the server).  A command that exits non-zero raises ``RuntimeError`` with
the end of its output (kept whole in ``where/cli.log``).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from same_numbers_servers import ScriptedServer, aidan_judge, ideas_panel, solver

GPT4 = "replay/gpt-4-1106-preview"
STRATEGY_OPTIONS = {"direct": [], "self-correct": ["--rounds", "2"], "self-plan": [],
                    "mcts": ["--api", "completion", "--rollouts", "8", "--top-k", "2"], "sample": ["--best-of", "3"]}
ANSWERS = {  # recorded AidanBench answers: the first question repeats itself at answer 4
    "What could cities do about heat?": ["Plant street trees for shade.", "Paint roofs white to reflect sunlight.",
                                         "Open cooling centres in libraries.", "Plant street trees to give shade.",
                                         "Build more public fountains."],
    "Why do people keep diaries?": ["To remember what happened to them.",
                                    "To sort out their feelings by writing them down.",
                                    "To practise writing every day.", "To leave a record for their children."],
    "How might a town reduce food waste?": ["Give unsold bread to shelters.", "Compost the scraps of every kitchen.",
                                            "Sell misshapen vegetables cheaply.", "Teach children to cook leftovers.",
                                            "Let restaurants serve smaller portions.", "Run a shared fridge."],
}
KEYWORDS = ("keyword,category\nmeteorology,Earth science\nperiodic table,Chemistry\nsoil,Biology\n"
            "glaciers,Earth science\n")
JUDGES = "openai/j1,openai/j2,openai/j3,openai/j4"


@dataclass
class Context:
    """What a scenario needs: the CLI to drive and its own folder; ``commands`` collects
    every command line run, for the report."""
    neocoder: str
    where: Path
    commands: list[list[str]] = field(default_factory=list)
    secret: str = "\0"  # written as <token> in the commands kept

    def note(self, args: tuple[str, ...] | list[str]) -> None:
        self.commands.append(["neocoder", *(a.replace(self.secret, "<token>") for a in args)])

    def run(self, *args: str, failing: str | None = None) -> str:
        """Run ``neocoder ARGS`` (no shell), append its output to ``where/cli.log`` and
        return it; RuntimeError on a non-zero exit, unless ``failing`` is given and the
        exit is 1 with that text in the output (a run that writes its numbers and then
        fails by its own rule, as a run whose replies mostly hold no program does)."""
        self.note(args)
        done = subprocess.run([self.neocoder, *args], capture_output=True, text=True, cwd=self.where,
                              env=dict(os.environ))
        with (self.where / "cli.log").open("a") as log:
            log.write(f"$ neocoder {' '.join(args)}\n{done.stdout}{done.stderr}\n[exit {done.returncode}]\n")
        if failing is not None and done.returncode == 1 and failing in done.stdout + done.stderr:
            return done.stdout
        if done.returncode != 0:
            raise RuntimeError(f"neocoder {' '.join(args)} exited {done.returncode}: "
                               f"{(done.stdout + done.stderr)[-1500:]}")
        return done.stdout


Folders = dict[str, tuple[Path, "dict | None"]]


def eval_validated(ctx: Context) -> Folders:
    """The README's command: GPT-4's recorded solutions on the validated dataset."""
    ctx.run("eval", "--model", GPT4, "--out", str(ctx.where / "run"), "--quiet")
    return {"run": (ctx.where / "run", None)}


def eval_release(ctx: Context) -> Folders:
    ctx.run("eval", "--model", GPT4, "--dataset", "release", "--out", str(ctx.where / "run"), "--quiet")
    return {"run": (ctx.where / "run", None)}


def human(ctx: Context) -> Folders:
    ctx.run("eval", "--model", "human", "--out", str(ctx.where / "run"), "--quiet")
    return {"run": (ctx.where / "run", None)}


def aidanbench_rescore(ctx: Context) -> Folders:
    """Recorded answers judged by a scripted loopback judge, then re-scored at stricter
    thresholds (coherence <= 40, novelty <= 0.3) with no model call."""
    answers = ctx.where / "answers_in.jsonl"
    with answers.open("w") as f:
        for question, texts in ANSWERS.items():
            for i, text in enumerate(texts, 1):
                f.write(json.dumps({"model": "recorded", "question": question, "answer_num": i, "answer": text}) + "\n")
    run, rescored = ctx.where / "run", ctx.where / "rescore"
    with ScriptedServer(aidan_judge) as server:
        ctx.run("aidanbench", "--model", f"replay/{answers}", "--judge", "openai/judge", "--base-url", server.url,
                "--api-key", "k", "--max-retries", "0", "--bootstrap", "500", "--out", str(run), "--quiet")
    ctx.run("aidanbench", "rescore", str(run), "--coherence-stop", "40", "--novelty-stop", "0.3",
            "--out", str(rescored))
    return {"run": (run, None), "rescore": (rescored, None)}


def ideas_replay(ctx: Context) -> Folders:
    """Ideas written and judged on a scripted loopback panel, then the recorded ideas
    judged again (``--model replay/<source run>``)."""
    keywords = ctx.where / "keywords.csv"
    keywords.write_text(KEYWORDS)
    source, replay = ctx.where / "source", ctx.where / "replay"
    common = ["--judges", JUDGES, "--keywords", str(keywords), "--ideas-per-keyword", "2", "--bootstrap", "500",
              "--max-retries", "0", "--api-key", "k", "--quiet"]
    with ScriptedServer(ideas_panel) as server:
        ctx.run("ideas", "--model", "openai/writer", "--base-url", server.url, *common, "--out", str(source))
        ctx.run("ideas", "--model", f"replay/{source}", "--base-url", server.url, *common, "--out", str(replay))
    return {"source": (source, None), "replay": (replay, None)}


def samples3_local(ctx: Context) -> Folders:
    """The real local model (llama.cpp), three samples at temperature 0.8."""
    ctx.run("eval", "--model", "local/gemma-3-270m", "--samples", "3", "--temperature", "0.8", "--states", "0",
            "--limit", "1", "--max-tokens", "256", "--out", str(ctx.where / "run"), "--quiet",
            failing="replies of the model under test held no program")  # replies cut at 256 tokens (issue 56)
    return {"run": (ctx.where / "run", None)}


def strategy(name: str) -> Callable[[Context], Folders]:
    """A scenario running strategy ``name`` against the scripted solver on loopback, on
    the release's first two problems at states 0 and 1."""
    def scenario(ctx: Context) -> Folders:
        with ScriptedServer(solver) as server:
            ctx.run("eval", "--model", "openai/scripted", "--base-url", server.url, "--api-key", "k",
                    "--max-retries", "0", "--dataset", "release", "--limit", "2", "--states", "0-1",
                    "--strategy", name, *STRATEGY_OPTIONS[name], "--bootstrap", "500",
                    "--out", str(ctx.where / "run"), "--quiet")
        return {"run": (ctx.where / "run", None)}
    scenario.__doc__ = f"strategy {name} against the scripted loopback solver"
    return scenario


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, {}
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0, {}


def serve_job(ctx: Context) -> Folders:
    """``neocoder serve`` on a free loopback port with a fresh token; one eval job sent by
    ``neocoder eval --server``; the job's metrics fetched from the server, its records read
    from its run folder; the server stopped with SIGTERM."""
    token, port, data = secrets.token_hex(16), free_port(), ctx.where / "data"
    ctx.secret = token
    (ctx.where / "tokens.txt").write_text(token + "\n")
    url = f"http://127.0.0.1:{port}"
    args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--tokens-file", str(ctx.where / "tokens.txt"),
            "--data-dir", str(data), "--dataset", "release", "--log-level", "warning"]
    ctx.note(args)
    with (ctx.where / "serve.log").open("w") as log:
        server = subprocess.Popen([ctx.neocoder, *args], stdout=log, stderr=subprocess.STDOUT, cwd=ctx.where)
    try:
        deadline = time.monotonic() + 180
        while get_json(f"{url}/healthz")[0] != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"neocoder serve did not become healthy (see {ctx.where / 'serve.log'})")
            time.sleep(1)
        ctx.run("eval", "--server", url, "--token", token, "--model", GPT4, "--dataset", "release", "--limit", "5",
                "--quiet")
        status, listing = get_json(f"{url}/v1/evals", token)
        jobs = listing.get("jobs", [])
        if status != 200 or len(jobs) != 1:
            raise RuntimeError(f"GET /v1/evals answered {status} with {len(jobs)} jobs")
        job = jobs[0]
        status, job = get_json(f"{url}/v1/evals/{job['id']}", token)
        if status != 200 or job.get("status") != "succeeded":
            raise RuntimeError(f"the job is {job.get('status')}: {job.get('error')}")
        (ctx.where / "job.json").write_text(json.dumps(job, indent=1))
        return {"job": (data / "runs" / job["id"], job["metrics"])}
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=90)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


SCENARIOS: dict[str, Callable[[Context], Folders]] = {
    "eval-validated": eval_validated,
    "eval-release": eval_release,
    "human": human,
    "aidanbench-rescore": aidanbench_rescore,
    "ideas-replay": ideas_replay,
    "samples3-local": samples3_local,
    **{f"strategy-{name}": strategy(name) for name in STRATEGY_OPTIONS},
    "serve-job": serve_job,
}
