"""The technique taxonomy of NeoCoder (Lu et al., NAACL 2025, Appendix; 34 names).

Names are kept exactly as the paper and the release spell them, so constraint
lists match; ALIASES maps spelling variants to those names.  DETECTED lists what
the tree-sitter detector decides today; a constraint outside it cannot be checked
yet and is reported as unchecked, never silently treated as violated.
"""

TAXONOMY = (
    "if statement", "for loop", "while loop", "break statement", "continue statement",
    "pass statement", "match statement", "recursion", "stack", "queue", "tuple", "set",
    "dictionary", "linked list", "tree", "graph", "graph traversal", "two pointers",
    "sliding window", "matrix operation", "hashmap", "depth first search",
    "width first search", "back tracking", "dived & conquer", "Kadanes algorithm",
    "binary search", "heap", "dynamic programming", "greedy algorithm", "misc", "minimax",
    "topological sort", "sorting",
)

ALIASES = {
    "breadth first search": "width first search",
    "bfs": "width first search",
    "dfs": "depth first search",
    "divide and conquer": "dived & conquer",
    "divide & conquer": "dived & conquer",
    "kadane's algorithm": "Kadanes algorithm",
    "kadanes algorithm": "Kadanes algorithm",
    "backtracking": "back tracking",
    "for loops": "for loop",
    "while loops": "while loop",
    "if statements": "if statement",
    "hash map": "hashmap",
}

# Every technique has a rule in both languages (docs/techniques.md); C++ has no
# `pass`, so "pass statement" is never found there.  The mechanism for a technique
# without a rule (reported as unchecked, never as violated) stays for new names.
DETECTED_BY_LANGUAGE = {"python": TAXONOMY, "cpp": TAXONOMY}
# What the main job can check in a (Python) solution.
DETECTED = DETECTED_BY_LANGUAGE["python"]


def canonical(name: str) -> str | None:
    """Canonical taxonomy name for ``name`` (case-insensitive, aliases applied), or None."""
    key = " ".join(name.strip().split())
    for t in TAXONOMY:
        if t.lower() == key.lower():
            return t
    return ALIASES.get(key.lower())


def judge_constraints(constraints: list[str], techniques: set[str]) -> tuple[list[str], list[str]]:
    """Return (violated, unchecked) constraints of a state for a solution's techniques.

    A constraint the detector cannot decide yet (not in DETECTED) is *unchecked*:
    reported, and not counted as a violation.
    """
    violated = [c for c in constraints if c in DETECTED and c in techniques]
    unchecked = [c for c in constraints if c not in DETECTED]
    return violated, unchecked
