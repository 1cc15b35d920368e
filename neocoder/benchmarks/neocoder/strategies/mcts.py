"""``mcts``: Monte-Carlo tree search over program continuations, as in Planning-Guided
Transformer Decoding (Zhang et al., ICLR 2023).

The tree's nodes are code prefixes (the completion prompt's code prefix, ``def solve():``
in Python or ``int main() {`` in C++, plus the tokens chosen so far).  One rollout:

1. *Selection*: from the root, follow the child with the highest P-UCB (Zhang et al.,
   Sec. 3, after AlphaZero):
       P-UCB(s, a) = Q(s, a) + beta(s) * P(a | s) * sqrt(log N(s)) / (1 + N(s'))
       beta(s)     = log((N(s) + c_base + 1) / c_base) + c,   c_base = 10, c = 4
   with P(a | s) the model's probability of token a after prefix s (renormalised over
   the expanded children), N visit counts and Q(s, a) the best reward found below the
   child (the environment is deterministic, so the best program found is what counts).
2. *Expansion*: a leaf visited before gets ``top_k`` children, one per most likely next
   token, from the completions API's ``logprobs`` (one call, ``max_tokens=1``).
3. *Evaluation*: a greedy completion from the node's prefix gives a whole program; its
   reward is its pass rate on the example tests, 0 if it violates a constraint
   (strategies/base.py ``Trial.reward``).
4. *Backpropagation*: every node on the path counts the visit and keeps the maximum
   reward.

Search stops after ``rollouts`` rollouts or at the first program with reward 1 (every
example AC, no constraint violated: no program can score higher).  The answer is the
best program found (the first on ties); a rollout whose reply holds no program
(program.read_program: never judged, 0 in the tree) is the answer only when none holds
one.  Only completion models can be searched (the chat API has no prefix to continue);
every call goes through the run's call cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from neocoder.benchmarks.neocoder.strategies.base import Context, Solution, prompt_with
from neocoder.models import ModelError, Reply

C_BASE, C = 10.0, 4.0


@dataclass
class Node:
    """A code prefix in the search tree: ``text`` is what follows the prompt's code prefix."""

    text: str
    prior: float = 1.0  # P(a | parent), renormalised over the parent's children
    visits: int = 0
    value: float = 0.0  # the best reward found below (max backup)
    children: list = field(default_factory=list)
    expanded: bool = False
    terminal: bool = False  # the model ends the program here: no token follows


def beta(visits: int) -> float:
    """The exploration weight beta(s) of P-UCB (Zhang et al. 2023), for a parent with ``visits``."""
    return math.log((visits + C_BASE + 1) / C_BASE) + C


def p_ucb(parent: Node, child: Node) -> float:
    """P-UCB of ``child`` under ``parent`` (the formula in the module docstring)."""
    explore = beta(parent.visits) * child.prior * math.sqrt(math.log(max(parent.visits, 1))) / (1 + child.visits)
    return child.value + explore


def select(root: Node) -> list[Node]:
    """The path from ``root`` down to a leaf (a node without children), by highest P-UCB
    (the first child on ties)."""
    path = [root]
    while path[-1].children:
        parent = path[-1]
        path.append(max(parent.children, key=lambda c: p_ucb(parent, c)))
    return path


def backpropagate(path: list[Node], reward: float) -> None:
    """Count a visit on every node of ``path`` and keep the best reward (max backup)."""
    for node in path:
        node.visits += 1
        node.value = max(node.value, reward)


def children_from(top: dict[str, float], limit: int) -> list[Node]:
    """Up to ``limit`` children from a {token: logprob} map, most likely first, with
    priors renormalised over the kept tokens."""
    best = sorted(top.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    total = sum(math.exp(lp) for _, lp in best) or 1.0
    return [Node(text=tok, prior=math.exp(lp) / total) for tok, lp in best]


class Search:
    """One tree search for one sample (``run`` returns the Solution)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.base = ctx.solve_prompt(temperature=0.0)
        if ctx.model.api != "completion":
            raise ModelError(f"{ctx.model.name}: --strategy mcts continues code prefixes through a completions API "
                             "with logprobs; use --api completion (local models use it by default)")
        self.attempts: list[dict] = ctx.attempts
        self.best: tuple[float, Reply] | None = None

    def expand(self, node: Node) -> None:
        """Give ``node`` its children: the ``top_k`` most likely next tokens."""
        node.expanded = True
        prompt = prompt_with(self.base, completion=self.base.completion + node.text, max_tokens=1,
                             logprobs=self.ctx.options.top_k)
        reply = self.ctx.call(prompt)
        top = ((reply.extra.get("logprobs") or {}).get("top") or [{}])[0]
        if not reply.text or not top:
            node.terminal = True  # the model stops here (a stop sequence or the end of text)
            return
        node.children = children_from(top, self.ctx.options.top_k)
        for child in node.children:
            child.text = node.text + child.text

    def rollout(self, node: Node) -> tuple[float, Reply]:
        """Complete ``node`` greedily and score the program on the example tests."""
        if node.terminal:
            completion = Reply(text="", code_prefix=self.base.code_prefix)
        else:
            completion = self.ctx.call(prompt_with(self.base, completion=self.base.completion + node.text))
        reply = Reply(text=node.text + completion.text, code_prefix=self.base.code_prefix,
                      prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                      seconds=completion.seconds, extra=completion.extra)
        trial = self.ctx.attempt(reply, self.base)  # an empty or cut-off rollout is not judged
        self.attempts.append({"kind": "rollout", "index": len(self.attempts), "prefix": node.text,
                              "continuation": completion.text, **trial.summary()})
        return (trial.reward if trial.no_program is None else -1.0), reply  # -1: any program is better

    def run(self) -> Solution:
        """Search: up to ``rollouts`` rollouts of select, expand, evaluate and backpropagate
        (see the module), stopping at the first program with reward 1.  Returns the best reply
        found (the first on ties, marked ``chosen`` among the attempts) with every rollout and
        the tree.  Raises what the model raises."""
        root = Node(text="")
        for _ in range(self.ctx.options.rollouts):
            path = select(root)
            leaf = path[-1]
            if not leaf.expanded and (leaf.visits > 0 or leaf is root):
                self.expand(leaf)
                if leaf.children:
                    leaf = leaf.children[0]  # the most likely token
                    path.append(leaf)
            reward, reply = self.rollout(leaf)
            backpropagate(path, max(reward, 0.0))
            if self.best is None or reward > self.best[0]:
                self.best = (reward, reply)
            if reward >= 1.0:
                break
        assert self.best is not None  # at least one rollout ran (rollouts >= 1)
        target = (max(self.best[0], 0.0), self.best[0] < 0)  # a rollout with no program is kept with reward 0
        chosen = next(i for i, a in enumerate(self.attempts) if (a["reward"], "no_program" in a) == target)
        self.attempts[chosen]["chosen"] = True
        self.attempts.append({"kind": "tree", "tree": tree_dict(root)})
        return Solution(self.best[1], self.attempts, self.base)


def tree_dict(node: Node) -> dict:
    """The search tree as nested dicts (token, prior, visits, value, children), for the record."""
    return {"text": node.text[-40:], "prior": round(node.prior, 4), "visits": node.visits,
            "value": round(node.value, 4), "terminal": node.terminal,
            "children": [tree_dict(c) for c in node.children if c.visits]}


def solve(ctx: Context) -> Solution:
    """Tree search with ``ctx.options.rollouts`` rollouts (at least one)."""
    return Search(ctx).run()
