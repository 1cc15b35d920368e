"""Problem-specific checkers (neocoder/judge/special/), validated three ways:

- on real data: accepted human Python solutions of every checked problem run on its
  statement examples in the real sandbox, and every output they print is accepted (as
  is the statement's own answer);
- on mutants of those outputs (a changed number, a swapped pair, a token or line
  dropped or repeated, a truncated output, YES/NO flipped): most are rejected, and
  every problem rejects some;
- by brute force on small inputs, wherever a checker relies on a fact about the problem
  (an optimum, or when no answer exists): the checker must accept exactly the answers
  an exhaustive search finds valid.

Nothing here reads data derived from the release but the release itself.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from itertools import combinations, permutations, product
from math import lcm

import pytest

from neocoder.dataset.statement import choose_checker
from neocoder.judge import Limits
from neocoder.judge.checkers import check
from neocoder.judge.special import SPECIAL
from neocoder.oracle import run_humans
from neocoder.store import JsonlStore
from neocoder.techniques.human import solutions_by_language

HUMANS_PER_PROBLEM = 10
EVIDENCE_ONLY = {"1805A", "1719B"}  # several answers shown by the humans, not by the statement's words


def accepts(pid: str, input_text: str, output: str) -> bool:
    return SPECIAL[pid](input_text, output.encode())


def one_case(*lines) -> str:
    """The input of a single test case (count 1, then the lines)."""
    return "1\n" + "".join(f"{line}\n" for line in lines)


def joined(values) -> str:
    return " ".join(map(str, values))


# ----------------------------------------------------------------- coverage and interface

def test_every_several_answers_problem_has_a_checker(release_states):
    records, _ = release_states
    several = {r["problem_id"] for r in records
               if r["state"] == 0 and choose_checker(r["statement"])["kind"] == "consensus"}
    assert several <= set(SPECIAL), f"no checker for {sorted(several - set(SPECIAL))}"
    assert set(SPECIAL) == several | EVIDENCE_ONLY | {"1758A"}
    for pid, checker in SPECIAL.items():
        assert checker.__doc__.startswith(f"{pid} \""), f"{pid}: the docstring must name the problem"


def test_the_judge_passes_the_input_and_garbage_is_a_wrong_answer():
    spec = {"kind": "special", "special": "1758A", "ignore_case": False, "tolerance": None}
    test = {"input": "2\na\nab\n", "output": "aa\nabba\n"}
    assert check(spec, b"aa\nbaab\n", test)
    assert not check(spec, b"aa\nabab\n", test)
    for garbage in (b"", b"\xff\xfe", b"9" * 5000, b"-1 " * 100, b"YES\n" * 3):
        for pid, checker in SPECIAL.items():
            assert checker("3\n1\n2\n3\n", garbage) in (True, False), pid
    assert SPECIAL["1758A"].why("1\nab\n", b"abab") == "test case 1: not a palindrome"


# ----------------------------------------------------------------- real human outputs in the sandbox

@pytest.fixture(scope="module")
def human_outputs(release_dir, release_states, sandbox, tmp_path_factory):
    """pid -> [(input, [outputs])]: the statement's answer and the stdout of the first
    HUMANS_PER_PROBLEM accepted human Python solutions that ran cleanly, per example."""
    records, _ = release_states
    firsts = {r["problem_id"]: r for r in records if r["state"] == 0 and r["problem_id"] in SPECIAL}
    humans = {pid: [src for lang, src in sols if lang == "python"][:HUMANS_PER_PROBLEM]
              for pid, sols in solutions_by_language(release_dir, set(SPECIAL)).items()}
    cache = JsonlStore(tmp_path_factory.mktemp("special") / "runs.jsonl", "runs")
    started = time.monotonic()
    result = {}
    for pid, record in sorted(firsts.items()):
        limits = Limits.for_cpu(float(record["time_limit_s"]), int(record["memory_limit_mb"]))
        runs = run_humans(sandbox, pid, "examples", humans.get(pid, []), record["tests"], limits, cache) \
            if humans.get(pid) else []
        result[pid] = [(test["input"], [test["output"]] + [r[i][1] for r in runs if r[i][0] == "ok"])
                       for i, test in enumerate(record["tests"])]
    print(f"\n{sum(len(h) for h in humans.values())} human solutions of {len(firsts)} problems "
          f"ran in {time.monotonic() - started:.0f} s")
    return result


def test_checkers_accept_every_human_output(human_outputs):
    assert set(human_outputs) == set(SPECIAL)
    rejected = [(pid, SPECIAL[pid].why(inp, out), out[:80])
                for pid, tests in human_outputs.items() for inp, outs in tests for out in outs
                if not accepts(pid, inp, out)]
    assert not rejected
    with_humans = sum(any(len(outs) > 1 for _, outs in tests) for tests in human_outputs.values())
    assert with_humans >= len(SPECIAL) - 1  # 1773F has no Python solution: its statement answers only


def mutants(output: str) -> list[str]:
    """Wrong-looking variants of an output: every number +-1, a YES/NO flipped, a word's
    last letter changed, each adjacent pair swapped, each token dropped or repeated, the
    last line dropped or repeated, the first half only."""
    tokens = output.split()
    lines = [line.split() for line in output.splitlines() if line.split()]
    if not tokens:
        return []
    found = []
    for i, token in enumerate(tokens):
        if re.fullmatch(r"-?\d+", token):
            changed = [str(int(token) + 1), str(int(token) - 1)]
        elif token.upper() in ("YES", "NO"):
            changed = ["NO" if token.upper() == "YES" else "YES"]
        else:
            changed = [token[:-1] + ("b" if token[-1] != "b" else "a")]
        found += [tokens[:i] + [c] + tokens[i + 1:] for c in changed]
        found += [tokens[:i] + tokens[i + 1:], tokens[:i + 1] + tokens[i:]]
        if i + 1 < len(tokens):
            found.append(tokens[:i] + [tokens[i + 1], token] + tokens[i + 2:])
    found += [[t for line in lines[:-1] for t in line], tokens + lines[-1], tokens[:len(tokens) // 2]]
    return sorted({" ".join(m) for m in found if m != tokens})


def test_checkers_reject_mutated_outputs(human_outputs):
    weak = {}
    for pid, tests in human_outputs.items():
        tried = rejected = 0
        for inp, outs in tests:
            for out in set(outs):
                for mutant in mutants(out):
                    tried += 1
                    rejected += not accepts(pid, inp, mutant)
        if not rejected or rejected <= tried / 2:
            weak[pid] = f"{rejected} of {tried}"
    assert not weak, f"checkers rejecting too few mutants: {weak}"


# ----------------------------------------------------------------- brute force: the facts the checkers use

def assert_accepts_exactly(pid: str, input_text: str, candidates: dict[str, bool]) -> None:
    """The checker accepts exactly the candidate outputs marked valid."""
    wrong = [(out, valid) for out, valid in candidates.items() if accepts(pid, input_text, out) != valid]
    assert not wrong, f"{pid} on {input_text!r}: (output, valid) judged wrongly: {wrong[:5]}"


def exactly_the_best(pid, input_text, answers: dict[str, int], best=max) -> None:
    """Every answer (output -> its value) is accepted iff its value is the best."""
    top = best(answers.values())
    assert_accepts_exactly(pid, input_text, {out: v == top for out, v in answers.items()})


def impossible_iff_no_answer(pid, input_text, answers: list[str], marker: str) -> None:
    """The marker (-1, NO, ...) is accepted iff the checker accepts none of all answers."""
    some = any(accepts(pid, input_text, a) for a in answers)
    assert accepts(pid, input_text, marker) is not some, f"{pid} on {input_text!r}: {marker} judged wrongly"


def _perm_value_1743b(p):
    return sum(max(p[i:j]) == j - i for i in range(len(p)) for j in range(i + 1, len(p) + 1))


def _perm_value_1728b(p):
    x = 0
    for v in p:
        x = x + v if x < v else 0
    return x


@pytest.mark.parametrize("pid,sizes,value,best", [
    ("1712B", range(1, 8), lambda p: sum(lcm(i, v) for i, v in enumerate(p, 1)), max),
    ("1754B", range(2, 8), lambda p: min(abs(x - y) for x, y in zip(p, p[1:])), max),
    ("1743B", range(3, 8), _perm_value_1743b, min),
    ("1728B", range(4, 8), _perm_value_1728b, max),
    ("1711A", range(1, 8), lambda p: sum(v % i == 0 for i, v in enumerate(p, 1)), min),
])
def test_permutation_optima_match_a_brute_force(pid, sizes, value, best):
    for n in sizes:
        exactly_the_best(pid, one_case(n), {joined(p): value(p) for p in permutations(range(1, n + 1))}, best)


def test_1701b_best_cost_over_every_d_and_permutation():
    for n in range(2, 7):
        answers = {f"{d}\n{joined(p)}": sum(x * d == y for x, y in zip(p, p[1:]))
                   for d in range(1, n + 2) for p in permutations(range(1, n + 1))}
        exactly_the_best("1701B", one_case(n), answers)


def test_1867a_distinct_differences_on_small_arrays():
    rng = random.Random(0)
    for _ in range(30):
        n = rng.randint(1, 5)
        a = [rng.randint(1, 4) for _ in range(n)]
        exactly_the_best("1867A", one_case(n, joined(a)),
                         {joined(b): len({x - y for x, y in zip(a, b)}) for b in permutations(range(1, n + 1))})


def test_1741b_funny_permutations():
    def funny(p):
        return all(x != i for i, x in enumerate(p, 1)) and all(
            any(abs(p[j] - x) == 1 for j in (i - 1, i + 1) if 0 <= j < len(p)) for i, x in enumerate(p))
    for n in range(2, 8):
        perms = list(permutations(range(1, n + 1)))
        assert_accepts_exactly("1741B", one_case(n), {joined(p): funny(p) for p in perms})
        impossible_iff_no_answer("1741B", one_case(n), [joined(p) for p in perms], "-1")


def test_1719b_pairings_exist_iff_k_not_divisible_by_4():
    for n in (2, 4, 6):
        pairings = [joined(p) for p in permutations(range(1, n + 1))]
        for k in range(9):
            impossible_iff_no_answer("1719B", one_case(f"{n} {k}"), ["YES " + p for p in pairings], "NO")


def _sequences_1864a(x, y, n):
    """Every strictly increasing a_1 = x < ... < a_n = y (small ranges)."""
    return [(x,) + mid + (y,) for mid in combinations(range(x + 1, y), n - 2)]


def test_existence_claims_match_exhaustive_answers():
    for x, y, n in product(range(1, 6), range(2, 14), range(3, 6)):
        if x < y:
            answers = [joined(a) for a in _sequences_1864a(x, y, n)]
            impossible_iff_no_answer("1864A", one_case(f"{x} {y} {n}"), answers, "-1")
    for n in range(2, 5):
        for a in product(range(1, 5), repeat=n):
            inp = one_case(n, joined(a))
            splits = [f"{len(b)} {n - len(b)}\n{joined(b)}\n{joined(c)}"
                      for mask in range(1, 2 ** n - 1)
                      for b, c in [([v for i, v in enumerate(a) if mask >> i & 1],
                                    [v for i, v in enumerate(a) if not mask >> i & 1])]]
            impossible_iff_no_answer("1859A", inp, splits, "-1")
            if list(a) == sorted(a):
                impossible_iff_no_answer("1783A", inp, ["YES " + joined(p) for p in permutations(a)], "NO")
    for n in range(2, 7):
        for lamps in product("LR", repeat=n):
            impossible_iff_no_answer("1779A", one_case(n, "".join(lamps)), [str(i) for i in range(n)], "-1")
    for n in range(1, 31):
        impossible_iff_no_answer("1787A", one_case(n), [f"{x} {y}" for x in range(1, n + 1) for y in range(1, n + 1)],
                                 "-1")
    for n in range(1, 80):
        impossible_iff_no_answer("1886A", one_case(n), [f"YES {x} {y} {n - x - y}" for x in range(1, n)
                                                        for y in range(x + 1, n) if y < n - x - y], "NO")
    for n in range(2, 7):
        for k in range(n * (n - 1) // 2 + 1):
            impossible_iff_no_answer("1823A", one_case(f"{n} {k}"),
                                     ["YES " + joined(a) for a in product((1, -1), repeat=n)], "NO")


def test_1845a_no_iff_no_multiset_sums_to_n():
    def partitions(n, largest):
        if n == 0:
            yield []
        for v in range(min(n, largest), 0, -1):
            for rest in partitions(n - v, v):
                yield [v] + rest
    for n in range(1, 11):
        for k in range(1, n + 1):
            for x in range(1, k + 1):
                answers = [f"YES {len(p)} {joined(p)}" for p in partitions(n, k)]
                impossible_iff_no_answer("1845A", one_case(f"{n} {k} {x}"), answers, "NO")


def test_1810b_minus_one_iff_unreachable():
    reachable, frontier = {1}, [1]
    for _ in range(40):
        frontier = [v for x in frontier for v in (2 * x - 1, 2 * x + 1) if v <= 200 and v not in reachable]
        reachable.update(frontier)
    for n in range(2, 201):
        assert accepts("1810B", one_case(n), "-1") is (n not in reachable), n


def test_small_random_choice_problems():
    rng = random.Random(1)
    for _ in range(200):
        n = rng.randint(2, 4)
        athletes = [(rng.randint(1, 6), rng.randint(1, 3)) for _ in range(n)]
        inp = one_case(n, *(f"{s} {e}" for s, e in athletes))
        impossible_iff_no_answer("1879A", inp, [str(w) for w in range(1, 8)], "-1")
        a = [rng.randint(0, 7) for _ in range(n)]
        impossible_iff_no_answer("1805A", one_case(n, joined(a)), [str(x) for x in range(256)], "-1")
        a, b = [rng.randint(1, 5) for _ in range(n)], [rng.randint(1, 3) for _ in range(n)]
        inp = one_case(f"{n} {rng.randint(1, 6)}", joined(a), joined(b))
        impossible_iff_no_answer("1822A", inp, [str(i) for i in range(1, n + 1)], "-1")
        a = [rng.randint(1, 4) for _ in range(n + 1)]
        triples = [f"YES {joined(t)}" for t in permutations(range(1, n + 2), 3)]
        impossible_iff_no_answer("1780A", one_case(n + 1, joined(a)), triples, "NO")
    for length in range(3, 8):
        for s in product("ab", repeat=length):
            s = "".join(s)
            splits = [f"{s[:i]} {s[i:j]} {s[j:]}" for i in range(1, length - 1) for j in range(i + 1, length)]
            impossible_iff_no_answer("1775A1", one_case(s), splits, ":(")


def test_1764a_best_segment():
    rng = random.Random(2)
    for _ in range(100):
        n = rng.randint(1, 6)
        a = [rng.randint(1, n) for _ in range(n)]
        exactly_the_best("1764A", one_case(n, joined(a)),
                         {f"{left} {right}": right - left - len(set(a[left - 1:right]))
                          for left in range(1, n + 1) for right in range(left, n + 1)})


def test_1898a_fewest_operations():
    for n in range(3, 6):
        ops = [f"{i} {c}" for i in range(1, n + 1) for c in "AB"]
        for s, k in product(product("AB", repeat=n), range(n + 1)):
            def ends(seq):
                t = list(s)
                for op in seq:
                    i, c = op.split()
                    t[:int(i)] = [c] * int(i)
                return t.count("B") == k
            answers = {f"{len(seq)} " + " ".join(seq): len(seq) for m in range(3) for seq in product(ops, repeat=m)
                       if ends(seq)}
            exactly_the_best("1898A", one_case(f"{n} {k}", "".join(s)), answers, min)


def test_1837a_fewest_jumps():
    for x, k in product(range(1, 13), range(2, 7)):
        jumps = [j for j in range(-30, 31) if j % k]
        seqs = [(x,)] + [(j, x - j) for j in jumps] + [(i, j, x - i - j) for i in range(-6, 7) for j in range(-6, 7)]
        answers = {f"{len(seq)} {joined(seq)}": len(seq) for seq in seqs if all(v % k for v in seq)}
        exactly_the_best("1837A", one_case(f"{x} {k}"), answers, min)


def test_1895b_shortest_path_over_every_pairing_and_order():
    rng = random.Random(3)
    for _ in range(20):
        n = rng.randint(2, 3)
        a = [rng.randint(0, 9) for _ in range(2 * n)]
        answers = {}
        for order in set(permutations(a)):
            points = list(zip(order[::2], order[1::2]))
            length = sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(points, points[1:]))
            answers[f"{length} {joined(order)}"] = length
        exactly_the_best("1895B", one_case(n, joined(a)), answers, min)


def _brightness(torch: dict, n: int) -> dict:
    """Brightness of every room, by walking the staircases from every torch."""
    lit = Counter()
    for (i, j), on in torch.items():
        if on:
            reach = {(i, j)}
            for row in range(i, n):
                reach |= {(row + 1, c + d) for r, c in reach if r == row for d in (0, 1)}
            lit.update(reach)
    return lit


def test_1734b_nice_pyramids_with_the_best_brilliance():
    for n in range(1, 5):
        rooms = [(i, j) for i in range(1, n + 1) for j in range(1, i + 1)]
        answers = {}
        for bits in product((0, 1), repeat=len(rooms)):
            torch = dict(zip(rooms, bits))
            lit = _brightness(torch, n)
            nice = all(len({lit[(i, j)] for j in range(1, i + 1)}) == 1 for i in range(1, n + 1))
            text = "\n".join(joined(torch[(i, j)] for j in range(1, i + 1)) for i in range(1, n + 1))
            answers[text] = sum(lit[(i, 1)] for i in range(1, n + 1)) if nice else -1
        exactly_the_best("1734B", one_case(n), answers)


def test_1716b_longest_chains():
    for n in range(2, 5):
        chains = []

        def extend(chain):
            chains.append(chain)
            last = chain[-1]
            fixed = sum(v == i for i, v in enumerate(last, 1))
            for i, j in combinations(range(n), 2):
                nxt = list(last)
                nxt[i], nxt[j] = nxt[j], nxt[i]
                if sum(v == k for k, v in enumerate(nxt, 1)) < fixed:
                    extend(chain + [tuple(nxt)])
        extend([tuple(range(1, n + 1))])
        exactly_the_best("1716B", one_case(n), {f"{len(c)}\n" + "\n".join(map(joined, c)): len(c) for c in chains})


def test_1773f_fewest_draws():
    for n in range(1, 4):
        for a, b in product(range(4), repeat=2):
            answers = {}
            for scores in product(product(range(4), repeat=2), repeat=n):
                if sum(x for x, _ in scores) == a and sum(y for _, y in scores) == b:
                    draws = sum(x == y for x, y in scores)
                    answers[f"{draws}\n" + "\n".join(f"{x}:{y}" for x, y in scores)] = draws
            exactly_the_best("1773F", f"{n}\n{a}\n{b}\n", answers, min)
    assert accepts("1773F", "1\n2\n1\n", "0\n2 : 1")  # spaces around the colon are fine


def test_1728a_colours_that_can_remain():
    def last_colours(cnt):
        seen, stack, found = set(), [tuple(cnt)], set()
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            alive = [i for i, c in enumerate(state) if c]
            if len(alive) == 1:
                found.add(alive[0] + 1)
            for i, j in combinations(alive, 2):
                stack.append(tuple(c - (k in (i, j)) for k, c in enumerate(state)))
        return found
    for n in range(1, 4):
        for cnt in product(range(1, 5), repeat=n):
            if sum(cnt) % 2:
                inp = one_case(n, joined(cnt))
                assert_accepts_exactly("1728A", inp, {str(c): c in last_colours(cnt) for c in range(1, n + 1)})


def test_1838a_initial_numbers_by_every_order_of_writing():
    def valid_initial(a):
        found = set()
        for i, j in permutations(range(len(a)), 2):
            rest = [v for k, v in enumerate(a) if k not in (i, j)]
            for order in set(permutations(rest)):
                board = [a[i], a[j]]
                for v in order:
                    if not any(abs(p - q) == v for p, q in combinations(board, 2)):
                        break
                    board.append(v)
                else:
                    found.add(a[i])
                    break
        return found
    rng = random.Random(4)
    for _ in range(150):
        board = [rng.randint(-4, 9), rng.randint(-4, 9)]
        for _ in range(rng.randint(1, 4)):
            p, q = rng.sample(board, 2)
            board.append(abs(p - q))
        rng.shuffle(board)
        inp = one_case(len(board), joined(board))
        assert_accepts_exactly("1838A", inp, {str(v): v in valid_initial(board) for v in range(-5, 11)})
