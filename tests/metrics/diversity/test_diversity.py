"""Diversity of correct programs (issue 25): each measure on constructed cases checked by
hand, NoveltyBench's formulas on hand-computed values, the human reference on the
release's real solutions, and the diversity block of real eval and human runs."""

from __future__ import annotations

import json

import pytest

from neocoder.metrics.diversity.classes import STRUCTURE, TECHNIQUE, Program, classes, joint_classes
from neocoder.metrics.diversity.humans import disagreement, human_programs, reference
from neocoder.metrics.diversity.measures import (
    distinct_k,
    effective_distinct,
    expected_distinct,
    overlap,
    partition,
    utility_k,
)
from neocoder.metrics.diversity.run import run_diversity
from neocoder.metrics.diversity.structure import THRESHOLD, shape
from neocoder.records import Sample, TierResult
from neocoder.techniques import detect

SORTED = "n=int(input())\na=sorted(map(int,input().split()))\nprint(a[0]+a[1])\n"
SORT = "n=int(input())\nb=list(map(int,input().split()))\nb.sort()\nprint(b[0]+b[1])\n"
RENAMED = "q=int(input())\nzz=sorted(map(int,input().split()))\nprint(zz[0]+zz[1])\n"
BUBBLE_FOR = """n=int(input())
a=list(map(int,input().split()))
for i in range(n):
    for j in range(n-1-i):
        if a[j]>a[j+1]:
            a[j],a[j+1]=a[j+1],a[j]
print(a[0]+a[1])
"""
BUBBLE_WHILE = """n=int(input())
a=list(map(int,input().split()))
i=0
while i<n:
    j=0
    while j<n-1-i:
        if a[j]>a[j+1]:
            a[j],a[j+1]=a[j+1],a[j]
        j+=1
    i+=1
print(a[0]+a[1])
"""
PAIRS_N2 = """n=int(input())
a=list(map(int,input().split()))
c=0
for i in range(n):
    for j in range(i+1,n):
        if a[i]==a[j]:
            c+=1
print(c)
"""
PAIRS_N = """from collections import Counter
n=int(input())
a=list(map(int,input().split()))
print(sum(v*(v-1)//2 for v in Counter(a).values()))
"""


def program(source: str, correct: bool = True) -> Program:
    return Program(source=source, techniques=frozenset(detect(source)), correct=correct, quality=float(correct))


def test_a_renamed_copy_is_one_class_by_every_measure():
    assert shape(SORTED).distance(shape(RENAMED)) == 0.0
    progs = [program(SORTED), program(RENAMED)]
    assert classes(progs, TECHNIQUE) == [0, 0]
    assert classes(progs, STRUCTURE) == [0, 0]


def test_two_sorts_that_are_one_algorithm():
    # sorted() against list.sort(): one algorithm, one technique set, near in structure
    assert detect(SORTED) == detect(SORT) == {"sorting"}
    assert shape(SORTED).distance(shape(SORT)) <= THRESHOLD
    # one bubble sort written with for loops and with while loops: the structure measure
    # keeps them together; the technique measure splits them (for loop against while loop)
    d = shape(BUBBLE_FOR).distance(shape(BUBBLE_WHILE))
    assert d <= THRESHOLD, d
    progs = [program(BUBBLE_FOR), program(BUBBLE_WHILE)]
    assert classes(progs, STRUCTURE) == [0, 0]
    assert classes(progs, TECHNIQUE) == [0, 1]


def test_an_on_and_an_on2_solution_of_one_problem_are_two_classes():
    progs = [program(PAIRS_N2), program(PAIRS_N)]
    assert shape(PAIRS_N2).distance(shape(PAIRS_N)) > THRESHOLD
    assert classes(progs, STRUCTURE) == [0, 1]
    assert classes(progs, TECHNIQUE) == [0, 1]  # {for loop, if} against {dictionary, hashmap, for loop}


def test_structure_cannot_tell_two_nested_loops_of_different_purpose_by_much():
    # documented limit: a pair count and a bubble sort share their loop nest
    assert shape(PAIRS_N2).distance(shape(BUBBLE_FOR)) < shape(PAIRS_N2).distance(shape(PAIRS_N))


