"""The retrieval-based multi-agent judge (creativity-framework Sec. 4.1, App. D.2).

Three analysts (problem, solution, criterion) judge one solution, criterion by criterion:

1. Initialisation: the problem and solution analysts write their first observations once
   per solution (with every criterion listed), the criterion analyst once per criterion
   (prompts/framework_analyst_init.txt); each observation is a *fragment* F_i, stored with
   its embedding E(F_i) in an in-process index (``FragmentIndex``; the shipped MiniLM,
   where the paper used stella_en_1.5B_v5 and ChromaDB).
2. Discussion, at most ``rounds`` rounds: each analyst a retrieves
   GET(Q_a + the other analysts' open questions, k), the top-k fragments by cosine
   similarity Sim(E(Q), E(F_i)) (App. D.2.1), then answers the questions, gives its opinion
   and asks new ones (prompts/framework_analyst_discuss.txt); its answers and opinion
   become fragments.
3. Confidence: each analyst scores, from GET(Q_a, j), how sure it is of a correct
   conclusion, C_a in [0, 1] (prompts/framework_confidence.txt); when the mean exceeds T
   the discussion stops, else another round follows (up to ``rounds``).
4. Verdict: the most confident analyst (ties: the first in the order problem, solution,
   criterion) gives a binary verdict from GET(Q_max, l) (prompts/framework_verdict.txt).

Every call is counted (``Meter``: calls, prompt and completion tokens) and kept in the
transcript.  The confidence, stance and verdict replies are read by the grammars of
grammars.py (the last marker only); an unreadable reply is recorded with its reason and
never guessed: an unreadable confidence is left out of the mean (none readable: no early
stop, and the tie rule picks the verdict's analyst), an unreadable verdict is None with its
``reason``.  Each criterion keeps its ``readings`` (role, analyst, round, value, reason).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from neocoder.benchmarks.framework.calls import Meter, fill, read_turn
from neocoder.benchmarks.framework.config import (
    CHATEVAL_ROUNDS,
    DISCUSS_K,
    JUDGE_DEFAULTS,
    ROUNDS,
    SCORE_J,
    THRESHOLD,
    VERDICT_L,
    WORDS,
)
from neocoder.benchmarks.framework.grammars import CONFIDENCE, STANCE, VERDICT, as_bool
from neocoder.replies import Reading

ANALYSTS = ("problem analyst", "solution analyst", "criterion analyst")
FOCUS = {
    "problem analyst": "the problem itself: its stated and implied constraints, the outcome it needs, the "
                       "properties of the items at hand and the main difficulties",
    "solution analyst": "the solution itself: what each step does and how, the items it uses and how, and any "
                        "step that is vague, odd or does not follow",
    "criterion analyst": "the criterion: how fully this solution must meet it in this problem's context, and the "
                         "evidence for and against in the solution",
}
QUERY = {  # the role-specific retrieval queries Q_a
    "problem analyst": "constraints, required outcome, item properties and difficulties of the problem",
    "solution analyst": "how the solution's steps work, the items they use, and unclear or faulty steps",
    "criterion analyst": "how well the solution meets the criterion, with evidence for and against",
}


@dataclass
class JudgeSettings:
    """j, k, l, T, rounds, words and tokens per reply (App. D: 4, 5, 8, 0.5, 2, 150), by
    default as config.py declares them."""

    discuss_k: int = DISCUSS_K.default
    score_j: int = SCORE_J.default
    verdict_l: int = VERDICT_L.default
    threshold: float = THRESHOLD.default
    rounds: int = ROUNDS.default
    words: int = WORDS.default
    judge_tokens: int = JUDGE_DEFAULTS.max_tokens
    chateval_rounds: int = CHATEVAL_ROUNDS.default


@dataclass
class JudgeResult:
    """What a judge says of one solution: ``verdicts`` per criterion (``{"verdict": bool
    or None, "confidence", ...}``), ``cost`` (calls and tokens) and ``transcript``."""

    verdicts: dict
    cost: dict
    transcript: list = field(default_factory=list)


class FragmentIndex:
    """The fragment store D with embeddings: ``add`` fragments, ``get(query, n)`` the
    top-n by cosine similarity (App. D.2.1).  Embeddings come from ``embedder``
    (rows L2-normalised, so cosine is a dot product)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self.texts: list[str] = []
        self.authors: list[str] = []
        self.vectors: np.ndarray | None = None

    def add(self, texts: list[str], author: str) -> None:
        """Embed the non-blank ``texts`` and store them as fragments written by ``author``."""
        texts = [t for t in texts if t.strip()]
        if not texts:
            return
        vecs = np.asarray(self.embedder.embed(texts), dtype=np.float64)
        self.vectors = vecs if self.vectors is None else np.vstack([self.vectors, vecs])
        self.texts += texts
        self.authors += [author] * len(texts)

    def get(self, query: str, n: int) -> list[int]:
        """Indices of the ``n`` fragments most similar to ``query`` (best first; ties: the
        earlier fragment); fewer when the store holds fewer."""
        if self.vectors is None or n <= 0:
            return []
        q = np.asarray(self.embedder.embed([query]), dtype=np.float64)[0]
        sims = self.vectors @ q
        order = sorted(range(len(sims)), key=lambda i: (-sims[i], i))
        return order[:n]

    def show(self, ids: list[int]) -> str:
        """The fragments ``ids`` as a list for a prompt, each with its author."""
        return "\n".join(f"- ({self.authors[i]}) {self.texts[i]}" for i in ids) or "(nothing yet)"


