"""The paper-compatible evaluation: the NeoCoder release's own harness, one toggle each.

Lu et al. (NAACL 2025) scored GPT-4 (Table 4) with the evaluator of their repository
(``src/evaluators/``), which this project reconstructs from documented facts (the
release's files and README, the paper's definitions; no code of it is copied):

- ``annotated``: the tests are the cases of ``test_cases_annotated.json`` (flattened rows,
  split or truncated cases, list-valued outputs), joined behind their count where the
  statement announces a number of test cases (``dataset.release._annotated_tests``, the
  release import's own reading of that file), instead of the examples rebuilt from the
  statement; the extended tests are dropped (the paper had none);
- ``exact``: an output is right when it equals the expected one as a string, surrounding
  whitespace stripped (``output.strip() == expected.strip()``), instead of the problem's
  checker (tokens, any letter case, tolerance, a special checker for multi-answer
  problems);
- ``solve_appended``: the program is run as a script with ``solve()`` appended, once per
  test, instead of the program contract (sandbox/runner/contract.py): a program that
  calls ``solve()`` itself then reads an exhausted stdin on the second call;
- ``gpt4_labels``: the human technique set H(p) of the divergent score (Eq. 3) is the
  union of the GPT-4 labels of the problem's accepted solutions in
  ``human_solution_techniques.json`` (149 problems; the detector's sets for the other 50),
  names canonicalised to the taxonomy, instead of the tree-sitter detector's sets.

``--paper all`` turns on all four (with ``--dataset release`` it is the paper mode of
docs/paper.md); each ablation step there turns one off.  ``last_round`` (``SENSITIVITY``)
is a sensitivity check, never part of 'all': a state whose constraint list repeats is
answered by the code of the last round holding it, not the first.  What the original did
and was not knowable (exactly how it stripped outputs, how it fed several cases) is a stated,
plausible choice (docs/paper.md, "Choices").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from neocoder.errors import NeocoderError

PAPER_TOGGLES = ("annotated", "exact", "solve_appended", "gpt4_labels")
# Readings of the original that are less plausible than the paper mode's: accepted by
# --paper, never part of 'all' (docs/paper.md, "Choices"): ``last_round`` answers a state
# whose constraint list repeats with the code of the last round holding it, not the first.
SENSITIVITY = ("last_round",)
DECLARED = PAPER_TOGGLES + SENSITIVITY
LABELS_FILE = "human_solution_techniques.json"


def parse_paper(text: str) -> list[str]:
    """``--paper``: 'all' -> every toggle of the paper mode (``PAPER_TOGGLES``); 'none' or '' ->
    []; 'exact,gpt4_labels' -> those, in ``DECLARED`` order ('all,last_round' adds a
    sensitivity toggle).  Raises ValueError naming an unknown toggle."""
    text = str(text).strip()
    if text in ("", "none"):
        return []
    asked = {part.strip() for part in text.split(",") if part.strip()}
    if "all" in asked:
        asked = (asked - {"all"}) | set(PAPER_TOGGLES)
    unknown = sorted(asked - set(DECLARED))
    if unknown:
        raise ValueError(f"unknown paper toggle(s) {', '.join(unknown)}: use all, none or some of "
                         f"{', '.join(DECLARED)}")
    return [t for t in DECLARED if t in asked]


def exact_equal(actual: str, expected: str) -> bool:
    """The release harness's output comparison as reconstructed: the two strings equal
    once leading and trailing whitespace is stripped (letter case, inner spacing and every
    other valid answer count as different)."""
    return actual.strip() == expected.strip()


def append_solve(code: str) -> str:
    """``code`` followed by a call of ``solve()``: how the release harness ran a program
    (as a script that then calls the function the prompt asked for)."""
    return code.rstrip("\n") + "\n\nsolve()\n"


@dataclass(frozen=True)
class PaperProtocol:
    """The judging side of the paper toggles in force (``toggles``, a subset of
    ``PAPER_TOGGLES``): how a program is entered and how its outputs are compared."""

    toggles: frozenset

    @property
    def keeps_output(self) -> bool:
        """Whether the sandbox must return each test's whole stdout (for ``exact``)."""
        return "exact" in self.toggles

    def program(self, code: str) -> tuple[str, str]:
        """``(source, entry)`` the sandbox runs for ``code`` (entry as in ``Sandbox.run``)."""
        if "solve_appended" in self.toggles:
            return append_solve(code), "script"
        return code, "auto"

    def rejudge(self, result, tests: list[dict]):
        """``result`` (a SubmissionResult on ``tests``) with every AC or WA verdict of a
        program that ran to its end decided again by ``exact_equal`` when ``exact`` is on;
        the kept stdout is dropped again.  Returns ``result`` (changed in place)."""
        if "exact" not in self.toggles:
            return result
        for verdict, test in zip(result.tests, tests):
            if verdict.verdict in ("AC", "WA") and verdict.stdout is not None:
                verdict.verdict = "AC" if exact_equal(verdict.stdout, test["output"]) else "WA"
            verdict.stdout = None
        return result


def protocol_of(toggles) -> PaperProtocol | None:
    """The PaperProtocol of ``toggles`` (an EvalConfig's ``paper``); None when none is on."""
    return PaperProtocol(frozenset(toggles)) if toggles else None