def test_noveltybench_formulas_on_hand_values():
    assert distinct_k([0, 0, 1, 2, 1]) == 3
    # (1 - .8) / (1 - .8^3) * (1 + 0 + .8^2 * 1): the second program repeats class 0
    assert utility_k([0, 0, 1], [1, 1, 1]) == pytest.approx(0.2 / (1 - 0.512) * (1 + 0.64))
    assert utility_k([0, 1, 2], [1, 1, 1]) == pytest.approx(1.0)  # all new and all good: the maximum
    assert utility_k([0, 1], [0, 0]) == 0.0
    with pytest.raises(ValueError):
        utility_k([], [])
    assert effective_distinct([0, 1, 2], [False, False, False]) == 0  # no correct program: 0, not an error
    assert effective_distinct([0, 1, 1, 2], [True, True, True, False]) == 2
    assert overlap([0, 1], [1, 5]) == 0.5 and overlap([], [1]) is None


def test_partition_compares_with_each_class_first_member():
    # 0 ~ 1 and 1 ~ 2 but not 0 ~ 2: 2 is compared with 0 (the head) only, as NoveltyBench does
    near = {(0, 1), (1, 2)}
    assert partition([0, 1, 2], lambda a, b: (a, b) in near or (b, a) in near) == [0, 0, 1]


def test_expected_distinct_by_subsamples():
    labels = [0, 0, 0, 1]
    assert expected_distinct(labels, 4) == 2.0
    assert expected_distinct(labels, 1) == 1.0
    # exact: P(class 1 among 2 drawn of 4) = 1/2, so E = 1.5
    assert expected_distinct(labels, 2, draws=4000) == pytest.approx(1.5, abs=0.05)
    assert expected_distinct(labels, 5) is None


def test_human_reference_on_the_release(release_dir):
    progs = human_programs(["1843C"], release_dir)["1843C"]
    assert len(progs) >= 20 and all(p.source for p in progs)
    for measure in (TECHNIQUE, STRUCTURE):
        got = reference(progs, measure)
        assert 1 <= got["classes"] <= got["n"] == len(progs)
        assert got["at_k"][1] == 1.0
        values = [got["at_k"][k] for k in sorted(got["at_k"])]
        assert values == sorted(values)  # more humans, at least as many classes
    split = disagreement({"1843C": progs}, TECHNIQUE, STRUCTURE)
    assert 0 <= split["split"] <= split["pairs"]


def test_without_the_release_the_humans_have_technique_sets_only(tmp_path):
    progs = human_programs(["1843C"], tmp_path)["1843C"]
    assert progs and not any(p.source for p in progs)
    assert reference(progs, STRUCTURE) is None and reference(progs, TECHNIQUE)["n"] == len(progs)


def _sample(pid: str, state: int, index: int, code: str, correct: bool) -> Sample:
    tests = [{"verdict": "AC" if correct else "WA"}]
    return Sample(problem_id=pid, state=state, sample=index, model="m", constraints=[], prompt_sha256="-",
                  code=code, reply=code, code_sha256=str(hash(code)), techniques=sorted(detect(code)),
                  follows=True, examples=TierResult(tests=tests, correct=correct))


def test_run_diversity_with_no_correct_program_reports_zero():
    samples = [_sample("1843C", 0, i, src, False) for i, src in enumerate([SORTED, PAIRS_N, PAIRS_N2])]
    got = run_diversity(samples, resamples=50)
    at0 = got["states"]["0"]
    assert at0["technique"]["effective"]["value"] == 0.0
    assert at0["technique"]["utility_k"]["value"] == 0.0
    assert at0["technique"]["distinct_k"]["value"] == 3.0
    assert got["chain"] == {}  # no correct program along the chain


def test_run_diversity_along_a_chain_against_the_humans(release_dir):
    samples = [_sample("1843C", t, 0, src, True) for t, src in enumerate([SORTED, RENAMED, PAIRS_N])]
    humans = human_programs(["1843C"], release_dir)
    got = run_diversity(samples, humans, resamples=50)
    assert got["states"] == {}  # one sample per state: no k-sample measure
    chain = got["chain"]
    assert chain["technique"]["correct"]["value"] == 3
    assert chain["structure"]["classes"]["value"] == 2  # the renamed copy joins its original
    assert 0 <= chain["technique"]["overlap_humans"]["value"] <= 1
    assert 1 <= chain["technique"]["human_classes"]["value"] <= 3
    mine, theirs = joint_classes([program(SORTED)], [program(RENAMED)], STRUCTURE)
    assert mine == theirs == [0]