_MARK = re.compile(r"\[\[[^\]]*\]\]:?")


def fragments_of(reply: str, limit: int = 400) -> list[str]:
    """The points of a reply: split at [[...]] markers and line breaks, stripped of list
    marks, at least three words each, cut at ``limit`` characters."""
    out = []
    for piece in _MARK.split(reply):
        for line in piece.splitlines():
            line = line.strip().lstrip("-*0123456789.) ").strip()
            if len(line.split()) >= 3:
                out.append(line[:limit])
    return out


def questions_of(reply: str) -> list[str]:
    """The questions a discussion reply asks: lines after [[QUESTIONS]] (or anywhere) that
    end with a question mark."""
    tail = reply.split("[[QUESTIONS]]", 1)[1] if "[[QUESTIONS]]" in reply else reply
    return [line.strip().lstrip("-* ").strip() for line in tail.splitlines() if line.strip().endswith("?")]


def parse_confidence(reply: str, prompt: str | None = None) -> Reading:
    """An analyst's certainty: the last [[c]], c in [0, 1] (grammars.CONFIDENCE)."""
    return CONFIDENCE.read(reply, prompt=prompt)


def parse_verdict(reply: str, prompt: str | None = None) -> Reading:
    """The verdict: the last [[YES]] or [[NO]], the prompt's "[[" put back before a base
    model's continuation (grammars.VERDICT); its value "YES" or "NO"."""
    return VERDICT.read(reply, prompt=prompt)


def parse_stance(reply: str, prompt: str | None = None) -> Reading:
    """The stance after a certainty: the last ([YES]) or ([NO]) (grammars.STANCE)."""
    return STANCE.read(reply, prompt=prompt)


def mean_confidence(confidences: dict) -> float | None:
    """The mean of the analysts' readable certainties; None with none readable."""
    known = [c for c in confidences.values() if c is not None]
    return sum(known) / len(known) if known else None


def settled(confidences: dict, threshold: float) -> bool:
    """The early stop: the mean readable certainty exceeds T (none readable: no stop)."""
    mean = mean_confidence(confidences)
    return mean is not None and mean > threshold


def most_confident(confidences: dict) -> str:
    """The verdict's analyst: the most certain, an unreadable certainty below every readable
    one (below 0.0); ties go to the first in ``ANALYSTS``."""
    return max(ANALYSTS, key=lambda a: (confidences.get(a) if confidences.get(a) is not None else -1.0,
                                        -ANALYSTS.index(a)))


def _reading(role: str, reading: Reading, **where) -> dict:
    return {"role": role, **where, "value": reading.value, "reason": reading.reason}


