"""Scripted model replies for the creativity framework's tests (neocoder/benchmarks/framework/):
the entailment judge, the judge panel's analysts, and candidate steps with log-probabilities,
served by loopback.py's RespondingServer."""

import re

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def prompt_of(kind, body):
    return body["prompt"] if kind == "completion" else body["messages"][-1]["content"]


def with_logprob(text, mean):
    """A completion's logprobs: two tokens whose mean log-probability is ``mean``."""
    return text, {"tokens": ["a", "b"], "token_logprobs": [mean, mean], "top_logprobs": [{}, {}],
                  "text_offset": [0, 1]}


def entail(prompt):
    a = re.search(r"Statement A: (.*)", prompt).group(1).strip().lower()
    b = re.search(r"Statement B: (.*)", prompt).group(1).strip().lower()
    return "yes" if a == b else "no"


def panel_respond(confidences, verdicts=("YES", "YES", "YES")):
    """A scripted judge panel: confidences per analyst (problem, solution, criterion)."""
    roles = ("problem analyst", "solution analyst", "criterion analyst")

    def respond(kind, body):
        prompt = prompt_of(kind, body)
        role = next(r for r in roles if f"You are the {r}" in prompt)
        if "How sure are you" in prompt:
            return f"Because. [[{confidences[roles.index(role)]}]] ([YES])", None
        if "Verdict: [[" in prompt:
            return f"{verdicts[roles.index(role)]}]] it holds", None
        if "[[ANSWERS]]" in prompt:
            return "[[ANSWERS]] the ladder height is two metres\n[[OPINION]] it is safe enough here\n" \
                   "[[QUESTIONS]]\nTo solution analyst: how tall is the rope?", None
        return "[[POINT]] the rope and ladder hold\n[[POINT]] fire risk is low here", None
    return respond