def annotated_tests(release_dir: Path) -> dict[str, list[dict]]:
    """The tests of every annotated problem as the release harness read them (module
    docstring, ``annotated``): ``{problem_id: [{"input", "output", "source": "annotated"}]}``.
    Problems whose annotated entry cannot be read as tests are left out.  Raises
    DatasetError (a NeocoderError) for an unreadable file."""
    from neocoder.dataset.release import _annotated_tests, load_annotated
    out = {}
    for pid, entry in load_annotated(release_dir).items():
        tests = _annotated_tests(entry, entry.get("problem_statement") or "")
        if tests:
            out[pid] = [dict(t, source="annotated") for t in tests]
    return out


def last_rounds(release_dir: Path) -> dict[tuple, int]:
    """``{(problem_id, distinct constraints as a tuple): the last round index holding that
    list}`` from the release's ``NeoCoder.json`` (a round that found nothing new repeats
    the list; the import keeps the first index).  Raises DatasetError for a malformed file."""
    from neocoder.dataset.release import STATE0_MARKER, load_release_problems
    out = {}
    for rec in load_release_problems(release_dir):
        for index, raw in enumerate(rec["constraints_list"]):
            key = tuple(dict.fromkeys(c.strip() for c in raw if c.strip() and c.strip() != STATE0_MARKER))
            out[(rec["problem_id"], key)] = index
    return out


def paper_states(states: list, toggles, release_dir: Path) -> list:
    """``states`` (ProblemState) as the paper judged them: with ``annotated`` on, each
    state's tests are its problem's annotated cases and it has no extended tests; with
    ``last_round`` on, a state is answered by the code of the last round holding its list
    (``source_index``).  Raises NeocoderError naming a problem the annotated file has no
    tests for."""
    if "last_round" in toggles:
        last = last_rounds(release_dir)
        states = [dataclasses.replace(s, source_index=last.get((s.problem_id, tuple(s.constraints)), s.source_index))
                  for s in states]
    if "annotated" not in toggles:
        return states
    tests = annotated_tests(release_dir)
    missing = sorted({s.problem_id for s in states} - set(tests))
    if missing:
        raise NeocoderError(f"{release_dir}/test_cases_annotated.json: no usable tests for {', '.join(missing)} "
                            "(field input/output)")
    return [dataclasses.replace(s, tests=tests[s.problem_id], extended_tests=[], tests_source="annotated")
            for s in states]


def gpt4_label_sets(release_dir: Path, problem_ids) -> dict[str, set[str]]:
    """H(p) from the release's GPT-4 labels (NeoCoder Eq. 3's human set as the paper made
    it): the union of the labels of every accepted solution of each problem of
    ``problem_ids`` that the labels file has, names canonicalised to the taxonomy
    (``techniques.canonical``; a label outside it is kept as written, lower-cased).
    Raises DatasetError naming the file, problem and field for a malformed file."""
    from neocoder.dataset.release import DatasetError, load_json, release_file
    from neocoder.techniques import canonical
    path = release_file(release_dir, LABELS_FILE)
    data = load_json(path)
    if not isinstance(data, dict):
        raise DatasetError(path, "-", "-", "expected an object problem_id -> list of label lists")
    out = {}
    for pid in sorted(set(problem_ids) & set(data)):
        labels = data[pid]
        if not isinstance(labels, list) or not all(isinstance(s, list) for s in labels):
            raise DatasetError(path, pid, "-", "expected a list of label lists (one per solution)")
        names = {str(x).strip() for s in labels for x in s if str(x).strip()}
        out[pid] = {canonical(n) or n.lower() for n in names}
    return out


def paper_human_sets(human: dict[str, dict], toggles, release_dir: Path) -> dict[str, dict]:
    """``human`` (``{problem_id: {"techniques": set | None}}``, the detector's sets) with the
    GPT-4 label sets in place where ``gpt4_labels`` is on and the release has them; each
    entry records its ``source`` ("gpt4" or "detector")."""
    if "gpt4_labels" not in toggles:
        return human
    labels = gpt4_label_sets(release_dir, human)
    return {pid: ({"techniques": labels[pid], "source": "gpt4"} if pid in labels else
                  dict(entry, source="detector")) for pid, entry in human.items()}


@dataclass(frozen=True)
class AblationStep:
    """One step from the paper mode toward the default (docs/paper.md): its ``name`` (the
    run folder's), what it changes (``change``), and the eval options it runs with:
    ``dataset`` (``--dataset``: "release" or None, the validated dataset) and ``paper``
    (the toggles still on)."""

    name: str
    change: str
    dataset: str | None
    paper: tuple

    def flags(self) -> str:
        """The step's options as typed on ``neocoder eval``."""
        parts = [f"--dataset {self.dataset}"] if self.dataset else []
        return " ".join(parts + [f"--paper {','.join(self.paper) if self.paper else 'none'}"])


ABLATION = (
    AblationStep("0-paper", "the release's harness (paper mode)", "release", PAPER_TOGGLES),
    AblationStep("1-statement-examples", "examples rebuilt from the statement", "release",
                 ("exact", "solve_appended", "gpt4_labels")),
    AblationStep("2-checkers", "the problem's checker instead of exact strings", "release",
                 ("solve_appended", "gpt4_labels")),
    AblationStep("3-as-written", "the program judged as written (the program contract)", "release",
                 ("gpt4_labels",)),
    AblationStep("4-validated", "the validated examples (the shipped dataset)", None, ("gpt4_labels",)),
    AblationStep("5-default", "the tree-sitter detector's human sets instead of GPT-4 labels (the default)",
                 None, ()),
)