class RetrievalJudge:
    """The retrieval-based judge (see the module) with ``model`` as every analyst."""

    name = "retrieval"

    def __init__(self, model, embedder, settings: JudgeSettings):
        self.model, self.embedder, self.settings = model, embedder, settings

    def _ask(self, meter: Meter, transcript: list, text: str, **where) -> str:
        return meter.judge_turn(self.model, transcript, text, self.settings.judge_tokens, **where).text

    def _ask_read(self, meter: Meter, transcript: list, text: str, grammars: tuple, **where) -> list[Reading]:
        reply = meter.judge_turn(self.model, transcript, text, self.settings.judge_tokens, **where)
        return [read_turn(transcript, g, reply, text) for g in grammars]

    def judge(self, problem: str, solution: str, criteria: dict[str, str]) -> JudgeResult:
        """Verdicts on ``solution`` for each of ``criteria`` ({name: definition})."""
        meter, transcript, s = Meter(), [], self.settings
        index = FragmentIndex(self.embedder)
        listed = "\n".join(f"- {c}: {d}" for c, d in criteria.items())
        for role in ANALYSTS[:2]:
            text = fill("framework_analyst_init.txt", role=role, focus=FOCUS[role], problem=problem,
                        solution=solution, criteria=listed, words=s.words)
            index.add(fragments_of(self._ask(meter, transcript, text, phase="init", analyst=role)), role)
        verdicts = {}
        for criterion, definition in criteria.items():
            verdicts[criterion] = self._criterion(problem, solution, criterion, definition, index, meter, transcript)
        return JudgeResult(verdicts, meter.to_dict(), transcript)

    def _criterion(self, problem, solution, criterion, definition, index, meter, transcript) -> dict:
        s = self.settings
        ctx = dict(problem=problem, solution=solution, criterion=criterion, definition=definition, words=s.words)
        role = ANALYSTS[2]
        text = fill("framework_analyst_init.txt", role=role, focus=FOCUS[role], problem=problem, solution=solution,
                    criteria=f"- {criterion}: {definition}", words=s.words)
        index.add(fragments_of(self._ask(meter, transcript, text, phase="init", analyst=role, criterion=criterion)),
                  role)
        asked: dict[str, list[str]] = {a: [] for a in ANALYSTS}
        confidences: dict[str, float | None] = {}
        stances: dict[str, bool | None] = {}
        readings: list[dict] = []
        rounds = 0
        for rounds in range(1, s.rounds + 1):
            for a in ANALYSTS:
                others = [q for b in ANALYSTS if b != a for q in asked[b]]
                ids = index.get(" ".join([QUERY[a], *others]), s.discuss_k)
                reply = self._ask(meter, transcript, fill("framework_analyst_discuss.txt", role=a, focus=FOCUS[a],
                                                          fragments=index.show(ids),
                                                          questions="\n".join(others) or "(none)", **ctx),
                                  phase="discuss", analyst=a, criterion=criterion, round=rounds, retrieved=ids)
                asked[a] = questions_of(reply)
                index.add([f for f in fragments_of(reply.split("[[QUESTIONS]]", 1)[0])], a)
            for a in ANALYSTS:
                ids = index.get(QUERY[a], s.score_j)
                conf, stance = self._ask_read(meter, transcript, fill("framework_confidence.txt", role=a,
                                                                      focus=FOCUS[a], fragments=index.show(ids), **ctx),
                                              (CONFIDENCE, STANCE), phase="confidence", analyst=a,
                                              criterion=criterion, round=rounds, retrieved=ids)
                confidences[a], stances[a] = conf.value, as_bool(stance)
                readings += [_reading("confidence", conf, analyst=a, round=rounds),
                             _reading("stance", stance, analyst=a, round=rounds)]
            if settled(confidences, s.threshold):
                break
        best = most_confident(confidences)
        ids = index.get(QUERY[best], s.verdict_l)
        (verdict,) = self._ask_read(meter, transcript, fill("framework_verdict.txt", role=best, focus=FOCUS[best],
                                                            fragments=index.show(ids), **ctx),
                                    (VERDICT,), phase="verdict", analyst=best, criterion=criterion, retrieved=ids)
        readings.append(_reading("verdict", verdict, analyst=best))
        return {"verdict": as_bool(verdict), "reason": verdict.reason,
                "confidence": mean_confidence(confidences),
                "analyst": best, "rounds": rounds, "confidences": confidences, "stances": stances,
                "readings": readings}