# 1899A (print "First" unless n % 3 == 0): two correct programs of different technique sets, one wrong one
GAME_FOR = """def solve():
    t = int(input())
    for _ in range(t):
        n = int(input())
        if n % 3 == 0:
            print("Second")
        else:
            print("First")
"""
GAME_WHILE = """def solve():
    t = int(input())
    names = ("Second", "First", "First")
    while t > 0:
        t -= 1
        print(names[int(input()) % 3])
"""
GAME_WRONG = """def solve():
    t = int(input())
    print("\\n".join(["First"] * t))
"""


def test_eval_and_human_runs_carry_the_diversity_block(tmp_path, release_dir, sandbox):
    """The diversity block of a real eval run (judged in the sandbox) agrees with what its
    records.jsonl says, counted here by hand: a scripted endpoint answers sample 0, 1, 2 of
    every state with GAME_FOR, GAME_WHILE (both correct on 1899A) and GAME_WRONG, so 1899A has
    4 correct programs over t = 0, 1 and 1901A none.  The chain's ``correct`` is the mean
    number of correct samples per problem that has one, its technique ``classes`` the mean
    number of distinct technique sets among them (the technique measure classes by exact
    set); per state, technique ``distinct_k`` and ``effective`` are the distinct technique
    sets among all k samples and among the correct ones, averaged over both problems.  The
    human run's per-problem technique classes are the distinct technique sets of the humans."""
    from collections import defaultdict
    from statistics import mean

    from loopback import RespondingServer

    from neocoder import EvalConfig, ModelConfig, SandboxConfig, evaluate
    from neocoder.metrics.diversity.humans import human_programs
    programs = {0: GAME_FOR, 1: GAME_WHILE, 2: GAME_WRONG}  # by the sample's seed (0 + sample index)
    with RespondingServer(lambda kind, body: (f"```python\n{programs[body['seed']]}```", None)) as server:
        model = ModelConfig("openai/scripted", base_url=server.url, api_key="k", temperature=0.7, seed=0)
        config = EvalConfig(model=model, out=tmp_path / "run", problems=["1899A", "1901A"], states=[0, 1],
                            samples=3, release_dir=release_dir, sandbox=SandboxConfig(workers=2), progress=False,
                            bootstrap=50)
        result = evaluate(config)
    diversity = json.loads((tmp_path / "run" / "metrics.json").read_text())["diversity"]
    assert result.metrics["diversity"] == diversity
    assert diversity["measures"] == ["technique", "structure", "operations", "learned"]
    assert diversity["default"] == "learned"
    assert diversity["validated"] is False  # issue 48: no measure passed its held-out check

    # the records, read by hand: judged samples (no error, no INFRA verdict, some code)
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    judged = [r for r in records if not r.get("error") and r.get("code") and r.get("examples")
              and not any(t["verdict"] == "INFRA" for t in r["examples"]["tests"])]
    assert len(judged) == len(records) == 12  # 2 problems x 2 states x 3 samples
    correct_sets: dict[str, list[frozenset]] = defaultdict(list)  # problem -> technique sets of its correct samples
    at_state: dict[tuple, list[tuple[frozenset, bool]]] = defaultdict(list)  # (t, problem) -> (set, correct)
    for r in judged:
        techniques = frozenset(r["techniques"])
        at_state[r["state"], r["problem_id"]].append((techniques, r["examples"]["correct"]))
        if r["examples"]["correct"]:
            correct_sets[r["problem_id"]].append(techniques)
    assert {pid: len(sets) for pid, sets in correct_sets.items()} == {"1899A": 4}  # the script worked
    assert len(set(correct_sets["1899A"])) == 2  # GAME_FOR and GAME_WHILE use different techniques

    chain = diversity["chain"]
    assert chain["technique"]["correct"]["problems"] == len(correct_sets) == 1
    assert chain["technique"]["correct"]["value"] == mean(len(sets) for sets in correct_sets.values())
    assert chain["technique"]["classes"]["value"] == mean(len(set(sets)) for sets in correct_sets.values())
    for measure in ("structure", "operations", "learned"):  # Python programs with code: every correct one counts
        assert chain[measure]["correct"]["value"] == chain["technique"]["correct"]["value"]
        assert 1 <= chain[measure]["classes"]["value"] <= chain[measure]["correct"]["value"]

    assert sorted(diversity["states"]) == ["0", "1"]
    for t in (0, 1):
        got = diversity["states"][str(t)]["technique"]
        by_problem = [at_state[t, pid] for pid in ("1899A", "1901A")]
        assert got["k"]["value"] == 3 and got["distinct_k"]["problems"] == 2
        assert got["distinct_k"]["value"] == mean(len({s for s, _ in k}) for k in by_problem)
        assert got["effective"]["value"] == mean(len({s for s, ok in k if ok}) for k in by_problem)

    human = evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "human", limit=2,
                                release_dir=release_dir, progress=False, bootstrap=50))
    block = human.metrics["diversity"]
    assert len(block["per_problem"]) == 2
    humans = human_programs(list(block["per_problem"]), release_dir)
    for pid, got in block["per_problem"].items():
        assert got["technique"]["n"] == len(humans[pid]) >= 20
        assert got["technique"]["classes"] == len({frozenset(p.techniques) for p in humans[pid]})
    assert "classes@5" in block["humans"]["structure"]
    assert block["humans"]["operations"]["classes"]["value"] <= block["humans"]["structure"]["classes"]["value"]


