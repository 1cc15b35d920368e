"""A scripted OpenAI-style model on loopback for the suite's benchmarks (AidanBench and
LiveIdeaBench; NeoCoder answers from its recordings): chat completions answered by what
each prompt asks (an idea, a judge's scores, a fluency grade, an AidanBench answer or
coherence score) and embeddings (a unit vector drawn from a hash of the text, so distinct
answers are novel).  It counts every answered request by its body, and can hold every
call past the first ``hold_after`` answered until ``release()``: a test kills a suite at a
known point, with one call asked and none answered after it."""

from __future__ import annotations

import hashlib
import json
import re
import threading

import numpy as np
from loopback import Loopback, Quiet, completion_payload, send


def reply_for(body: dict) -> str:
    """The scripted reply to a chat request ``body``."""
    text = "\n".join(m["content"] for m in body.get("messages", []))
    if "grade: X" in text:
        return "grade: B"
    if "originality: N" in text:
        seat = body.get("model", "j")
        return f"originality: {6 + len(seat) % 3}\nfeasibility: 6\nclarity: 7"
    if "<score>N</score>" in text:
        return "<score>80</score>"
    if "Your keyword is:" in text or "Keyword:" in text:
        keyword = re.search(r"(?:Your keyword is|Keyword): (.*)", text).group(1)
        return f"Idea: study {keyword} with approach {body.get('seed', 0)} against a control group."
    question = re.search(r"Question: (.*)", text)
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return f"An answer ({digest}) to {question.group(1) if question else 'it'}."


def embedding(text: str, dims: int = 48) -> list[float]:
    """A unit vector seeded by the text's SHA-256: the same text, the same vector."""
    rng = np.random.default_rng(int(hashlib.sha256(text.encode()).hexdigest()[:16], 16))
    v = rng.standard_normal(dims)
    return (v / np.linalg.norm(v)).tolist()


class SuiteModel(Loopback):
    """The endpoint (``url`` ends in /v1); ``answered`` counts chat answers by request body
    hash, ``embedded`` embedding requests, ``waiting`` the calls held."""

    def __init__(self, hold_after: int | None = None):
        self.hold_after, self.gate = hold_after, threading.Event()
        self.answered: dict[str, int] = {}
        self.embedded = self.waiting = 0
        self.lock = threading.Lock()
        outer = self

        class Handler(Quiet):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.loads(raw or b"{}")
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    with outer.lock:
                        outer.embedded += 1
                    data = json.dumps({"object": "list", "model": body.get("model"), "data": [
                        {"object": "embedding", "index": i, "embedding": embedding(t)} for i, t in enumerate(texts)],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode()
                elif outer.hold():  # held until the test killed its caller: never answered
                    try:
                        self.send_error(503)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                else:
                    key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
                    with outer.lock:
                        outer.answered[key] = outer.answered.get(key, 0) + 1
                    data = completion_payload("chat", body.get("model", "m"), reply_for(body))
                send(self, 200, data)

        self.serve(Handler)

    def hold(self) -> bool:
        """Wait at the gate once ``hold_after`` calls were answered (until ``release``);
        True when this call was held (it is then refused, not answered)."""
        with self.lock:
            held = self.hold_after is not None and sum(self.answered.values()) >= self.hold_after \
                and not self.gate.is_set()
            if held:
                self.waiting += 1
        if held:
            self.gate.wait()
        return held

    def release(self) -> None:
        self.gate.set()

    def calls(self) -> int:
        with self.lock:
            return sum(self.answered.values())

    def close(self) -> None:
        self.release()  # a held call ends first, or shutdown would wait for it
        super().close()
