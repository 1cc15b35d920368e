"""ChatEval one-by-one, the baseline judge (Chan et al. 2023, "ChatEval: Towards Better
LLM-based Evaluators through Multi-Agent Debate"; as the creativity-framework paper ran
it, Sec. 4 and App. D.4).

For each criterion the three analysts speak in turn for ``chateval_rounds`` rounds, each
seeing the whole discussion so far (every reply is appended to the history at once, the
paper's modification of the one-by-one order); then each gives a final [[YES]]/[[NO]]
with a probability from the whole history, and the majority of the readable verdicts is
the verdict (a tie, or none readable: None, with its ``reason``).  The final replies are
read by grammars.py (``CHATEVAL_VERDICT``: the last [[YES]]/[[NO]]; ``PROBABILITY``: the
last ([p])); an unreadable one is recorded with its reason and left out, never guessed.
Every call is counted, so the token cost set against the retrieval judge's (retrieval.py) is measured on the same items.
"""

from __future__ import annotations

from neocoder.benchmarks.framework.calls import Meter, fill, read_turn
from neocoder.benchmarks.framework.grammars import CHATEVAL_VERDICT, PROBABILITY, as_bool
from neocoder.benchmarks.framework.retrieval import ANALYSTS, JudgeResult, JudgeSettings
from neocoder.replies import Reading

TIE = "tie"  # the readable votes split evenly: no verdict (not an unreadable reply)
NO_VOTE = "no readable vote"  # every final reply unreadable


def parse_probability(reply: str, prompt: str | None = None) -> Reading:
    """A debater's probability that the criterion is met: the last ([p]), p in [0, 1]
    (grammars.PROBABILITY)."""
    return PROBABILITY.read(reply, prompt=prompt)


def majority(verdicts: list) -> bool | None:
    """The majority of the readable verdicts (None entries left out); None for a tie or
    none readable."""
    yes, no = sum(v is True for v in verdicts), sum(v is False for v in verdicts)
    return None if yes == no else yes > no


def decide(finals: list) -> tuple[bool | None, str | None]:
    """The verdict of the debaters' final votes and its reason: the ``majority``, else
    ``TIE`` (readable votes split evenly) or ``NO_VOTE`` (none readable)."""
    verdict = majority(finals)
    return verdict, None if verdict is not None else (TIE if any(v is not None for v in finals) else NO_VOTE)


class ChatEvalJudge:
    """ChatEval one-by-one with ``model`` as every debater (see the module)."""

    name = "chateval"

    def __init__(self, model, settings: JudgeSettings):
        self.model, self.settings = model, settings

    def _ask(self, meter: Meter, transcript: list, text: str, **where) -> str:
        return meter.judge_turn(self.model, transcript, text, self.settings.judge_tokens, **where).text

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
            finals, probs, readings = [], [], []
            for role in ANALYSTS:
                text = fill("framework_chateval_verdict.txt", role=role, history="\n".join(history), **ctx)
                reply = meter.judge_turn(self.model, transcript, text, s.judge_tokens, phase="verdict",
                                         analyst=role, criterion=criterion)
                vote = read_turn(transcript, CHATEVAL_VERDICT, reply, text)
                prob = read_turn(transcript, PROBABILITY, reply, text)
                finals.append(as_bool(vote))
                probs.append(prob.value)
                readings += [{"role": "verdict", "analyst": role, "value": vote.value, "reason": vote.reason},
                             {"role": "probability", "analyst": role, "value": prob.value, "reason": prob.reason}]
            known = [p for p in probs if p is not None]
            verdict, reason = decide(finals)
            verdicts[criterion] = {"verdict": verdict, "reason": reason, "votes": finals, "probabilities": probs,
                                   "confidence": sum(known) / len(known) if known else None,
                                   "readings": readings}
        return JudgeResult(verdicts, meter.to_dict(), transcript)
