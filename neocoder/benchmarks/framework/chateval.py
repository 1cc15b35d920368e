"""ChatEval one-by-one, the baseline judge (Chan et al. 2023, "ChatEval: Towards Better
LLM-based Evaluators through Multi-Agent Debate"; as the creativity-framework paper ran
it, Sec. 4 and App. D.4).

For each criterion the three analysts speak in turn for ``chateval_rounds`` rounds, each
seeing the whole discussion so far (every reply is appended to the history at once, the
paper's modification of the one-by-one order); then each gives a final [[YES]]/[[NO]]
with a probability from the whole history, and the majority of the readable verdicts is
the verdict (a tie, or none readable: None).  Every call is counted, so the token cost
set against the retrieval judge's (retrieval.py) is measured on the same items.
"""

from __future__ import annotations

import re

from neocoder.benchmarks.framework.calls import Meter, fill
from neocoder.benchmarks.framework.retrieval import ANALYSTS, JudgeResult, JudgeSettings, parse_verdict


def parse_probability(reply: str) -> float | None:
    """The probability in ([p]), None when absent or outside [0, 1]."""
    m = re.search(r"\(\[\s*(\d*\.?\d+)\s*\]\)", reply)
    if m is None:
        return None
    value = float(m.group(1))
    return value if 0.0 <= value <= 1.0 else None


def majority(verdicts: list) -> bool | None:
    """The majority of the readable verdicts; None for a tie or none readable."""
    yes, no = sum(v is True for v in verdicts), sum(v is False for v in verdicts)
    return None if yes == no else yes > no


class ChatEvalJudge:
    """ChatEval one-by-one with ``model`` as every debater (see the module)."""

    name = "chateval"

    def __init__(self, model, settings: JudgeSettings):
        self.model, self.settings = model, settings

    def _ask(self, meter: Meter, transcript: list, text: str, **where) -> str:
        return meter.judge_turn(self.model, transcript, text, self.settings.judge_tokens, **where)

    def judge(self, problem: str, solution: str, criteria: dict[str, str]) -> JudgeResult:
        """Verdicts on ``solution`` for each of ``criteria`` ({name: definition})."""
        meter, transcript, s = Meter(), [], self.settings
        verdicts = {}
        for criterion, definition in criteria.items():
            ctx = dict(problem=problem, solution=solution, criterion=criterion, definition=definition)
            history: list[str] = []
            for r in range(1, s.chateval_rounds + 1):
                for role in ANALYSTS:
                    reply = self._ask(meter, transcript, fill("framework_chateval_turn.txt", role=role,
                                                              history="\n".join(history) or "(nothing yet)",
                                                              words=s.words, **ctx),
                                      phase="discuss", analyst=role, criterion=criterion, round=r)
                    history.append(f"{role}: {reply.strip()}")
            finals, probs = [], []
            for role in ANALYSTS:
                reply = self._ask(meter, transcript, fill("framework_chateval_verdict.txt", role=role,
                                                          history="\n".join(history), **ctx),
                                  phase="verdict", analyst=role, criterion=criterion)
                finals.append(parse_verdict(reply))
                probs.append(parse_probability(reply))
            known = [p for p in probs if p is not None]
            verdicts[criterion] = {"verdict": majority(finals), "votes": finals, "probabilities": probs,
                                   "confidence": sum(known) / len(known) if known else None}
        return JudgeResult(verdicts, meter.to_dict(), transcript)
