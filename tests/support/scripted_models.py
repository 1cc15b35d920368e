"""One scripted OpenAI-style endpoint on loopback for small real runs of every benchmark
that calls a model, outside pytest too (scripts/wheel_check.sh starts it in a core-only
virtualenv: it needs numpy and the standard library, nothing of neocoder):

- chat completions: AidanBench's answers and coherence scores, LiveIdeaBench's ideas,
  scores and fluency grades (suite_model.py ``reply_for``);
- embeddings: suite_model.py's hash-seeded unit vectors (distinct answers are novel);
- text completions with log-probabilities: the creativity framework's candidate steps
  (two meanings, then STOP), its LLM entailment and ChatEval's debate and verdicts.

It can also answer NeoCoder's eval (``programs_for``: model ids answered with a program),
quote the key in an error as some providers do (``quoting``: model id -> the status, 401
or 500, answered with the bearer key in the error message), and fail everything (``fail``: an HTTP status, 500 or
429, answered to every request while set; ``requests`` counts what arrived).

``python scripted_models.py URLFILE`` starts it, writes its base URL (ending in /v1) to
URLFILE and serves until killed."""

from __future__ import annotations

import json
import re
import sys
import time

from framework_panel import USAGE, entail, with_logprob
from loopback import Loopback, Quiet, completion_payload, send
from suite_model import embedding, reply_for

STEPS = ("Reuse the scans.", "Cache the distances.")


def framework_reply(prompt: str, seed: int) -> tuple[str, dict | None]:
    """The framework's completion for ``prompt``: entailment yes/no, a candidate step (one of
    two meanings by seed, STOP once a step is written), ChatEval's turns and verdicts."""
    if "Statement A:" in prompt:
        return entail(prompt), None
    if "Step 1:" in prompt and "Step 2:" in prompt:
        return with_logprob("STOP", -0.1)
    if prompt.rstrip().endswith("Step 1:"):
        return with_logprob(STEPS[seed % 2], -0.5)
    if "Judgement: [[" in prompt:
        return "YES]] ([0.8])", None
    if re.search(r"Verdict: \[\[\s*$", prompt):
        return "YES]] it holds", None
    return "It holds: the flip follows from the bit.", None


PROGRAM = "```python\ndef solve():\n    print(1)\n```"


class ScriptedModels(Loopback):
    """The endpoint (``url``); see the module."""

    def __init__(self, programs_for=(), quoting: dict | None = None, fail: int | None = None):
        self.programs_for, self.quoting, self.fail = set(programs_for), dict(quoting or {}), fail
        self.requests = 0
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                model = body.get("model", "m")
                outer.requests += 1
                if outer.fail:
                    error = {"error": {"message": f"scripted {outer.fail}", "type": "server_error", "code": None}}
                    send(self, outer.fail, json.dumps(error).encode(), retry_after=0)
                    return
                if model in outer.quoting:  # as a provider that quotes the key it refuses
                    key = self.headers.get("authorization", "").removeprefix("Bearer ")
                    error = {"error": {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error",
                                       "code": "invalid_api_key", "param": None}}
                    send(self, outer.quoting[model], json.dumps(error).encode())
                    return
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = json.dumps({"object": "list", "model": model, "data": [
                        {"object": "embedding", "index": i, "embedding": embedding(t)} for i, t in enumerate(texts)],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                elif self.path.endswith("/chat/completions"):
                    text = PROGRAM if model in outer.programs_for else reply_for(body)
                    data = completion_payload("chat", model, text, None, USAGE)
                else:
                    text, logprobs = framework_reply(body.get("prompt", ""), body.get("seed") or 0)
                    data = completion_payload("completion", model, text, logprobs, USAGE)
                send(self, 200, data)

        self.serve(Handler)


if __name__ == "__main__":
    server = ScriptedModels()
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write(server.url + "\n")
    while True:
        time.sleep(3600)
