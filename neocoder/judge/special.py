"""Problem-specific checkers for several-answers problems whose validity is simple to
check from the input alone (issue 5: "where a problem-specific checker is simple,
write it"); every other several-answers problem is consensus-checked.

A checker takes (input text, output bytes) and says whether the output answers every
test case of the input.  Register it in SPECIAL by problem id; the dataset build sets
``checker.special`` for those problems.
"""

from __future__ import annotations

from collections import Counter


def palindromic_double(input_text: str, output: bytes) -> bool:
    """Codeforces 1758A: for each s, a palindrome that rearranges the double of s."""
    tokens = input_text.split()
    try:
        cases = int(tokens[0])
    except (IndexError, ValueError):
        return False
    words, answers = tokens[1:1 + cases], output.decode("utf-8", "replace").split()
    return len(answers) == len(words) == cases and all(
        a == a[::-1] and Counter(a) == Counter(w + w) for w, a in zip(words, answers))


SPECIAL = {"1758A": palindromic_double}