def test_the_printed_table_reports_k_sample_diversity_and_zero_correct():
    from neocoder.report.text import eval_table
    samples = [_sample("1843C", 0, i, src, False) for i, src in enumerate([SORTED, PAIRS_N, PAIRS_N2])]
    metrics = {"model": "m", "states": {}, "diversity": run_diversity(samples, resamples=50)}
    text = eval_table(metrics)
    assert "diversity at t=0 (k=3.0 per problem): technique: distinct_k 3.00" in text
    assert "effective 0.00" in text and "utility_k 0.00" in text


def test_execution_classes_for_a_run_and_the_humans(tmp_path, release_dir, sandbox):
    """--execution-classes: the humans' Python solutions and the run's correct programs are
    fingerprinted on the same grown inputs (real sandbox), and the diversity blocks gain
    the execution measure."""
    from neocoder import EvalConfig, ModelConfig, SandboxConfig, evaluate
    common = dict(release_dir=release_dir, limit=1, sandbox=SandboxConfig(workers=2), progress=False,
                  bootstrap=50, execution_classes=True)
    human = evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "human", **common))
    block = human.metrics["diversity"]
    assert "execution" in block["measures"]
    (got,) = block["per_problem"].values()
    assert got["execution"]["n"] >= 10 and 1 <= got["execution"]["classes"] <= got["execution"]["n"]
    assert "execution->technique" in block["disagreement"]
    run = evaluate(EvalConfig(model=ModelConfig("replay/gpt-4-1106-preview"), out=tmp_path / "run", **common))
    assert run.metrics["diversity"]["measures"] == ["technique", "structure", "operations", "learned", "execution"]


def test_structure_classes_python_only_and_execution_needs_the_shipped_release(tmp_path, release_dir):
    """A C++ solution never shares a pq-gram with a Python one, so the structure measure
    classes Python programs only; --execution-classes with no shipped release is refused
    before anything is judged, and --paper is refused for the (unjudged) humans."""
    from neocoder import EvalConfig, ModelConfig, evaluate
    from neocoder.errors import NeocoderError
    from neocoder.metrics.diversity.classes import available
    cpp = Program(source="#include <cstdio>\nint main(){int n;scanf(\"%d\",&n);printf(\"%d\",n);}\n", language="cpp")
    assert available([program(SORTED), cpp], STRUCTURE) == [0]
    with pytest.raises(NeocoderError, match="--execution-classes needs the release neocoder ships"):
        evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "h", release_dir=tmp_path, limit=1,
                            progress=False, execution_classes=True))
    with pytest.raises(NeocoderError, match="without --paper"):
        evaluate(EvalConfig(model=ModelConfig("human"), out=tmp_path / "p", release_dir=release_dir, limit=1,
                            progress=False, paper=["exact"]))
